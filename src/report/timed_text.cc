#include "report/timed_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/backend.h"
#include "model/model.h"

namespace workgate {
namespace {

// "exact, all 1024 sign flips" or "sampled, 100000 sign flips".
std::string Method(const TimedTest& t) {
  return t.exact ? fmt::format("exact, all {} sign flips", t.draws)
                 : fmt::format("sampled, {} sign flips", t.draws);
}

}  // namespace

std::string TimedInterval(const TimedTest& t) {
  return fmt::format("{} [{}, {}] at {}", FormatRatio(t.median_ratio), FormatRatio(t.ci_low),
                     FormatRatio(t.ci_high), FormatLevel(t.confidence));
}

namespace {

// "p = 0.031" or "p < 0.001".
std::string PIs(double p) {
  const std::string text = FormatPValue(p);
  return text[0] == '<' ? "p " + text.substr(0, 1) + " " + text.substr(1) : "p = " + text;
}

std::string TestLine(const TimedStats& s) {
  const TimedTest& t = *s.comparison;
  std::string line = fmt::format("sign-flip test: {} ({})", PIs(t.p_value), Method(t));
  if (s.family > 1) {
    line += fmt::format("; after Holm over {} workloads, {}", s.family, PIs(t.p_adjusted));
  }
  return line;
}

std::string ShiftLine(const TimedStats& s, Minus minus) {
  const double shift = *s.hl_shift;
  const std::string value =
      s.basis == "score"
          ? (shift > 0 ? "+" : shift < 0 ? MinusSign(minus) : "") + FormatScore(std::fabs(shift)) +
                " (score)"
          : FormatSignedSeconds(shift, minus);
  return fmt::format(
      "Hodges-Lehmann shift of candidate {} baseline: {}; noise floor {} (the baseline's own "
      "runs)",
      MinusSign(minus), value, FormatLevel(*s.noise_floor));
}

std::string ControlLine(const TimedStats& s) {
  if (!s.aa_control) {
    const int kept = s.comparison ? s.comparison->pairs : 0;
    return fmt::format(
        "A/A control: not run: it takes {} or more of the baseline's runs, {} were kept",
        2 * kMinPairsForInterval, kept);
  }
  const TimedTest& t = *s.aa_control;
  std::string p = PIs(t.p_value) + " (" + Method(t) + ")";
  if (t.p_adjusted != t.p_value) p += ", after Holm " + PIs(t.p_adjusted);
  return fmt::format("A/A control (the baseline against itself): {}, {}: {}", TimedInterval(t), p,
                     s.aa_effect() ? "shows an effect" : "no effect");
}

std::string DroppedLine(const DroppedSample& d, const std::string& basis) {
  auto figure = [&basis](double v) {
    return basis == "score" ? "score " + FormatScore(v) : FormatSeconds(v);
  };
  return fmt::format(
      "dropped as a stall, with its pair: {} sample [{}], {} against a median of {} for the "
      "other runs of its side",
      d.baseline ? "baseline" : "candidate", d.sample, figure(d.value), figure(d.sibling_median));
}

}  // namespace

bool HasTimedSamples(const CompareReport& report) {
  return std::any_of(report.workloads.begin(), report.workloads.end(), [](const WorkloadResult& w) {
    return !w.baseline.timed.empty() || !w.candidate.timed.empty();
  });
}

bool HasTimedStats(const CompareReport& report) {
  return std::any_of(report.workloads.begin(), report.workloads.end(),
                     [](const WorkloadResult& w) { return w.timed_stats.has_value(); });
}

std::string TimedCell(const SideResult& side) {
  if (side.timed.empty()) return "\u2014";
  std::vector<double> scores, walls;
  for (const TimedSample& t : side.timed) {
    if (t.score) scores.push_back(*t.score);
    walls.push_back(t.wall_seconds);
  }
  std::string cell = FormatSeconds(Median(walls));
  // Scores only when every sample has one: a median over some would mislead.
  if (scores.size() == side.timed.size()) {
    cell = "score " + FormatScore(Median(scores)) + " \u00b7 " + cell;
  }
  if (side.timed.size() > 1) cell += fmt::format(" (median of {})", side.timed.size());
  return cell;
}

std::string StatsCell(const WorkloadResult& w) {
  if (!w.timed_stats) return "\u2014";
  const TimedStats& s = *w.timed_stats;
  if (!s.comparison) {
    std::set<int> dropped;  // a pair can lose both of its runs
    for (const DroppedSample& d : s.dropped) dropped.insert(d.sample);
    return fmt::format("\u2014 ({} of {} pairs left)", w.baseline.timed.size() - dropped.size(),
                       w.baseline.timed.size());
  }
  return TimedInterval(*s.comparison);
}

std::string TimedLabelCell(const WorkloadResult& w) {
  return w.timed_stats ? TimedLabelName(w.timed_stats->label) : "\u2014";
}

std::vector<std::string> TimedDetails(const WorkloadResult& w, Minus minus) {
  if (!w.timed_stats) return {};
  std::vector<std::string> lines = TimedStatsLines(*w.timed_stats, minus);
  if (const std::string count = TimingVsCountLine(w); !count.empty()) lines.push_back(count);
  return lines;
}

namespace {

// "more than 2\u00d7 the 1.000 its count allows (sign-flip test against
// 2.000: p < 0.001)": where the timing lies against the count's ratio, and
// the test, after `lead` in the parentheses.
std::string AgainstCount(const TimingVsCount& t, const std::string& lead) {
  const std::string low = FormatRatio(t.count_low), high = FormatRatio(t.count_high);
  const std::string allowed = low == high ? high : low + " to " + high;
  const std::string factor = fmt::format("{:g}", t.factor);
  std::string where;
  switch (t.disagreement) {
    case CountDisagreement::kSlower:
      where = fmt::format("more than {}\u00d7 the {}", factor, allowed);
      break;
    case CountDisagreement::kFaster:
      where = fmt::format("less than 1/{} of the {}", factor, allowed);
      break;
    case CountDisagreement::kNone:
      where = fmt::format("within {}\u00d7 of the {}", factor, allowed);
      break;
  }
  std::string test =
      fmt::format("sign-flip test against {}: {}", FormatRatio(t.bound), PIs(t.p_value));
  if (t.family > 1) {
    test += fmt::format(", after Holm over {} workloads {}", t.family, PIs(t.p_adjusted));
  }
  return fmt::format("{} its count allows ({}{})", where, lead, test);
}

// "2.900 [2.871, 2.929] at 97.5%": the wall times' ratio and its interval.
std::string WallInterval(const TimingVsCount& t) {
  return fmt::format("{} [{}, {}] at {}", FormatRatio(t.median_ratio), FormatRatio(t.ci_low),
                     FormatRatio(t.ci_high), FormatLevel(t.confidence));
}

}  // namespace

std::string TimingVsCountLine(const WorkloadResult& w) {
  if (!w.timing_vs_count) return "";
  return fmt::format("wall times held against the count: {}, {}", WallInterval(*w.timing_vs_count),
                     AgainstCount(*w.timing_vs_count, ""));
}

std::string TimingVsCountSentence(const WorkloadResult& w, Minus minus) {
  if (!w.timing_vs_count || w.timing_vs_count->disagreement == CountDisagreement::kNone ||
      !HasDelta(w)) {
    return "";
  }
  const BackendTraits* backend = FindBackend(w.candidate.fingerprint.backend);
  const std::string counted =
      backend != nullptr && backend->under_valgrind
          ? "either a build behaves differently when it is counted (a program can tell that it "
            "runs under Valgrind, and the timed runs are native) or "
          : "";
  return fmt::format(
      "timing and count disagree: the wall-time ratio, {}, is {}; {}the time is dominated by "
      "what instruction counts do not see (cache misses, branch mispredictions, waits); the "
      "verdict is still the count's",
      WallInterval(*w.timing_vs_count),
      AgainstCount(*w.timing_vs_count, "\u0394 " + FormatPercent(w.relative, minus) + "; "),
      counted);
}

int TimingDisagreements(const CompareReport& report) {
  return static_cast<int>(
      std::count_if(report.workloads.begin(), report.workloads.end(), [](const WorkloadResult& w) {
        return w.timing_vs_count && w.timing_vs_count->disagreement != CountDisagreement::kNone;
      }));
}

std::vector<std::string> TimedStatsLines(const TimedStats& s, Minus minus) {
  std::vector<std::string> lines;
  lines.push_back(std::string(TimedLabelName(s.label)) + ": " + s.reason);
  if (s.comparison) {
    lines.push_back(TestLine(s));
    lines.push_back(ShiftLine(s, minus));
    lines.push_back(ControlLine(s));
  }
  for (const DroppedSample& d : s.dropped) lines.push_back(DroppedLine(d, s.basis));
  return lines;
}

std::string TimedNote(const CompareReport& report) {
  size_t most = 0;
  for (const WorkloadResult& w : report.workloads) {
    most = std::max({most, w.baseline.timed.size(), w.candidate.timed.size()});
  }
  if (most <= 1) {
    return "One timed run per side on a shared runner; such runs differ by several percent "
           "with no code change, so no percentage is given.";
  }
  if (!HasTimedStats(report)) {
    return fmt::format(
        "{} timed runs per side: too few pairs for an interval ({} or more give a paired "
        "ratio), so no percentage is given.",
        most, kMinPairsForInterval);
  }
  return fmt::format(
      "{} timed runs per side, one at a time after all counting, in one mirrored order over the "
      "whole run (AB BA AB ...), after one discarded warm-up per side. The ratio is the median "
      "over pairs of candidate to baseline, oriented so that above 1 means the candidate is "
      "slower, with a seeded bootstrap interval at the level it can really have. A label needs "
      "the interval and an exact sign-flip test, Holm-adjusted over the workloads, to agree; an "
      "effect within the noise floor of the baseline's own runs is within noise. A label is a "
      "hint to look closer, never a verdict.",
      most);
}

std::string TimedTrustSentence(const CompareReport& report) {
  const auto untrusted =
      std::count_if(report.workloads.begin(), report.workloads.end(), [](const WorkloadResult& w) {
        return w.timed_stats && w.timed_stats->aa_effect();
      });
  if (untrusted == 0) return "";
  return fmt::format(
      "The A/A control of {} workload{} shows an effect between runs of the same build: the "
      "timed context cannot be trusted on this runner.",
      untrusted, untrusted == 1 ? "" : "s");
}

}  // namespace workgate
