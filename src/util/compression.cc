#include "util/compression.h"

#include <nettle/base64.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace workgate {
namespace {

// zlib's windowBits for its largest window, plus 16: a gzip header and
// trailer instead of zlib's own (zlib.h, deflateInit2 and inflateInit2).
constexpr int kGzipWindowBits = 15 + 16;

// zlib's avail_in and avail_out are 32 bits wide: longer buffers go in
// pieces of at most this.
constexpr size_t kChunk = 1 << 20;

bool IsBase64Letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

std::string GzipCompress(std::string_view data) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw std::bad_alloc();  // deflateInit2 fails only for memory with these arguments
  }
  std::string out;
  size_t consumed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const size_t piece = std::min(kChunk, data.size() - consumed);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + consumed));
    z.avail_in = static_cast<uInt>(piece);
    const int flush = consumed + piece == data.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      const size_t before = out.size();
      out.resize(before + kChunk);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
      z.avail_out = static_cast<uInt>(kChunk);
      rc = deflate(&z, flush);
      out.resize(before + kChunk - z.avail_out);
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    consumed += piece - z.avail_in;
  }
  deflateEnd(&z);
  return out;
}

bool GzipDecompress(std::string_view gz, size_t max_bytes, std::string* out, std::string* err) {
  out->clear();
  z_stream z{};
  if (inflateInit2(&z, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
  size_t consumed = 0;
  int rc = Z_OK;
  std::string why;
  while (why.empty() && rc != Z_STREAM_END) {
    const size_t piece = std::min(kChunk, gz.size() - consumed);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + consumed));
    z.avail_in = static_cast<uInt>(piece);
    const size_t before = out->size();
    // One byte beyond the bound is room enough to tell that it was passed.
    const size_t room = std::min(kChunk, max_bytes + 1 - before);
    out->resize(before + room);
    z.next_out = reinterpret_cast<Bytef*>(out->data() + before);
    z.avail_out = static_cast<uInt>(room);
    rc = inflate(&z, Z_NO_FLUSH);
    out->resize(before + room - z.avail_out);
    consumed += piece - z.avail_in;
    if (out->size() > max_bytes) {
      why = "it expands to more than " + std::to_string(max_bytes) + " bytes";
    } else if (rc == Z_BUF_ERROR && consumed == gz.size()) {
      why = "it is cut short";
    } else if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      why = std::string("it is damaged (") + (z.msg != nullptr ? z.msg : "zlib error") + ")";
    }
  }
  inflateEnd(&z);
  if (why.empty() && consumed != gz.size()) why = "it has bytes after its end";
  if (!why.empty()) {
    out->clear();
    *err = "not a whole gzip stream: " + why;
    return false;
  }
  return true;
}

std::string Base64Encode(std::string_view data) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(data.size()), '\0');
  base64_encode_raw(out.data(), data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  return out;
}

bool Base64Decode(std::string_view text, std::string* out, std::string* err) {
  out->clear();
  if (text.size() % 4 != 0) {
    *err = "not base64: its length is not a multiple of 4";
    return false;
  }
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    if (!IsBase64Letter(text[i])) {
      *err = "not base64: a character at offset " + std::to_string(i) + " is outside its alphabet";
      return false;
    }
  }
  // The letters are checked above: what nettle's decoder would skip (white
  // space) or stop at is refused before it.
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  out->resize(BASE64_DECODE_LENGTH(text.size()));
  size_t n = out->size();
  if (!base64_decode_update(&ctx, &n, reinterpret_cast<uint8_t*>(out->data()), text.size(),
                            text.data()) ||
      !base64_decode_final(&ctx)) {
    out->clear();
    *err = "not base64";
    return false;
  }
  out->resize(n);
  return true;
}

}  // namespace workgate
