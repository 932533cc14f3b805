#include "workload/score.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <cmath>
#include <cstdlib>

#include "util/text.h"

namespace workgate {

namespace {

// The same options for the check at load and the search at run time, so a
// pattern that passed the check compiles the same way when it is used.
RE2::Options PatternOptions() {
  RE2::Options options;
  // Errors are reported by CheckScorePattern with the suite's file and line;
  // RE2 would also write them to stderr.
  options.set_log_errors(false);
  return options;
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A plain decimal in canonical form, as views into the text: no sign for
// zero, no leading zeros in `whole` ("" for zero), no trailing zeros in `frac`.
struct Decimal {
  bool negative = false;
  std::string_view whole;
  std::string_view frac;
  bool operator==(const Decimal&) const = default;
};

// "[+-]digits[.digits]" with at least one digit, blanks already trimmed; a
// linear scan, so a score of any length costs its length.
std::optional<Decimal> ParseDecimal(std::string_view s) {
  Decimal d;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    d.negative = s.front() == '-';
    s.remove_prefix(1);
  }
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  d.whole = s.substr(0, i);
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && IsDigit(s[j])) ++j;
    d.frac = s.substr(i + 1, j - i - 1);
    i = j;
  }
  if (i != s.size() || (d.whole.empty() && d.frac.empty())) return std::nullopt;
  while (!d.whole.empty() && d.whole.front() == '0') d.whole.remove_prefix(1);
  while (!d.frac.empty() && d.frac.back() == '0') d.frac.remove_suffix(1);
  if (d.whole.empty() && d.frac.empty()) d.negative = false;
  return d;
}

}  // namespace

bool CheckScorePattern(const std::string& pattern, std::string* err) {
  RE2 re(pattern, PatternOptions());
  if (!re.ok()) {
    *err = fmt::format("not a valid regular expression (RE2 syntax): {}", re.error());
    return false;
  }
  if (re.NumberOfCapturingGroups() != 1) {
    *err = fmt::format("the pattern must have exactly one capture group, it has {}",
                       re.NumberOfCapturingGroups());
    return false;
  }
  if (re.ProgramSize() > kMaxScorePatternSize) {
    *err = fmt::format("the pattern is too large: it compiles to {} instructions, at most {}",
                       re.ProgramSize(), kMaxScorePatternSize);
    return false;
  }
  return true;
}

ScoreMatcher::ScoreMatcher(const std::string& pattern)
    : re_(std::make_unique<RE2>(pattern, PatternOptions())) {}
ScoreMatcher::~ScoreMatcher() = default;
ScoreMatcher::ScoreMatcher(ScoreMatcher&&) noexcept = default;
ScoreMatcher& ScoreMatcher::operator=(ScoreMatcher&&) noexcept = default;

void ScoreMatcher::Feed(std::string_view line) {
  if (!re_ || !re_->ok() || re_->NumberOfCapturingGroups() < 1) return;
  line = line.substr(0, kMaxScoreLineBytes);
  re2::StringPiece capture;
  if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re_, &capture)) {
    // A group that took no part in the match leaves `capture` null: an empty score.
    last_ = capture.data() ? std::string(capture.data(), capture.size()) : std::string();
  }
}

std::optional<std::string> ExtractScore(const std::string& pattern, const std::string& output) {
  ScoreMatcher matcher(pattern);
  std::string_view rest = output;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    matcher.Feed(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return matcher.last();
}

bool ScoresEqual(const std::string& a, const std::string& b) {
  std::string_view ta = TrimBlanks(a), tb = TrimBlanks(b);
  std::optional<Decimal> da = ParseDecimal(ta), db = ParseDecimal(tb);
  if (da && db) return *da == *db;
  return ta == tb;
}

bool ScoreAdmitted(const std::string& printed, ScoreSide side, const std::string& expect,
                   const std::optional<std::string>& previous) {
  if (ScoresEqual(printed, expect)) return true;
  return side == ScoreSide::kBaseline && previous && ScoresEqual(printed, *previous);
}

std::string ExpectedScoreText(ScoreSide side, const std::string& expect,
                              const std::optional<std::string>& previous) {
  if (side == ScoreSide::kBaseline && previous) {
    return fmt::format("{} (or the previous {})", expect, *previous);
  }
  return expect;
}

std::string PreviousScoreHint(const std::string& printed, ScoreSide side,
                              const std::optional<std::string>& previous) {
  if (side != ScoreSide::kCandidate || !previous || !ScoresEqual(printed, *previous)) return "";
  return fmt::format(
      " ({} is score.previous, the score before this change: only the baseline may print it)",
      *previous);
}

std::optional<double> ScoreValue(const std::string& score) {
  std::string_view trimmed = TrimBlanks(score);
  if (!ParseDecimal(trimmed)) return std::nullopt;
  double value = std::strtod(std::string(trimmed).c_str(), nullptr);
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::string ShortScore(const std::string& score) {
  if (score.size() <= 64) return score;
  // Cut at a character boundary: never inside a UTF-8 sequence.
  return fmt::format("{}\u2026({} characters)", Utf8Prefix(score, 48), score.size());
}

}  // namespace workgate
