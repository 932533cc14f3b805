#include "report/history_json.h"

#include "report/format.h"
#include "report/history_view.h"
#include "report/report_output.h"

namespace workgate {
namespace {

using nlohmann::json;

json Optional(const std::optional<double>& v) { return v ? json(*v) : json(); }

json PointToJson(const HistoryPoint& p) {
  const HistoryRecord& r = p.record;
  return {{"ref", r.ref},
          {"recorded_at", r.recorded_at},
          {"committed_at", r.committed_at ? json(*r.committed_at) : json()},
          {"counts", r.counts},
          {"value", p.value},
          {"step", Optional(p.step)},
          {"cumulative", Optional(p.cumulative)},
          {"break_before", p.break_before},
          {"changed", p.changed},
          {"max_work_added", r.max_work_added},
          {"score", r.score ? json(*r.score) : json()},
          {"subject", r.subject ? json(*r.subject) : json()},
          {"conditions", r.conditions},
          {"condition_parts", r.condition_parts}};
}

json SpanToJson(const WorkloadHistory& h, const std::optional<HistorySpan>& span) {
  if (!span) return json();
  return {{"from", span->from},
          {"to", span->to},
          {"from_ref", h.points[span->from].record.ref},
          {"to_ref", h.points[span->to].record.ref},
          {"change", span->change},
          {"beyond_noise", span->beyond_noise}};
}

json SeriesToJson(const WorkloadHistory& h) {
  json points = json::array();
  for (const HistoryPoint& p : h.points) points.push_back(PointToJson(p));
  json steps = json::array();
  for (size_t i : h.steps) {
    steps.push_back({{"point", i}, {"ref", h.points[i].record.ref}, {"step", *h.points[i].step}});
  }
  return {{"workload", h.workload},
          {"backend", h.backend},
          {"event", h.event},
          {"margin", h.margin},
          {"recorded", h.recorded},
          {"cumulative", Optional(h.cumulative)},
          {"step_crossed", h.step_crossed},
          {"steps", std::move(steps)},
          {"rise", SpanToJson(h, h.rise)},
          {"fall", SpanToJson(h, h.fall)},
          {"drift", h.drift},
          {"direction", DirectionName(DirectionOf(h))},
          {"noise_floor", Optional(h.noise_floor)},
          {"noise_differences", h.noise_differences},
          {"verdict", HistoryHeadline(h, Minus::kAscii)},
          {"points", std::move(points)}};
}

}  // namespace

json HistoryToJson(const std::vector<WorkloadHistory>& series) {
  json all = json::array();
  for (const WorkloadHistory& h : series) all.push_back(SeriesToJson(h));
  return {{"format", kHistoryFormat},
          {"schema_version", kHistorySchemaVersion},
          {"series", std::move(all)}};
}

bool WriteHistoryJson(const std::string& path, const std::vector<WorkloadHistory>& series,
                      std::string* err) {
  return WriteJsonFile(path, HistoryToJson(series), "the history JSON", err);
}

}  // namespace workgate
