#include "report/markdown_text.h"

#include <algorithm>
#include <vector>

#include "util/text.h"

namespace workgate {
namespace {

std::string OneLine(std::string_view text) { return TerminalSafe(text, LineBreaks::kToSpace); }

// cmark-gfm, GitHub's renderer, reads a string of more backticks than this
// as text, never as a code span's fence (MAXBACKTICKS in its inlines.c); the
// text inside would then be parsed as Markdown.
constexpr size_t kMaxCodeFence = 80;

// `text` (one line) in a code span whose fence is `fence` backticks, which
// must not occur in the text as a run of exactly that length: only such a
// run closes the span.
std::string Span(const std::string& text, size_t fence, SpanIn where) {
  if (text.empty()) return "";
  const bool all_spaces = text.find_first_not_of(' ') == std::string::npos;
  const bool pad = text.front() == '`' || text.back() == '`' ||
                   (text.front() == ' ' && text.back() == ' ' && !all_spaces);
  const std::string ticks(fence, '`');
  std::string out = ticks + (pad ? " " : "");
  for (char c : text) {
    if (c == '|' && where == SpanIn::kTableCell) out += '\\';
    out += c;
  }
  return out + (pad ? " " : "") + ticks;
}

void AppendHtmlEscaped(char c, std::string* out) {
  switch (c) {
    case '&':
      *out += "&amp;";
      break;
    case '<':
      *out += "&lt;";
      break;
    case '>':
      *out += "&gt;";
      break;
    case '"':
      *out += "&quot;";
      break;
    case '\'':
      *out += "&#39;";
      break;
    default:
      out->push_back(c);
  }
}

bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Whether GFM's extended autolinks (cmark-gfm's autolink extension) or
// GitHub's own references (mentions, issues, commits), which GitHub finds in
// the rendered text outside code, could make a link of `word`.
bool CouldLink(std::string_view word) {
  const std::string lower = Lower(word);
  if (lower.find_first_of("@#") != std::string::npos || lower.find("://") != std::string::npos ||
      lower.find("www.") != std::string::npos) {
    return true;
  }
  for (size_t at = lower.find("gh-"); at != std::string::npos; at = lower.find("gh-", at + 1)) {
    if (at + 3 < lower.size() && IsDigit(lower[at + 3])) return true;
  }
  size_t hex = 0;
  for (char c : word) {
    hex = IsHexDigit(c) ? hex + 1 : 0;
    if (hex >= 7) return true;
  }
  return false;
}

// Whether `word`, first in a list item's text, could start a block there: a
// list marker, a heading, a thematic break, a block quote, a table.
bool CouldStartBlock(std::string_view word) {
  if (word.empty()) return false;
  if (IsAsciiPunct(word[0])) return true;
  size_t digits = 0;
  while (digits < word.size() && IsDigit(word[digits])) ++digits;
  return digits > 0 && digits < word.size() && (word[digits] == '.' || word[digits] == ')');
}

}  // namespace

std::string MarkdownCode(std::string_view raw, SpanIn where) {
  const std::string text = OneLine(raw);
  // The run lengths of backticks in the text, up to the longest usable fence.
  std::vector<bool> has_run(kMaxCodeFence + 2, false);
  for (size_t i = 0; i < text.size();) {
    const size_t end = std::min(text.find_first_not_of('`', i), text.size());
    if (end > i) has_run[std::min(end - i, kMaxCodeFence + 1)] = true;
    i = end > i ? end : i + 1;
  }
  size_t fence = 1;
  while (fence <= kMaxCodeFence && has_run[fence]) ++fence;
  if (fence <= kMaxCodeFence) return Span(text, fence, where);
  // Every fence cmark-gfm reads occurs in the text: show each run of
  // backticks as character references between code spans of the rest.
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t tick = std::min(text.find('`', i), text.size());
    out += Span(text.substr(i, tick - i), 1, where);
    i = std::min(text.find_first_not_of('`', tick), text.size());
    for (size_t k = tick; k < i; ++k) out += "&#96;";
  }
  return out;
}

std::string HtmlText(std::string_view raw) {
  std::string out;
  for (char c : OneLine(raw)) AppendHtmlEscaped(c, &out);
  return out;
}

std::string MarkdownText(std::string_view raw) {
  std::string out;
  for (char c : OneLine(raw)) {
    if (std::string_view("\\`*_[]~|").find(c) != std::string_view::npos) out += '\\';
    AppendHtmlEscaped(c, &out);
  }
  return out;
}

std::string MarkdownPlainText(std::string_view raw) {
  std::string text = OneLine(raw);
  // Spaces before the text would make a list item's content indented code.
  text.erase(0, text.find_first_not_of(' '));
  text.erase(text.find_last_not_of(' ') + 1);
  std::string out;
  bool first = true;
  for (size_t at = 0; at < text.size();) {
    if (text[at] == ' ') {
      out += ' ';
      ++at;
      continue;
    }
    const size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = std::string_view(text).substr(at, end - at);
    const bool code = CouldLink(word) || (first && CouldStartBlock(word));
    out += code ? MarkdownCode(word, SpanIn::kParagraph) : MarkdownText(word);
    first = false;
    at = end;
  }
  return out;
}

}  // namespace workgate
