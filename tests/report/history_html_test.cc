// The HTML page of the history, read as text: self-contained, one chart per
// series with one point per recorded commit, bands, breaks and drift marked,
// the terminal's table beneath, and text from the records inert.
// tests/report/history_browser_test.cc loads the same page in Chromium.

#include "report/history_html.h"

#include <gtest/gtest.h>

#include "decision/history.h"
#include "report/history_chart.h"
#include "report/history_sample.h"

namespace workgate {
namespace {

using testing::kHostileRef;
using testing::Occurrences;
using testing::SampleHistoryRecords;

TEST(HistoryHtmlTest, APageNeedsNothingFromElsewhere) {
  const std::string page = RenderHistoryHtml(AnalyzeHistory(SampleHistoryRecords(), 10));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("content=\"default-src 'none'; style-src 'unsafe-inline'\""),
            std::string::npos);
  // No URL at all: no script, stylesheet, font or image to fetch.
  for (const char* outside : {"://", "<script", "<link", "src=", "href=", "url(", "@import"}) {
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  }
  EXPECT_EQ(Occurrences(page, "<style>"), 1u);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
}

TEST(HistoryHtmlTest, EachSeriesHasAChartWithOnePointPerCommitAndTheTable) {
  const auto series = AnalyzeHistory(SampleHistoryRecords(), 10);
  const std::string page = RenderHistoryHtml(series);
  const std::vector<std::string> charts = testing::SvgElements(page);
  ASSERT_EQ(charts.size(), 3u);
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(charts[s].rfind("<svg class=\"chart", 0), 0u);
    EXPECT_NE(charts[s].find("width=\"700\" height=\"260\" viewBox=\"0 0 700 260\""),
              std::string::npos);
    EXPECT_EQ(Occurrences(charts[s], "<circle class=\"point\""), 8u) << s;
    for (const std::string& ref : testing::kSampleRefs) {
      EXPECT_EQ(Occurrences(charts[s], "data-ref=\"" + ref + "\""), 1u) << ref;
    }
  }
  // interp/fib drifts; wgmark/sort has a break (two segments, two bands)
  // and a crossed step; interp/loop neither.
  EXPECT_EQ(charts[0].rfind("<svg class=\"chart drift\"", 0), 0u);
  EXPECT_NE(charts[0].find("<text class=\"drift-label added\""), std::string::npos);
  EXPECT_NE(charts[0].find(">drift +5.00% from 3f9c2a1 to d4e2b95, every step of it under the "
                           "margin</text>"),
            std::string::npos)
      << charts[0];
  EXPECT_EQ(Occurrences(charts[0], "<rect class=\"band\""), 1u);
  EXPECT_EQ(Occurrences(charts[0], "<line class=\"break\""), 0u);
  EXPECT_EQ(charts[1].rfind("<svg class=\"chart\"", 0), 0u);
  EXPECT_EQ(Occurrences(charts[2], "<line class=\"break\""), 1u);
  EXPECT_EQ(Occurrences(charts[2], "<rect class=\"band\""), 2u);
  EXPECT_EQ(Occurrences(charts[2], "<polyline class=\"line\""), 2u);
  EXPECT_NE(charts[2].find("<title>break: valgrind changed&#10;valgrind: valgrind-3.19.0 at "
                           "/usr/libexec/valgrind → valgrind-3.20.0 at /usr/libexec/valgrind"
                           "</title>"),
            std::string::npos)
      << charts[2];
  EXPECT_EQ(Occurrences(charts[2], "data-crossed=\"true\""), 1u);
  EXPECT_NE(charts[2].find("data-ref=\"e77f018\" data-crossed=\"true\" data-direction=\"added\""),
            std::string::npos);
  // The tooltip: ref, date, count, step.
  EXPECT_NE(charts[2].find("<title>e77f018 · 2026-12-06 08:15 UTC · 1,215,909,762 "
                           "instructions · step +2.40%</title>"),
            std::string::npos)
      << charts[2];
  // The table: a row per point, the terminal's cells.
  EXPECT_EQ(Occurrences(page, "<table class=\"points\">"), 3u);
  EXPECT_EQ(Occurrences(page, "<td class=\"ref\">"), 24u);
  EXPECT_NE(page.find("<tr class=\"crossed added\"><td class=\"ref\">e77f018</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<tr class=\"break\"><td class=\"ref\">c21a9f0</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"count\">852,996,341</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"date\">2026-12-08 08:15 UTC</td>"), std::string::npos);
  EXPECT_NE(page.find("<th class=\"date\">commit date</th>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"date\">recorded 2026-12-01 09:30 UTC</td>"), std::string::npos);
  EXPECT_EQ(page.find("T09:30:00Z"), std::string::npos);
  EXPECT_NE(page.find("<p class=\"noise\">noise floor 0.0350% of a count"), std::string::npos);
  // Each series and headline is coloured by its direction.
  EXPECT_NE(page.find("<section class=\"series added drift\" data-workload=\"interp/fib\">"),
            std::string::npos);
  EXPECT_NE(page.find("<section class=\"series unchanged\" data-workload=\"interp/loop\">"),
            std::string::npos);
  EXPECT_NE(page.find("<p class=\"verdict added\">+2.40% over the last 6 commits since the "
                      "break; one step of +2.40% at e77f018"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("p.verdict.added { color: #cf222e; }"), std::string::npos);
  EXPECT_NE(page.find("p.verdict.removed { color: #1a7f37; }"), std::string::npos);
}

TEST(HistoryHtmlTest, TextFromRecordsIsInert) {
  std::vector<HistoryRecord> records = SampleHistoryRecords();
  for (HistoryRecord& r : records) {
    r.subject = "</td><script>alert(2)</script>" + std::string(200, 'z');
    if (r.ref == "a0c4b12") r.ref = kHostileRef;
    if (r.workload == "interp/loop") r.workload = "</svg><img src=x onerror=alert(1)>";
    r.condition_parts["valgrind"] += "<b onmouseover=\"x\">";
  }
  const auto series = AnalyzeHistory(records, 10);
  const std::string page = RenderHistoryHtml(series);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // Subjects: a column and the tooltip, escaped and cut to 120 code points.
  const std::string subject =
      "&lt;/td&gt;&lt;script&gt;alert(2)&lt;/script&gt;" + std::string(90, 'z') + "…";
  EXPECT_EQ(Occurrences(page, "<td class=\"subject\">" + subject + "</td>"), 24u);
  EXPECT_EQ(Occurrences(page, " · " + subject + "</title>"), 24u);
  EXPECT_EQ(page.find(std::string(91, 'z')), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b "), std::string::npos);
  const std::string escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;";
  EXPECT_EQ(Occurrences(page, "data-ref=\"" + escaped + "\""), 3u);
  EXPECT_EQ(Occurrences(page, "<td class=\"ref\">" + escaped + "</td>"), 3u);
  EXPECT_NE(page.find("data-workload=\"&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;\""),
            std::string::npos);
  // Still one chart per series and one point per commit.
  EXPECT_EQ(testing::SvgElements(page).size(), 3u);
  EXPECT_EQ(Occurrences(page, "<circle class=\"point\""), 24u);
  // A long ref is cut on the x axis by characters, never inside an escape.
  EXPECT_NE(page.find(">&lt;script&gt;al…</text>"), std::string::npos);
}

TEST(HistoryHtmlTest, TicksAreRoundNumbersInsideTheRange) {
  EXPECT_EQ(NiceTicks(0.5, 10.2, 5), (std::vector<double>{2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(1'000'000'000, 1'090'000'000, 5),
            (std::vector<double>{1'000'000'000, 1'020'000'000, 1'040'000'000, 1'060'000'000,
                                 1'080'000'000}));
  EXPECT_TRUE(NiceTicks(5, 5, 5).empty());
}

TEST(HistoryHtmlTest, AnEmptyHistoryIsAPageThatSaysSo) {
  const std::string page = RenderHistoryHtml({});
  EXPECT_NE(page.find("<p>no recorded history</p>"), std::string::npos);
  EXPECT_EQ(page.find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace workgate
