#pragma once
// Putting text that workgate did not write into its Markdown comment
// (GitHub Flavored Markdown) so that it shows as the text it is: never a
// link, an autolink, an image, emphasis, a heading or an HTML element, and
// never a way out of the table cell or the raw HTML it sits in. All three
// start from TerminalSafe on one line (util/text.h): valid UTF-8, no control
// characters, no bidi controls, no line breaks.

#include <string>
#include <string_view>

namespace workgate {

/// Where a code span goes: GFM splits a table row at every '|' that is not
/// written '\|' before it parses the cells' inline content, code spans
/// included, and then reads '\|' as '|'.
enum class SpanIn { kParagraph, kTableCell };

/// A code span showing `text` literally. Nothing is parsed inside a code
/// span, autolinks included, so this is the form for every name, path, score
/// and reason a candidate can influence. Its fence is the shortest run of
/// backticks that does not occur in the text with exactly that length (only
/// such a run would close it), and a space pads each side when the text starts
/// or ends with a backtick, or both starts and ends with a space (GFM strips
/// one space from each side then). In a table cell each '|' is written '\|'.
/// A text that holds every run length up to 80, the longest fence cmark-gfm
/// accepts, is shown as code spans of its backtick-free parts with each
/// backtick between them as the character reference "&#96;". Empty text
/// gives "".
std::string MarkdownCode(std::string_view text, SpanIn where);

/// `text` as HTML character data, for workgate's raw HTML (`<summary>`):
/// '&', '<', '>', '"' and '\'' as character references.
std::string HtmlText(std::string_view text);

/// workgate's own prose with a part it did not word itself (the probe's
/// reason): HTML-escaped, and the characters that start emphasis, links,
/// images, code spans or table cells ('\\', '`', '*', '_', '[', ']', '~',
/// '|') backslash-escaped. GFM's extended autolinks (www., http://, e-mail
/// addresses) are still recognised in it: text from a candidate goes into
/// MarkdownCode instead.
std::string MarkdownText(std::string_view text);

/// Words a person wrote for the comment that may quote a name a pull
/// request's author chose (a `--note` naming a branch), as readable text
/// that renders no link, image, HTML, emphasis, heading, list or mention:
/// MarkdownText, but each word (a run of characters between spaces) that
/// GFM's extended autolinks or GitHub's references could make a link of
/// goes in a code span (MarkdownCode) instead. Those are the words holding
/// '@' (an e-mail address, a mention, user@commit), '#' (an issue, a
/// heading), "://" (a URL), "www." in any case, "GH-" and a digit (an
/// issue), or seven hex digits in a row (a commit); and a first word that
/// could start a block in a list item (one starting with ASCII punctuation,
/// or digits then '.' or ')').
std::string MarkdownPlainText(std::string_view text);

}  // namespace workgate
