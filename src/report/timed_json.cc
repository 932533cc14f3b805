#include "report/timed_json.h"

#include "model/model.h"
#include "report/json_fields.h"
#include "report/report_reader.h"

namespace workgate {
namespace {

using nlohmann::json;

// As many workloads as a report may hold (report/report_reader.cc).
constexpr int kMostWorkloads = 100000;

template <typename T>
json OptionalOrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json TestToJson(const std::optional<TimedTest>& t) {
  if (!t) return nullptr;
  return json{{"pairs", t->pairs},
              {"median_ratio", t->median_ratio},
              {"ci_low", t->ci_low},
              {"ci_high", t->ci_high},
              {"confidence", t->confidence},
              {"nominal_confidence", t->nominal_confidence},
              {"excludes_one", t->excludes_one},
              {"p_value", t->p_value},
              {"p_adjusted", t->p_adjusted},
              {"method", t->exact ? "exact" : "sampled"},
              {"draws", t->draws}};
}

bool InUnit(double v) { return v >= 0 && v <= 1; }

bool ReadTest(const json* j, const std::string& where, std::optional<TimedTest>* out,
              std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  TimedTest t;
  std::string method;
  if (!(f.Int("pairs", 1, static_cast<int>(kMaxListItems), &t.pairs) &&
        f.Number("median_ratio", &t.median_ratio) && f.Number("ci_low", &t.ci_low) &&
        f.Number("ci_high", &t.ci_high) && f.Number("confidence", &t.confidence) &&
        f.Number("nominal_confidence", &t.nominal_confidence) &&
        f.Bool("excludes_one", &t.excludes_one) && f.Number("p_value", &t.p_value) &&
        f.Number("p_adjusted", &t.p_adjusted) && f.String("method", &method) &&
        f.Uint("draws", &t.draws) && f.Done())) {
    return false;
  }
  if (method != "exact" && method != "sampled") return f.Fail("method", "must be exact or sampled");
  t.exact = method == "exact";
  // The method follows from the pairs, and the draws from the method.
  const bool exact = t.pairs <= kMaxExactSignFlipPairs;
  if (t.exact != exact || t.draws != (exact ? uint64_t{1} << t.pairs : kSignFlipDraws)) {
    return f.Fail("method", "and draws are not what the sign-flip test takes for its pairs");
  }
  if (!InUnit(t.confidence) || !InUnit(t.nominal_confidence)) {
    return f.Fail("confidence", "and nominal_confidence must be in [0, 1]");
  }
  if (!InUnit(t.p_value) || !InUnit(t.p_adjusted)) {
    return f.Fail("p_value", "and p_adjusted must be in [0, 1]");
  }
  *out = t;
  return true;
}

bool ReadDropped(const json& list, const std::string& where, std::vector<DroppedSample>* out,
                 std::string* err) {
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    DroppedSample d;
    std::string side;
    if (!(f.String("side", &side) &&
          f.Int("sample", 0, static_cast<int>(kMaxListItems) - 1, &d.sample) &&
          f.Number("value", &d.value) && f.Number("sibling_median", &d.sibling_median) &&
          f.Done())) {
      return false;
    }
    if (side != "baseline" && side != "candidate") {
      return f.Fail("side", "must be baseline or candidate");
    }
    d.baseline = side == "baseline";
    out->push_back(d);
  }
  return true;
}

}  // namespace

json TimedStatsToJson(const std::optional<TimedStats>& stats) {
  if (!stats) return nullptr;
  json dropped = json::array();
  for (const DroppedSample& d : stats->dropped) {
    dropped.push_back({{"side", d.baseline ? "baseline" : "candidate"},
                       {"sample", d.sample},
                       {"value", d.value},
                       {"sibling_median", d.sibling_median}});
  }
  return json{{"basis", stats->basis},
              {"label", TimedLabelName(stats->label)},
              {"reason", stats->reason},
              {"family", stats->family},
              {"comparison", TestToJson(stats->comparison)},
              {"hl_shift", OptionalOrNull(stats->hl_shift)},
              {"noise_floor", OptionalOrNull(stats->noise_floor)},
              {"aa_control", TestToJson(stats->aa_control)},
              {"dropped", dropped}};
}

json TimingVsCountToJson(const std::optional<TimingVsCount>& t) {
  if (!t) return nullptr;
  return json{{"disagreement", CountDisagreementName(t->disagreement)},
              {"pairs", t->pairs},
              {"median_ratio", t->median_ratio},
              {"ci_low", t->ci_low},
              {"ci_high", t->ci_high},
              {"confidence", t->confidence},
              {"count_low", t->count_low},
              {"count_high", t->count_high},
              {"factor", t->factor},
              {"bound", t->bound},
              {"p_value", t->p_value},
              {"p_adjusted", t->p_adjusted},
              {"family", t->family}};
}

bool TimingVsCountFromJson(const json* j, const std::string& where, WorkloadResult* w,
                           std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  TimingVsCount t;
  std::string disagreement;
  if (!(f.String("disagreement", &disagreement) &&
        f.Int("pairs", 2 * kMinPairsForInterval, static_cast<int>(kMaxListItems), &t.pairs) &&
        f.Number("median_ratio", &t.median_ratio) && f.Number("ci_low", &t.ci_low) &&
        f.Number("ci_high", &t.ci_high) && f.Number("confidence", &t.confidence) &&
        f.Number("count_low", &t.count_low) && f.Number("count_high", &t.count_high) &&
        f.Number("factor", &t.factor) && f.Number("bound", &t.bound) &&
        f.Number("p_value", &t.p_value) && f.Number("p_adjusted", &t.p_adjusted) &&
        f.Int("family", 1, kMostWorkloads, &t.family) && f.Done())) {
    return false;
  }
  if (!ParseCountDisagreement(disagreement, &t.disagreement)) {
    return f.Fail("disagreement", "must be none, slower or faster");
  }
  if (!w->timed_stats || static_cast<size_t>(t.pairs) > w->baseline.timed.size()) {
    return f.Fail("pairs", "are more than the workload's timed pairs");
  }
  if (!(t.ci_low > 0 && t.ci_low <= t.median_ratio && t.median_ratio <= t.ci_high) ||
      !InUnit(t.confidence)) {
    return f.Fail("median_ratio", "must lie in its interval, above 0, at a level in [0, 1]");
  }
  if (t.count_low != 1 + w->relative_low || t.count_high != 1 + w->relative_high) {
    return f.Fail("count_low", "and count_high are not 1 + the workload's relative_low and high");
  }
  if (!(t.factor > 1) || !(t.count_low > 0) ||
      (t.bound != t.count_high * t.factor && t.bound != t.count_low / t.factor)) {
    return f.Fail("bound", "is not the count's ratio times or over a factor above 1");
  }
  if (!InUnit(t.p_value) || !InUnit(t.p_adjusted) || t.p_adjusted < t.p_value) {
    return f.Fail("p_value", "and p_adjusted must be in [0, 1], the adjusted one no smaller");
  }
  if (t.disagreement != DisagreementOf(t)) {
    return f.Fail("disagreement", "is not what its interval, bound and p_adjusted say");
  }
  w->timing_vs_count = t;
  return true;
}

bool TimedStatsFromJson(const json* j, const std::string& where, std::optional<TimedStats>* out,
                        std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  TimedStats s;
  std::string label;
  const json* comparison = f.Object("comparison", true);
  const json* aa = f.Object("aa_control", true);
  const json* dropped = f.Array("dropped", 2 * kMaxListItems);
  if (!(f.String("basis", &s.basis) && f.String("label", &label) &&
        f.String("reason", &s.reason) &&
        f.Int("family", 0, kMostWorkloads, &s.family) &&
        f.NumberOrNull("hl_shift", &s.hl_shift) && f.NumberOrNull("noise_floor", &s.noise_floor) &&
        f.Done())) {
    return false;
  }
  if (s.basis != "score" && s.basis != "wall time") {
    return f.Fail("basis", "must be score or wall time");
  }
  if (!ParseTimedLabel(label, &s.label)) {
    return f.Fail("label", "must be faster, slower, within noise or inconclusive");
  }
  if (!(ReadTest(comparison, f.Path("comparison"), &s.comparison, err) &&
        ReadTest(aa, f.Path("aa_control"), &s.aa_control, err) &&
        ReadDropped(*dropped, f.Path("dropped"), &s.dropped, err))) {
    return false;
  }
  if (s.hl_shift.has_value() != s.comparison.has_value() ||
      s.noise_floor.has_value() != s.comparison.has_value()) {
    return f.Fail("", "must have hl_shift and noise_floor exactly when it has a comparison");
  }
  *out = std::move(s);
  return true;
}

}  // namespace workgate
