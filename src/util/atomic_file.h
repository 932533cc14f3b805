#pragma once
// Writing report and baseline files so that a reader never sees half of one:
// a CI step that fails mid-write leaves either the old file or none.

#include <string>
#include <string_view>

namespace workgate {

/// Writes `content` to `path` atomically: a temporary file in the same
/// directory (so the rename stays within one file system), fsync, rename over
/// `path`, fsync of the directory. The file gets mode 0666 minus the umask,
/// like any file the user creates. On failure returns false with `*err` set and
/// leaves no temporary file behind.
bool WriteFileAtomically(const std::string& path, std::string_view content, std::string* err);

}  // namespace workgate
