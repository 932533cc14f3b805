#include "workload/score.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

TEST(ScoreTest, ComparesAsExactDecimals) {
  EXPECT_TRUE(ScoresEqual("10.000", "10"));
  EXPECT_TRUE(ScoresEqual("+1.50", "1.5"));
  EXPECT_TRUE(ScoresEqual("007", "7.0"));
  EXPECT_TRUE(ScoresEqual("-0.0", "0"));
  EXPECT_TRUE(ScoresEqual(".5", "0.50"));
  EXPECT_TRUE(ScoresEqual(" 10.000\n", "10"));
  EXPECT_FALSE(ScoresEqual("10.001", "10"));
  EXPECT_FALSE(ScoresEqual("-1", "1"));
  // Beyond a double's 53 bits: two different integers stay different.
  EXPECT_FALSE(ScoresEqual("9007199254740993", "9007199254740992"));
  EXPECT_FALSE(ScoresEqual("0.10000000000000000001", "0.1"));
  // Not plain decimals: compared as text, so a candidate cannot print "1e1"
  // or "0xa" for an expected "10".
  EXPECT_FALSE(ScoresEqual("1e1", "10"));
  EXPECT_FALSE(ScoresEqual("0xa", "10"));
  EXPECT_FALSE(ScoresEqual("0x10", "16"));
  EXPECT_FALSE(ScoresEqual("inf", "1e999"));
  EXPECT_TRUE(ScoresEqual("ok", " ok"));
  EXPECT_FALSE(ScoresEqual("ok", "OK"));
  EXPECT_FALSE(ScoresEqual("10x", "10"));
  EXPECT_FALSE(ScoresEqual("", "0"));
  EXPECT_FALSE(ScoresEqual(".", "0"));
  EXPECT_FALSE(ScoresEqual("-", "0"));
}

TEST(ScoreTest, OnlyTheBaselineMayPrintThePreviousScore) {
  const std::optional<std::string> previous = "1000";
  for (ScoreSide side : {ScoreSide::kBaseline, ScoreSide::kCandidate}) {
    EXPECT_TRUE(ScoreAdmitted("1200", side, "1200", previous));
    EXPECT_TRUE(ScoreAdmitted("1200.0", side, "1200", std::nullopt));
    EXPECT_FALSE(ScoreAdmitted("900", side, "1200", previous));
    EXPECT_FALSE(ScoreAdmitted("1000", side, "1200", std::nullopt));
  }
  // The one rule compares it too: "1000.00" is the previous 1000.
  EXPECT_TRUE(ScoreAdmitted("1000.00", ScoreSide::kBaseline, "1200", previous));
  EXPECT_FALSE(ScoreAdmitted("1000", ScoreSide::kCandidate, "1200", previous));

  EXPECT_EQ(ExpectedScoreText(ScoreSide::kBaseline, "1200", previous),
            "1200 (or the previous 1000)");
  EXPECT_EQ(ExpectedScoreText(ScoreSide::kCandidate, "1200", previous), "1200");
  EXPECT_EQ(ExpectedScoreText(ScoreSide::kBaseline, "1200", std::nullopt), "1200");
  EXPECT_EQ(PreviousScoreHint("1000", ScoreSide::kCandidate, previous),
            " (1000 is score.previous, the score before this change: only the baseline may "
            "print it)");
  EXPECT_EQ(PreviousScoreHint("900", ScoreSide::kCandidate, previous), "");
  EXPECT_EQ(PreviousScoreHint("1000", ScoreSide::kBaseline, previous), "");
}

TEST(ScoreTest, FiftyThousandDigitScore) {
  // std::regex recursed once per character of such a score and overflowed
  // the stack (SIGSEGV); the decimal check went through the same regex.
  const std::string digits(50'000, '7');
  auto score = ExtractScore("score: ([0-9.]+)", "warm-up\nscore: " + digits + "\n");
  ASSERT_TRUE(score);
  EXPECT_EQ(*score, digits);
  EXPECT_TRUE(ScoresEqual(*score, "000" + digits + ".000"));
  std::string other = digits;
  other.back() = '8';
  EXPECT_FALSE(ScoresEqual(*score, other));
  EXPECT_FALSE(ScoresEqual(*score, "7"));
  EXPECT_FALSE(ScoreValue(*score).has_value());  // no finite double holds it
  const std::optional<double> fraction = ScoreValue("0." + digits);
  ASSERT_TRUE(fraction);
  EXPECT_DOUBLE_EQ(*fraction, 0.7777777777777777);
}

TEST(ScoreTest, ExtractsTheFirstCaptureOfTheLastMatchingLine) {
  EXPECT_EQ(ExtractScore("score: ([0-9.]+)", "score: 1\nwarm\nscore: 10.000\n"), "10.000");
  EXPECT_EQ(ExtractScore("score: ([0-9.]+)", "score: 1\nscore: 2 score: 3\nend"), "2");
  EXPECT_EQ(ExtractScore("score: ([0-9.]+)", "no newline at the end: score: 5"), "5");
  EXPECT_FALSE(ExtractScore("score: ([0-9.]+)", "no score here").has_value());
  EXPECT_FALSE(ExtractScore("score: ([0-9.]+)", "").has_value());
  // Unanchored within the line; '^' and '$' are the line's ends.
  EXPECT_EQ(ExtractScore("^total ([0-9]+)$", "subtotal 3\ntotal 4\ntotal 5 s\n"), "4");
  // A group that takes no part in the match gives an empty score.
  EXPECT_EQ(ExtractScore("done(, [0-9]+)?", "done\n"), "");
}

TEST(ScoreTest, APatternCannotSpanLines) {
  EXPECT_FALSE(ExtractScore(R"(score:\s+([0-9]+))", "score:\n42\n").has_value());
  EXPECT_FALSE(ExtractScore(R"(score:[^x]*?([0-9]+))", "score:\n42\n").has_value());
}

TEST(ScoreTest, ScoreValueIsForPlainDecimalsOnly) {
  // Both values are exact in binary: the optional compares as is.
  EXPECT_EQ(ScoreValue("10.500"), 10.5);
  EXPECT_EQ(ScoreValue(" -2 "), -2.0);
  EXPECT_FALSE(ScoreValue("fast").has_value());
  EXPECT_FALSE(ScoreValue("nan").has_value());
  EXPECT_FALSE(ScoreValue("1e3").has_value());
}

TEST(ScoreTest, MatcherFeedsLineByLine) {
  ScoreMatcher m("rounds: ([0-9]+)");
  EXPECT_FALSE(m.last().has_value());
  m.Feed("rounds: 3");
  m.Feed("nothing");
  EXPECT_EQ(m.last(), "3");
  m.Feed("rounds: 4");
  EXPECT_EQ(m.last(), "4");
  ScoreMatcher moved = std::move(m);
  moved.Feed("rounds: 5");
  EXPECT_EQ(moved.last(), "5");
  // A pattern RE2 refuses never matches (CheckScorePattern keeps it out of suites).
  ScoreMatcher broken("rounds: ([0-9]+");
  broken.Feed("rounds: 3");
  EXPECT_FALSE(broken.last().has_value());
}

TEST(ScoreTest, ALongLineIsSearchedInItsFirstBytes) {
  // At the limit the score is found; past it, it is not.
  std::string line(kMaxScoreLineBytes - 8, 'x');
  ScoreMatcher at("score: ([0-9]);");
  at.Feed(line + "score: 7;");  // 9 bytes: the ';' is one byte too far
  EXPECT_FALSE(at.last().has_value());
  at.Feed(line.substr(1) + "score: 7;");
  EXPECT_EQ(at.last(), "7");
}

TEST(ScoreTest, AHundredMegabyteLineIsSearchedOnlyUpToTheLimit) {
  std::string line = "score: 12";
  line.resize(100 << 20, '9');
  line += "\nscore: 3";
  line.resize(line.size() + (100 << 20), 'x');
  auto score = ExtractScore("score: ([0-9]+)", line);
  ASSERT_TRUE(score);
  // The first line is cut after kMaxScoreLineBytes; the second line matches.
  EXPECT_EQ(*score, "3");
  ScoreMatcher first("score: ([0-9]+)");
  first.Feed(std::string_view(line).substr(0, 100 << 20));
  ASSERT_TRUE(first.last());
  EXPECT_EQ(first.last()->size(), kMaxScoreLineBytes - 7);
}

TEST(ScoreTest, CatastrophicBacktrackingPatternFinishes) {
  // (a+)+b on a line of a's without a b takes 2^n steps in a backtracking
  // engine, which would not end within the test's time limit (std::regex
  // hung past the workload's timeout); RE2 is linear.
  std::string output;
  for (int i = 0; i < 200; ++i) output += std::string(kMaxScoreLineBytes, 'a') + "\n";
  EXPECT_FALSE(ExtractScore("(a+)+b", output).has_value());
  EXPECT_FALSE(ExtractScore("(a|aa)*c", output).has_value());
  EXPECT_FALSE(ExtractScore("((?:.*a){20})b", output.substr(0, 1000)).has_value());
  EXPECT_EQ(ExtractScore("(a+)+b", "aaaaaaaab"), "aaaaaaaa");
}

TEST(ScoreTest, PatternsAreChecked) {
  std::string err;
  EXPECT_TRUE(CheckScorePattern("score: ([0-9.]+)", &err)) << err;
  EXPECT_TRUE(CheckScorePattern("([0-9]+) loops?,", &err)) << err;
  EXPECT_TRUE(CheckScorePattern("(?:a|b)(c)", &err)) << err;
  EXPECT_FALSE(CheckScorePattern("score: [0-9.]+", &err));
  EXPECT_EQ(err, "the pattern must have exactly one capture group, it has 0");
  EXPECT_FALSE(CheckScorePattern("(score): ([0-9.]+)", &err));
  EXPECT_EQ(err, "the pattern must have exactly one capture group, it has 2");
  EXPECT_FALSE(CheckScorePattern("score: ([0-9.]+", &err));
  EXPECT_NE(err.find("not a valid regular expression (RE2 syntax): missing )"), std::string::npos)
      << err;
  // Backtracking-only features are not RE2: refused at load, not at run time.
  EXPECT_FALSE(CheckScorePattern(R"((a)\1)", &err));
  EXPECT_NE(err.find("not a valid regular expression"), std::string::npos) << err;
  EXPECT_FALSE(CheckScorePattern("(?=a)(b)", &err));
  EXPECT_FALSE(CheckScorePattern("(a{1000}){1000}", &err));
  EXPECT_FALSE(CheckScorePattern("(a{300})", &err));
  EXPECT_NE(err.find("the pattern is too large"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
