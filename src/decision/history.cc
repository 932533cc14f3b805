#include "decision/history.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>

#include "model/backend.h"

namespace workgate {
namespace {

// The median of `v` (not empty); the mean of the middle two for an even size.
double SeriesMedian(std::vector<double> v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return lower + (upper - lower) / 2;
}

double SeriesMedianCount(const std::vector<uint64_t>& counts) {
  return SeriesMedian(std::vector<double>(counts.begin(), counts.end()));
}

// The condition_parts keys whose values differ between `a` and `b`, a key
// present in only one of them included; sorted by name.
std::vector<std::string> ChangedParts(const std::map<std::string, std::string>& a,
                                      const std::map<std::string, std::string>& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  std::vector<std::string> changed;
  for (const std::string& k : keys) {
    auto ia = a.find(k);
    auto ib = b.find(k);
    if (ia == a.end() || ib == b.end() || ia->second != ib->second) changed.push_back(k);
  }
  return changed;
}

std::optional<double> Relative(double from, double to) {
  // A zero count has no relative change; no real workload retires nothing.
  if (from == 0) return std::nullopt;
  return (to - from) / from;
}

// The whole series of one workload, oldest first, with values, steps and
// breaks; cumulative changes are left to the window.
std::vector<HistoryPoint> Series(const std::vector<const HistoryRecord*>& records) {
  std::vector<HistoryPoint> points;
  points.reserve(records.size());
  for (const HistoryRecord* r : records) {
    HistoryPoint p;
    p.record = *r;
    p.value = SeriesMedianCount(r->counts);
    if (!points.empty()) {
      const HistoryPoint& before = points.back();
      p.break_before = before.record.conditions != r->conditions;
      if (p.break_before) {
        p.changed = ChangedParts(before.record.condition_parts, r->condition_parts);
      } else {
        p.step = Relative(before.value, p.value);
      }
    }
    points.push_back(std::move(p));
  }
  return points;
}

// 1.4826 * MAD of the steps within segments, over sqrt(2): 1.4826 makes the
// MAD estimate a standard deviation for normal noise, and the difference of
// two counts has sqrt(2) times the spread of one.
void EstimateNoise(const std::vector<HistoryPoint>& series, WorkloadHistory* h) {
  std::vector<double> steps;
  for (const HistoryPoint& p : series) {
    if (p.step) steps.push_back(*p.step);
  }
  h->noise_differences = steps.size();
  if (steps.size() < 3) return;
  const double centre = SeriesMedian(steps);
  std::vector<double> deviations;
  for (double s : steps) deviations.push_back(std::abs(s - centre));
  h->noise_floor = 1.4826 * SeriesMedian(deviations) / std::sqrt(2.0);
}

bool BeyondNoise(const WorkloadHistory& h, double change) {
  if (IsExactBackend(h.backend)) return true;
  return h.noise_floor && std::abs(change) > 3 * std::sqrt(2.0) * *h.noise_floor;
}

// The largest rise (sign +1) or fall (sign -1) from a point to a later one
// of points[first, last]: for each later point, from the lowest (highest)
// point before it, which makes its relative change the largest. Ties keep
// the earliest span.
std::optional<HistorySpan> LargestMove(const WorkloadHistory& h, size_t first, size_t last,
                                       int sign) {
  std::optional<HistorySpan> best;
  size_t extreme = first;
  for (size_t j = first + 1; j <= last; ++j) {
    const std::optional<double> change = Relative(h.points[extreme].value, h.points[j].value);
    if (change && sign * *change > 0 && (!best || sign * *change > sign * best->change)) {
      best = HistorySpan{extreme, j, *change, false};
    }
    if (sign * h.points[j].value < sign * h.points[extreme].value) extreme = j;
  }
  return best;
}

// Keeps `candidate` in `*best` when it moves further; each at or beyond the
// margin only.
void KeepLarger(const WorkloadHistory& h, const std::optional<HistorySpan>& candidate,
                std::optional<HistorySpan>* best) {
  if (!candidate || std::abs(candidate->change) < h.margin) return;
  if (!*best || std::abs(candidate->change) > std::abs((*best)->change)) *best = candidate;
}

// Cumulative changes within the window's segments, and the verdict of the
// last segment: its steps over the margin, and within the runs between
// them its largest rise and fall.
void Decide(WorkloadHistory* h) {
  size_t segment = 0;  // index of the current segment's first point
  for (size_t i = 0; i < h->points.size(); ++i) {
    HistoryPoint& p = h->points[i];
    if (i > 0 && p.break_before) segment = i;
    if (i != segment) p.cumulative = Relative(h->points[segment].value, p.value);
  }
  // The step into the segment's first point comes from outside it (a point
  // before the window, or across a break): it is not one of its steps.
  size_t run = segment;  // index of the current run's first point
  for (size_t i = segment + 1; i <= h->points.size(); ++i) {
    const bool end = i == h->points.size();
    const std::optional<double>& step = end ? std::nullopt : h->points[i].step;
    const bool crossed = step && std::abs(*step) >= h->margin;
    if (!end && !crossed) continue;
    KeepLarger(*h, LargestMove(*h, run, i - 1, +1), &h->rise);
    KeepLarger(*h, LargestMove(*h, run, i - 1, -1), &h->fall);
    if (crossed) h->steps.push_back(i);
    run = i;
  }
  h->step_crossed = !h->steps.empty();
  h->cumulative = h->points.back().cumulative;
  for (std::optional<HistorySpan>* span : {&h->rise, &h->fall}) {
    if (*span) (*span)->beyond_noise = BeyondNoise(*h, (*span)->change);
  }
  h->drift = (h->rise && h->rise->beyond_noise) || (h->fall && h->fall->beyond_noise);
}

}  // namespace

std::vector<WorkloadHistory> AnalyzeHistory(const std::vector<HistoryRecord>& records,
                                            size_t window) {
  window = std::max<size_t>(window, 2);
  std::vector<const HistoryRecord*> sorted;
  for (const HistoryRecord& r : records) {
    if (!r.counts.empty()) sorted.push_back(&r);
  }
  // ISO 8601 in UTC with a fixed format sorts as text.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->recorded_at < b->recorded_at; });
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<const HistoryRecord*>> groups;
  for (const HistoryRecord* r : sorted) groups[{r->workload, r->backend, r->event}].push_back(r);

  std::vector<WorkloadHistory> out;
  for (const auto& [key, group] : groups) {
    WorkloadHistory h;
    std::tie(h.workload, h.backend, h.event) = key;
    h.margin = group.back()->max_work_added;
    std::vector<HistoryPoint> series = Series(group);
    h.recorded = series.size();
    if (!IsExactBackend(h.backend)) EstimateNoise(series, &h);
    const size_t first = series.size() - std::min(window, series.size());
    h.points.assign(std::make_move_iterator(series.begin() + first),
                    std::make_move_iterator(series.end()));
    Decide(&h);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace workgate
