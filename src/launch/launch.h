#pragma once
// Starting a workload: one process tree, launched with Boost.Process, with
// the settings that make its instruction count reproducible (docs/counting.md,
// "Reproducible launch"), contained (a supervisor that is the tree's
// subreaper kills whatever the workload leaves; a deadline covers the whole
// tree), and bounded (output is streamed: only a head and a tail are kept).
// A hook runs in the child between fork and exec (launch/supervisor.h).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
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
  /// Whether the workload itself keeps those descriptors across exec (a
  /// region's counters at fixed numbers); otherwise they are close-on-exec.
  virtual bool WorkloadKeepsFds() const { return false; }
};

/// A file a contained run sees at `path` in place of what is there: the
/// file `source` of this machine (LaunchSpec::files_in_place).
struct FileInPlace {
  std::string path;
  std::string source;
};

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0] as the program sees it
  std::string exec_path;          // the path given to execve; empty: argv[0]
  std::map<std::string, std::string> env;  // the complete environment
  std::string cwd;                // empty: workgate's own
  /// Where `cwd` is on this machine, when not at `cwd` itself: the run sees
  /// this directory bound at `cwd`, and so does every path under it (a
  /// workload's private directory, made at a path of its own so that two
  /// workgates of one workload need not take turns: WorkDir). Only with
  /// `new_pid_namespace`, for a `cwd` that BindableInRuns. Empty: `cwd`.
  std::string cwd_source;
  double timeout_seconds = 0;     // 0: no limit
  bool no_aslr = true;            // personality(ADDR_NO_RANDOMIZE)
  /// Run as pid 2 of a fresh PID namespace, with a mount namespace of its
  /// own in which /proc shows that namespace alone (not workgate, not the
  /// runner's other processes), /tmp, /var/tmp and /dev/shm are each a
  /// fresh tmpfs of its own (SharedTemporaryDirectories), and every file
  /// system is read-only but those, `cwd`, the environment's TMPDIR and
  /// `writable_dirs` (where the machine allows: ReadOnlyFileSystemAvailable).
  /// Bound at their own paths, the fresh directories covering them: those,
  /// `readonly_dirs` (directories or files, read-only), and what the command
  /// names in a fresh directory (the program executed, an argument that is
  /// an absolute path there), read-only. A TMPDIR in a fresh directory that
  /// does not exist is made there, empty (launch/file_system.h).
  /// Without root, in a user namespace that maps workgate's user to itself;
  /// either way the workload holds no capability.
  bool new_pid_namespace = false;
  std::vector<std::string> writable_dirs;
  std::vector<std::string> readonly_dirs;
  /// Directories that show empty to a contained run (BoundPath::kHidden):
  /// what it has no use for, such as the detached debug information of
  /// /usr/lib/debug for a count that keeps no profile.
  std::vector<std::string> hidden_dirs;
  /// Files a contained run sees in place of others, read-only: the
  /// decompressed copies of detached debug files (counter/debug_view.h).
  /// Where the run's file system stays the machine's (a chroot, an old
  /// kernel), it reads the files themselves.
  std::vector<FileInPlace> files_in_place;
  /// Sets RLIMIT_NOFILE's soft and hard limits both to kPinnedFdLimit (or
  /// the hard limit, when lower): what vgcount's channel needs to stay in
  /// Valgrind's reserved descriptors across exec (counter/vgcount_channel.h).
  bool pin_fd_limit = false;
  ChildSetup* setup = nullptr;
  /// Descriptors the workload inherits besides stdin, stdout and stderr;
  /// every other descriptor is closed at its exec.
  std::vector<int> inherit_fds;
  /// How long the workload's descendants may run on after it ends before
  /// they are killed (and reported as left running).
  double grace_seconds = 1.0;
  /// Each line of stdout as it arrives (see OutputCapture); may be empty.
  std::function<void(std::string_view)> stdout_line;
  /// Every chunk of output as it arrives, for passing it through: fd 1 or 2.
  std::function<void(int fd, std::string_view chunk)> passthrough;
};

/// The descriptor limit of a run with LaunchSpec::pin_fd_limit: 1,024 for
/// the program, and the 12 that Valgrind keeps for itself above them.
inline constexpr int kPinnedFdLimit = 1036;

struct LaunchResult {
  bool started = false;
  std::string start_error;  // why it did not start
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  bool timed_out = false;
  bool interrupted = false;  // workgate was interrupted: the tree was killed
  double wall_seconds = 0;   // from the workload's start to its end
  /// The workload's output: all of it when it was short, else its head and
  /// tail around a line saying how much was not kept (launch/output_capture.h).
  std::string out;
  std::string err;
  uint64_t out_bytes = 0;  // how much it printed in all
  uint64_t err_bytes = 0;
  /// Processes of the tree still running after the workload ended (or when
  /// the deadline came), all killed; -1 when unknown.
  int leftover_processes = 0;
  std::vector<int> fds;  // descriptors the ChildSetup handed back; caller closes
  int setup_errno = 0;   // the errno that stopped the ChildSetup (then !started)

  /// Started, exited with status 0, no signal, no timeout.
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// "exited with status 3", "killed by signal 11 (Segmentation fault)",
  /// "timed out after 5 s (process tree killed)", "could not start: ...".
  std::string Describe(double timeout_seconds = 0) const;
  /// "the workload left 2 processes running; they were killed", or "".
  std::string LeftoverNote() const;
};

/// Runs the program to completion (or timeout) with stdin from /dev/null and
/// fresh pipes for stdout and stderr, which are streamed. When it returns,
/// no process of the tree is left. Safe to call from several threads.
LaunchResult Launch(const LaunchSpec& spec);

/// Whether this machine lets workgate create a PID namespace and a mount
/// namespace with a fresh /proc (as root, or in a user namespace). Checked
/// once by forking a child that tries.
bool PidNamespaceAvailable();

/// `path` as this machine has it, where a run has the directory `cwd` bound
/// from `cwd_source`: one under `cwd` lies under `cwd_source`; any other,
/// and every one where `cwd_source` is empty, is `path` itself.
std::string HostPath(const std::string& path, const std::string& cwd,
                     const std::string& cwd_source);

/// `path` as this machine has it, for the run of `spec` (its cwd and
/// cwd_source).
inline std::string HostPath(const LaunchSpec& spec, const std::string& path) {
  return HostPath(path, spec.cwd, spec.cwd_source);
}

/// Whether every launch with a PID namespace gives its run the directory
/// that holds `path` fresh (a tmpfs of its own: /tmp, /var/tmp or /dev/shm,
/// where the machine lets it), so that a directory of this machine can be
/// bound at `path` whatever this machine has there (LaunchSpec::cwd_source).
bool BindableInRuns(const std::string& path);

/// The fixed environment workgate runs workloads in: PATH, HOME, LC_ALL, TZ,
/// and the hash seeds of runtimes that read one from the environment
/// (PYTHONHASHSEED, PERL_HASH_SEED, PERL_PERTURB_KEYS).
std::map<std::string, std::string> MinimalEnvironment(const std::string& home);

/// Whether a launch with a PID namespace can also make the file system
/// read-only for the workload (LaunchSpec::new_pid_namespace): not where /
/// is no mount point (a chroot), nor on a kernel before 5.12.
bool ReadOnlyFileSystemAvailable();

/// The temporary directories (/tmp, /var/tmp, /dev/shm) a launch with a PID
/// namespace cannot give the workload fresh, so that what one run, or a
/// step before workgate, leaves there another run sees: all of them without
/// the namespace; where / is no mount point (a chroot), those that are no
/// mount point of their own; on a kernel before 5.12, all.
std::vector<std::string> SharedTemporaryDirectories();

}  // namespace workgate
