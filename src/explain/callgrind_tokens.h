#pragma once
// The lexical pieces of the callgrind format: numbers, subpositions and
// (possibly compressed) position names. Free functions, so the parser's
// rules about them are testable one by one.

#include <cstdint>
#include <string>
#include <string_view>

namespace workgate::callgrind {

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Reads a decimal or "0x" hexadecimal number starting at `*p` and ending
/// at a space, tab, carriage return or `end`, and advances `*p` past it.
/// False (with `*p` unspecified) on an empty number, another character, or
/// a value above 2^64-1. Inline: it runs for every cost of every line.
inline bool ScanNumber(const char** p, const char* end, uint64_t* value) {
  const char* s = *p;
  uint64_t v = 0;
  if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s += 2;
    const char* first = s;
    for (; s < end && !IsBlank(*s); ++s) {
      char c = *s;
      unsigned h;
      if (c >= '0' && c <= '9') {
        h = c - '0';
      } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
        h = (c | 0x20) - 'a' + 10;
      } else {
        return false;
      }
      if (v >> 60) return false;
      v = (v << 4) | h;
    }
    if (s == first) return false;
  } else {
    const char* first = s;
    for (; s < end && !IsBlank(*s); ++s) {
      unsigned d = static_cast<unsigned char>(*s) - '0';
      // Builtins, not a division per digit: this loop dominates the parse.
      if (d > 9 || __builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v)) {
        return false;
      }
    }
    if (s == first) return false;
  }
  *p = s;
  *value = v;
  return true;
}

/// Parses a whole token as an unsigned decimal or "0x" hexadecimal number.
/// False on any other character, an empty token, or a value above 2^64-1.
bool ParseNumber(std::string_view token, uint64_t* value);

/// True for a subposition: a number, "+number", "-number" or "*".
bool IsSubposition(std::string_view token);

/// Takes the next space- or tab-separated token off the front of `*rest`.
/// False when only whitespace is left.
bool NextToken(std::string_view* rest, std::string_view* token);

/// `s` without leading and trailing spaces, tabs and carriage returns.
std::string_view Trim(std::string_view s);

/// The value of a position line ("fn=", "ob=", "cfi=", ...), which is a
/// plain name, "(id) name" (defines id) or "(id)" (refers to id).
struct NameSpec {
  bool has_id = false;
  uint64_t id = 0;
  std::string_view name;  // empty for a reference "(id)"
};

/// Splits `value` (the text after '=') into a NameSpec. A value starts a
/// compressed form only when it begins with '(' and a digit, so names such
/// as "(below main)" stay plain. False with `*err` set when the compressed
/// form is malformed or a plain name is empty.
bool ParseNameSpec(std::string_view value, NameSpec* spec, std::string* err);

/// At most 60 bytes of `line`, with bytes outside printable ASCII shown as
/// '?', for error messages.
std::string Excerpt(std::string_view line);

}  // namespace workgate::callgrind
