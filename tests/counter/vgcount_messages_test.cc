#include "counter/vgcount_messages.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

namespace workgate {
namespace {

// A message as vgcount sends it: header, then `data`.
std::string Message(VgcountKind kind, int pid, uint8_t token, const std::string& data = "",
                    bool end = false) {
  VgcountHeader h{};
  h.magic = kVgcountMagic;
  h.kind = static_cast<uint32_t>(kind);
  h.pid = pid;
  h.flags = end ? kVgcountEnd : 0;
  std::memset(h.token, token, sizeof h.token);
  return std::string(reinterpret_cast<const char*>(&h), sizeof h) + data;
}

std::string Hello(int pid, uint8_t token, int parent) {
  return Message(VgcountKind::kHello, pid, token,
                 std::string(reinterpret_cast<const char*>(&parent), sizeof parent));
}

class VgcountMessagesTest : public ::testing::Test {
 protected:
  void Send(long long sender, const std::string& m) {
    messages_.Receive(sender, m.data(), m.size());
  }
  // A whole count output of `pid` under `token`.
  void Count(long long sender, int pid, uint8_t token, const std::string& text) {
    Send(sender, Message(VgcountKind::kCount, pid, token, text));
    Send(sender, Message(VgcountKind::kCount, pid, token, "", true));
  }
  bool Finish() { return messages_.Finish(&processes_, &why_); }

  VgcountMessages messages_;
  std::map<int, VgcountProcess> processes_;
  std::string why_;
};

TEST_F(VgcountMessagesTest, AProcessThatSaidHelloAndSentItsCountIsComplete) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 42\n");
  ASSERT_TRUE(Finish()) << why_;
  ASSERT_EQ(processes_.count(2), 1u);
  EXPECT_EQ(processes_[2].parent, 1);
  EXPECT_TRUE(processes_[2].complete());
  EXPECT_EQ(processes_[2].counts[0].bytes, "instructions: 42\n");
}

TEST_F(VgcountMessagesTest, AProcessWhoseCountNeverCameIsIncomplete) {
  Send(9001, Hello(2, 7, 1));
  Send(9002, Hello(3, 8, 2));
  Count(9001, 2, 7, "instructions: 42\n");
  ASSERT_TRUE(Finish()) << why_;
  EXPECT_TRUE(processes_[2].complete());
  EXPECT_FALSE(processes_[3].complete());
}

TEST_F(VgcountMessagesTest, ACountFromAProcessThatSaidNoHelloIsForged) {
  Send(9001, Hello(2, 7, 1));
  Count(9002, 3, 7, "instructions: 1\n");  // the right token, another process
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("that its vgcount did not send"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, ACountWithAnotherTokenIsForged) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 8, "instructions: 1\n");
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("could be forged"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, SimulatedEventsWithoutTheTokenAreForged) {
  // The simulated events travel in the count: a program that sends a count
  // of its own with better figures is refused like any other forgery, and
  // the genuine count is the one kept.
  const std::string genuine = "instructions: 5\nsimulated: Bcm=900\n";
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, genuine);
  Count(9001, 2, 8, "instructions: 5\nsimulated: Bcm=0\n");
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("could be forged"), std::string::npos) << why_;
  VgcountMessages alone;
  for (const std::string& m : {Hello(2, 7, 1), Message(VgcountKind::kCount, 2, 7, genuine, true)}) {
    alone.Receive(9001, m.data(), m.size());
  }
  std::map<int, VgcountProcess> processes;
  std::string why;
  ASSERT_TRUE(alone.Finish(&processes, &why)) << why;
  EXPECT_EQ(processes[2].counts[0].bytes, genuine);
}

TEST_F(VgcountMessagesTest, ACountUnderAnotherProcessesPidIsForged) {
  Send(9001, Hello(2, 7, 1));
  Send(9002, Hello(3, 8, 2));
  Count(9002, 2, 8, "instructions: 1\n");  // process 3 speaking as 2, with its own token
  EXPECT_FALSE(Finish());
}

TEST_F(VgcountMessagesTest, ASecondHelloWithoutAnExecIsForged) {
  Send(9001, Hello(2, 7, 1));
  Send(9001, Hello(2, 9, 1));  // the program, choosing a token of its own
  Count(9001, 2, 9, "instructions: 1\n");
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("second hello"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, TwoProcessesCannotSayHelloAsOnePid) {
  Send(9001, Hello(2, 7, 1));
  Send(9002, Hello(2, 8, 1));
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("cannot be told apart"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, APidThatComesBackForAnotherProcessIsSaidSo) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 42\n");
  Send(9001, Hello(5, 8, 1));  // the kernel gave the ended process's pid to a new one
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("cannot be told apart"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, AnExecSplitsTheProcessIntoPartsThatAddUp) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/bin/true"));
  Send(9001, Hello(2, 9, 1));  // the new program's vgcount
  Count(9001, 2, 9, "instructions: 50\n");
  ASSERT_TRUE(Finish()) << why_;
  const VgcountProcess& p = processes_[2];
  ASSERT_EQ(p.counts.size(), 2u);
  EXPECT_EQ(p.counts[1].bytes, "instructions: 50\n");
  ASSERT_EQ(p.execs.size(), 1u);
  EXPECT_EQ(p.execs[0].path, "/bin/true");
  EXPECT_EQ(p.execs[0].part, 0);
  EXPECT_TRUE(p.complete());
}

TEST_F(VgcountMessagesTest, TheOldTokenIsWorthNothingAfterTheExec) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/bin/true"));
  Send(9001, Hello(2, 9, 1));
  Count(9001, 2, 7, "instructions: 1\n");
  EXPECT_FALSE(Finish());
}

TEST_F(VgcountMessagesTest, AFailedExecGoesOnUnderTheSameToken) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/nonexistent"));
  Send(9001, Message(VgcountKind::kExecFailed, 2, 7));
  Count(9001, 2, 7, "instructions: 20\n");
  ASSERT_TRUE(Finish()) << why_;
  EXPECT_EQ(processes_[2].counts.size(), 2u);
  EXPECT_TRUE(processes_[2].complete());
}

TEST_F(VgcountMessagesTest, AHelloAfterAFailedExecIsForged) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/nonexistent"));
  Send(9001, Message(VgcountKind::kExecFailed, 2, 7));
  Send(9001, Hello(2, 9, 1));
  EXPECT_FALSE(Finish());
}

TEST_F(VgcountMessagesTest, AnExecWhoseProgramNeverSaidHelloRanUncounted) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/bin/true"));
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("ran /bin/true by exec, and no vgcount counted it"), std::string::npos)
      << why_;
}

TEST_F(VgcountMessagesTest, AnExecBeforeTheCountEndedIsOutOfTurn) {
  Send(9001, Hello(2, 7, 1));
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/bin/true"));
  Send(9001, Hello(2, 9, 1));
  EXPECT_FALSE(Finish());
}

TEST_F(VgcountMessagesTest, ASecondCountInOnePartIsForged) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1000\n");
  Count(9001, 2, 7, "instructions: 1\n");
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("second count"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, ACountWithoutItsEndIsNotTaken) {
  Send(9001, Hello(2, 7, 1));
  Send(9001, Message(VgcountKind::kCount, 2, 7, "instructions: 1000\n"));
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("without its end message"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, TamperAndUncountedWorkNameWhatTheProgramDid) {
  Send(9001, Hello(2, 7, 1));
  Send(9001, Message(VgcountKind::kTamper, 2, 7, "dup2", true));
  Send(9001, Message(VgcountKind::kUncounted, 2, 7, "CALLGRIND_ZERO_STATS", true));
  Send(9001, Message(VgcountKind::kUncounted, 2, 7, "VALGRIND_NON_SIMD_CALL", true));
  Send(9001, Message(VgcountKind::kUncounted, 2, 7, "region-again", true));
  EXPECT_FALSE(Finish());
  EXPECT_NE(why_.find("called dup2"), std::string::npos) << why_;
  EXPECT_NE(why_.find("CALLGRIND_ZERO_STATS"), std::string::npos) << why_;
  EXPECT_NE(why_.find("VALGRIND_NON_SIMD_CALL, which Valgrind runs on the real CPU"),
            std::string::npos)
      << why_;
  EXPECT_NE(why_.find("turned counting on again"), std::string::npos) << why_;
}

TEST_F(VgcountMessagesTest, AnExecPathIsBoundedAndKeepsNoControlCharacter) {
  Send(9001, Hello(2, 7, 1));
  Count(9001, 2, 7, "instructions: 1\n");
  Send(9001, Message(VgcountKind::kExec, 2, 7, "/bin/\x1b[2J" + std::string(300, 'a')));
  Send(9001, Hello(2, 9, 1));
  Count(9001, 2, 9, "instructions: 1\n");
  ASSERT_TRUE(Finish()) << why_;
  const std::string& path = processes_[2].execs[0].path;
  EXPECT_EQ(path.find('\x1b'), std::string::npos) << path;
  EXPECT_LE(path.size(), 203u);
}

TEST_F(VgcountMessagesTest, AMessageThatIsNotVgcountsIsRefused) {
  Send(9001, "short");
  std::string wrong_magic = Hello(2, 7, 1);
  wrong_magic[0] ^= 1;
  Send(9002, wrong_magic);
  EXPECT_FALSE(Finish());
}

}  // namespace
}  // namespace workgate
