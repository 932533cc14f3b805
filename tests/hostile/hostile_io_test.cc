// The real workgate against candidates that go for its inputs and outputs:
// lines of a CI log, report paths over the files it reads, a store path
// over someone's file, JSON with a key twice, a full temporary directory,
// Valgrind's thread limit. Each test asserts the exit code, the message and
// that the attack took no effect.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "counter/valgrind_counter.h"
#include "hostile/hostile_paths.h"
#include "hostile/workgate_process.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BenignWorkload;
using testing::HostileWorkload;
using testing::RecordedPids;
using testing::WorkgateProcess;

// What a CI runner obeys at the start of a line, and a line that pretends
// to be workgate's verdict.
const char* const kCiLines[] = {"::add-mask::", "::stop-commands::", "::error", "##[group]",
                                "workgate: ok"};

// The lines of `text` that start with what kCiLines names, but for those
// `allowed` matches.
std::vector<std::string> CiLinesIn(const std::string& text, const std::regex& allowed) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    for (const char* start : kCiLines) {
      if (line.rfind(start, 0) == 0 && !std::regex_match(line, allowed)) found.push_back(line);
    }
  }
  return found;
}

class HostileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    fs::create_directory(Path("tmp"));
    testing::CollectPids(Path("pids"));
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  std::unique_ptr<WorkgateProcess> Start(const std::vector<std::string>& args,
                                         std::map<std::string, std::string> more_env = {}) const {
    std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                              {"HOME", dir_.path()},
                                              {"TMPDIR", Path("tmp")},
                                              {"HOSTILE_PIDS", Path("pids")}};
    env.merge(more_env);
    return std::make_unique<WorkgateProcess>(args, env, dir_.path());
  }

  /// `compare` of the benign baseline and `candidate`, on one ad hoc command.
  std::vector<std::string> Compare(const std::string& candidate, std::vector<std::string> command,
                                   std::vector<std::string> options = {}) const {
    std::vector<std::string> args = {
        "compare", "--baseline", BenignWorkload(), "--candidate",  candidate,
        "--timed", "0",          "--pass-env",     "HOSTILE_PIDS", "--no-store"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return args;
  }

  /// A copy of the hostile program at `name` in the test's directory, and
  /// its bytes.
  std::string CopyOfHostile(const std::string& name) const {
    fs::copy_file(HostileWorkload(), Path(name));
    return ReadFile(Path(name)).value_or("");
  }

  TempDir dir_;
};

// --- No candidate text at the start of a CI log line ------------------------

TEST_F(HostileIoTest, PassedThroughOutputStartsNoLineAndIsFencedUnderGithubActions) {
  auto wg = Start({"count", "--", HostileWorkload(), "print",
                   "::add-mask::secret\n::stop-commands::x\n::error ::forged\n##[group]g\n"
                   "workgate: ok\xe2\x80\xa8::error ::after a line separator\rworkgate: ok"},
                  {{"GITHUB_ACTIONS", "true"}});
  ASSERT_EQ(wg->Wait(60), 0) << wg->err();
  const std::string out = wg->out();
  // Each of the program's lines is there, behind the prefix.
  EXPECT_NE(out.find("  | ::add-mask::secret\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  | ##\u200b[group]g\n"), std::string::npos) << out;  // the old form
  EXPECT_NE(out.find("  | ::error ::after a line separator"), std::string::npos) << out;
  // Only workgate's own fence starts a line with "::", and it ends with the
  // token it began with: 32 hex digits the program could not know.
  std::smatch fence;
  ASSERT_TRUE(std::regex_search(out, fence, std::regex("(^|\n)::stop-commands::([0-9a-f]{32})\n")))
      << out;
  const std::string token = fence[2];
  EXPECT_NE(out.find("\n::" + token + "::\n"), std::string::npos) << out;
  EXPECT_LT(out.find("::stop-commands::" + token), out.find("  | ::add-mask::")) << out;
  EXPECT_GT(out.find("\n::" + token + "::\n"), out.find("  | workgate: ok")) << out;
  const std::regex ours("::stop-commands::" + token + "|::" + token + "::");
  EXPECT_EQ(CiLinesIn(out, ours), std::vector<std::string>()) << out;
  EXPECT_EQ(CiLinesIn(wg->err(), ours), std::vector<std::string>()) << wg->err();
}

TEST_F(HostileIoTest, PassedThroughOutputIsPrefixedOutsideGithubActionsToo) {
  auto wg = Start({"count", "--", HostileWorkload(), "fail", "x\n::add-mask::secret\nworkgate: ok"},
                  {{"GITHUB_ACTIONS", "false"}});
  EXPECT_EQ(wg->Wait(60), 3) << wg->err();
  // The pass-through of stderr, and the error that quotes its end.
  EXPECT_NE(wg->err().find("  | ::add-mask::secret\n"), std::string::npos) << wg->err();
  EXPECT_NE(wg->err().find("its stderr ends:\n  | hostile: x\n  | ::add-mask::secret\n"),
            std::string::npos)
      << wg->err();
  EXPECT_EQ(wg->err().find("::stop-commands::"), std::string::npos) << wg->err();
  EXPECT_EQ(CiLinesIn(wg->out() + wg->err(), std::regex("$^")), std::vector<std::string>())
      << wg->out() << wg->err();
}

TEST_F(HostileIoTest, StderrQuotedByCompareStartsNoLine) {
  auto wg = Start(Compare(HostileWorkload(),
                          {"fail",
                           "x\n::add-mask::secret\n##[group]g\n::error ::forged\xe2\x80\xa8"
                           "workgate: ok\nmid-line ##[add-mask]verdict"},
                          {"--markdown", Path("r.md"), "--json", Path("r.json")}));
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("  | ::add-mask::secret"), std::string::npos) << wg->out();
  // The old form of a command, which the runner finds anywhere in a line.
  EXPECT_NE(wg->out().find("mid-line ##\u200b[add-mask]verdict"), std::string::npos) << wg->out();
  EXPECT_EQ((wg->out() + wg->err()).find("##[add-mask]"), std::string::npos);
  const std::regex none("$^");
  EXPECT_EQ(CiLinesIn(wg->out(), none), std::vector<std::string>()) << wg->out();
  EXPECT_EQ(CiLinesIn(wg->err(), none), std::vector<std::string>()) << wg->err();
  const std::string md = ReadFile(Path("r.md")).value_or("");
  ASSERT_NE(md, "");
  EXPECT_EQ(CiLinesIn(md, none), std::vector<std::string>()) << md;
}

// --- Inputs and outputs never collide ---------------------------------------

TEST_F(HostileIoTest, AReportOverTheCandidateIsRefusedBeforeAnythingRuns) {
  const std::string bytes = CopyOfHostile("cand");
  // Through another spelling of the path, and through a hard link.
  fs::create_hard_link(Path("cand"), Path("cand-link"));
  for (const std::string& report :
       {std::string("./cand"), Path("tmp/../cand"), Path("cand-link")}) {
    auto wg = Start(Compare(Path("cand"), {"sleep", "0"}, {"--markdown", report}));
    EXPECT_EQ(wg->Wait(60), 2) << report << ": " << wg->err();
    EXPECT_NE(wg->err().find("--markdown " + report), std::string::npos) << wg->err();
    EXPECT_NE(wg->err().find("--candidate " + Path("cand")), std::string::npos) << wg->err();
    EXPECT_EQ(ReadFile(Path("cand")).value_or(""), bytes) << "the candidate build changed";
  }
  EXPECT_TRUE(RecordedPids(Path("pids")).empty()) << "a workload ran";
}

TEST_F(HostileIoTest, AReportOverTheSuiteOrAnotherReportIsRefused) {
  const std::string suite =
      "[[workload]]\nname = \"w\"\ncommand = [\"{exe}\", \"sleep\", \"0\"]\nclock = "
      "\"env\"\ntimeout = 60\n[workload.score]\npattern = 'score: ([0-9]+)'\nexpect = \"1\"\n";
  std::ofstream(Path("suite.toml")) << suite;
  auto wg =
      Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(), "--suite",
             "suite.toml", "--timed", "0", "--no-store", "--json", Path("suite.toml")});
  EXPECT_EQ(wg->Wait(60), 2) << wg->err();
  EXPECT_NE(wg->err().find("--suite suite.toml"), std::string::npos) << wg->err();
  EXPECT_EQ(ReadFile(Path("suite.toml")).value_or(""), suite) << "the suite changed";

  std::ofstream(Path("old.md")) << "kept";
  auto two = Start(Compare(HostileWorkload(), {"sleep", "0"},
                           {"--markdown", Path("old.md"), "--save-baseline", "old.md"}));
  EXPECT_EQ(two->Wait(60), 2) << two->err();
  EXPECT_NE(two->err().find("--markdown " + Path("old.md")), std::string::npos) << two->err();
  EXPECT_NE(two->err().find("--save-baseline old.md"), std::string::npos) << two->err();
  EXPECT_EQ(ReadFile(Path("old.md")).value_or(""), "kept");

  // count: its --json over the program it counts.
  const std::string bytes = CopyOfHostile("prog");
  auto count = Start({"count", "--json", "prog", "--", Path("prog"), "sleep", "0"});
  EXPECT_EQ(count->Wait(60), 2) << count->err();
  EXPECT_NE(count->err().find("the command " + Path("prog")), std::string::npos) << count->err();
  EXPECT_EQ(ReadFile(Path("prog")).value_or(""), bytes);
  EXPECT_TRUE(RecordedPids(Path("pids")).empty()) << "a workload ran";
}

TEST_F(HostileIoTest, AStoreThatIsNoWorkgateStoreIsRefusedAndLeftAsItIs) {
  // A text file, and a database header of another application (as SQLite's
  // file format puts it: the magic string, application_id at offset 68).
  const std::string text = "root:x:0:0:root:/root:/bin/bash\n";
  std::string other(4096, '\0');
  other.replace(0, 16, std::string("SQLite format 3\0", 16));
  other[68] = '\x12';
  other[69] = '\x34';
  other[70] = '\x56';
  other[71] = '\x78';
  const std::pair<std::string, std::string> files[] = {{"passwd", text}, {"other.sqlite3", other}};
  const char* const said[] = {"not an SQLite database",
                              "an SQLite database of another application (application_id "
                              "0x12345678"};
  for (size_t i = 0; i < std::size(files); ++i) {
    const auto& [name, bytes] = files[i];
    std::ofstream(Path(name), std::ios::binary) << bytes;
    std::vector<std::string> args = Compare(HostileWorkload(), {"sleep", "0"});
    *std::find(args.begin(), args.end(), "--no-store") = "--store=" + Path(name);
    auto wg = Start(args);
    EXPECT_EQ(wg->Wait(60), 2) << wg->out() << wg->err();
    EXPECT_NE(wg->err().find("--store " + Path(name)), std::string::npos) << wg->err();
    EXPECT_NE(wg->err().find(said[i]), std::string::npos) << wg->err();
    EXPECT_EQ(ReadFile(Path(name)).value_or(""), bytes) << name << " changed";
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      EXPECT_EQ(entry.path().filename().string().find(".corrupt-"), std::string::npos)
          << "moved aside: " << entry.path();
    }
  }
  EXPECT_TRUE(RecordedPids(Path("pids")).empty()) << "a workload ran";
}

TEST_F(HostileIoTest, AStoredBaselineWithADuplicateKeyIsRefused) {
  auto save = Start({"compare", "--baseline", BenignWorkload(), "--save-baseline",
                     Path("base.json"), "--timed", "0", "--no-store", "--", "x"});
  ASSERT_EQ(save->Wait(120), 0) << save->err();
  // A second "counts" after the real one, a tenth of it: the last would win.
  std::string text = ReadFile(Path("base.json")).value_or("");
  const size_t counts = text.find("\"counts\"");
  ASSERT_NE(counts, std::string::npos) << text;
  text.insert(counts, "\"counts\": [1],\n");
  std::ofstream(Path("base.json")) << text;
  auto wg = Start({"compare", "--baseline-results", Path("base.json"), "--candidate",
                   BenignWorkload(), "--timed", "0", "--no-store", "--", "x"});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("duplicate key \"counts\""), std::string::npos) << wg->out();
  EXPECT_EQ(wg->out().find("work removed"), std::string::npos) << wg->out();
}

// The candidate fills its own TMPDIR (in its private directory) on a small
// file system of workgate's own. Under callgrind, whose files go to that
// file system, the count fails: the candidate's failure (3), not the
// machine's (5). vgcount's counts travel on its channel: they survive it.
// As a user, the tmpfs is mounted in a user namespace of workgate's own.
TEST_F(HostileIoTest, ACandidateThatFillsItsTemporaryDirectoryIsInvalid) {
  if (access("/usr/bin/unshare", X_OK) != 0) GTEST_SKIP() << "a private tmpfs needs unshare(1)";
  std::vector<std::string> unshare = {"/usr/bin/unshare", "--mount", "--propagation", "private"};
  if (getuid() != 0) unshare.insert(unshare.begin() + 1, {"--user", "--map-root-user"});
  for (const char* arg :
       {"/bin/sh", "-c", "mount -t tmpfs -o size=16m tmpfs \"$TMPDIR\" && exec \"$0\" \"$@\""}) {
    unshare.push_back(arg);
  }
  std::vector<std::pair<std::string, int>> backends = {{"callgrind", 3}};
#ifdef WORKGATE_VGCOUNT_BUILT
  backends.push_back({"vgcount", 0});
#endif
  for (const auto& [backend, code_expected] : backends) {
    auto wg = std::make_unique<WorkgateProcess>(
        std::vector<std::string>{"count", "--backend", backend, "--", HostileWorkload(),
                                 "fill-tmpdir"},
        std::map<std::string, std::string>{{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                           {"HOME", dir_.path()},
                                           {"TMPDIR", Path("tmp")}},
        dir_.path(), unshare);
    const auto code = wg->Wait(180);
    if (code == 126 || wg->err().rfind("unshare:", 0) == 0 ||
        wg->err().find("mount:") != std::string::npos) {
      GTEST_SKIP() << "cannot mount a private tmpfs here: " << wg->err();
    }
    EXPECT_EQ(code, code_expected) << backend << ": " << wg->out() << wg->err();
    if (code_expected == 3) {
      EXPECT_NE(wg->err().find("the workload filled the file system its own directory"),
                std::string::npos)
          << wg->err();
    } else {
      EXPECT_NE(wg->out().find("run 1/1: "), std::string::npos) << wg->out();
    }
    EXPECT_EQ(wg->err().find("is full"), std::string::npos) << wg->err();
  }
}

TEST_F(HostileIoTest, ValgrindsThreadLimitKeepsItsReason) {
  auto wg = Start(
      {"count", "--backend", "callgrind", "--quiet", "--", HostileWorkload(), "threads", "600"});
  EXPECT_EQ(wg->Wait(180), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->err().find("the 'impossible' happened: Max number of threads is too low"),
            std::string::npos)
      << wg->err();
}

}  // namespace
}  // namespace workgate
