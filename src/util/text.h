#pragma once
// Text that workgate publishes but did not write itself: workload names,
// scores, reasons with a program's stderr, function and object names from a
// candidate build. The candidate is untrusted, so what it wrote must neither
// drive the terminal (escape sequences can rewrite the screen, the window
// title or a CI log) nor break a JSON writer (bytes that are not UTF-8).
// The Markdown renderer builds on TerminalSafe (report/markdown_text.h).

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace workgate {

/// `bytes` as well-formed UTF-8: each maximal ill-formed subsequence (an
/// overlong form, a surrogate, a code point above U+10FFFF, a stray or missing
/// continuation byte) becomes one U+FFFD, the "maximal subpart" practice of
/// the Unicode standard (chapter 3) that browsers follow. Valid text comes back
/// unchanged. Linear time.
std::string ValidUtf8(std::string_view bytes);

/// The longest prefix of UTF-8 `text` of at most `max_bytes` bytes that
/// does not end inside a character.
std::string_view Utf8Prefix(std::string_view text, size_t max_bytes);

/// `text` itself when it has at most `max_bytes` bytes; else its Utf8Prefix
/// followed by "…" (U+2026).
std::string ShortenBytes(std::string_view text, size_t max_bytes);

/// The first `n` code points of UTF-8 `text`, with "…" (U+2026) after them
/// when it is longer; a byte that is no character's first counts as part of
/// the one before. Cut before escaping, so never inside an escape of the
/// medium; a cut through an ill-formed sequence is the escaper's to replace.
std::string CutText(std::string_view text, size_t n);

/// Whether `url` is an http or https URL of plain characters only (RFC 3986's
/// unreserved and reserved ones and '%', less quotes, parentheses and
/// anything a Markdown link or an HTML attribute would take for its end).
bool IsPlainHttpUrl(std::string_view url);

/// A UTF-8 decoder that can be fed one byte at a time, with ValidUtf8's
/// replacement rule; the state of a character split between two reads stays
/// in the object.
class Utf8Decoder {
 public:
  /// Reads `byte` and stores in `cps` the code points it completes: none
  /// (inside a character), one, or two (a U+FFFD for the sequence the byte
  /// broke off, then what the byte itself starts or is). Returns how many.
  int Push(unsigned char byte, char32_t cps[2]);
  /// Ends the input: returns true, and U+FFFD in `cp`, if a character was cut
  /// short. The decoder can then start over.
  bool Flush(char32_t* cp);

 private:
  int need_ = 0;                               // continuation bytes still to come
  char32_t cp_ = 0;                            // the bits read so far
  unsigned char lower_ = 0x80, upper_ = 0xBF;  // the range of the next byte
};

/// What TerminalSafe does with line breaks (LF, U+2028, U+2029) and tabs.
enum class LineBreaks {
  kKeep,     // kept (LF for the Unicode separators): a multi-line block
  kToSpace,  // each becomes one space: a name or a table cell on one line
};

/// Streaming form of TerminalSafe, for a program's output read in pieces: an
/// escape sequence or a UTF-8 character split between two chunks is held back
/// and handled whole, so the output is the same however the input is cut.
/// Linear time; between calls it holds at most 3 bytes' worth of a character
/// and the escape parser's state, never the text itself.
class TerminalFilter {
 public:
  explicit TerminalFilter(LineBreaks breaks) : breaks_(breaks) {}

  /// The safe text of `chunk`, less what the next chunk may complete.
  std::string Feed(std::string_view chunk);

  /// Ends the stream: a UTF-8 character cut short becomes U+FFFD, an
  /// unfinished escape sequence is dropped. The filter can then start over.
  std::string Finish();

 private:
  enum class State : uint8_t { kText, kEscape, kEscapeTail, kCsi, kString, kStringEscape };
  void Filter(char32_t cp, std::string* out);
  /// Takes `cp` into the escape sequence or control string under way and
  /// returns true; false when `cp` is text.
  bool Sequence(char32_t cp, std::string* out);

  LineBreaks breaks_;
  State state_ = State::kText;
  int hashes_ = 0;  // the '#' characters the text kept ends with
  Utf8Decoder decoder_;
};

/// `text` made safe to print on a terminal or into a CI log:
/// - invalid UTF-8 becomes U+FFFD (as ValidUtf8);
/// - escape sequences are removed whole: CSI (ESC [ ... final byte), the
///   control strings OSC, DCS, SOS, PM and APC (ESC ] P X ^ _ ... up to BEL or
///   ST; an unterminated one ends at the next line feed, so a program cannot
///   hide the rest of its output), and the other ESC sequences (ESC 7, ESC c,
///   ESC ( B); their 8-bit C1 forms (U+009B, U+009D, ...) likewise;
/// - the other C0 controls, DEL and C1 controls (U+0080-U+009F) are removed,
///   CR included (it would let a line overwrite itself);
/// - Unicode bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E,
///   U+2066-U+2069) are removed, so text cannot display reordered;
/// - line breaks and tabs as `breaks` says;
/// - `##[` gets a zero-width space before its `[`: GitHub's runner obeys its
///   commands' old form (`##[add-mask]...`) anywhere in a line.
/// workgate's own colours are added after this, never passed through it.
std::string TerminalSafe(std::string_view text, LineBreaks breaks);

/// `text` with every `from` replaced by `to`, left to right; what a
/// replacement puts in is not searched again, so a `to` that holds `from`
/// ends. The placeholders of a command ({exe}, {suite_dir}, {file}) and of a
/// source link are filled in with it.
std::string ReplaceAll(std::string text, std::string_view from, std::string_view to);

/// `word` as one word of a shell command a person copies and runs: as it is
/// where it is non-empty and every byte is one of [A-Za-z0-9_@%+=:,./-]; in
/// single quotes where every byte is printable ASCII (each ' written '\''),
/// which POSIX shells take literally; otherwise in bash's $'...' quoting,
/// every byte outside printable ASCII as \xHH and ' and \ escaped. So the
/// result is one word of printable ASCII: no control character, no bidi
/// control, no line break, whatever `word` holds.
std::string ShellWord(std::string_view word);

/// What starts every line of a program's text that workgate passes through
/// or quotes: a CI runner obeys a line that starts with a command
/// (`::add-mask::`, `::stop-commands::`, `##[group]`), and a reader trusts a
/// line that looks like workgate's own (`workgate: ok`). After this prefix no
/// byte the program chose starts a line. GitHub's runner trims only
/// whitespace before it looks for `::`, so the prefix ends in a visible bar.
inline constexpr std::string_view kQuotePrefix = "  | ";

/// `text` made TerminalSafe (line breaks kept), each line prefixed with
/// kQuotePrefix; no line break at the end. "" for "".
std::string QuotedLines(std::string_view text);

/// Streaming form of QuotedLines for a program's output read in pieces:
/// TerminalFilter's text, each line prefixed, handed on only in whole lines
/// (a line longer than kMaxHeldLine is broken there, with a line break and
/// the prefix again), so that two streams that land in one log (stdout and
/// stderr) can interleave only at line boundaries and each line still starts
/// with the prefix. Holds at most kMaxHeldLine bytes between calls.
class QuotedLineFilter {
 public:
  static constexpr size_t kMaxHeldLine = 4096;

  /// The whole lines that `chunk` completes, each with its prefix and "\n".
  std::string Feed(std::string_view chunk);

  /// Ends the stream: the last line, if any, prefixed and with its "\n".
  std::string Finish();

 private:
  void Take(const std::string& safe, std::string* out);

  TerminalFilter filter_{LineBreaks::kKeep};
  std::string line_;  // the current line's text so far, without its prefix
};

/// `j` as a JSON document indented by two spaces, ending in a newline. Bytes
/// that are not UTF-8 in its strings become U+FFFD instead of making the
/// writer throw, so a hostile name or output never costs a result. Every
/// JSON file and stream workgate writes goes through this.
std::string JsonText(const nlohmann::json& j);

/// Parses `text` as one JSON document into `*doc`. False with `*err` when it
/// is not JSON ("not valid JSON: parse error at line 1, column 4: ...") or
/// holds a number no double can hold ("number overflow parsing '1e400'"),
/// without nlohmann's bracketed exception id, or when one object holds a key
/// twice ("duplicate key \"counts\": it appears twice in one object"):
/// nlohmann would keep the last silently, and a file whose readers may
/// disagree on what it says is refused. Every JSON workgate reads is parsed
/// here.
bool ParseJsonText(std::string_view text, nlohmann::json* doc, std::string* err);

}  // namespace workgate
