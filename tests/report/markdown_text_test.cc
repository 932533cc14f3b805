#include "report/markdown_text.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

TEST(MarkdownTextTest, CodeSpanFenceIsARunTheTextLacks) {
  EXPECT_EQ(MarkdownCode("vm_run", SpanIn::kParagraph), "`vm_run`");
  EXPECT_EQ(MarkdownCode("a`b", SpanIn::kParagraph), "``a`b``");
  EXPECT_EQ(MarkdownCode("a`b``c", SpanIn::kParagraph), "```a`b``c```");
  EXPECT_EQ(MarkdownCode("a``b```c", SpanIn::kParagraph), "`a``b```c`");
  // A run longer than cmark-gfm's longest fence needs no longer fence.
  const std::string run(300, '`');
  EXPECT_EQ(MarkdownCode("x" + run + "y", SpanIn::kParagraph), "`x" + run + "y`");
  // A backtick or a space at both ends is padded, and GFM strips the padding.
  EXPECT_EQ(MarkdownCode("`x", SpanIn::kParagraph), "`` `x ``");
  EXPECT_EQ(MarkdownCode(" x ", SpanIn::kParagraph), "`  x  `");
  EXPECT_EQ(MarkdownCode(" x", SpanIn::kParagraph), "` x`");
  EXPECT_EQ(MarkdownCode("  ", SpanIn::kParagraph), "`  `");
  EXPECT_EQ(MarkdownCode("", SpanIn::kParagraph), "");
}

TEST(MarkdownTextTest, TextWithEveryFenceLengthIsSplitAtItsBackticks) {
  std::string text = "<a>";
  for (int n = 1; n <= 80; ++n) text += std::string(n, '`') + "|";
  const std::string md = MarkdownCode(text, SpanIn::kTableCell);
  std::string expected = "`<a>`";
  for (int n = 1; n <= 80; ++n) {
    for (int k = 0; k < n; ++k) expected += "&#96;";
    expected += "`\\|`";
  }
  EXPECT_EQ(md, expected);
}

TEST(MarkdownTextTest, CodeSpanInATableCellEscapesPipes) {
  EXPECT_EQ(MarkdownCode("a|b\\|c", SpanIn::kTableCell), "`a\\|b\\\\|c`");
  EXPECT_EQ(MarkdownCode("a|b", SpanIn::kParagraph), "`a|b`");
}

TEST(MarkdownTextTest, CodeSpanIsOneLineOfValidText) {
  EXPECT_EQ(MarkdownCode("a\nb\r\nc\u2028d", SpanIn::kParagraph), "`a b c d`");
  EXPECT_EQ(MarkdownCode("a\x1b[31mb\u202E\x07", SpanIn::kParagraph), "`ab`");
  EXPECT_EQ(MarkdownCode("\xFF", SpanIn::kParagraph), "`\uFFFD`");
}

TEST(MarkdownTextTest, HtmlTextEscapesMarkup) {
  EXPECT_EQ(HtmlText("<img src=\"x\" alt='y'> & &amp;\nz"),
            "&lt;img src=&quot;x&quot; alt=&#39;y&#39;&gt; &amp; &amp;amp; z");
}

TEST(MarkdownTextTest, MarkdownTextEscapesInlineMarkup) {
  EXPECT_EQ(MarkdownText("*a* _b_ [c](d) `e` ~f~ g|h \\ <i> &"),
            "\\*a\\* \\_b\\_ \\[c\\](d) \\`e\\` \\~f\\~ g\\|h \\\\ &lt;i&gt; &amp;");
  EXPECT_EQ(MarkdownText("perf_event_open -> ENOENT"), "perf\\_event\\_open -&gt; ENOENT");
}

}  // namespace
}  // namespace workgate
