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

/// A workload's private directory, as its runs see it at
/// $TMPDIR/workgate-<uid>/w<16 hex digits of a hash of the workload's whole
/// definition and its suite's folder> (/tmp without TMPDIR; where it is
/// bound, below, /tmp whatever TMPDIR says): the same path
/// on every run and for both sides, so programs that look at their path,
/// argv[0] or working directory see the same text, and a stored count's
/// working directory is the one a later count of the same workload has.
///
/// Where every run gets /tmp fresh, in a mount namespace of its own
/// (BindableInRuns, where the machine allows namespaces), the directory is
/// made at a path of this workgate's own in that base directory
/// (w<hash>.<random>), and each run has it bound at the workload's path in
/// /tmp, /tmp/workgate-<uid>/w<hash>, whatever TMPDIR says
/// (LaunchSpec::cwd_source): two workgates of one
/// workload, such as two gates of different builds in one checkout, never
/// wait for each other, and their runs see the same text. Elsewhere it is
/// made at the workload's path itself, and an exclusive lock on the file
/// beside it (".lock") is held while it exists, so two workgates of one
/// workload take turns there. Runs of different workloads (another name,
/// command, environment, or the same suite in another checkout) never wait
/// for each other. Everything is removed when it goes. Its `exe` entry is a
/// symlink to the build under test.
class WorkDir {
 public:
  enum class Place {
    kAuto,    // at a path of its own where the runs bind it, else shared
    kShared,  // at the workload's path, taking turns (the lock)
  };
  /// Throws Error(kExitEnvironment) when the directory cannot be made safely.
  WorkDir(const Workload& w, const std::string& suite_dir, Place place = Place::kAuto);
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  /// The directory as the workload's runs see it.
  const std::string& path() const { return path_; }
  /// Where it is on this machine: path(), or where the runs have it bound
  /// at path().
  const std::string& host_path() const { return host_path_; }
  bool bound() const { return host_path_ != path_; }
  std::string exe_link() const { return path_ + "/exe"; }
  std::string host_exe_link() const { return host_path_ + "/exe"; }
  /// The lock of the shared place; "" for a bound directory.
  std::string lock_path() const { return bound() ? "" : path_ + ".lock"; }
  /// Empties the directory, then points `exe` at `target` (a binary or a
  /// build directory): every run, of either side, starts in the same fresh
  /// directory, so nothing an earlier run left there (a cache file in its
  /// HOME, say) changes what a later one does. False with a message when
  /// the target does not exist or the directory cannot be emptied.
  bool PointExeAt(const std::string& target, std::string* err) const;

 private:
  std::string path_;
  std::string host_path_;
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
