#include "report/selftest_report.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/timed_json.h"
#include "report/timed_text.h"

namespace workgate {
namespace {

constexpr Minus kSelftestMinus = Minus::kAscii;

std::string Phase(const std::string& title, const std::optional<TimedStats>& stats) {
  if (!stats) return "  " + title + ": not run\n";
  std::string out = "  " + title + ": ";
  out += stats->comparison ? TimedInterval(*stats->comparison) + "\n" : "no interval\n";
  for (const std::string& line : TimedStatsLines(*stats, kSelftestMinus))
    out += "    " + line + "\n";
  return out;
}

}  // namespace

std::string SelftestText(const TimedSelftest& t) {
  std::string out = fmt::format(
      "timed self-test: {}, {} pairs per phase, delay {:g}% of the run\n", t.workload, t.pairs,
      100 * t.delay_fraction);
  if (t.run_seconds > 0) {
    out += fmt::format("  the run takes {} (median of the baseline's A/A runs); the delay is {}, "
                       "so the true ratio is {}\n",
                       FormatSeconds(t.run_seconds), FormatSeconds(t.delay_seconds),
                       FormatRatio(t.expected_ratio));
  }
  out += Phase("A/A, the workload against itself", t.aa);
  out += Phase("delayed, against itself with the delay", t.delayed);
  if (t.delayed && t.delayed->comparison) {
    out += fmt::format("  the delayed interval {} the true ratio {}\n",
                       t.covers_expected ? "holds" : "misses", FormatRatio(t.expected_ratio));
  }
  return out + fmt::format("{}: {}\n", SelftestOutcomeName(t.outcome), t.reason);
}

nlohmann::json SelftestToJson(const TimedSelftest& t) {
  return {{"workload", t.workload},
          {"iterations", t.iterations},
          {"pairs", t.pairs},
          {"delay_fraction", t.delay_fraction},
          {"run_seconds", t.run_seconds},
          {"delay_seconds", t.delay_seconds},
          {"expected_ratio", t.expected_ratio},
          {"aa", TimedStatsToJson(t.aa)},
          {"delayed", TimedStatsToJson(t.delayed)},
          {"covers_expected", t.covers_expected},
          {"outcome", SelftestOutcomeName(t.outcome)},
          {"reason", t.reason}};
}

}  // namespace workgate
