#pragma once
// The asserted score: what a pinned run prints to show it did the expected
// work. Found in stdout, line by line, with the suite's RE2 pattern, and
// compared as an exact decimal.
//
// The output is the candidate's, so it may be hostile: RE2 matches in time
// linear in the text (no backtracking, no recursion per character, unlike
// std::regex, which overflowed the stack on a 50,000-digit score), and each
// line is searched in a bounded prefix, so a score check costs at most
// pattern size x output size.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace workgate {

/// The longest line searched for a score; a longer line is searched in its
/// first kMaxScoreLineBytes bytes.
/// 64 KiB: score lines are tens of bytes, and this still holds a 50,000-digit
/// score whole. It bounds what the launcher keeps of one line, and one line's
/// search: with 'score: ([0-9.]+)', about 10 us for a 64 KiB line that does
/// not match and 1.5 ms for one that matches whole (the capture is found by
/// RE2's NFA, about 23 ns a byte).
inline constexpr size_t kMaxScoreLineBytes = 64 * 1024;

/// The largest compiled pattern CheckScorePattern admits, in RE2 program
/// instructions ('score: ([0-9.]+)' has 16). RE2 is linear in the text for
/// any pattern, but where a pattern's DFA would need too many states RE2
/// falls back to its NFA, whose cost per byte grows with the program: about
/// 100 ms per 64 KiB line at 69 instructions, 440 ms at 309. 200 leaves room
/// for any score pattern a person writes.
inline constexpr int kMaxScorePatternSize = 200;

/// A valid RE2 pattern with exactly one capture group, of at most
/// kMaxScorePatternSize instructions; else false with `*err` saying which.
bool CheckScorePattern(const std::string& pattern, std::string* err);

/// The score of a run, fed one stdout line at a time. The pattern is searched
/// within each line, unanchored ('^' and '$' are the line's ends), so it
/// cannot span lines; a line that matches more than once gives its first
/// match. The last matching line wins: a program that prints progress before
/// its final score is judged by the final one.
class ScoreMatcher {
 public:
  /// `pattern` should be one CheckScorePattern accepted; a pattern RE2 rejects never matches.
  explicit ScoreMatcher(const std::string& pattern);
  ~ScoreMatcher();
  ScoreMatcher(ScoreMatcher&&) noexcept;
  ScoreMatcher& operator=(ScoreMatcher&&) noexcept;

  /// One stdout line, without its '\n'.
  void Feed(std::string_view line);
  /// First capture of the last matching line.
  const std::optional<std::string>& last() const { return last_; }

 private:
  std::unique_ptr<re2::RE2> re_;
  std::optional<std::string> last_;
};

/// A score as messages quote it: whole up to 64 characters, else its first 48
/// and how long it was ("1111…(50001 characters)"); a printed score comes
/// from the program and can be as long as a line.
std::string ShortScore(const std::string& score);

/// Splits `output` into lines and feeds a ScoreMatcher (for callers that hold the output).
std::optional<std::string> ExtractScore(const std::string& pattern, const std::string& output);

/// The one rule for score equality (the expected score against a printed
/// one, and the two sides' scores against each other). Blanks around either
/// are ignored. Two plain decimals ([+-]digits[.digits]) are compared by
/// exact value, digit by digit ("10.000" equals "10", "+1.50" equals "1.5",
/// "-0" equals "0"), never through a double, so scores of any length compare
/// exactly. Anything else ("1e3", "0x10", "inf", "ok") is compared as text.
bool ScoresEqual(const std::string& a, const std::string& b);

/// The build of a comparison whose run printed a score. `count` counts the
/// build it is given as a candidate: the score the suite expects now.
enum class ScoreSide { kBaseline, kCandidate };

/// The one rule for what a side may print (a run's check as it is counted,
/// a stored count's and a stored baseline's as they are used): the expected
/// score (ScoresEqual); for the baseline, also the suite's score.previous,
/// the score from before a change that alters it on purpose.
bool ScoreAdmitted(const std::string& printed, ScoreSide side, const std::string& expect,
                   const std::optional<std::string>& previous);

/// What `side` was expected to print, for messages: "1200", or for a
/// baseline with a previous score "1200 (or the previous 1000)".
std::string ExpectedScoreText(ScoreSide side, const std::string& expect,
                              const std::optional<std::string>& previous);

/// Why a score that ScoreAdmitted refused was refused, beyond the values:
/// for a candidate that printed the previous score, that only the baseline
/// may (" (1000 is score.previous, the score before this change: only the
/// baseline may print it)"); "" otherwise.
std::string PreviousScoreHint(const std::string& printed, ScoreSide side,
                              const std::optional<std::string>& previous);

/// The score as a number, for timed context: nullopt unless it is a plain
/// decimal whose value a double holds (not too large to be finite).
std::optional<double> ScoreValue(const std::string& score);

}  // namespace workgate
