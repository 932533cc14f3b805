#include "counter/input_record.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace workgate {

namespace {

constexpr std::array<std::string_view, 6> kKindNames = {"open", "exec",  "list",
                                                        "meta", "lmeta", "machine"};

// A byte the line form writes as it is: printable, not a space, not '%'.
bool WrittenAsIs(unsigned char c) { return c >= '!' && c <= '~' && c != '%'; }

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower-case hex is not the tool's: refused
}

// A decimal without sign, leading zeros (but "0") or anything else, that
// fits `max`.
bool ReadDecimal(std::string_view text, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

// The same with an optional '-' (the times: a file may be dated before
// 1970); "-0" is not the tool's.
bool ReadSignedDecimal(std::string_view text, int64_t* out) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  uint64_t magnitude = 0;
  const uint64_t max = negative ? uint64_t{1} << 63 : uint64_t{std::numeric_limits<int64_t>::max()};
  if (!ReadDecimal(text, max, &magnitude) || (negative && magnitude == 0)) return false;
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool ParseState(std::string_view text, InputRecord* out, std::string* why) {
  if (text == "missing") {
    out->state = InputRecord::State::kMissing;
    return true;
  }
  if (text.substr(0, 6) == "error:") {
    uint64_t n = 0;
    // An errno is a positive int (Linux's are below 4096).
    if (!ReadDecimal(text.substr(6), std::numeric_limits<int>::max(), &n) || n == 0) {
      *why = fmt::format("a malformed errno in '{}'", text);
      return false;
    }
    out->state = InputRecord::State::kError;
    out->error = static_cast<int>(n);
    return true;
  }
  // DEV:INO:MODE:SIZE:MTIME:CTIME
  std::array<std::string_view, 6> fields;
  size_t count = 0;
  for (std::string_view rest = text;; ++count) {
    const size_t colon = rest.find(':');
    if (count == fields.size()) {
      *why = fmt::format("a state of more than six fields: '{}'", text);
      return false;
    }
    fields[count] = rest.substr(0, colon);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (count + 1 != fields.size()) {
    *why = fmt::format("a state that is not 'missing', 'error:N' or six fields: '{}'", text);
    return false;
  }
  const uint64_t u64 = std::numeric_limits<uint64_t>::max();
  uint64_t mode = 0;
  if (!ReadDecimal(fields[0], u64, &out->dev) || !ReadDecimal(fields[1], u64, &out->ino) ||
      !ReadDecimal(fields[2], std::numeric_limits<uint32_t>::max(), &mode) ||
      !ReadDecimal(fields[3], u64, &out->size) || !ReadSignedDecimal(fields[4], &out->mtime_ns) ||
      !ReadSignedDecimal(fields[5], &out->ctime_ns)) {
    *why = fmt::format("a malformed number in the state '{}'", text);
    return false;
  }
  out->mode = static_cast<uint32_t>(mode);
  out->state = InputRecord::State::kPresent;
  return true;
}

bool ParsePath(std::string_view text, std::string* out, std::string* why) {
  std::string path;
  path.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c != '%') {
      if (!WrittenAsIs(c)) {
        *why = fmt::format("a raw byte 0x{:02x} in the path", c);
        return false;
      }
      path.push_back(static_cast<char>(c));
      continue;
    }
    const int high = i + 2 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      *why = "a '%' in the path without two upper-case hex digits after it";
      return false;
    }
    const unsigned char byte = static_cast<unsigned char>(high * 16 + low);
    // Only what must be escaped is: one line for one path. A NUL cannot be
    // in a path at all.
    if (byte == 0 || WrittenAsIs(byte)) {
      *why = fmt::format("%{:02X} in the path, which the tool never escapes", byte);
      return false;
    }
    path.push_back(static_cast<char>(byte));
    i += 2;
  }
  if (path.empty() || path[0] != '/') {
    *why = "a path that is not absolute";
    return false;
  }
  *out = std::move(path);
  return true;
}

}  // namespace

std::string_view InputKindName(InputRecord::Kind kind) {
  const size_t i = static_cast<size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : "unknown";
}

bool ParseInputRecord(std::string_view text, InputRecord* out, std::string* why) {
  const size_t first = text.find(' ');
  const size_t second = first == std::string_view::npos ? first : text.find(' ', first + 1);
  if (second == std::string_view::npos) {
    *why = "not three fields (KIND STATE PATH)";
    return false;
  }
  InputRecord record;
  const std::string_view kind = text.substr(0, first);
  size_t k = 0;
  while (k < kKindNames.size() && kKindNames[k] != kind) ++k;
  if (k == kKindNames.size()) {
    *why = fmt::format("an unknown kind '{}'", kind.substr(0, 32));
    return false;
  }
  record.kind = static_cast<InputRecord::Kind>(k);
  if (!ParseState(text.substr(first + 1, second - first - 1), &record, why)) return false;
  // A space in the path is written %20, so a third space is no path.
  if (!ParsePath(text.substr(second + 1), &record.path, why)) return false;
  *out = std::move(record);
  return true;
}

std::string FormatInputRecord(const InputRecord& record) {
  std::string line(InputKindName(record.kind));
  line.push_back(' ');
  switch (record.state) {
    case InputRecord::State::kMissing:
      line += "missing";
      break;
    case InputRecord::State::kError:
      line += fmt::format("error:{}", record.error);
      break;
    case InputRecord::State::kPresent:
      line += fmt::format("{}:{}:{}:{}:{}:{}", record.dev, record.ino, record.mode, record.size,
                          record.mtime_ns, record.ctime_ns);
      break;
  }
  line.push_back(' ');
  for (const char ch : record.path) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (WrittenAsIs(c)) {
      line.push_back(ch);
    } else {
      line += fmt::format("%{:02X}", c);
    }
  }
  return line;
}

bool InputRecordBefore(const InputRecord& a, const InputRecord& b) {
  if (a.path != b.path) return a.path < b.path;
  if (a.kind != b.kind) return a.kind < b.kind;
  if (a.state != b.state) return a.state < b.state;
  if (a.error != b.error) return a.error < b.error;
  if (a.dev != b.dev) return a.dev < b.dev;
  if (a.ino != b.ino) return a.ino < b.ino;
  if (a.mode != b.mode) return a.mode < b.mode;
  if (a.size != b.size) return a.size < b.size;
  if (a.mtime_ns != b.mtime_ns) return a.mtime_ns < b.mtime_ns;
  return a.ctime_ns < b.ctime_ns;
}

}  // namespace workgate
