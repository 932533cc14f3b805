#include "util/text.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

namespace workgate {
namespace {

constexpr char32_t kReplacement = 0xFFFD;
constexpr char32_t kEsc = 0x1B;
constexpr char32_t kZeroWidthSpace = 0x200B;

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsBidiControl(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// ECMA-48 control strings (OSC, DCS, SOS, PM, APC): ESC and one of these
// opens a payload that runs to the string terminator.
bool OpensControlString(char32_t after_esc) {
  return after_esc == ']' || after_esc == 'P' || after_esc == 'X' || after_esc == '^' ||
         after_esc == '_';
}

// The same, as the single C1 characters that stand for ESC + letter.
bool IsC1ControlString(char32_t cp) {
  return cp == 0x9D || cp == 0x90 || cp == 0x98 || cp == 0x9E || cp == 0x9F;
}

}  // namespace

// The well-formed byte sequences of the Unicode standard (3.9, table 3-7):
// the lead byte narrows the range of the next one (E0: A0-BF excludes overlong
// forms, ED: 80-9F surrogates, F0: 90-BF overlong forms, F4: 80-8F code
// points above U+10FFFF). A byte outside the range ends the ill-formed
// subsequence, which becomes one U+FFFD, and is then read afresh.
int Utf8Decoder::Push(unsigned char byte, char32_t cps[2]) {
  int n = 0;
  if (need_ != 0) {
    if (byte >= lower_ && byte <= upper_) {
      lower_ = 0x80;
      upper_ = 0xBF;
      cp_ = (cp_ << 6) | (byte & 0x3F);
      if (--need_ > 0) return 0;
      cps[0] = cp_;
      return 1;
    }
    need_ = 0;
    lower_ = 0x80;
    upper_ = 0xBF;
    cps[n++] = kReplacement;
  }
  if (byte < 0x80) {
    cps[n++] = byte;
  } else if (byte >= 0xC2 && byte <= 0xDF) {
    need_ = 1;
    cp_ = byte & 0x1F;
  } else if (byte >= 0xE0 && byte <= 0xEF) {
    need_ = 2;
    cp_ = byte & 0x0F;
    if (byte == 0xE0) lower_ = 0xA0;
    if (byte == 0xED) upper_ = 0x9F;
  } else if (byte >= 0xF0 && byte <= 0xF4) {
    need_ = 3;
    cp_ = byte & 0x07;
    if (byte == 0xF0) lower_ = 0x90;
    if (byte == 0xF4) upper_ = 0x8F;
  } else {
    cps[n++] = kReplacement;  // a continuation byte without a lead, C0, C1, F5-FF
  }
  return n;
}

bool Utf8Decoder::Flush(char32_t* cp) {
  const bool cut = need_ != 0;
  need_ = 0;
  lower_ = 0x80;
  upper_ = 0xBF;
  if (cut) *cp = kReplacement;
  return cut;
}

bool IsPlainHttpUrl(std::string_view url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) return false;
  static constexpr std::string_view kOthers = "-._~:/?#[]@!$&*+,;=%";
  for (const char c : url) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && kOthers.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string_view Utf8Prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string ShortenBytes(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return std::string(Utf8Prefix(text, max_bytes)) + "\u2026";
}

std::string CutText(std::string_view text, size_t n) {
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (points++ == n) return std::string(text.substr(0, i)) + "\u2026";
  }
  return std::string(text);
}

std::string ValidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  Utf8Decoder decoder;
  char32_t cps[2];
  for (char c : bytes) {
    const int n = decoder.Push(static_cast<unsigned char>(c), cps);
    for (int i = 0; i < n; ++i) AppendUtf8(cps[i], &out);
  }
  if (decoder.Flush(cps)) AppendUtf8(cps[0], &out);
  return out;
}

// One code point while an escape sequence or control string is under way
// (Filter handles text). The states follow ECMA-48 (5.3-5.6) as terminals
// implement it: a CSI is parameter bytes 30-3F, intermediate bytes 20-2F and
// one final byte 40-7E, and any other character cancels it and is then read
// as text; other ESC sequences are intermediates 20-2F and one final byte
// 30-7E; a control string's payload is swallowed up to BEL or ST (ESC \,
// U+009C), and CAN or SUB abort it.
bool TerminalFilter::Sequence(char32_t cp, std::string* out) {
  switch (state_) {
    case State::kText:
      return false;
    case State::kEscape:
      if (cp == '[') {
        state_ = State::kCsi;
        return true;
      }
      if (OpensControlString(cp)) {
        state_ = State::kString;
        return true;
      }
      if (cp >= 0x20 && cp <= 0x2F) {
        state_ = State::kEscapeTail;
        return true;
      }
      state_ = State::kText;
      if (cp >= 0x30 && cp <= 0x7E) return true;  // ESC 7, ESC c (reset), ESC =
      // An ESC before anything else goes alone; the character is text.
      return false;
    case State::kEscapeTail:
      if (cp >= 0x20 && cp <= 0x2F) return true;
      state_ = State::kText;
      if (cp >= 0x30 && cp <= 0x7E) return true;  // ESC ( B, ESC # 8
      return false;
    case State::kCsi:
      if (cp >= 0x20 && cp <= 0x3F) return true;
      state_ = State::kText;
      if (cp >= 0x40 && cp <= 0x7E) return true;
      return false;
    case State::kString:
      if (cp == kEsc) {
        state_ = State::kStringEscape;
        return true;
      }
      if (cp == 0x07 || cp == 0x9C || cp == 0x18 || cp == 0x1A) {
        state_ = State::kText;
        return true;
      }
      if (cp != '\n') return true;
      // Unterminated at the end of a line: end it there (the line feed
      // stays), so a program cannot swallow the rest of its own output and
      // what follows it.
      state_ = State::kText;
      return false;
    case State::kStringEscape:
      if (cp == '\\') {
        state_ = State::kText;
        return true;
      }
      // ESC and anything else ends the string and starts a new sequence.
      state_ = State::kEscape;
      Filter(cp, out);
      return true;
  }
  return false;
}

// One code point: part of a sequence, the start of one, or text to keep.
void TerminalFilter::Filter(char32_t cp, std::string* out) {
  if (Sequence(cp, out)) return;
  if (cp == kEsc) {
    state_ = State::kEscape;
    return;
  }
  if (cp == 0x9B) {  // CSI as one C1 character
    state_ = State::kCsi;
    return;
  }
  if (IsC1ControlString(cp)) {
    state_ = State::kString;
    return;
  }
  if (cp == '\n' || cp == '\t' || cp == 0x2028 || cp == 0x2029) {
    out->push_back(breaks_ == LineBreaks::kToSpace ? ' ' : cp == '\t' ? '\t' : '\n');
    hashes_ = 0;
    return;
  }
  // The other C0 controls (CR, BS, BEL), DEL and the C1 controls: a program
  // could move the cursor or overwrite a line with them.
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || IsBidiControl(cp)) return;
  // GitHub's runner still obeys the old form of its commands, `##[name]`,
  // wherever it stands in a line: a zero-width space breaks it up.
  if (cp == '[' && hashes_ >= 2) AppendUtf8(kZeroWidthSpace, out);
  hashes_ = cp == '#' ? hashes_ + 1 : 0;
  AppendUtf8(cp, out);
}

std::string TerminalFilter::Feed(std::string_view chunk) {
  std::string out;
  out.reserve(chunk.size());
  char32_t cps[2];
  for (char c : chunk) {
    const int n = decoder_.Push(static_cast<unsigned char>(c), cps);
    for (int i = 0; i < n; ++i) Filter(cps[i], &out);
  }
  return out;
}

std::string TerminalFilter::Finish() {
  std::string out;
  char32_t cp;
  if (decoder_.Flush(&cp)) Filter(cp, &out);
  state_ = State::kText;
  hashes_ = 0;
  return out;
}

std::string TerminalSafe(std::string_view text, LineBreaks breaks) {
  TerminalFilter filter(breaks);
  std::string out = filter.Feed(text);
  return out + filter.Finish();  // after Feed: the operands of + are unsequenced
}

std::string QuotedLines(std::string_view text) {
  QuotedLineFilter filter;
  std::string out = filter.Feed(text);
  out += filter.Finish();
  if (!out.empty()) out.pop_back();  // the line break Finish ends with
  return out;
}

void QuotedLineFilter::Take(const std::string& safe, std::string* out) {
  for (char c : safe) {
    if (c == '\n') {
      out->append(kQuotePrefix).append(line_).push_back('\n');
      line_.clear();
      continue;
    }
    // Broken at a character's first byte, so each piece stays UTF-8.
    if (line_.size() >= kMaxHeldLine && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      out->append(kQuotePrefix).append(line_).push_back('\n');
      line_.clear();
    }
    line_.push_back(c);
  }
}

std::string QuotedLineFilter::Feed(std::string_view chunk) {
  std::string out;
  Take(filter_.Feed(chunk), &out);
  return out;
}

std::string QuotedLineFilter::Finish() {
  std::string out;
  Take(filter_.Finish(), &out);
  if (!line_.empty()) {
    out.append(kQuotePrefix).append(line_).push_back('\n');
    line_.clear();
  }
  return out;
}

std::string JsonText(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// what() is "[json.exception.parse_error.101] parse error at line 1, ...":
// the bracketed id means nothing to a user.
std::string JsonErrorText(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (size_t id_end = what.find("] "); what.rfind("[json.", 0) == 0 && id_end != what.npos) {
    what.erase(0, id_end + 2);
  }
  return what;
}

// Thrown from the parser callback at the second occurrence of a key in one
// object: nlohmann keeps the last value silently, so a reader would never
// know which of two "counts" it got.
struct DuplicateJsonKey {
  std::string key;
};

// The parser callback that tracks the keys of each open object (one set per
// object or array being parsed, innermost last).
class DuplicateKeyCheck {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        open_.emplace_back();
        break;
      case Event::object_end:
      case Event::array_end:
        if (!open_.empty()) open_.pop_back();
        break;
      case Event::key:
        if (!open_.empty() && !open_.back().insert(parsed.get<std::string>()).second) {
          throw DuplicateJsonKey{parsed.get<std::string>()};
        }
        break;
      case Event::value:
        break;
    }
    return true;
  }

 private:
  std::vector<std::unordered_set<std::string>> open_;
};

}  // namespace

bool ParseJsonText(std::string_view text, nlohmann::json* doc, std::string* err) {
  try {
    *doc = nlohmann::json::parse(text, DuplicateKeyCheck());
  } catch (const DuplicateJsonKey& e) {
    // The key is the file's text: shown on one line, escaped, and bounded.
    constexpr size_t kMaxKeyShown = 80;
    std::string key = TerminalSafe(e.key.substr(0, kMaxKeyShown), LineBreaks::kToSpace);
    if (e.key.size() > kMaxKeyShown) key += "...";
    *err = "duplicate key \"" + key + "\": it appears twice in one object";
    return false;
  } catch (const nlohmann::json::parse_error& e) {
    *err = "not valid JSON: " + JsonErrorText(e);
    return false;
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1e400") is an out_of_range thrown
    // from inside the parser, not a parse_error.
    *err = JsonErrorText(e);
    return false;
  }
  return true;
}

std::string ShellWord(std::string_view word) {
  auto plain = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_@%+=:,./-").find(static_cast<char>(c)) != std::string_view::npos;
  };
  auto printable = [](unsigned char c) { return c >= 0x20 && c < 0x7f; };
  if (!word.empty() && std::all_of(word.begin(), word.end(), [&](char c) {
        return plain(static_cast<unsigned char>(c));
      })) {
    return std::string(word);
  }
  if (std::all_of(word.begin(), word.end(),
                  [&](char c) { return printable(static_cast<unsigned char>(c)); })) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  std::string out = "$'";
  for (char ch : word) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (printable(c)) {
      out += ch;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out + "'";
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace workgate
