#pragma once
// Bytes packed for a JSON file: gzip (RFC 1952, zlib) and base64 (RFC 4648,
// nettle). A stored baseline keeps each workload's profiles this way
// (decision/baseline_file.h), so that `--baseline-results` can explain a
// delta without the baseline build.
//
// Whatever is unpacked was read from a file anyone could have written:
// decoding is strict and decompression stops at a caller's bound, so a small
// file cannot expand into gigabytes.

#include <cstddef>
#include <string>
#include <string_view>

namespace workgate {

/// `data` in gzip's format, at zlib's best compression: `gunzip` reads it.
std::string GzipCompress(std::string_view data);

/// The bytes `gz` holds, when it is one whole gzip member of at most
/// `max_bytes` uncompressed. False with `*err` when it is not gzip, is
/// damaged or cut short, has bytes after its end, or would expand beyond
/// `max_bytes` (decompression stops there).
bool GzipDecompress(std::string_view gz, size_t max_bytes, std::string* out, std::string* err);

/// `data` in standard base64, padded, on one line.
std::string Base64Encode(std::string_view data);

/// Base64Encode's form read back: the standard alphabet, padded to a
/// multiple of four, no white space. False with `*err` for anything else.
bool Base64Decode(std::string_view text, std::string* out, std::string* err);

}  // namespace workgate
