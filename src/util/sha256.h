#pragma once
// SHA-256 digests for fingerprints: of binaries, their shared libraries, the
// loader cache, and suite definitions. Backed by OpenSSL's EVP interface.

#include <optional>
#include <string>
#include <string_view>

namespace workgate {

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// Lower-case hex SHA-256 of the file at `path`, read in chunks; nullopt with
/// `*err` set (naming the path) when it cannot be opened or read.
std::optional<std::string> Sha256OfFile(const std::string& path, std::string* err);

}  // namespace workgate
