#pragma once
// The builds under test, held still for a whole run: a candidate that
// rewrites the baseline's file (or the copy it is run from), or a library
// the baseline loads, while its own workload runs must not have a later
// count take the one for the other.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "identity/loaded_files.h"
#include "util/paths.h"
#include "workload/run_plan.h"

namespace workgate {

class BuildCopies {
 public:
  BuildCopies() = default;
  /// Removes each copy no other workgate holds (the last of them removes
  /// it), and the copies' directory once it is empty.
  ~BuildCopies();
  BuildCopies(const BuildCopies&) = delete;
  BuildCopies& operator=(const BuildCopies&) = delete;

  /// Takes the SHA-256 of `build` and, where it is a file, copies it
  /// read-only (0555) into a directory only workgate may write (0755), so
  /// that what runs is not the path the user named, which the workload
  /// could rewrite. The copy's path is the build's digest's
  /// ($TMPDIR/workgate-<uid>-builds/<digest>/exe): a program sees its own
  /// path (/proc/self/exe; Python hashes it), so every run of one build, in
  /// this workgate or the next, must see the same one. Each workgate holds
  /// a shared lock on a copy while it may run it (<digest>.lock), so that
  /// another job on the runner that copied the same build removes it only
  /// when it is the last. (A workload of the same user can still open the copy
  /// up: Resolve is what catches that.) A build whose ELF search path names
  /// $ORIGIN is not copied (its libraries are found beside it): it is only
  /// checked. Of a build that is a file, the files the loader maps for it
  /// are taken too (TakeLoadedFiles: its interpreter and libraries, as its
  /// own search paths find them). A build directory is neither copied nor
  /// checked. False with `*err` when the build or a file it loads cannot be
  /// read, or the build cannot be copied. Called before anything runs.
  bool Add(const std::string& build, bool copy, std::string* err);

  /// What a run of `build` executes: its copy, or `build` itself, once both
  /// the build and the copy still have the digest Add took, and the files
  /// the loader maps for it are those Add took (LoadedFilesChange: none
  /// rewritten, none found elsewhere). With `env` (a run's environment)
  /// whose LD_LIBRARY_PATH or LD_PRELOAD the loader reads, the files it maps
  /// under those are checked too, against what they were the first time a
  /// run of the build with them was checked. False with a message naming the
  /// file that changed: every count after it would be of a program other
  /// than the one named, so the run is invalid (which side changed it cannot
  /// be told; either way it is no count of that build). Safe from several
  /// threads once every Add is done.
  bool Resolve(const std::string& build, const std::map<std::string, std::string>* env,
               std::string* target, std::string* err) const;

 private:
  struct Pinned {
    std::string sha256;             // "" for a build directory: not checked
    std::string copy;               // "" where the build itself runs
    std::vector<LoadedFile> loads;  // what the loader maps for it, as Add found it
  };
  // Whether the files the loader maps for `build` under `env`'s
  // LD_LIBRARY_PATH and LD_PRELOAD are those taken the first time they were
  // asked for; false with `*err` naming the one that changed.
  bool EnvironmentLoadsUnchanged(const std::string& build,
                                 const std::map<std::string, std::string>& env,
                                 std::string* err) const;

  std::string dir_;  // where the copies are (CopiesDirectory); "" until the first
  struct Held {
    std::string into;  // the copy's directory
    int lock_fd;       // its lock file, held shared
  };
  std::vector<Held> held_;
  std::map<std::string, Pinned> builds_;
  // What the loader maps for a build under a run's environment, by build,
  // LD_LIBRARY_PATH and LD_PRELOAD.
  mutable std::mutex mutex_;
  mutable std::map<std::vector<std::string>, std::vector<LoadedFile>> env_loads_;
};

/// LaunchOptions::resolve_build over the copies of `builds` (BuildCopies;
/// empty names are skipped), made now, before anything runs; with `copy`
/// false (an ad hoc `count` of any program on PATH) each is only checked.
/// Throws an EnvironmentError when one cannot be read or copied.
ResolveBuild PinBuilds(const std::vector<std::string>& builds, bool copy = true);

}  // namespace workgate
