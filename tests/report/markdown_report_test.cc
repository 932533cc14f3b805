#include "report/markdown_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "report/sample_report.h"
#include "report/summary.h"

namespace workgate {
namespace {

using testing_report::CallgrindReport;
using testing_report::ExpectSnapshot;
using testing_report::PerfReport;

TEST(MarkdownReportTest, CallgrindSnapshot) {
  ExpectSnapshot("callgrind_report.md", RenderMarkdown(CallgrindReport()));
}

TEST(MarkdownReportTest, StrippedSnapshot) {
  ExpectSnapshot("stripped_report.md", RenderMarkdown(testing_report::StrippedReport()));
}

TEST(MarkdownReportTest, ExplainedLinesSnapshot) {
  ExpectSnapshot("explained_lines_report.md",
                 RenderMarkdown(testing_report::ExplainedLinesReport()));
}

TEST(MarkdownReportTest, PerfSnapshot) {
  ExpectSnapshot("perf_report.md", RenderMarkdown(PerfReport()));
}

TEST(MarkdownReportTest, ScoreChangeSnapshot) {
  ExpectSnapshot("score_change_report.md", RenderMarkdown(testing_report::ScoreChangeReport()));
}

TEST(MarkdownReportTest, TimingVsCountSnapshot) {
  ExpectSnapshot("timing_vs_count_report.md",
                 RenderMarkdown(testing_report::TimingVsCountReport()));
}

TEST(MarkdownReportTest, AcceptedSnapshot) {
  ExpectSnapshot("accepted_report.md", RenderMarkdown(testing_report::AcceptedReport()));
}

TEST(MarkdownReportTest, EachWorkAddedWorkloadGetsTheCommandThatAcceptsIt) {
  CompareReport r = testing_report::AcceptedReport();
  const std::string md = RenderMarkdown(r);
  // Work added beyond the accepted delta and work added without one each
  // get a line; the accepted and the stale workload none.
  const std::string block =
      "```sh\n"
      "workgate accept --suite bench/suite.toml --workload parse/grown --reason 'REPLACE with "
      "why this work is intended' --report report.json\n"
      "workgate accept --suite bench/suite.toml --workload parse/new --reason 'REPLACE with "
      "why this work is intended' --report report.json\n"
      "```\n";
  EXPECT_NE(md.find(block), std::string::npos) << md;
  EXPECT_NE(md.find("with `report.json`, this run's JSON report ([kept with the reports of this "
                    "run](https://github.com/o/wgi/actions/runs/42))"),
            std::string::npos)
      << md;
  // Without a link the path is the one given; without a JSON report, the builds.
  r.report_link.clear();
  EXPECT_NE(RenderMarkdown(r).find("--report out/report.json\n"), std::string::npos);
  r.json_file.clear();
  EXPECT_NE(RenderMarkdown(r).find("--baseline build/main --candidate build/pr\n"),
            std::string::npos);
  // An ad hoc command has no suite to accept into.
  r.settings.suite.clear();
  EXPECT_EQ(RenderMarkdown(r).find("workgate accept"), std::string::npos);
}

TEST(MarkdownReportTest, AHostileWorkloadNameCannotLeaveItsCommand) {
  for (const std::string& name : {std::string("a\n```\n<img src=x>"), std::string("`$(id)`"),
                                 std::string("````"), std::string("x' ; rm -rf ~ ; '")}) {
    CompareReport r = testing_report::AcceptedReport();
    r.workloads.back().name = name;
    const std::string md = RenderMarkdown(r);
    const std::string line = AcceptCommand(r, r.workloads.back());
    ASSERT_EQ(line.find('\n'), std::string::npos) << line;
    // The fence is longer than any backtick run in the commands, and the
    // command is one line of it.
    size_t run = 0, longest = 0;
    for (char c : line) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    const std::string fence(std::max<size_t>(3, longest + 1), '`');
    EXPECT_NE(md.find(fence + "sh\n"), std::string::npos) << md;
    EXPECT_NE(md.find("\n" + line + "\n" + fence + "\n"), std::string::npos) << md;
  }
}

TEST(MarkdownReportTest, ThreadedSnapshot) {
  ExpectSnapshot("threaded_report.md", RenderMarkdown(testing_report::ThreadedReport()));
}

TEST(MarkdownReportTest, ATimingThatDisagreesWithItsCountIsSaidAboveTheFold) {
  const std::string md = RenderMarkdown(testing_report::TimingVsCountReport());
  EXPECT_EQ(md.rfind("### workgate: \u2705 ok \u2014 0 of 2 workloads over the 1.00% margin, "
                     "timing and count disagree on 1\n",
                     0),
            0u)
      << md;
  const size_t note = md.find(
      "\n- \u26a0\ufe0f `interp/fib`: timing and count disagree: the wall-time ratio, 2.900 "
      "\\[2.871, "
      "2.929\\] at 97.5%, is more than 2\u00d7 the 1.000 its count allows");
  ASSERT_NE(note, std::string::npos) << md;
  // Outside every <details>: the first one opens after it.
  EXPECT_LT(note, md.find("<details>")) << md;
  EXPECT_EQ(md.find("`wgmark`: timing and count disagree"), std::string::npos) << md;
  // The folded details hold the figures of both.
  EXPECT_NE(md.find("  - wall times held against the count: 1.020 \\[1.010, 1.030\\] at 97.5%, "
                    "within 2\u00d7 of the 1.000 its count allows"),
            std::string::npos)
      << md;
}

TEST(MarkdownReportTest, WhatTheProfilesBoundsLeftOutIsSaidInTheExplanation) {
  CompareReport r = testing_report::StrippedReport();
  r.workloads[0].explanation->profile_cuts = {{"candidate", "source_lines", 500000, true, 0}};
  const std::string md = RenderMarkdown(r);
  const size_t said = md.find(
      "\nThe candidate&#39;s profile named more than 500,000 source lines; "
      "the explanation keeps none of them (no row lists its lines).\n");
  ASSERT_NE(said, std::string::npos) << md;
  EXPECT_LT(said, md.find("</details>")) << "inside the folded explanation";
}

TEST(MarkdownReportTest, AScoreChangedOnPurposeIsSaidInTheHeadlineTheRowAndANote) {
  const std::string md = RenderMarkdown(testing_report::ScoreChangeReport());
  EXPECT_EQ(md.rfind("### workgate: \u274c work added \u2014 1 of 3 workloads over the 1.00% "
                     "margin, 2 with a score changed on purpose\n",
                     0),
            0u)
      << md;
  EXPECT_NE(md.find("| `wgmark` (score `10.000` \u2192 `12.500`, changed on purpose) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- `interp/fib`: score changed on purpose: the baseline printed `34` (the "
                    "suite's score.previous), the candidate `55` (its score.expect); the two "
                    "sides did different work by design, so the delta includes that change\n"),
            std::string::npos)
      << md;
  // Where both sides print the new score, nothing changed on purpose here.
  EXPECT_NE(md.find("| `kernels` (score `10.000` asserted) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("- `kernels`: score changed"), std::string::npos) << md;
}

TEST(MarkdownReportTest, VerdictComesFirst) {
  std::string md = RenderMarkdown(CallgrindReport());
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "### workgate: \u26a0\ufe0f invalid comparison \u2014 1 of 5 workloads over the 1.00% "
            "margin, 1 invalid");
  CompareReport pass = CallgrindReport();
  pass.workloads.resize(3);
  pass.workloads.erase(pass.workloads.begin());
  DecideSuite(&pass);
  md = RenderMarkdown(pass);
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "### workgate: \u2705 ok \u2014 0 of 2 workloads over the 1.00% margin");
}

TEST(MarkdownReportTest, TableFigures) {
  std::string md = RenderMarkdown(CallgrindReport());
  EXPECT_NE(md.find("| `interp/fib` | 1,204,331,907 | 1,241,690,215 | +37,358,308 | **+3.10%** | "
                    "\u274c work added |"),
            std::string::npos);
  EXPECT_NE(md.find("| \u22121,437,098 | \u22120.16% |"), std::string::npos);
  EXPECT_NE(md.find("| `kernels` (score `10.000` asserted) |"), std::string::npos);
  // The invalid workload shows why, in a code span with the pipe escaped.
  EXPECT_NE(md.find("\u26a0\ufe0f invalid: `candidate: exited with status 1 \\| stderr"),
            std::string::npos);
}

TEST(MarkdownReportTest, ContextAndBlindSpots) {
  std::string md = RenderMarkdown(CallgrindReport());
  EXPECT_NE(md.find("context only, not part of the verdict"), std::string::npos);
  EXPECT_NE(md.find("so no percentage is given"), std::string::npos);
  EXPECT_NE(md.find("cache misses and branch mispredictions are not seen"), std::string::npos);
  // The backend in one line: why in a few words; the full reason (the
  // hypervisor, the errno) stays in the JSON and in workgate probe.
  EXPECT_NE(md.find("Counted with **callgrind** (Valgrind 3.19.0, event `Ir`): no usable hardware "
                    "counter here; workgate probe says why."),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("hypervisor"), std::string::npos) << md;
  CompareReport raw = CallgrindReport();
  raw.workloads[0].baseline.fingerprint.valgrind_version = "valgrind-3.19.0";
  EXPECT_NE(RenderMarkdown(raw).find("(Valgrind 3.19.0, event `Ir`)"), std::string::npos);
  // Which Valgrind counted, by its path.
  raw.workloads[0].candidate.fingerprint.valgrind_path = "/usr/bin/valgrind";
  EXPECT_NE(RenderMarkdown(raw).find("(Valgrind 3.19.0 at /usr/bin/valgrind, event `Ir`)"),
            std::string::npos);
  std::string perf = RenderMarkdown(PerfReport());
  EXPECT_NE(perf.find("| `parse/json` | 2.01 s (median of 12) | 2.23 s (median of 12) | "),
            std::string::npos)
      << perf;
  EXPECT_NE(perf.find("at 97.5% | slower |"), std::string::npos) << perf;
  EXPECT_NE(perf.find("- `parse/json` \u2014 slower: "), std::string::npos) << perf;
  EXPECT_NE(perf.find("Hodges"), std::string::npos);
}

TEST(MarkdownReportTest, EachWorkloadsCommandIsListedOnceInAFold) {
  const std::string md = RenderMarkdown(CallgrindReport());
  EXPECT_NE(md.find("<details><summary>How each workload runs</summary>\n\n"
                    "- `interp/fib`: `{exe} {suite_dir}/scripts/fib.wg 30`\n"
                    "- `interp/strings`: `{exe} {suite_dir}/scripts/strings.wg`\n"
                    "- `interp/sort`: `{exe} --sort 'quick sort'`\n"
                    "- `kernels`: `{exe} --kernels all`\n"
                    "- `interp/gc`: `{exe} --gc --heap=64M`\n\n"
                    "`{exe}` is each side's build, `{suite_dir}` the suite file's folder.\n"
                    "</details>\n"),
            std::string::npos)
      << md;
  // Where no command names {suite_dir}, the legend leaves it out.
  EXPECT_NE(RenderMarkdown(testing_report::OneCommandReport(false))
                .find("\n`{exe}` is each side's build.\n</details>"),
            std::string::npos);
  // An ad hoc run shows its one command before the table, and only there.
  const std::string once = RenderMarkdown(testing_report::OneCommandReport(true));
  EXPECT_NE(once.find("`interp/fib` runs `{exe} 30` (`{exe}` is each side's build).\n\n| "),
            std::string::npos)
      << once;
  EXPECT_EQ(once.find("`{exe} 30`"), once.rfind("`{exe} 30`")) << once;
  EXPECT_EQ(once.find("How each workload runs"), std::string::npos) << once;
  // A report that knows no command (a merged report's missing workload) lists none.
  CompareReport unknown = testing_report::OneCommandReport(false);
  unknown.workloads[0].command.clear();
  EXPECT_EQ(RenderMarkdown(unknown).find("How each workload runs"), std::string::npos);
}

TEST(MarkdownReportTest, ACallerNoteReadsAsTextWithItsRefInCode) {
  CompareReport r = CallgrindReport();
  r.notes = {"baseline: stored by main@abc1234",
             "baseline: rebuilt from the merge base because the stored one is incompatible"};
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("\n\n- baseline: stored by `main@abc1234`\n- baseline: rebuilt from the merge "
                    "base because the stored one is incompatible\n\n| workload |"),
            std::string::npos)
      << md;
}

TEST(MarkdownReportTest, NoTimedSectionWithoutTimedRuns) {
  CompareReport r = CallgrindReport();
  for (WorkloadResult& w : r.workloads) w.baseline.timed = w.candidate.timed = {};
  EXPECT_EQ(RenderMarkdown(r).find("Timed scores"), std::string::npos);
}

TEST(MarkdownReportTest, ExplanationRowsAgainstTheWholeDelta) {
  CompareReport r = CallgrindReport();
  r.workloads[0].explanation->rows.pop_back();
  std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("| *listed rows* | | | +31,200,218 | 83.5% |\n"
                    "| *whole program* | | | +37,358,308 | 100.0% |\n"),
            std::string::npos)
      << md;
  r.workloads[0].explanation->error = "callgrind output missing";
  md = RenderMarkdown(r);
  EXPECT_NE(md.find("<details><summary><code>interp/fib</code>: no per-function explanation"
                    "</summary>\n\n`callgrind output missing`\n</details>"),
            std::string::npos)
      << md;
}

TEST(MarkdownReportTest, WritesTheFile) {
  std::string path = ::testing::TempDir() + "/wg_markdown_report.md";
  std::string err;
  ASSERT_TRUE(WriteMarkdownReport(path, CallgrindReport(), &err)) << err;
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(text.str(), RenderMarkdown(CallgrindReport()));
  std::remove(path.c_str());
  EXPECT_FALSE(WriteMarkdownReport("/nonexistent/dir/r.md", CallgrindReport(), &err));
  EXPECT_NE(err.find("cannot write the Markdown report"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
