#pragma once
// SHA-256 digests for fingerprints: of binaries, their shared libraries, the
// loader cache, and suite definitions; and SHA-1, only to check git's object
// names in a repository that uses it. Backed by nettle.

#include <optional>
#include <string>
#include <string_view>

namespace workgate {

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// Lower-case hex SHA-1 of `data`: git's object names (a SHA-1 repository's)
/// and nothing that workgate itself names by a digest.
std::string Sha1Hex(std::string_view data);

/// Lower-case hex SHA-256 of the file at `path`, read in chunks; nullopt with
/// `*err` set (naming the path) when it cannot be opened or read.
std::optional<std::string> Sha256OfFile(const std::string& path, std::string* err);

/// Lower-case hex SHA-256 of what is left to read from descriptor `fd`,
/// read in chunks; nullopt with `*err` (strerror's text) on a read error.
std::optional<std::string> Sha256OfDescriptor(int fd, std::string* err);

}  // namespace workgate
