// libFuzzer entry point for the suite reader (TOML). Built by
// fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Besides "no crash, no undefined behaviour, no leak, no hang" (the
// sanitizers and libFuzzer's timeout), it checks what the reader promises:
// every error names the file and a line, and every suite it accepts holds
// only workloads the rest of workgate can run as they are.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "workload/number_range.h"
#include "workload/score.h"
#include "workload/workload.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  workgate::Suite suite;
  std::string err;
  if (!workgate::ParseSuite(text, "fuzz.toml", &suite, &err)) {
    Check(err.rfind("fuzz.toml:", 0) == 0);
    return 0;
  }
  Check(!suite.workloads.empty());
  std::set<std::string> names;
  for (const workgate::Workload& w : suite.workloads) {
    Check(names.insert(w.name).second);
    Check(w.origin.rfind("fuzz.toml:", 0) == 0);
    Check(!w.command.empty());
    bool has_exe = false;
    for (const std::string& arg : w.command) has_exe = has_exe || arg.find("{exe}") != arg.npos;
    Check(has_exe);
    Check(workgate::kTimeoutSeconds.Contains(w.timeout_seconds));
    if (w.max_work_added_percent) {
      Check(workgate::kMaxWorkAddedPercent.Contains(*w.max_work_added_percent));
    }
    Check(w.score_pattern.has_value() == w.score_expect.has_value());
    Check(w.score_pattern || w.clock == workgate::ClockMode::kNone);
    if (w.score_pattern) {
      Check(workgate::CheckScorePattern(*w.score_pattern, &err));
      // The expected score is what a pinned run must print: it equals itself.
      Check(workgate::ScoresEqual(*w.score_expect, *w.score_expect));
      workgate::ScoreMatcher matcher(*w.score_pattern);
      matcher.Feed(*w.score_expect);
    }
    Check(!w.Canonical().empty());
  }
  return 0;
}
