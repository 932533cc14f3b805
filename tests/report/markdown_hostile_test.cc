// The PR comment with hostile text in every place a candidate can reach
// (workload name, asserted and printed score, reason, function and object
// name, explanation error, baseline and candidate labels), rendered the way
// GitHub renders it: cmark-gfm with the table, autolink, tagfilter and
// strikethrough extensions. Raw HTML is let through (--unsafe), so anything
// that got into the comment as markup shows in the rendered HTML.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "launch/launch.h"
#include "report/explanation_text.h"
#include "report/markdown_report.h"
#include "report/sample_report.h"
#include "report/summary.h"
#include "test_requirements.h"
#include "util/paths.h"
#include "util/text.h"

namespace workgate {
namespace {

using testing_report::HostileReport;

struct Hostile {
  std::string label;
  std::string raw;       // what the candidate wrote
  std::string shown;     // the text a reader must see
  bool one_span = true;  // shown whole in one code element
};

std::vector<Hostile> Battery() {
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "`<a>|";
  const std::string breakout = "``q`` <img src=x onerror=alert(1)> [link](https://e.example) ``z``";
  // Runs of every length a code span's fence can have (cmark-gfm reads at
  // most 80 backticks as one), so no fence fits.
  std::string every_fence = "<img src=x onerror=alert(1)>";
  for (int n = 1; n <= 81; ++n) every_fence += std::string(n, '`') + "*x*|";
  std::vector<Hostile> b = {
      {"one backtick", "a`b", ""},
      {"backtick runs", "``x```y````z`", ""},
      {"backticks at both ends", "`x`", ""},
      {"only backticks", "````", ""},
      {"spaces at both ends", " x ", ""},
      {"a long backtick run", "x" + std::string(300, '`') + "y", ""},
      {"every fence length", every_fence, "", false},
      {"code span breakout", breakout, ""},
      {"img element", "<img src=x onerror=alert(1)>", ""},
      {"link", "[x](https://e.example)", ""},
      {"image", "![i](https://e.example/i.png)", ""},
      {"bare URL", "https://evil.example", ""},
      {"www autolink", "www.evil.example", ""},
      {"e-mail address", "a@b.example", ""},
      {"angle autolink", "<https://evil.example>", ""},
      {"entities", "&amp; &#60; &lt;script&gt;", ""},
      {"script", "<script>alert(1)</script>", ""},
      {"raw HTML close", "</code></summary></details><a href=x>y</a>", ""},
      {"emphasis", "*emph* _e_ **s** ~~del~~", ""},
      {"heading", "# heading", ""},
      {"pipes", "a|b||c\\|d\\", ""},
      {"newlines", "a\nb\r\nc", "a b c"},
      {"line separator", "a\u2028b", "a b"},
      {"bidi overrides", "a\u202Eb\u2066c\u2069d", "abcd"},
      {"escape sequences", "a\x1b[31mb\x1b]0;t\x07", "ab"},
      {"10,000 characters", many, ""},
      {"invalid UTF-8",
       "a\xFF\xFE"
       "b\xC3",
       "a\uFFFD\uFFFDb\uFFFD"},
  };
  for (Hostile& h : b) {
    if (h.shown.empty()) h.shown = h.raw;
  }
  return b;
}

std::string DecodeEntities(const std::string& s) {
  static const std::regex entity("&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-z]+);");
  std::string out;
  auto begin = std::sregex_iterator(s.begin(), s.end(), entity);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += s.substr(last, it->position() - last);
    const std::string name = (*it)[1];
    if (name == "amp")
      out += '&';
    else if (name == "lt")
      out += '<';
    else if (name == "gt")
      out += '>';
    else if (name == "quot")
      out += '"';
    else if (name[0] == '#') {
      const long cp = name[1] == 'x' || name[1] == 'X' ? std::strtol(name.c_str() + 2, nullptr, 16)
                                                       : std::strtol(name.c_str() + 1, nullptr, 10);
      out += cp == '\'' ? "'" : "&#" + std::to_string(cp) + ";";
    } else {
      out += it->str();  // left as written: the check below then fails
    }
    last = it->position() + it->length();
  }
  return out + s.substr(last);
}

// The text a reader sees: the HTML without its tags, references decoded.
std::string TextOf(const std::string& html) {
  std::string text;
  for (size_t at = 0; at < html.size();) {
    const size_t tag = std::min(html.find('<', at), html.size());
    text += html.substr(at, tag - at);
    at = tag < html.size() ? html.find('>', tag) + 1 : tag;
  }
  return DecodeEntities(text);
}

size_t CountNonOverlapping(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

// The elements and attributes of the rendered HTML, and each <code>'s text.
struct Html {
  std::map<std::string, int> elements;  // name (opening or closing) -> openings
  std::vector<std::string> attributes;  // name="value"
  std::vector<std::string> code_texts;
};

Html ParseHtml(const std::string& html) {
  static const std::regex attribute(R"re(([^\s=/"'>]+)(\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?)re");
  Html out;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const size_t end = html.find('>', at);
    const std::string tag = html.substr(at + 1, end == std::string::npos ? 50 : end - at - 1);
    const bool closing = !tag.empty() && tag[0] == '/';
    size_t n = closing ? 1 : 0;
    while (n < tag.size() && std::isalnum(static_cast<unsigned char>(tag[n]))) ++n;
    const std::string name = tag.substr(closing ? 1 : 0, n - (closing ? 1 : 0));
    out.elements[name.empty() ? "<" + tag.substr(0, 3) : name] += closing ? 0 : 1;
    const std::string rest = tag.substr(n);
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), attribute);
         it != std::sregex_iterator(); ++it) {
      out.attributes.push_back(it->str());
    }
    if (name == "code" && !closing && end != std::string::npos) {
      const size_t close = html.find("</code>", end);
      out.code_texts.push_back(DecodeEntities(html.substr(end + 1, close - end - 1)));
    }
  }
  return out;
}

class MarkdownHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    cmark_ = SearchPath("cmark-gfm", path ? path : "/usr/bin:/bin");
    if (cmark_.empty()) {
      WORKGATE_REQUIRE_TOOL(false,
                            "cmark-gfm is not installed (Debian package cmark-gfm): the "
                            "comment cannot be rendered as GitHub renders it");
    }
  }
  std::string Render(const std::string& markdown) {
    const std::string file = dir_.path() + "/comment.md";
    std::ofstream(file, std::ios::binary) << markdown;
    LaunchSpec spec;
    spec.argv = {cmark_, "--unsafe",      "-e", "table", "-e", "autolink", "-e", "tagfilter",
                 "-e",   "strikethrough", "-t", "html",  file};
    spec.env = MinimalEnvironment(dir_.path());
    spec.timeout_seconds = 60;
    // The launcher keeps only the ends of long output; the whole page is
    // needed, so it is taken as it streams by.
    std::string html;
    spec.passthrough = [&html](int fd, std::string_view chunk) {
      if (fd == 1) html.append(chunk);
    };
    LaunchResult r = Launch(spec);
    EXPECT_TRUE(r.ok()) << r.Describe() << r.err;
    return html;
  }
  // Only the elements and attributes workgate writes itself: the one link
  // is the sample's link to a line (tests/report/sample_report.h).
  void ExpectOnlyOwnMarkup(const Html& html, const std::string& label) {
    static const std::set<std::string> allowed = {
        "h3",   "p",      "table", "thead",   "tbody",   "tr", "th", "td", "a",
        "code", "strong", "em",    "details", "summary", "br", "ul", "li"};
    for (const auto& [name, count] : html.elements) {
      EXPECT_TRUE(allowed.count(name)) << label << ": rendered a <" << name << "> element";
    }
    EXPECT_LE(html.elements.count("a") ? html.elements.at("a") : 0, 1) << label;
    for (const std::string& a : html.attributes) {
      EXPECT_TRUE(a.rfind("align=", 0) == 0 || a == kSampleLink)
          << label << ": rendered the attribute " << a;
    }
  }
  static constexpr char kSampleLink[] = "href=\"https://github.com/o/wgi/blob/f00d/wgi/vm.c#L212\"";
  std::string cmark_;
  TempDir dir_;
};

TEST_F(MarkdownHostileTest, HostileTextStaysTextEverywhere) {
  // HostileReport's shape: the main table, one explanation's table and the
  // timed table; two explanations, the timed scores and the workloads'
  // commands in <details>. (Its caller's note is text, not a code span:
  // ACallerNoteIsTextWithoutLinksOrMarkup.)
  const int tables = 3, details = 4;
  for (const Hostile& h : Battery()) {
    CompareReport report = HostileReport(h.raw);
    report.notes.clear();
    const std::string md = RenderMarkdown(report);
    const std::string rendered = Render(md);
    const Html html = ParseHtml(rendered);
    ExpectOnlyOwnMarkup(html, h.label);
    // The shape is workgate's: one heading, its tables and explanations.
    EXPECT_EQ(html.elements.count("h3") ? html.elements.at("h3") : 0, 1) << h.label;
    EXPECT_EQ(html.elements.count("table") ? html.elements.at("table") : 0, tables) << h.label;
    EXPECT_EQ(html.elements.count("details") ? html.elements.at("details") : 0, details) << h.label;
    // Thirteen places show the text whole in a code element: the workload
    // name (table, summary, timed table, the list of commands), the asserted
    // score, the function and the object, the object and the path of a file
    // without symbols, the reason, the explanation's error, the two labels.
    // (The clone names are shown shortened.)
    // A printed score longer than 64 characters is quoted shortened in the
    // reason (workload/score.h ShortScore), so it is seen there in part.
    const bool quoted_whole = h.raw.size() <= 64;
    int whole = 0;
    bool in_reason = false;
    for (const std::string& text : html.code_texts) {
      whole += text == h.shown;
      in_reason = in_reason || (text.rfind("candidate: score ", 0) == 0 &&
                                (quoted_whole ? text.find(h.shown) != std::string::npos
                                              : text.find(" characters) differs") !=
                                                    std::string::npos));
    }
    // The summary's <code> element holds any text whole; a text that no
    // code span can hold is shown as several, with its backticks between.
    EXPECT_EQ(whole, h.one_span ? 13 : 1) << h.label << "\n" << md;
    EXPECT_TRUE(in_reason || !h.one_span) << h.label << ": the printed score is not in its reason";
    // The reader sees the text thirteen times, and in the printed score's reason.
    EXPECT_GE(CountNonOverlapping(TextOf(rendered), h.shown), quoted_whole ? 14u : 13u)
        << h.label << "\n"
        << md;
  }
}

TEST_F(MarkdownHostileTest, TheNameOfAWorkloadWhoseTimingDisagreesStaysText) {
  // The sentence under the table is workgate's own; the name in front of it
  // is the suite's (or an ad hoc command's), shown whole in a code element
  // there as in the table, the timed table and the timed details.
  for (const Hostile& h : Battery()) {
    CompareReport r = testing_report::TimingVsCountReport();
    r.workloads[0].name = h.raw;
    const std::string md = RenderMarkdown(r);
    ASSERT_NE(md.find(": timing and count disagree: "), std::string::npos) << h.label;
    const std::string rendered = Render(md);
    const Html html = ParseHtml(rendered);
    ExpectOnlyOwnMarkup(html, h.label);
    EXPECT_EQ(html.elements.count("h3") ? html.elements.at("h3") : 0, 1) << h.label;
    int whole = 0;
    for (const std::string& text : html.code_texts) whole += text == h.shown;
    // A text that no code span can hold is shown as several.
    EXPECT_EQ(whole, h.one_span ? 4 : 0) << h.label << "\n" << md;
    EXPECT_GE(CountNonOverlapping(TextOf(rendered), h.shown + ": timing and count disagree"), 1u)
        << h.label << "\n"
        << md;
  }
}

TEST_F(MarkdownHostileTest, ASourceLineStaysText) {
  // A line's text comes from the checkout, which the pull request writes.
  for (const Hostile& h : Battery()) {
    CompareReport r = testing_report::CallgrindReport();
    r.workloads[0].explanation->rows[0].lines[0].text = h.raw;
    const std::string md = RenderMarkdown(r);
    const Html html = ParseHtml(Render(md));
    ExpectOnlyOwnMarkup(html, h.label);
    EXPECT_EQ(html.elements.count("a") ? html.elements.at("a") : 0, 1) << h.label << "\n" << md;
    // Shown whole where it is short enough not to be cut and fits one span.
    if (h.one_span && CutText(h.raw, kLineTextChars) == h.raw) {
      EXPECT_TRUE(std::count(html.code_texts.begin(), html.code_texts.end(), h.shown) >= 1)
          << h.label << "\n"
          << md;
    }
  }
}

TEST_F(MarkdownHostileTest, ACallerNameStaysText) {
  // A caller's and its object's names come from the candidate's symbols.
  for (const Hostile& h : Battery()) {
    CompareReport r = testing_report::CallgrindReport();
    CallerMove& m = r.workloads[0].explanation->rows[1].moves.at(0);
    m.caller = m.object = h.raw;
    const std::string md = RenderMarkdown(r);
    const Html html = ParseHtml(Render(md));
    ExpectOnlyOwnMarkup(html, h.label);
    if (h.one_span) {
      EXPECT_GE(std::count(html.code_texts.begin(), html.code_texts.end(), h.shown), 2)
          << h.label << "\n"
          << md;
    }
  }
}

TEST_F(MarkdownHostileTest, AWorkloadsCommandStaysText) {
  // The suite's command is the pull request's to write: shown as one code
  // span, quoted as a shell would read it, under the workload's name.
  for (const Hostile& h : Battery()) {
    const CompareReport r = HostileReport(h.raw);
    const std::string md = RenderMarkdown(r);
    ASSERT_NE(md.find("<details><summary>How each workload runs</summary>"), std::string::npos)
        << h.label << "\n"
        << md;
    const Html html = ParseHtml(Render(md));
    ExpectOnlyOwnMarkup(html, h.label);
    EXPECT_EQ(html.elements.count("h3") ? html.elements.at("h3") : 0, 1) << h.label;
    if (!h.one_span) continue;
    const std::string shown =
        TerminalSafe(CommandLineText(r.workloads[0].command), LineBreaks::kToSpace);
    EXPECT_EQ(std::count(html.code_texts.begin(), html.code_texts.end(), shown), 1)
        << h.label << "\n"
        << md;
  }
}

// Words a caller (a CI workflow) wrote around a branch name a pull request's
// author chose: each note must read as text, and nothing of the author's may
// become a link, an image, HTML, emphasis, a heading, a list or a mention.
TEST_F(MarkdownHostileTest, ACallerNoteIsTextWithoutLinksOrMarkup) {
  std::vector<Hostile> battery = Battery();
  // What GitHub itself links outside code: mentions, issues, commits.
  for (const char* raw :
       {"@octocat", "#12", "GH-12", "o/r#12", "o/r@deadbeef", "deadbeef1234", "WWW.EVIL.EXAMPLE",
        "mailto:a@b.example", "x_www.evil.example", "- item", "+ item", "1. item", "2) item", "---",
        "    indented", "> quote", "| a | b |", "a\n===", "[x]: https://e.example"}) {
    battery.push_back({raw, raw, raw});
  }
  CompareReport plain = testing_report::PerfReport();
  const Html without = ParseHtml(Render(RenderMarkdown(plain)));
  for (const Hostile& h : battery) {
    for (const std::string& note : {h.raw, "baseline: stored by " + h.raw + "@abc1234",
                                    "baseline of " + h.raw + ", rebuilt"}) {
      CompareReport r = plain;
      r.notes = {note};
      const std::string md = RenderMarkdown(r);
      const std::string rendered = Render(md);
      const Html html = ParseHtml(rendered);
      // The note adds one list of one item, and code elements: nothing else.
      std::map<std::string, int> added = html.elements;
      for (const auto& [name, count] : without.elements) added[name] -= count;
      for (const auto& [name, count] : added) {
        if (name == "ul" || name == "li") {
          EXPECT_EQ(count, 1) << h.label << ": <" << name << ">\n" << md;
        } else if (name != "code") {
          EXPECT_EQ(count, 0) << h.label << ": rendered a <" << name << ">\n" << md;
        }
      }
      EXPECT_EQ(html.attributes, without.attributes) << h.label << "\n" << md;
      // Outside code, nothing GitHub would make a link or a mention of.
      const size_t item = rendered.find("<li>");
      ASSERT_NE(item, std::string::npos) << md;
      std::string outside = rendered.substr(item, rendered.find("</li>", item) - item);
      for (size_t at; (at = outside.find("<code>")) != std::string::npos;) {
        outside.erase(at, outside.find("</code>", at) + 7 - at);
      }
      std::string lower = TextOf(outside);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (const char* linked : {"@", "#", "://", "www.", "gh-1", "deadbeef"}) {
        EXPECT_EQ(lower.find(linked), std::string::npos)
            << h.label << ": " << linked << " outside code\n"
            << md;
      }
      // The reader sees the note, spaces at its ends aside.
      std::string shown = TerminalSafe(note, LineBreaks::kToSpace);
      shown.erase(0, shown.find_first_not_of(' '));
      shown.erase(shown.find_last_not_of(' ') + 1);
      EXPECT_NE(TextOf(rendered).find(shown), std::string::npos) << h.label << "\n" << md;
    }
  }
}

// Text GFM would autolink even as escaped Markdown text (a URL, "www.", an
// address): the tests of text rendered as such leave it out.
bool Autolinked(const std::string& raw) {
  return raw.find("://") != std::string::npos || raw.find("www.") != std::string::npos ||
         raw.find('@') != std::string::npos;
}

TEST_F(MarkdownHostileTest, ProbeReasonIsPlainText) {
  // The backend's reason (now left to the JSON: the comment says why in
  // fixed words) and the Valgrind version, escaped as Markdown text; GFM
  // would still autolink a URL in them, so those are left out here.
  for (const Hostile& h : Battery()) {
    if (Autolinked(h.raw)) continue;
    CompareReport r = testing_report::PerfReport();
    r.backend_reason = h.raw;
    r.workloads[0].baseline.fingerprint.valgrind_version = h.raw;
    const Html html = ParseHtml(Render(RenderMarkdown(r)));
    ExpectOnlyOwnMarkup(html, h.label);
    EXPECT_EQ(html.elements.count("em"), 0u) << h.label;
    EXPECT_EQ(html.elements.count("h3") ? html.elements.at("h3") : 0, 1) << h.label;
  }
}

TEST_F(MarkdownHostileTest, AHardwareEventsNoteStaysText) {
  // The note quotes a failed run's error, which the candidate can write;
  // GFM would still autolink a URL in it, so those are left out here.
  for (const Hostile& h : Battery()) {
    if (Autolinked(h.raw)) continue;
    CompareReport r = testing_report::PerfReport();
    r.workloads[1].hardware = HardwareEvents{{}, h.raw};
    const std::string md = RenderMarkdown(r);
    ASSERT_NE(md.find("hardware events not shown: "), std::string::npos) << md;
    const Html html = ParseHtml(Render(md));
    ExpectOnlyOwnMarkup(html, h.label);
    EXPECT_EQ(html.elements.count("h3") ? html.elements.at("h3") : 0, 1) << h.label;
  }
}

}  // namespace
}  // namespace workgate
