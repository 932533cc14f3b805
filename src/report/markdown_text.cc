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

}  // namespace workgate
