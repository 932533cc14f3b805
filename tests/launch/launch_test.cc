#include "launch/launch.h"

#include <errno.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>

#include <optional>
#include <string>
#include <vector>

#include "hostile/hostile_paths.h"
#include "launch/syscall_filter.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::KnownLoop;

LaunchSpec Spec(std::vector<std::string> argv) {
  LaunchSpec spec;
  spec.argv = std::move(argv);
  spec.env = MinimalEnvironment("/tmp");
  spec.timeout_seconds = 20;
  return spec;
}

TEST(LaunchTest, CapturesOutputAndExitStatus) {
  LaunchResult r = Launch(Spec({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}));
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe(), "exited with status 3");
}

TEST(LaunchTest, UsesExactlyTheGivenEnvironmentArgv0AndDirectory) {
  LaunchSpec spec = Spec({"custom-argv0", "-c", "echo \"$0|$(pwd)|$(env | sort | tr '\\n' ' ')\""});
  spec.exec_path = "/bin/sh";
  spec.cwd = "/usr";
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"ONLY", "this"}};
  LaunchResult r = Launch(spec);
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  EXPECT_EQ(r.out, "custom-argv0|/usr|ONLY=this PATH=/usr/bin:/bin PWD=/usr \n");
}

TEST(LaunchTest, StdinIsDevNull) {
  LaunchResult r = Launch(Spec({"/bin/sh", "-c", "readlink /proc/self/fd/0"}));
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.out, "/dev/null\n");
}

TEST(LaunchTest, TurnsOffAddressSpaceRandomisation) {
  LaunchSpec spec = Spec({"/bin/cat", "/proc/self/personality"});
  spec.no_aslr = true;
  LaunchResult r = Launch(spec);
  ASSERT_TRUE(r.ok()) << r.Describe();
  // ADDR_NO_RANDOMIZE is 0x0040000.
  EXPECT_NE(std::stoul(r.out, nullptr, 16) & 0x0040000UL, 0UL) << r.out;
}

TEST(LaunchTest, ReportsASignal) {
  LaunchResult r = Launch(Spec({KnownLoop(), "--crash"}));
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.Describe().find("killed by signal 11"), std::string::npos) << r.Describe();
}

// Whether no process `pid` exists any more, not even as a zombie: the
// supervisor (a subreaper, src/launch/supervisor.cc) reaps every process of
// the tree, and workgate what escapes it, before Launch returns.
bool Gone(pid_t pid) { return kill(pid, 0) == -1 && errno == ESRCH; }

TEST(LaunchTest, TimeoutKillsTheWholeProcessTree) {
  // The workload (a shell) starts a child that would outlive it: in a
  // session of its own (out of the workload's process group) and writing
  // nowhere near workgate's output pipes, so neither the workload's end,
  // nor killing its process group, nor the pipes' end of file reaches it.
  // Only killing the tree does. Both write their pid first.
  TempDir dir;
  const std::string pids = dir.path() + "/pids";
  LaunchSpec spec =
      Spec({"/bin/sh", "-c",
            "echo $$ > " + pids + "; setsid sleep 1000 </dev/null >/dev/null 2>&1 & " +
                "echo $! >> " + pids + "; wait"});
  spec.timeout_seconds = 2;
  // A Launch that waited for the child instead of killing it would wait
  // 1000 s: LaunchUntilRecorded ends the child after a minute.
  std::optional<LaunchResult> r = testing::LaunchUntilRecorded(&spec, pids, 2);
  ASSERT_TRUE(r.has_value()) << "Launch did not return a minute after its timeout";
  EXPECT_TRUE(r->timed_out);
  const std::string timeout = fmt::format("timed out after {:g} s", spec.timeout_seconds);
  EXPECT_NE(r->Describe(spec.timeout_seconds).find(timeout), std::string::npos)
      << r->Describe(spec.timeout_seconds);
  const std::vector<pid_t> recorded = testing::RecordedPids(pids);
  ASSERT_EQ(recorded.size(), 2u) << "the shell did not start its child within the timeout";
  for (pid_t pid : recorded) {
    if (!Gone(pid)) {
      ADD_FAILURE() << "pid " << pid << " outlived Launch";
      kill(pid, SIGKILL);  // not left running after the test
    }
  }
  // The supervisor itself killed the child (the shell was the workload).
  EXPECT_EQ(r->leftover_processes, 1);
}

TEST(LaunchTest, MissingProgramDoesNotStart) {
  LaunchResult r = Launch(Spec({"/nonexistent/program"}));
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("No such file"), std::string::npos) << r.start_error;
  EXPECT_NE(r.Describe().find("could not start"), std::string::npos);
}

TEST(LaunchTest, RunsAsPidTwoInAFreshPidNamespace) {
  if (!PidNamespaceAvailable()) GTEST_SKIP() << "PID namespaces need root or user namespaces";
  LaunchSpec spec = Spec({"/bin/sh", "-c", "echo $$; exit 7"});
  spec.new_pid_namespace = true;
  LaunchResult r = Launch(spec);
  EXPECT_EQ(r.exit_code, 7) << r.Describe();
  EXPECT_EQ(r.out, "2\n");
}

TEST(LaunchTest, PidNamespaceKeepsTheSignal) {
  if (!PidNamespaceAvailable()) GTEST_SKIP() << "PID namespaces need root or user namespaces";
  LaunchSpec spec = Spec({KnownLoop(), "--crash"});
  spec.new_pid_namespace = true;
  LaunchResult r = Launch(spec);
  EXPECT_EQ(r.signal, SIGSEGV) << r.Describe();
  // A signal the workload sends itself works too (it is not the namespace's init).
  spec.argv = {"/bin/sh", "-c", "kill -TERM $$; sleep 5"};
  r = Launch(spec);
  EXPECT_EQ(r.signal, SIGTERM) << r.Describe();
}

class FailingSetup : public ChildSetup {
 public:
  int InChild(int*, int* nfds) override {
    *nfds = 0;
    return EACCES;
  }
};

TEST(LaunchTest, APidNamespaceThatCannotBeMadeStopsTheLaunch) {
  // Once the workload ran on at another pid, unreported: a count of a
  // program that mixes its pid into a hash seed would move with it.
  // unshare(2) fails with EPERM in the launched tree, as on a machine whose
  // PID namespaces ran out.
  testing::SyscallFilterSetup setup(SYS_unshare, SECCOMP_RET_ERRNO | EPERM);
  LaunchSpec spec = Spec({"/bin/sh", "-c", "echo ran"});
  spec.new_pid_namespace = true;
  spec.setup = &setup;
  LaunchResult r = Launch(spec);
  EXPECT_FALSE(r.started) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.start_error,
            "cannot run the workload in a PID namespace of its own: Operation not permitted");
  EXPECT_EQ(r.leftover_processes, 0);
  // Without a namespace asked for, the same filter is no obstacle.
  spec.new_pid_namespace = false;
  r = Launch(spec);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.out, "ran\n");
}

TEST(LaunchTest, AFailedChildSetupStopsTheLaunchWithItsErrno) {
  FailingSetup setup;
  LaunchSpec spec = Spec({"/bin/true"});
  spec.setup = &setup;
  LaunchResult r = Launch(spec);
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.setup_errno, EACCES);
}

}  // namespace
}  // namespace workgate
