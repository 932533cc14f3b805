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
  EXPECT_NE(text.find("interp/fib (vgcount, Ir, margin 1.00%): +5.00% over the last 8 "
                      "commits; drift: no step crossed the 1.00% margin\n"),
            std::string::npos)
      << text;
  // 1,215,988,012 / 1,187,453,195 - 1 = +2.40% since the break, all but
  // 0.003% of it in one step.
  EXPECT_NE(text.find("wgmark/sort (callgrind, Ir, margin 1.00%): +2.40% over the last 6 commits "
                      "since the break; one step of +2.40% at e77f018 (work added by that "
                      "commit, for its own gate to judge)\n"),
            std::string::npos)
      << text;
  // interp/loop's differences have a median absolute deviation of 0.0334%:
  // 1.4826 * 0.0334% / sqrt(2) = 0.0350%, and 3 * sqrt(2) of that 0.149%.
  EXPECT_NE(text.find("interp/loop (perf, instructions:u, margin 1.00%): +0.01% over the last 8 "
                      "commits; no step or drift beyond the 1.00% margin\n  noise floor 0.0350% of "
                      "a count, from 7 "
                      "differences; drift must exceed ±0.149%\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("noise floor", text.find("wgmark/sort")), std::string::npos);
  EXPECT_EQ(LinesWith(text, "  ref ").size(), 3u);  // a header per table
  // Times as people read them, never the stored ISO form.
  EXPECT_EQ(text.find("T09:30:00Z"), std::string::npos) << text;
  EXPECT_EQ(text.find("T08:15:00Z"), std::string::npos) << text;
  // The table: ref, the commit's date, count with separators, step,
  // cumulative, marks; a record without its commit's date says when it was
  // recorded instead, as such.
  EXPECT_EQ(LinesWith(text, "  ref      commit date ").size(), 3u) << text;
  EXPECT_EQ(LinesWith(text, "  3f9c2a1  recorded 2026-12-01 09:30 UTC  ").size(), 3u) << text;
  const auto fib_last = LinesWith(text, "  d4e2b95  2026-12-08 08:15 UTC  ");
  ASSERT_EQ(fib_last.size(), 3u) << text;
  EXPECT_NE(fib_last[0].find(" 852,996,341  +0.70%      +5.00%"), std::string::npos) << fib_last[0];
  EXPECT_EQ(text.find("2026-12-08 09:30"), std::string::npos) << text;
  const auto broken = LinesWith(text, "break: valgrind changed");
  ASSERT_EQ(broken.size(), 1u) << text;
  EXPECT_EQ(broken[0].find("  c21a9f0  2026-12-03 08:15 UTC  "), 0u) << broken[0];
  EXPECT_NE(broken[0].find(" 1,187,453,195  "), std::string::npos) << broken[0];
  const auto crossed = LinesWith(text, "step over the margin");
  ASSERT_EQ(crossed.size(), 1u) << text;
  EXPECT_NE(crossed[0].find("e77f018"), std::string::npos);
  EXPECT_NE(crossed[0].find("+2.40%"), std::string::npos);
  EXPECT_EQ(text.find('\033'), std::string::npos);
}

TEST(HistoryTextTest, ColourTellsWorkAddedFromWorkRemoved) {
  const std::string text = RenderHistoryText(SampleHistories(), true);
  // Drift upwards and a step up are work added: red.
  EXPECT_NE(text.find("\033[1;31m+5.00% over the last 8 commits; drift"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\033[1;31m+2.40% over the last 6 commits since the break"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\033[1;31m+2.40%\033[0m"), std::string::npos) << text;
  // interp/loop changed nothing: its headline is in the terminal's colour.
  EXPECT_NE(text.find("margin 1.00%): +0.01% over the last 8 commits; no step"), std::string::npos)
      << text;
  // The same series, each count mirrored about the first: work removed,
  // green, the step down as well.
  std::vector<HistoryRecord> records;
  for (HistoryRecord r : SampleHistoryRecords()) {
    if (r.workload != "interp/fib") continue;
    r.counts[0] = 2 * 812'345'678 - r.counts[0];
    records.push_back(r);
  }
  // And 20 million fewer from a0c4b12 on: a step of about -3.2% there.
  for (size_t c = 4; c < records.size(); ++c) records[c].counts[0] -= 20'000'000;
  const std::string down = RenderHistoryText(AnalyzeHistory(records, 10), true);
  EXPECT_NE(down.find("\033[1;32m-"), std::string::npos) << down;
  EXPECT_NE(down.find("at a0c4b12 (work removed by that commit"), std::string::npos) << down;
  EXPECT_EQ(down.find("\033[1;31m"), std::string::npos) << down;
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

TEST(HistoryTextTest, SubjectsAreAColumnBoundedAndTerminalSafe) {
  // Without subjects (a store from before them) there is no column.
  EXPECT_EQ(RenderHistoryText(SampleHistories(), false).find("subject"), std::string::npos);
  std::vector<HistoryRecord> records = SampleHistoryRecords();
  for (HistoryRecord& r : records) {
    if (r.ref == "8be0d44") r.subject = "Inline the <hot> loop";
    if (r.ref == "d4e2b95") r.subject = "\033]0;owned\007\033[2J" + std::string(100, 'y');
  }
  const std::string text = RenderHistoryText(AnalyzeHistory(records, 10), true);
  EXPECT_EQ(LinesWith(text, "subject").size(), 3u) << text;  // a header per table
  EXPECT_EQ(LinesWith(text, "Inline the <hot> loop").size(), 3u) << text;
  EXPECT_EQ(text.find("\033]"), std::string::npos);
  EXPECT_EQ(text.find("\033[2J"), std::string::npos);
  // Cut at 48 code points in the terminal.
  EXPECT_NE(text.find(std::string(48, 'y') + "\u2026"), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(49, 'y')), std::string::npos) << text;
}

TEST(HistoryTextTest, TheWindowAndAnEmptyHistorySaySo) {
  EXPECT_NE(RenderHistoryText(AnalyzeHistory(SampleHistoryRecords(), 3), false)
                .find("  the last 3 of 8 recorded commits\n"),
            std::string::npos);
  EXPECT_EQ(RenderHistoryText({}, false), "no recorded history\n");
}

// A series of `n` points refs r0, r1, ... with the figures filled in by
// hand, on perf, margin 1%.
WorkloadHistory HandMade(size_t n) {
  WorkloadHistory h;
  h.backend = "perf";
  h.margin = 0.01;
  h.points.resize(n);
  for (size_t i = 0; i < n; ++i) h.points[i].record.ref = "r" + std::to_string(i);
  return h;
}

TEST(HistoryTextTest, HeadlinesNameEveryCase) {
  WorkloadHistory h = HandMade(3);
  h.cumulative = 0.004;
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "+0.40% over the last 3 commits; no step or drift beyond the 1.00% margin");
  EXPECT_EQ(HistoryHeadline(HandMade(1), Minus::kAscii),
            "one commit; no step or drift beyond the 1.00% margin");
  h.cumulative = 0.012;
  h.rise = HistorySpan{0, 2, 0.012, false};
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "+1.20% over the last 3 commits; no drift decided: +1.20%, too few differences to "
            "estimate the noise");
  h.noise_floor = 0.003;  // 3 * sqrt(2) * 0.3% = 1.27%
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "+1.20% over the last 3 commits; no drift: +1.20% is within the noise (±1.27%)");
  h.rise->beyond_noise = true;
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "+1.20% over the last 3 commits; drift: no step crossed the 1.00% margin");
  EXPECT_EQ(DirectionOf(h), HistoryDirection::kAdded);

  // Creep, then an improvement that hides it in the net change.
  h = HandMade(7);
  h.points[0].record.ref = std::string(40, 'a');
  h.points[5].record.ref = "b" + std::string(39, '0');
  h.points[6].step = -0.04;
  h.cumulative = -0.0107;
  h.steps = {6};
  h.rise = HistorySpan{0, 5, 0.0304, true};
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "-1.07% over the last 7 commits; one step of -4.00% at r6 (work removed by that "
            "commit, for its own gate to judge); drift: +3.04% from aaaaaaa to b000000 (6 "
            "commits), no step of it over the 1.00% margin");
  EXPECT_EQ(DirectionOf(h), HistoryDirection::kAdded);
  h.rise.reset();
  EXPECT_EQ(DirectionOf(h), HistoryDirection::kRemoved);

  // Several steps: three named, the rest counted.
  h = HandMade(6);
  h.points[1].break_before = true;
  h.cumulative = 0.1;
  for (size_t i = 2; i < 6; ++i) {
    h.points[i].step = i % 2 == 0 ? 0.05 : -0.02;
    h.steps.push_back(i);
  }
  EXPECT_EQ(HistoryHeadline(h, Minus::kAscii),
            "+10.00% over the last 5 commits since the break; 4 steps over the margin: +5.00% "
            "at r2, -2.00% at r3, +5.00% at r4, and 1 more");
}

TEST(HistoryTextTest, ShortRefsKeepCommitIdsShortAndLabelsBounded) {
  EXPECT_EQ(ShortRef("8ed0342aa9f1c2b3d4e5f60718293a4b5c6d7e8f"), "8ed0342");
  EXPECT_EQ(ShortRef(std::string(64, 'f')), "fffffff");
  EXPECT_EQ(ShortRef("v1.2.3"), "v1.2.3");
  // 40 characters, but not hex: a label, cut at 24 code points.
  EXPECT_EQ(ShortRef("release-candidate-of-the-winter-2026-ab"), "release-candidate-of-the…");
  EXPECT_EQ(ShortRef("ééééééééééééééééééééééééé"), "éééééééééééééééééééééééé…");
}

}  // namespace
}  // namespace workgate
