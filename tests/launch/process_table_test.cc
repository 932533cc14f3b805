#include "launch/process_table.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace workgate {
namespace {

TEST(ProcessTableTest, ParsesANameWithSpacesAndParentheses) {
  const char* stat = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560";
  pid_t ppid = 0;
  char state = 0;
  ASSERT_TRUE(ParseProcStat(stat, static_cast<int>(strlen(stat)), &ppid, &state));
  EXPECT_EQ(ppid, 17);
  EXPECT_EQ(state, 'S');
}

TEST(ProcessTableTest, RejectsMalformedText) {
  pid_t ppid = 0;
  char state = 0;
  for (const char* bad : {"", "4242 (name", "4242 (name)", "4242 (name) S", "1 (x) S x"}) {
    EXPECT_FALSE(ParseProcStat(bad, static_cast<int>(strlen(bad)), &ppid, &state)) << bad;
  }
}

TEST(ProcessTableTest, ListsThisProcessesChildrenAndSeesAZombie) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t running = fork();
  if (running == 0) {
    char c;
    ssize_t n = read(ready[0], &c, 1);  // until the test is done
    _exit(n == 1 ? 0 : 1);
  }
  pid_t exited = fork();
  if (exited == 0) _exit(0);
  // Wait until the second child is a zombie.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, exited, &info, WEXITED | WNOWAIT), 0);

  ChildProcess kids[64];
  int n = ListChildren(getpid(), kids, 64);
  bool saw_running = false, saw_zombie = false;
  for (int i = 0; i < n; ++i) {
    if (kids[i].pid == running) saw_running = !kids[i].zombie;
    if (kids[i].pid == exited) saw_zombie = kids[i].zombie;
  }
  EXPECT_TRUE(saw_running);
  EXPECT_TRUE(saw_zombie);
  ASSERT_EQ(write(ready[1], "x", 1), 1);
  waitpid(running, nullptr, 0);
  waitpid(exited, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace workgate
