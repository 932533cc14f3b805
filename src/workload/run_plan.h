#pragma once
// Turning a workload and a build into the exact launch: the normalised
// launch of ARCHITECTURE.md ("The launch") for counted and timed runs, or
// the command as it is (--as-is).

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "launch/launch.h"
#include "workload/workload.h"

namespace workgate {

/// What a run of the build `build` executes (`*target`), once checked that
/// the build and the files it loads have not changed (measure/build_copies.h);
/// with `env`, the run's environment, the files it loads under that too.
/// False with `*err` when one has.
using ResolveBuild =
    std::function<bool(const std::string& build, const std::map<std::string, std::string>* env,
                       std::string* target, std::string* err)>;

struct LaunchOptions {
  bool as_is = false;  // no normalisation: the user's environment, path and directory
  /// vgcount answers the program's time and entropy reads with the pinned
  /// sequences (on unless --as-is). Off only where workgate measures what the
  /// real ones change (`workgate init`), the launch otherwise the same.
  bool pin_inputs = true;
  std::map<std::string, std::string> extra_env;  // --env KEY=VALUE
  std::vector<std::string> pass_env;             // --pass-env KEY
  /// The program's output as it arrives (`count` passes it through); the
  /// first counted run only.
  std::function<void(int fd, std::string_view chunk)> passthrough;
  /// What a run of a build executes, checked (ResolveBuild). Unset: the
  /// build itself, unchecked.
  ResolveBuild resolve_build;
};

/// What names a workload's private directory (WorkDir): its suite's folder
/// and its canonical definition (Workload::Canonical), name included.
std::string WorkDirKey(const Workload& w, const std::string& suite_dir);

/// A workload's private directory, $TMPDIR/workgate-<uid>/w<16 hex digits of
/// a hash of the workload's whole definition and its suite's folder> (/tmp
/// without TMPDIR): the same path on every run and for both sides, so
/// programs that look at their path, argv[0] or working directory see the
/// same text, and a stored count's working directory is the one a later
/// count of the same workload has. Holds an exclusive lock on it (the file
/// beside it, ".lock") while it exists, so two workgate runs of the same
/// workload take turns; runs of different workloads (another name, command,
/// environment, or the same suite in another checkout) never wait for each
/// other. Both are removed when it goes. Its `exe` entry is a symlink to the
/// build under test.
class WorkDir {
 public:
  /// Throws Error(kExitEnvironment) when the directory cannot be made safely.
  WorkDir(const Workload& w, const std::string& suite_dir);
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::string& path() const { return path_; }
  std::string exe_link() const { return path_ + "/exe"; }
  std::string lock_path() const { return path_ + ".lock"; }
  /// Empties the directory, then points `exe` at `target` (a binary or a
  /// build directory): every run, of either side, starts in the same fresh
  /// directory, so nothing an earlier run left there (a cache file in its
  /// HOME, say) changes what a later one does. False with a message when
  /// the target does not exist or the directory cannot be emptied.
  bool PointExeAt(const std::string& target, std::string* err) const;

 private:
  std::string path_;
  int lock_fd_ = -1;
};

/// One side's runs of a workload: the workload, its suite's folder (for
/// {suite_dir}), its private directory, the build under test and the launch
/// options. Planning, counting, timing and fingerprinting a side all start
/// from these five, so they travel together. It refers to the caller's
/// objects, which must outlive it.
struct SideRun {
  const Workload& w;
  const std::string& suite_dir;
  const WorkDir& dir;
  const std::string& exe;
  const LaunchOptions& options;
};

enum class RunKind {
  kPinned,  // counted, and the score check: clock pinned per the workload
  kTimed,   // context: the real clock
};

/// Builds the launch of `side`'s workload for the build linked in its
/// directory (or, with options.as_is, for its build itself).
bool PlanRun(const SideRun& side, RunKind kind, LaunchSpec* out, std::string* err);

/// Where the clock shim is (libworkgate-clock.so beside workgate); empty if
/// it was not built.
std::string FindClockShim();

}  // namespace workgate
