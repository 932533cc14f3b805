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

TEST(MarkdownTextTest, PlainTextIsReadableWithCodeOnlyWhereALinkCouldForm) {
  // The words of a note read as text; the ref a branch name could make a
  // link or a mention of is a code span.
  EXPECT_EQ(MarkdownPlainText("baseline: stored by main@abc1234"),
            "baseline: stored by `main@abc1234`");
  EXPECT_EQ(MarkdownPlainText("rebuilt from feature/*x*_y"), "rebuilt from feature/\\*x\\*\\_y");
  for (const char* linked :
       {"https://e.example", "WWW.e.example", "a@b.example", "#12", "GH-12", "deadbee", "o/r#1"}) {
    EXPECT_EQ(MarkdownPlainText(std::string("see ") + linked), std::string("see `") + linked + "`")
        << linked;
  }
  // Not links: six hex digits, "gh-" without a number, a colon alone.
  EXPECT_EQ(MarkdownPlainText("cafe12 gh-x a:b"), "cafe12 gh-x a:b");
  // A first word that would start a block in the list item it goes in.
  for (const char* block : {"-", "+", "1.", "12)", "#", ">", "|", "==="}) {
    EXPECT_EQ(MarkdownPlainText(std::string(block) + " x"), "`" + std::string(block) + "` x")
        << block;
  }
  EXPECT_EQ(MarkdownPlainText("12 workloads"), "12 workloads");
  // Spaces at the ends would indent it; line breaks join it to one line.
  EXPECT_EQ(MarkdownPlainText("    a\nb  "), "a b");
  EXPECT_EQ(MarkdownPlainText("  "), "");
}

}  // namespace
}  // namespace workgate
