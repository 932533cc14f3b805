#pragma once
// Reading a whole file: the one reader behind every file workgate reads
// whole (a suite, a stored baseline, a vgcount output, Valgrind's log, a
// /proc file). Only a regular file, of bounded size where the file may be
// hostile, with a message that says what is wrong.

#include <cstddef>
#include <string>

namespace workgate {

/// Reads the regular file `path` whole. False with `*why`, which does not
/// name the path ("does not exist", "is a directory, not a file", "is too
/// large: 9000 bytes, at most 4096", "cannot be read: Permission denied"),
/// when it does not exist, is a directory, is not a regular file (a FIFO
/// would block and a device might never end), holds more than `max_bytes`,
/// or cannot be read. /proc and /sys files, regular files that report no
/// size, are read to their end.
bool ReadRegularFile(const std::string& path, size_t max_bytes, std::string* text,
                     std::string* why);

/// ReadRegularFile, with `*err` beginning with `what` and the path ("the
/// suite workloads/x.toml is a directory, not a file").
bool ReadInputFile(const std::string& path, const std::string& what, size_t max_bytes,
                   std::string* text, std::string* err);

}  // namespace workgate
