#pragma once
// Valgrind's version without running Valgrind, where it ran before.
// `valgrind --version` starts the launcher, which starts the default tool
// (memcheck) to print it: two programs, about 2 ms of CPU in every workgate
// that counts, a third of what workgate adds to a short count. What it
// printed is remembered beside the result store, keyed by the identity of
// both files (device, inode, size, modification and change times): an
// upgrade, a rebuild or a `touch` of either is a new key, and the version is
// read again by running it. A change time cannot be set by a program; a
// file that keeps all five keeps its content.

#include <optional>
#include <string>

#include "machine/system_info.h"

namespace workgate {

/// The key of what `launcher --version` prints: the launcher's identity and
/// that of the tool it starts to print it, `memcheck-<platform>-linux` in
/// `tool_dir`. "" (nothing to remember by) when either cannot be stat'ed.
std::string ValgrindVersionKey(const std::string& launcher, const std::string& tool_dir,
                               const std::string& platform);

/// The directory of the tools `launcher` starts: $VALGRIND_LIB where it is
/// set ("" for a relative one, which the launcher takes from the directory
/// it runs in), else `libexec/valgrind` beside the launcher's `bin` (where
/// `make install` and Debian put them).
std::string ValgrindToolDirectory(const std::string& launcher);

/// The version remembered in `dir` under `key`, or nullopt: none there, or a
/// file that is not exactly what RememberValgrindVersion writes.
std::optional<std::string> RecallValgrindVersion(const std::string& dir, const std::string& key);

/// Writes `version` under `key` in `dir` (made when missing), whole or not
/// at all (WriteFileAtomically). Failing to is no error, only a version read
/// again next time.
void RememberValgrindVersion(const std::string& dir, const std::string& key,
                             const std::string& version);

/// `launcher --version` as ReadValgrindVersion reads it, remembered in
/// `dir` ("" to remember nothing): recalled where the key is there, else
/// read and, when it is a version, remembered.
Probed<std::string> RememberedValgrindVersion(const std::string& launcher, const std::string& dir,
                                              double timeout_seconds);

}  // namespace workgate
