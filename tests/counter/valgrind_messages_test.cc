#include "counter/valgrind_messages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "util/paths.h"

namespace workgate {
namespace {

// The banner every Valgrind log starts with (callgrind, 3.19).
const char kBanner[] =
    "==13302== Callgrind, a call-graph generating cache profiler\n"
    "==13302== Copyright (C) 2002-2017, and GNU GPL'd, by Josef Weidendorfer et al.\n"
    "==13302== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n"
    "==13302== Command: /tmp/workgate-0/w1df1bf33fdce0806/exe 20\n"
    "==13302== Parent PID: 1\n"
    "==13302== \n"
    "==13302== For interactive control, run 'callgrind_control -h'.\n";

std::optional<long long> ParentPid(const std::string& log) {
  std::istringstream in(log);
  return ParentPidInBanner(in);
}

TEST(ParentPidInBannerTest, ReadsTheBannersParentPid) {
  EXPECT_EQ(ParentPid(kBanner), 1);
  EXPECT_EQ(ParentPid("==7== Command: x\n==7== Parent PID: 32761\n==7== \n"), 32761);
}

TEST(ParentPidInBannerTest, OnlyTheBannerCounts) {
  // After the banner's blank line the program can make Valgrind print what it
  // likes (a client request); an empty log is a process killed as it forked.
  EXPECT_EQ(ParentPid("==7== Command: x\n==7== \n==7== Parent PID: 3\n"), std::nullopt);
  EXPECT_EQ(ParentPid(""), std::nullopt);
  EXPECT_EQ(ParentPid("Parent PID: 3\n"), std::nullopt);
  EXPECT_EQ(ParentPid("==7== Parent PID: 3x\n"), std::nullopt);
  EXPECT_EQ(ParentPid("==7== Parent PID: \n"), std::nullopt);
}

TEST(ValgrindErrorsInTest, TheBannerAndTheProgramsOwnCrashAreNotValgrindErrors) {
  EXPECT_TRUE(ValgrindErrorsIn(kBanner).empty());
  const std::string crash = std::string(kBanner) +
                            "==13407== Process terminating with default action of signal 11 "
                            "(SIGSEGV)\n"
                            "==13407==  Access not within mapped region at address 0x0\n"
                            "==13407==    at 0x109165: main (in /tmp/vgx/segv)\n";
  EXPECT_TRUE(ValgrindErrorsIn(crash).empty());
}

TEST(ValgrindErrorsInTest, QuotesValgrindsOwnFailuresWithoutThePrefix) {
  const std::string log = std::string(kBanner) +
                          "==14051== valgrind: ./binfile: cannot execute binary file\n"
                          "==13421== valgrind: Unrecognised instruction at address 0x10912d.\n"
                          "==13421==    at 0x10912D: main (in /tmp/vgx/ill)\n"
                          "==2== VG_(mkstemp): failed to create temp file: /tmp/valgrind_x\n"
                          "--2-- Valgrind: FATAL: aspacem assertion failed:\n"
                          "\n"
                          "vex: the `impossible' happened:\n";
  EXPECT_EQ(ValgrindErrorsIn(log),
            (std::vector<std::string>{
                "valgrind: ./binfile: cannot execute binary file",
                "valgrind: Unrecognised instruction at address 0x10912d.",
                "VG_(mkstemp): failed to create temp file: /tmp/valgrind_x",
                "Valgrind: FATAL: aspacem assertion failed:", "vex: the `impossible' happened:"}));
}

TEST(ValgrindErrorsInTest, EachLineOnceAndFewOfThem) {
  std::string log;
  for (int i = 0; i < 3; ++i) log += "==2== valgrind: same\n";
  for (int i = 0; i < 20; ++i) log += "==2== valgrind: line " + std::to_string(i) + "\n";
  log += "==2== valgrind: " + std::string(1000, 'x') + "\n";
  auto errors = ValgrindErrorsIn(log, 4);
  EXPECT_EQ(errors, (std::vector<std::string>{"valgrind: same", "valgrind: line 0",
                                              "valgrind: line 1", "valgrind: line 2"}));
  errors = ValgrindErrorsIn("==2== valgrind: " + std::string(1000, 'x') + "\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].size(), 303u);  // 300 characters and "..."
}

TEST(UndecodedInstructionAdviceTest, RdtscpSendsCallgrindUsersToVgcount) {
  // Valgrind 3.19 running a Go program under callgrind on a CPU without RDTSCP.
  const std::string log =
      "==6180== Command: /tmp/pin_go\n"
      "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48\n"
      "==6180== valgrind: Unrecognised instruction at address 0x45d029.\n";
  const std::string callgrind = UndecodedInstructionAdvice(log, "callgrind");
  EXPECT_NE(callgrind.find("RDTSCP"), std::string::npos) << callgrind;
  EXPECT_NE(callgrind.find("--backend vgcount"), std::string::npos) << callgrind;
  EXPECT_NE(UndecodedInstructionAdvice(log, "vgcount").find("without asking CPUID"),
            std::string::npos);
  // Another instruction: its bytes, its instruction set, the build option
  // that leaves it out, and no backend that Valgrind runs.
  const std::string other = UndecodedInstructionAdvice(
      "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7C 0x48 <b>\n", "vgcount");
  EXPECT_NE(other.find("bytes 0x62 0xF1 0x7C 0x48 b"), std::string::npos) << other;
  EXPECT_NE(other.find("an AVX-512 instruction (EVEX-encoded)"), std::string::npos) << other;
  EXPECT_NE(other.find("build without -march=native (or add -mno-avx512f)"), std::string::npos)
      << other;
  EXPECT_NE(other.find("--backend perf"), std::string::npos) << other;
  EXPECT_EQ(other.find('<'), std::string::npos) << other;
  // Bytes that name no instruction set it knows: said so, no set guessed.
  const std::string unknown = UndecodedInstructionAdvice(
      "vex amd64->IR: unhandled instruction bytes: 0xC5 0xF5 0xFE 0xC2\n", "callgrind");
  EXPECT_NE(unknown.find("its instruction set is unknown, VEX-encoded"), std::string::npos)
      << unknown;
  EXPECT_EQ(unknown.find("AVX-512"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("--backend perf"), std::string::npos) << unknown;
  EXPECT_EQ(UndecodedInstructionAdvice("==1== Command: x\n", "callgrind"), "");
}

TEST(ToolFailureAdviceTest, CallgrindsSignalAssertionSendsGoUsersToVgcount) {
  // Valgrind 3.24's callgrind on a Go program under load (its own lines have
  // no prefix).
  const std::string log =
      "==5234== Command: /tmp/pin_go\n"
      "runtime.sigreturn__sigaction.abi0\n"
      "BB# 37766\n\n"
      "Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion 'sigNum == "
      "vgCallgrind_current_state.sig' failed.\n\n"
      "host stacktrace:\n";
  const std::vector<std::string> errors = ValgrindErrorsIn(log);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("Callgrind: threads.c:247 (vgCallgrind_post_signal)", 0), 0u)
      << errors[0];
  const std::string advice = ToolFailureAdvice(log, "callgrind");
  EXPECT_NE(advice.find("SIGURG"), std::string::npos) << advice;
  EXPECT_NE(advice.find("--backend vgcount"), std::string::npos) << advice;
  // Not vgcount's advice, and RDTSCP's still comes through.
  EXPECT_EQ(ToolFailureAdvice(log, "vgcount"), "");
  EXPECT_NE(
      ToolFailureAdvice("vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9\n", "callgrind")
          .find("RDTSCP"),
      std::string::npos);
}

TEST(ValgrindErrorsInTest, AnImpossibleEventKeepsItsReason) {
  const std::string log =
      "==7== Command: ./x\n==7== \nUse --max-threads=INT to specify a larger number of threads\n"
      "and rerun valgrind\n\nvalgrind: the 'impossible' happened:\n   Max number of threads is "
      "too low\n\nhost stacktrace:\n==7==    at 0x5802561A: ???\n";
  EXPECT_EQ(ValgrindErrorsIn(log),
            std::vector<std::string>{
                "valgrind: the 'impossible' happened: Max number of threads is too low"});
  // A reason is bounded, and made one line of text.
  const std::string long_reason = "valgrind: the 'impossible' happened:\n" + std::string(10, ' ') +
                                  "\x1b[2J" + std::string(1000, 'r') + "\n" +
                                  std::string(1000, 's') + "\n";
  const std::vector<std::string> cut = ValgrindErrorsIn(long_reason);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_LE(cut[0].size(), 303u);
  EXPECT_EQ(cut[0].find('\x1b'), std::string::npos) << cut[0];
  EXPECT_EQ(cut[0].find("sss"), std::string::npos) << "the second line was not needed";
}

TEST(FilledByWorkloadTest, OnlyWhatTheWorkloadWroteItselfIsItsFault) {
  const SpaceLeft before{true, 7, 16 << 20, 100000}, now{true, 7, 0, 99990};
  // It wrote 15 of the 16 MiB that were free: its own doing.
  EXPECT_NE(FilledByWorkload(before, now, "/w", 7, TreeUsage{15 << 20, 3}), "");
  // Something else took the room meanwhile, or the disk was full before.
  EXPECT_EQ(FilledByWorkload(before, now, "/w", 7, TreeUsage{1 << 20, 3}), "");
  EXPECT_EQ(FilledByWorkload({true, 7, 60 << 10, 100000}, now, "/w", 7, TreeUsage{60 << 10, 3}),
            "");
  // Its directory is elsewhere, or unknown.
  EXPECT_EQ(FilledByWorkload(before, now, "/w", 8, TreeUsage{15 << 20, 3}), "");
  EXPECT_EQ(FilledByWorkload(before, now, "", 7, TreeUsage{15 << 20, 3}), "");
  // Inodes: it made the files that used them up.
  EXPECT_NE(FilledByWorkload({true, 7, 16 << 20, 5000}, {true, 7, 16 << 20, 0}, "/w", 7,
                             TreeUsage{4096, 4990}),
            "");
}

TEST(FilledByWorkloadTest, UsageOfCountsEachFileOnce) {
  TempDir dir;
  std::ofstream(dir.path() + "/a") << std::string(100000, 'a');
  ASSERT_EQ(link((dir.path() + "/a").c_str(), (dir.path() + "/b").c_str()), 0);
  ASSERT_EQ(symlink("/usr", (dir.path() + "/exe").c_str()), 0);
  const TreeUsage used = UsageOf(dir.path());
  EXPECT_EQ(used.inodes, 3u);  // the directory, a (b is a), the link
  EXPECT_GE(used.bytes, 100000u);
  EXPECT_LT(used.bytes, 1000000u);  // /usr was not followed
}

TEST(FullFileSystemTest, AFileSystemWithRoomIsNotFull) {
  // The build's own directory has room, or the build could not have run.
  EXPECT_EQ(FullFileSystem(WORKGATE_BUILD_DIR), "");
  EXPECT_EQ(FullFileSystem("/nonexistent/dir"), "");  // cannot be asked: not claimed full
}

TEST(UntracedExecutablesInTest, NamesEachSetuidProgramOnce) {
  const std::string log =
      "==7== Callgrind, a call-graph generating cache profiler\n"
      "==7== Warning: Can't execute setuid/setgid/setcap executable: /w/suid-copy\n"
      "==7== Possible workaround: remove --trace-children=yes, if in effect\n"
      "==7== Warning: Can't execute setuid/setgid/setcap executable: /w/suid-copy\n"
      "==7== Warning: Can't execute setuid/setgid/setcap executable: /usr/bin/passwd\n";
  EXPECT_EQ(UntracedExecutablesIn(log),
            (std::vector<std::string>{"/w/suid-copy", "/usr/bin/passwd"}));
}

TEST(UntracedExecutablesInTest, OnlyValgrindsOwnLinesCount) {
  // The program's own output never reaches the log, but a line without
  // Valgrind's prefix is not Valgrind's either way.
  EXPECT_TRUE(UntracedExecutablesIn("Warning: Can't execute setuid/setgid/setcap executable: /x\n")
                  .empty());
  EXPECT_TRUE(UntracedExecutablesIn("==7== Command: ./prog\n").empty());
  const std::string long_path(1000, 'a');
  const auto cut = UntracedExecutablesIn(
      "==7== Warning: Can't execute setuid/setgid/setcap executable: " + long_path + "\n");
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0], std::string(300, 'a') + "...");
}

}  // namespace
}  // namespace workgate
