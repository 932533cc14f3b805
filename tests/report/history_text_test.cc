// The terminal view of the history, on the sample of report/history_sample.h.

#include "report/history_text.h"

#include <gtest/gtest.h>

#include "decision/history.h"
#include "report/history_sample.h"
#include "report/history_view.h"

namespace workgate {
namespace {

using testing::SampleHistoryRecords;

std::vector<WorkloadHistory> SampleHistories() {
  return AnalyzeHistory(SampleHistoryRecords(), 10);
}

// The lines of `text` that contain `needle`.
std::vector<std::string> LinesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (line.find(needle) != std::string::npos) out.push_back(line);
    start = end + 1;
  }
  return out;
}

TEST(HistoryTextTest, EachSeriesHasItsHeaderVerdictAndTable) {
  const std::string text = RenderHistoryText(SampleHistories(), false);
  // Sorted by workload: interp/fib, interp/loop, wgmark/sort.
  EXPECT_LT(text.find("interp/fib ("), text.find("interp/loop ("));
  EXPECT_LT(text.find("interp/loop ("), text.find("wgmark/sort ("));
  // 812,345,678 * 1.007^7 = 852,996,341: +5.00% in seven steps of 0.7%.
  EXPECT_NE(text.find("interp/fib (vgcount, Ir, margin 1.00%): drift: +5.00% over the last 8 "
                      "commits, no step crossed the 1.00% margin\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("wgmark/sort (callgrind, Ir, margin 1.00%): no drift (a step crossed the "
                      "1.00% margin)\n"),
            std::string::npos)
      << text;
  // interp/loop's differences have a median absolute deviation of 0.0334%:
  // 1.4826 * 0.0334% / sqrt(2) = 0.0350%, and 3 * sqrt(2) of that 0.149%.
  EXPECT_NE(text.find("interp/loop (perf, instructions:u, margin 1.00%): no drift: +0.01% over "
                      "the last 8 commits\n  noise floor 0.0350% of a count, from 7 "
                      "differences; drift must exceed ±0.149%\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("noise floor", text.find("wgmark/sort")), std::string::npos);
  EXPECT_EQ(LinesWith(text, "  ref ").size(), 3u);  // a header per table
  // The table: ref, date, count with separators, step, cumulative, marks.
  const auto fib_last = LinesWith(text, "d4e2b95  2026-12-08T09:30:00Z  852,996,341");
  ASSERT_EQ(fib_last.size(), 1u) << text;
  EXPECT_NE(fib_last[0].find("852,996,341  +0.70%      +5.00%"), std::string::npos) << fib_last[0];
  const auto broken = LinesWith(text, "break: valgrind changed");
  ASSERT_EQ(broken.size(), 1u) << text;
  EXPECT_EQ(broken[0].find("  c21a9f0  2026-12-03T09:30:00Z  1,187,453,195"), 0u) << broken[0];
  const auto crossed = LinesWith(text, "step over the margin");
  ASSERT_EQ(crossed.size(), 1u) << text;
  EXPECT_NE(crossed[0].find("e77f018"), std::string::npos);
  EXPECT_NE(crossed[0].find("+2.40%"), std::string::npos);
  EXPECT_EQ(text.find('\033'), std::string::npos);
}

TEST(HistoryTextTest, ColourMarksDriftAndCrossedSteps) {
  const std::string text = RenderHistoryText(SampleHistories(), true);
  EXPECT_NE(text.find("\033[1;33mdrift: +5.00%"), std::string::npos) << text;
  EXPECT_NE(text.find("\033[1;31m+2.40%\033[0m"), std::string::npos) << text;
}

TEST(HistoryTextTest, TextFromRecordsCannotDriveTheTerminal) {
  std::vector<HistoryRecord> records = SampleHistoryRecords();
  records[0].ref = "abc\033]0;owned\007\033[2J\r";
  records[0].workload = "interp/fib\033[31m";
  const std::string text = RenderHistoryText(AnalyzeHistory(records, 10), true);
  EXPECT_EQ(text.find("\033]"), std::string::npos);
  EXPECT_EQ(text.find("\033[2J"), std::string::npos);
  EXPECT_EQ(text.find("\033[31m"), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("abc "), std::string::npos) << text;
}

TEST(HistoryTextTest, TheWindowAndAnEmptyHistorySaySo) {
  EXPECT_NE(RenderHistoryText(AnalyzeHistory(SampleHistoryRecords(), 3), false)
                .find("  the last 3 of 8 recorded commits\n"),
            std::string::npos);
  EXPECT_EQ(RenderHistoryText({}, false), "no recorded history\n");
}

TEST(HistoryTextTest, VerdictsNameEveryCase) {
  WorkloadHistory h;
  h.backend = "perf";
  HistoryPoint p;
  h.points = {p, p, p};
  h.margin = 0.01;
  EXPECT_EQ(HistoryVerdict(h, Minus::kAscii), "no drift");
  h.cumulative = 0.012;
  EXPECT_EQ(HistoryVerdict(h, Minus::kAscii),
            "no drift decided: +1.20% over the last 3 commits, too few differences to estimate "
            "the noise");
  h.noise_floor = 0.003;  // 3 * sqrt(2) * 0.3% = 1.27%
  EXPECT_EQ(HistoryVerdict(h, Minus::kAscii),
            "no drift: +1.20% over the last 3 commits is within the noise (±1.27%)");
  h.points[1].break_before = true;
  h.cumulative = -0.004;
  EXPECT_EQ(HistoryVerdict(h, Minus::kAscii),
            "no drift: -0.40% over the last 2 commits since the break");
}

}  // namespace
}  // namespace workgate
