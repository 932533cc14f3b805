#include "report/terminal_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/sample_report.h"
#include "report/text_table.h"

namespace workgate {
namespace {

using testing_report::CallgrindReport;
using testing_report::ExpectSnapshot;
using testing_report::HostileReport;
using testing_report::PerfReport;
using testing_report::StrippedReport;

TEST(TerminalReportTest, CallgrindSnapshot) {
  ExpectSnapshot("callgrind_report.txt", RenderTerminal(CallgrindReport(), false));
}

TEST(TerminalReportTest, StrippedSnapshot) {
  ExpectSnapshot("stripped_report.txt", RenderTerminal(StrippedReport(), false));
}

TEST(TerminalReportTest, ExplainedLinesSnapshot) {
  ExpectSnapshot("explained_lines_report.txt",
                 RenderTerminal(testing_report::ExplainedLinesReport(), false));
}

TEST(TerminalReportTest, PerfSnapshot) {
  ExpectSnapshot("perf_report.txt", RenderTerminal(PerfReport(), false));
}

TEST(TerminalReportTest, ScoreChangeSnapshot) {
  ExpectSnapshot("score_change_report.txt",
                 RenderTerminal(testing_report::ScoreChangeReport(), false));
}

TEST(TerminalReportTest, TimingVsCountSnapshot) {
  ExpectSnapshot("timing_vs_count_report.txt",
                 RenderTerminal(testing_report::TimingVsCountReport(), false));
}

// An unstable workload whose runs met threads: the hint names the thread
// count and zstd's switch, and the footer says how many counts each side had.
TEST(TerminalReportTest, ThreadedSnapshot) {
  ExpectSnapshot("threaded_report.txt", RenderTerminal(testing_report::ThreadedReport(), false));
}

// Under the table, beside the reasons, and in the verdict's line: not only
// in the timed context further down.
TEST(TerminalReportTest, AcceptedSnapshot) {
  ExpectSnapshot("accepted_report.txt", RenderTerminal(testing_report::AcceptedReport(), false));
}

TEST(TerminalReportTest, ATimingThatDisagreesWithItsCountIsInTheSummary) {
  const std::string out = RenderTerminal(testing_report::TimingVsCountReport(), false);
  const size_t line = out.find(
      "\ninterp/fib: timing and count disagree: the wall-time ratio, 2.900 [2.871, 2.929] at 97.5%, "
      "is more than 2\u00d7 the 1.000 its count allows");
  ASSERT_NE(line, std::string::npos) << out;
  EXPECT_LT(line, out.find("Timed scores"));
  EXPECT_NE(out.find("either a build behaves differently when it is counted (a program can tell "
                     "that it runs under Valgrind, and the timed runs are native)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("wgmark: timing and count disagree"), std::string::npos) << out;
  EXPECT_NE(out.find("\nworkgate: ok (0 of 2 workloads over the 1.00% margin, timing and count "
                     "disagree on 1)\n"),
            std::string::npos)
      << out;
  // A name that tries to drive the terminal is stripped there too.
  CompareReport r = testing_report::TimingVsCountReport();
  r.workloads[0].name = "fib\x1b]0;pwned\x07\nx";
  const std::string hostile = RenderTerminal(r, false);
  EXPECT_NE(hostile.find("\nfib x: timing and count disagree:"), std::string::npos) << hostile;
  EXPECT_EQ(hostile.find('\x1b'), std::string::npos);
}

// The printed scores are the candidate's text: no escape sequence of theirs
// reaches the terminal from the line that says the score changed.
TEST(TerminalReportTest, AScoreChangedOnPurposeIsOneLineOfText) {
  CompareReport r = testing_report::ScoreChangeReport();
  WorkloadResult& w = r.workloads[0];
  w.expected_score = w.candidate.score = "\033[2Jnew\nline";
  Decide(&w);
  ASSERT_TRUE(w.score_changed);
  const std::string out = RenderTerminal(r, false);
  EXPECT_EQ(out.find('\033'), std::string::npos) << out;
  EXPECT_NE(out.find("wgmark: score changed on purpose: the baseline printed 10.000 (the suite's "
                     "score.previous), the candidate new line (its score.expect); the two sides "
                     "did different work by design, so the delta includes that change\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("workgate: work added (1 of 3 workloads over the 1.00% margin, 2 with a "
                     "score changed on purpose)"),
            std::string::npos)
      << out;
}

TEST(TerminalReportTest, WhatTheProfilesBoundsLeftOutIsSaidUnderTheTable) {
  CompareReport r = StrippedReport();
  r.workloads[0].explanation->profile_cuts = {{"candidate", "call_edges", 1440000, false, 100000}};
  const std::string out = RenderTerminal(r, false);
  EXPECT_NE(out.find("\n  Profiles: callgrind, from a run of each side made for this "
                     "explanation.\n  The candidate's profile named 1,440,000 call edges; the "
                     "explanation keeps the 100,000 costliest (a row whose function lost one "
                     "lists no moves).\n"),
            std::string::npos)
      << out;
}

TEST(TerminalReportTest, BackendLineNamesTheValgrindThatCounted) {
  CompareReport r = CallgrindReport();
  r.workloads[0].candidate.fingerprint.valgrind_path = "/usr/bin/valgrind";
  EXPECT_NE(RenderTerminal(r, false).find(
                "Counted with callgrind (Valgrind 3.19.0 at /usr/bin/valgrind, event Ir)"),
            std::string::npos);
}

// An unstable workload whose counts spread more than they moved: its
// medians went down by 40 while the shift estimate (the median of the nine
// pairwise differences) is +50. The row says why the signs differ.
TEST(TerminalReportTest, AShiftOfTheOtherSignThanTheMediansIsExplained) {
  CompareReport r = CallgrindReport();
  WorkloadResult w = testing_report::Counted("spread", {100, 200, 1000}, {150, 160, 2000});
  w.stability.checked = w.stability.unstable = true;
  w.stability.spread = 1850;
  w.stability.confidence = 0.8;
  w.verdict = Verdict::kInconclusive;
  w.delta = 50;
  r.workloads = {w};
  const std::string text = RenderTerminal(r, false);
  EXPECT_NE(text.find("spread: \u0394 is the shift's estimate, the median of every "
                      "candidate-baseline difference, not the difference of the two medians (here "
                      "the medians differ by -40 while the shift is +50: the counts spread more "
                      "than they moved)"),
            std::string::npos)
      << text;
  // A row that is not inconclusive says it within its stability sentence.
  r.workloads[0].verdict = Verdict::kOk;
  EXPECT_NE(RenderTerminal(r, false).find("not from single counts; \u0394 is the shift's"),
            std::string::npos);
  // Where they agree in sign, only what Δ is.
  r.workloads[0].delta = -30;
  EXPECT_EQ(RenderTerminal(r, false).find("here the medians differ"), std::string::npos);
}

TEST(TerminalReportTest, TheBackendIsOneLineWithTheReasonInAFewWords) {
  CompareReport r = CallgrindReport();
  std::string text = RenderTerminal(r, false);
  EXPECT_NE(text.find("Counted with callgrind (Valgrind 3.19.0, event Ir): no usable hardware "
                      "counter here; workgate probe says why. One count per side.\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("hypervisor"), std::string::npos) << text;
  r.backend_reason = "requested";
  EXPECT_NE(RenderTerminal(r, false).find("(Valgrind 3.19.0, event Ir), as requested. One count"),
            std::string::npos);
  EXPECT_NE(RenderTerminal(PerfReport(), false).find(": this machine's PMU. "), std::string::npos)
      << RenderTerminal(PerfReport(), false);
}

TEST(TerminalReportTest, EachWorkloadsCommandIsListedOnce) {
  const std::string out = RenderTerminal(CallgrindReport(), false);
  EXPECT_NE(out.find("How each workload runs ({exe} is each side's build, {suite_dir} the suite "
                     "file's folder):\n"
                     "  interp/fib      {exe} {suite_dir}/scripts/fib.wg 30\n"
                     "  interp/strings  {exe} {suite_dir}/scripts/strings.wg\n"
                     "  interp/sort     {exe} --sort 'quick sort'\n"
                     "  kernels         {exe} --kernels all\n"
                     "  interp/gc       {exe} --gc --heap=64M\n"
                     "\nCounted with callgrind"),
            std::string::npos)
      << out;
  // An ad hoc run shows its one command before the table, and only there.
  const std::string once = RenderTerminal(testing_report::OneCommandReport(true), false);
  EXPECT_EQ(once.rfind("interp/fib runs: {exe} 30  ({exe} is each side's build)\n\n", 0), 0u)
      << once;
  EXPECT_EQ(once.find("{exe} 30"), once.rfind("{exe} 30")) << once;
  EXPECT_EQ(once.find("How each workload runs"), std::string::npos) << once;
}

TEST(TerminalReportTest, ColourOnlyWhenAsked) {
  EXPECT_EQ(RenderTerminal(CallgrindReport(), false).find('\033'), std::string::npos);
  std::string coloured = RenderTerminal(CallgrindReport(), true);
  EXPECT_NE(coloured.find("\033[1;31mwork-added\033[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\033[32mok\033[0m"), std::string::npos);
}

TEST(TerminalReportTest, ColourDoesNotMoveColumns) {
  // Strip the escapes from the coloured text: what remains is the plain text.
  std::string coloured = RenderTerminal(PerfReport(), true), stripped;
  for (size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\033') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  EXPECT_EQ(stripped, RenderTerminal(PerfReport(), false));
}

// What a candidate names or prints reaches the terminal without anything a
// terminal acts on: no escape sequence, no control character but the line
// feeds of workgate's own layout, no C1 control, no bidi control.
TEST(TerminalReportTest, HostileTextCannotDriveTheTerminal) {
  const std::string hostile =
      "n\x1b]0;pwned\x07"
      "a\x1b[2J\x1b[1Am\re\xC2\x9B"
      "31m\u202E\b\x7f\xFF|line\nbreak";
  const std::string shown_name = "name\uFFFD|line break";
  for (bool colour : {false, true}) {
    std::string out = RenderTerminal(HostileReport(hostile), colour);
    // workgate's own colours, and only those, when asked for.
    if (colour) out = std::regex_replace(out, std::regex("\x1b\\[(1;)?3[123]m|\x1b\\[0m"), "");
    for (size_t i = 0; i < out.size(); ++i) {
      const unsigned char c = out[i];
      ASSERT_TRUE(c >= 0x20 || c == '\n') << "control 0x" << std::hex << int(c) << " at " << i;
      ASSERT_NE(c, 0x7f) << "DEL at " << i;
      if (c == 0xC2 && i + 1 < out.size()) {
        ASSERT_FALSE(static_cast<unsigned char>(out[i + 1]) >= 0x80 &&
                     static_cast<unsigned char>(out[i + 1]) <= 0x9F)
            << "C1 control at " << i;
      }
    }
    EXPECT_EQ(out.find("\u202E"), std::string::npos);
    EXPECT_NE(out.find(shown_name + "  "), std::string::npos) << out;  // in the tables
    EXPECT_NE(out.find(shown_name + ": where the"), std::string::npos) << out;
    // A reason is a block: its line break stays.
    EXPECT_NE(out.find("reason: invalid: name\uFFFD|line\nbreak\n"), std::string::npos) << out;
  }
}

TEST(TerminalReportTest, TextTableAlignsByDisplayWidth) {
  TextTable t({TextTable::Align::kLeft, TextTable::Align::kRight});
  t.AddRow({"\u0394 name", "1"});
  t.AddRow({"ab", "-1,000"});
  EXPECT_EQ(t.Render(1, false), " \u0394 name       1\n ab      -1,000\n");
}

}  // namespace
}  // namespace workgate
