#pragma once
// The asserted score: what a pinned run prints to show it did the expected
// work. Extracted from stdout with the suite's regex, compared as decimals.

#include <optional>
#include <string>

namespace workgate {

/// A valid ECMAScript regex with exactly one capture group.
bool CheckScorePattern(const std::string& pattern, std::string* err);

/// The first capture of the last match of `pattern` in `output` (a program
/// that prints progress before its final score is judged by the final one).
std::optional<std::string> ExtractScore(const std::string& pattern, const std::string& output);

/// Compares two scores as decimal numbers when both are ("10.000" equals
/// "10", "+1.50" equals "1.5"), else as exact text.
bool ScoresEqual(const std::string& a, const std::string& b);

/// The score as a number, for timed context; nullopt if it is not one.
std::optional<double> ScoreValue(const std::string& score);

}  // namespace workgate
