#include "report/timed_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

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
  return TimedStatsLines(*w.timed_stats, minus);
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
