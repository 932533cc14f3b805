#pragma once
// Reading a file that workgate parses (a suite, a stored baseline): only a
// regular file of bounded size, with a message that says what is wrong.

#include <cstddef>
#include <string>

namespace workgate {

/// Reads the regular file `path` whole. False with `*err`, which begins with
/// `what` and the path ("the suite workloads/x.toml is a directory, not a
/// file"), when it does not exist, is a directory, is not a regular file (a
/// FIFO would block and a device might never end), is larger than
/// `max_bytes`, or cannot be read (with the system's reason).
bool ReadInputFile(const std::string& path, const std::string& what, size_t max_bytes,
                   std::string* text, std::string* err);

}  // namespace workgate
