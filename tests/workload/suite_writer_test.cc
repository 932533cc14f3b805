// The suite workgate init writes reads back as the workload it measured,
// whatever the names, arguments and program output in it
// (workload/suite_writer.h).

#include "workload/suite_writer.h"

#include <gtest/gtest.h>

#include <string>

namespace workgate {
namespace {

TEST(SuiteWriterTest, WhatIsWrittenReadsBackAsTheWorkload) {
  SuiteDraft d;
  d.header = {"written by a test", "  workgate init --exe x -- {exe} 'a b'"};
  d.name = "it's \"sort\" \\ 10⁶";
  d.command = {"{exe}", "--in={suite_dir}/data set.txt", "'quoted'", "back\\slash"};
  d.clock = ClockMode::kShim;
  d.clock_why = {"why", "a line of output:\x1b[31m red \xff\xfe\n and more"};
  d.timeout_seconds = 60;
  ScoreGuess g;
  g.value = "10.000";
  g.pattern = "score: ([0-9]+\\.[0-9]+)";
  g.line = "score: 10.000\x07";
  g.line_number = 8;
  d.score = g;
  d.score_why = {"the score"};
  ScoreGuess alt = g;
  alt.value = "7";
  alt.pattern = "it's ([0-9]+)";
  d.alternatives = {alt};
  const std::string text = SuiteText(d);
  Suite suite;
  std::string err;
  ASSERT_TRUE(ParseSuite(text, "init.toml", &suite, &err)) << err << "\n" << text;
  ASSERT_EQ(suite.workloads.size(), 1u);
  const Workload& w = suite.workloads[0];
  EXPECT_EQ(w.name, d.name);
  EXPECT_EQ(w.command, d.command);
  EXPECT_EQ(w.clock, ClockMode::kShim);
  EXPECT_EQ(w.timeout_seconds, 60);
  EXPECT_EQ(w.score_pattern, g.pattern);
  EXPECT_EQ(w.score_expect, "10.000");
  // The program's bytes reached the comments only as safe text.
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_NE(text.find("# why\n"), std::string::npos) << text;
}

TEST(SuiteWriterTest, WithoutAScoreTheFileSaysWhyAndHasNoScoreTable) {
  SuiteDraft d;
  d.name = "plain";
  d.command = {"{exe}"};
  d.score_why = {"No number was printed the same in every run"};
  const std::string text = SuiteText(d);
  EXPECT_EQ(text.find("[workload.score]"), std::string::npos);
  EXPECT_NE(text.find("# No number was printed"), std::string::npos);
  Suite suite;
  std::string err;
  ASSERT_TRUE(ParseSuite(text, "init.toml", &suite, &err)) << err;
  EXPECT_FALSE(suite.workloads[0].score_pattern.has_value());
  EXPECT_EQ(suite.workloads[0].clock, ClockMode::kNone);
}

}  // namespace
}  // namespace workgate
