#pragma once
// Starting a workload: one process tree, launched with Boost.Process, with
// the settings that make its instruction count reproducible (see
// design.md, "Reproducible launch"), a timeout that kills the whole tree,
// and a hook that runs in the child between fork and exec.

#include <map>
#include <string>
#include <vector>

namespace workgate {

/// Work done in the child after fork and before exec, such as opening the
/// perf counters that follow it. Runs in a forked copy of a possibly
/// multi-threaded process: async-signal-safe calls only, no allocation.
class ChildSetup {
 public:
  static constexpr int kMaxFds = 16;
  virtual ~ChildSetup() = default;
  /// Returns 0, or an errno value that stops the launch. Descriptors stored
  /// in fds[0..*nfds) are handed back to the parent (LaunchResult::fds).
  virtual int InChild(int* fds, int* nfds) = 0;
};

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0] as the program sees it
  std::string exec_path;          // the path given to execve; empty: argv[0]
  std::map<std::string, std::string> env;  // the complete environment
  std::string cwd;                // empty: workgate's own
  double timeout_seconds = 0;     // 0: no limit
  bool no_aslr = true;            // personality(ADDR_NO_RANDOMIZE)
  bool new_pid_namespace = false; // run as pid 2 of a fresh PID namespace
  ChildSetup* setup = nullptr;
};

struct LaunchResult {
  bool started = false;
  std::string start_error;  // why it did not start
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  bool timed_out = false;
  double wall_seconds = 0;
  std::string out;  // captured stdout
  std::string err;  // captured stderr
  std::vector<int> fds;  // descriptors the ChildSetup handed back; caller closes
  int setup_errno = 0;   // the errno that stopped the ChildSetup (then !started)

  /// Started, exited with status 0, no signal, no timeout.
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// "exited with status 3", "killed by signal 11 (Segmentation fault)",
  /// "timed out after 5 s (process tree killed)", "could not start: ...".
  std::string Describe(double timeout_seconds = 0) const;
};

/// Runs the program to completion (or timeout) with stdin from /dev/null and
/// fresh pipes for stdout and stderr, which are captured.
LaunchResult Launch(const LaunchSpec& spec);

/// Whether this machine lets workgate create a PID namespace (root or user
/// namespaces). Checked once by forking a child that tries.
bool PidNamespaceAvailable();

/// The fixed environment workgate runs workloads in: PATH, HOME, LC_ALL, TZ.
std::map<std::string, std::string> MinimalEnvironment(const std::string& home);

}  // namespace workgate
