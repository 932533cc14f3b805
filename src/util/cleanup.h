#pragma once
// The temporary files and directories workgate holds right now, so that an
// interruption (launch/interrupt.h) can remove them before workgate exits:
// nothing of a run is left in $TMPDIR, whatever ends it.

#include <string>
#include <vector>

namespace workgate {

/// What the interruption's clean-up did: the registered paths it found and
/// removed, and those it could not remove, each with the reason.
struct CleanupResult {
  struct Failure {
    std::string path;
    std::string reason;  // "Permission denied"
  };
  std::vector<std::string> removed;
  std::vector<Failure> failed;
};

/// `path` (a file or a directory tree) is to be removed if workgate is
/// interrupted. TempDir and WorkDir register themselves. Register a path
/// once it is made: one registered after the interruption's last sweep
/// (RemoveCleanupPaths with CleanupEnd::kLast) is removed here and then,
/// as nothing else would remove it before the exit.
void RegisterCleanupPath(const std::string& path);
/// `path` was removed by its owner, or is no longer workgate's to remove.
void UnregisterCleanupPath(const std::string& path);
/// `dir` is to be removed if workgate is interrupted and it is then empty
/// (a directory shared with other workgates, which may still use what is
/// in it): after the registered paths, rmdir, which leaves a non-empty one.
void RegisterCleanupDirectoryIfEmpty(const std::string& dir);
/// Removes `path` and everything under it, also while another thread
/// removes parts of it; true once nothing is left at `path`, else false
/// with the reason in `*why` where it is given.
bool RemoveTree(const std::string& path, std::string* why = nullptr);
/// Whether RemoveCleanupPaths's sweeps are the process's last: kLast (the
/// interruption, which exits next) closes the registry as they end, so
/// that a path registered after that is removed at once.
enum class CleanupEnd { kKeepOpen, kLast };
/// Removes every registered path, in sweeps until nothing registered is
/// left to remove (see cleanup.cc), and says what it removed and what it
/// could not. Called once, by the interruption, with kLast.
CleanupResult RemoveCleanupPaths(CleanupEnd end = CleanupEnd::kKeepOpen);

}  // namespace workgate
