#pragma once
// The builds under test, held still for a whole run: a candidate that
// rewrites the baseline's file (or the copy it is run from) while its own
// workload runs must not have a later count take the one for the other.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/paths.h"

namespace workgate {

class BuildCopies {
 public:
  BuildCopies() = default;
  BuildCopies(const BuildCopies&) = delete;
  BuildCopies& operator=(const BuildCopies&) = delete;

  /// Takes the SHA-256 of `build` and, where it is a file, copies it
  /// read-only (0555) into a directory only workgate may write (0755), so
  /// that what runs is not the path the user named, which the workload
  /// could rewrite. (A workload of the same user can still open the copy
  /// up: Resolve is what catches that.) A build whose ELF search path names $ORIGIN is not
  /// copied (its libraries are found beside it): it is only checked. A
  /// build directory is neither copied nor checked. False with `*err` when
  /// the build cannot be read or copied. Called before anything runs.
  bool Add(const std::string& build, bool copy, std::string* err);

  /// What a run of `build` executes: its copy, or `build` itself, once both
  /// the build and the copy still have the digest Add took. False with a
  /// message naming the file that changed: every count after it would be of
  /// a program other than the one named, so the run is invalid (which side
  /// changed it cannot be told; either way it is no count of that build).
  /// Safe from several threads once every Add is done.
  bool Resolve(const std::string& build, std::string* target, std::string* err) const;

 private:
  struct Pinned {
    std::string sha256;  // "" for a build directory: not checked
    std::string copy;    // "" where the build itself runs
  };
  std::unique_ptr<TempDir> dir_;
  std::map<std::string, Pinned> builds_;
};

/// LaunchOptions::resolve_build over the copies of `builds` (BuildCopies;
/// empty names are skipped), made now, before anything runs; with `copy`
/// false (an ad hoc `count` of any program on PATH) each is only checked.
/// Throws an EnvironmentError when one cannot be read or copied.
std::function<bool(const std::string&, std::string*, std::string*)> PinBuilds(
    const std::vector<std::string>& builds, bool copy = true);

}  // namespace workgate
