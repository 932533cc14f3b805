// workgate init's score: a number every pinned run printed the same, and a
// pattern the gate's own matcher finds it with (workload/score_guess.h).

#include "workload/score_guess.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "workload/score.h"

namespace workgate {
namespace {

std::vector<std::string> Values(const std::vector<ScoreGuess>& guesses) {
  std::vector<std::string> out;
  for (const ScoreGuess& g : guesses) out.push_back(g.value);
  return out;
}

TEST(ScoreGuessTest, ANumberThatRepeatsIsFoundAndOneThatMovesIsNot) {
  const std::vector<ScoreGuess> g = FindRepeatedNumbers(
      {"checksum: 8391\nelapsed: 0.31 s\n", "checksum: 8391\nelapsed: 0.29 s\n"}, {}, false);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].value, "8391");
  EXPECT_EQ(g[0].pattern, "checksum: ([0-9]+)");
  EXPECT_EQ(g[0].line, "checksum: 8391");
  EXPECT_EQ(g[0].line_number, 1u);
  EXPECT_FALSE(g[0].clock_free) << "no run on the real clock was given";
}

TEST(ScoreGuessTest, AScoreWordBeatsATimingAndALoneDigit) {
  const std::string out = "run 1\nseconds: 10.000\nitems: 7\nscore: 12.5\n";
  EXPECT_EQ(Values(FindRepeatedNumbers({out, out}, {}, false)),
            (std::vector<std::string>{"12.5", "7", "1", "10.000"}));
}

TEST(ScoreGuessTest, OnTheRealClockAChecksumBeatsWhatTheClockMoved) {
  const std::string pinned = "result: 4000\nrate: 250.0\n";
  const std::vector<std::string> real = {"result: 4000\nrate: 261.3\n",
                                         "result: 4000\nrate: 244.9\n"};
  // The count did not depend on the clock: the figure the clock did not move.
  std::vector<ScoreGuess> g = FindRepeatedNumbers({pinned, pinned}, real, false);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].value, "4000");
  EXPECT_TRUE(g[0].clock_free);
  EXPECT_FALSE(g[1].clock_free);
  // It did: among unnamed figures, the one the pinned clock fixed shows the
  // pinning held.
  g = FindRepeatedNumbers({"a 4000\nb 250.0\n", "a 4000\nb 250.0\n"},
                          {"a 4000\nb 261.3\n", "a 4000\nb 244.9\n"}, true);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].value, "250.0");
}

TEST(ScoreGuessTest, APatternIsOnlyProposedWhenTheGatesMatcherFindsTheValue) {
  // The label repeats later with another number: the last matching line
  // would win, so the short pattern is not proposed; the anchored one is.
  const std::string out = "total: 10\nphase 2\ntotal = 3\ntotal: 10 items\n";
  for (const ScoreGuess& g : FindRepeatedNumbers({out, out}, {}, false)) {
    ScoreMatcher m(g.pattern);
    for (const char* line : {"total: 10", "phase 2", "total = 3", "total: 10 items"}) m.Feed(line);
    EXPECT_EQ(m.last(), g.value) << g.pattern;
  }
  // Progress lines of one shape: only the last is the score.
  const std::string progress = "step 1: 5\nstep 2: 9\n";
  const std::vector<ScoreGuess> g = FindRepeatedNumbers({progress, progress}, {}, false);
  for (const ScoreGuess& guess : g) EXPECT_NE(guess.value, "5") << guess.pattern;
}

TEST(ScoreGuessTest, VersionsWordsAndHexAreNoNumbers) {
  const std::string out =
      "sqlite 3.40.1 2022-12-28 11:02:21 on x86_64\ncrc: 0x4783\nid abc123\nratio 3/4\n-5 below\n";
  EXPECT_EQ(Values(FindRepeatedNumbers({out, out}, {}, false)), (std::vector<std::string>{"-5"}));
}

TEST(ScoreGuessTest, ControlBytesAndOperatorsInTheLineAreEscaped) {
  const std::string out = "a(b)*c\t[x]: 42\n";
  const std::vector<ScoreGuess> g = FindRepeatedNumbers({out, out}, {}, false);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].pattern, "a\\(b\\)\\*c\\x{09}\\[x\\]: ([0-9]+)");
  std::string err;
  EXPECT_TRUE(CheckScorePattern(g[0].pattern, &err)) << err;
}

TEST(ScoreGuessTest, NothingRepeatsNothingIsProposed) {
  EXPECT_TRUE(FindRepeatedNumbers({"t 1\n", "t 2\n"}, {}, false).empty());
  EXPECT_TRUE(FindRepeatedNumbers({}, {}, false).empty());
  // One output alone cannot show that anything repeats... but two of the same can.
  EXPECT_EQ(FindRepeatedNumbers({"n: 12\n", "n: 12\n"}, {}, false).size(), 1u);
}

TEST(ScoreGuessTest, TheNumberMostLikeAScoreThatChangedIsFoundWithEachRunsValue) {
  const std::optional<ChangedNumber> c =
      FindChangedNumber({"pid: 17\nscore: 1\nversion 3\n", "pid: 18\nscore: 2\nversion 3\n",
                         "pid: 19\nscore: 3\nversion 3\n"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->line, "score: 1");
  EXPECT_EQ(c->line_number, 2u);
  EXPECT_EQ(c->values, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_TRUE(c->named_score);
  // Without a score word, the number with more digits.
  const std::optional<ChangedNumber> pid =
      FindChangedNumber({"n: 1\npid: 1017\n", "n: 2\npid: 1018\n"});
  ASSERT_TRUE(pid);
  EXPECT_EQ(pid->line, "pid: 1017");
  EXPECT_EQ(pid->values, (std::vector<std::string>{"1017", "1018"}));
  EXPECT_FALSE(pid->named_score);
}

TEST(ScoreGuessTest, NothingChangedOrNothingAtTheSamePlaceIsNoChangedNumber) {
  EXPECT_FALSE(FindChangedNumber({"score: 5\n", "score: 5\n"}));
  // A line one run printed and the other did not is not the same place.
  EXPECT_FALSE(FindChangedNumber({"score: 5\n", "total: 6\n"}));
  EXPECT_FALSE(FindChangedNumber({"score: 5\n"}));
}

}  // namespace
}  // namespace workgate
