#pragma once
// The temporary files and directories workgate holds right now, so that an
// interruption (launch/interrupt.h) can remove them before workgate exits:
// nothing of a run is left in $TMPDIR, whatever ends it.

#include <string>

namespace workgate {

/// `path` (a file or a directory tree) is to be removed if workgate is
/// interrupted. TempDir and WorkDir register themselves.
void RegisterCleanupPath(const std::string& path);
/// `path` was removed by its owner, or is no longer workgate's to remove.
void UnregisterCleanupPath(const std::string& path);
/// Removes `path` and everything under it, also while another thread
/// removes parts of it; true once nothing is left at `path`.
bool RemoveTree(const std::string& path);
/// Removes every registered path; returns how many there were. Called once,
/// by the interruption.
int RemoveCleanupPaths();

}  // namespace workgate
