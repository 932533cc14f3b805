// libFuzzer entry point for score extraction and comparison. The input's
// first line is the pattern, the rest the program's output; patterns that
// CheckScorePattern refuses are skipped (a suite with one does not load).
// Built by fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Checks: no crash, no hang (libFuzzer's timeout: RE2 is linear), feeding the
// lines one by one finds what ExtractScore finds, a score is never longer
// than the searched part of a line, and the score rule is reflexive and
// symmetric.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "workload/score.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  if (newline == input.npos) return 0;
  const std::string pattern(input.substr(0, newline));
  const std::string output(input.substr(newline + 1));
  std::string err;
  if (!workgate::CheckScorePattern(pattern, &err)) {
    Check(!err.empty());
    return 0;
  }
  std::optional<std::string> score = workgate::ExtractScore(pattern, output);

  workgate::ScoreMatcher matcher(pattern);
  std::string_view rest = output;
  std::string_view last_line;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    last_line = rest.substr(0, end);
    matcher.Feed(last_line);
    if (end == rest.npos) break;
    rest.remove_prefix(end + 1);
  }
  Check(matcher.last() == score);
  if (!score) return 0;
  Check(score->size() <= workgate::kMaxScoreLineBytes);
  Check(workgate::ScoresEqual(*score, *score));
  const std::string other(last_line);
  Check(workgate::ScoresEqual(*score, other) == workgate::ScoresEqual(other, *score));
  workgate::ScoreValue(*score);
  return 0;
}
