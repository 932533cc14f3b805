#include "report/json_report.h"

#include "model/model.h"
#include "model/model_json.h"
#include "report/report_output.h"
#include "report/summary.h"
#include "report/timed_json.h"

namespace workgate {
namespace {

using nlohmann::json;

json OrNull(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json StoreToJson(const CompareReport& report) {
  if (report.store.empty() && report.store_notes.empty()) return nullptr;
  return json{{"path", report.store.empty() ? json(nullptr) : json(report.store)},
              {"notes", report.store_notes},
              {"recorded_as",
               report.recorded_as.empty() ? json(nullptr) : json(report.recorded_as)}};
}

// Each simulated event by name; null without.
json EventCostsToJson(const std::optional<SimulatedCosts>& costs) {
  if (!costs) return nullptr;
  json out = json::object();
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    out[std::string(kSimulatedEventNames[i])] = (*costs)[i];
  }
  return out;
}

json SimulatedSideToJson(const std::optional<SimulatedEvents>& events) {
  if (!events) return nullptr;
  return json{{"instructions", events->instructions},
              {"events", EventCostsToJson(events->costs)}};
}

// A row's or line's two sides of simulated events; null without.
json RowEventsToJson(const std::optional<SimulatedCosts>& baseline,
                     const std::optional<SimulatedCosts>& candidate) {
  if (!baseline || !candidate) return nullptr;
  return json{{"baseline", EventCostsToJson(baseline)},
              {"candidate", EventCostsToJson(candidate)}};
}

json SideToJson(const SideResult& side) {
  json timed = json::array();
  for (const TimedSample& t : side.timed) {
    timed.push_back({{"score", t.score ? json(*t.score) : json(nullptr)},
                     {"wall_seconds", t.wall_seconds},
                     {"slot", t.slot}});
  }
  const bool counted = !side.counts.empty();
  return json{{"instructions", counted ? json(side.min()) : json(nullptr)},
              {"counts", side.counts},
              {"min", counted ? json(side.min()) : json(nullptr)},
              {"max", counted ? json(side.max()) : json(nullptr)},
              {"score", OrNull(side.score)},
              {"error", side.error.empty() ? json(nullptr) : json(side.error)},
              {"notes", side.notes},
              {"deterministic", side.deterministic},
              {"unpinned", side.unpinned},
              {"timed", timed},
              {"fingerprint", FingerprintToJson(side.fingerprint)},
              {"from_store", FromStoreToJson(side.from_store)},
              {"simulated", SimulatedSideToJson(side.simulated)}};
}

// A text that is absent when empty.
json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

namespace {

// One listed line of an explanation, and the lines folded into it.
json LineToJson(const LineDelta& l) {
  json folded = json::array();
  for (const LineDelta& f : l.folded) folded.push_back(LineToJson(f));
  return {{"file", l.file},
          {"line", l.line},
          {"baseline", l.baseline},
          {"candidate", l.candidate},
          {"delta", l.delta()},
          {"baseline_only", l.baseline_only},
          {"numbering", l.numbering},
          {"changed", l.changed ? json(*l.changed) : json(nullptr)},
          {"folded", folded},
          {"path", NullIfEmpty(l.path)},
          {"text", NullIfEmpty(l.text)},
          {"url", NullIfEmpty(l.url)},
          {"events", RowEventsToJson(l.baseline_events, l.candidate_events)}};
}

}  // namespace

json ExplanationToJson(const std::optional<Explanation>& e) {
  if (!e) return nullptr;
  json rows = json::array();
  for (const FunctionDelta& r : e->rows) {
    json lines = json::array();
    for (const LineDelta& l : r.lines) lines.push_back(LineToJson(l));
    json moves = json::array();
    for (const CallerMove& m : r.moves) {
      moves.push_back({{"caller", m.caller},
                       {"object", m.object},
                       {"baseline_calls", m.baseline_calls},
                       {"candidate_calls", m.candidate_calls},
                       {"baseline_inclusive", m.baseline_inclusive},
                       {"candidate_inclusive", m.candidate_inclusive},
                       {"inclusive_delta", m.inclusive_delta()},
                       {"out_of_line", m.out_of_line()}});
    }
    rows.push_back({{"function", r.function},
                    {"renamed_from", NullIfEmpty(r.renamed_from)},
                    {"object", r.object},
                    {"clones", r.clones},
                    {"baseline", r.baseline},
                    {"candidate", r.candidate},
                    {"delta", r.delta()},
                    {"lines", lines},
                    {"moves", moves},
                    {"events", RowEventsToJson(r.baseline_events, r.candidate_events)}});
  }
  json missing = json::array();
  for (const MissingSymbols& m : e->missing_symbols) {
    json files = json::array();
    for (const StrippedFile& f : m.files) {
      auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
      files.push_back({{"path", f.path},
                       {"side", f.side},
                       {"build_id", or_null(f.build_id)},
                       {"debug_file", or_null(f.debug_file)},
                       {"debug_file_exists", f.debug_file_exists}});
    }
    missing.push_back({{"object", m.object}, {"delta", m.delta}, {"files", files}});
  }
  json cuts = json::array();
  for (const ProfileCut& c : e->profile_cuts) {
    cuts.push_back({{"side", c.side},
                    {"table", c.table},
                    {"named", c.named},
                    {"more_than_named", c.more_than_named},
                    {"kept", c.kept}});
  }
  return json{{"total_delta", e->total_delta},
              {"error", e->error.empty() ? json(nullptr) : json(e->error)},
              {"profiler", e->profiler.empty() ? json(nullptr) : json(e->profiler)},
              {"rerun", e->rerun},
              {"stored_baseline", e->stored_baseline},
              {"rows", rows},
              {"missing_symbols", missing},
              {"profile_cuts", cuts},
              {"simulated", e->simulated}};
}

namespace {

json StabilityToJson(const Stability& st) {
  json functions = json::array();
  for (const FunctionDelta& f : st.functions) {
    functions.push_back({{"function", f.function},
                         {"object", f.object},
                         {"first", f.baseline},
                         {"second", f.candidate},
                         {"delta", f.delta()}});
  }
  return json{
      {"checked", st.checked},
      {"unstable", st.unstable},
      {"trigger", st.trigger.empty() ? json(nullptr) : json(st.trigger)},
      {"spread", st.spread},
      {"spread_ppm", st.spread_ppm},
      {"confidence", st.unstable ? json(st.confidence) : json(nullptr)},
      {"functions_side", st.functions_side.empty() ? json(nullptr) : json(st.functions_side)},
      {"functions", functions}};
}

json ThreadHintToJson(const std::optional<ThreadHint>& hint) {
  if (!hint) return nullptr;
  return json{{"threads", hint->threads},
              {"program", ThreadRuntimeName(hint->runtime)},
              {"advice", ThreadHintSentence(*hint)}};
}

// Both sides' unpinned inputs, each named by its side.
json UnpinnedToJson(const WorkloadResult& w) {
  json out = json::array();
  for (const auto& [name, side] :
       {std::pair<const char*, const SideResult*>{"baseline", &w.baseline},
        {"candidate", &w.candidate}}) {
    for (const std::string& what : side->unpinned) out.push_back(std::string(name) + ": " + what);
  }
  return out;
}

}  // namespace

json WorkloadEventsToJson(const WorkloadResult& w) {
  if (!w.events) return nullptr;
  json figures = json::array();
  if (w.baseline.simulated && w.candidate.simulated) {
    for (const SimulatedFigure& f : SimulatedFigures(*w.baseline.simulated, *w.candidate.simulated)) {
      figures.push_back({{"name", f.key},
                         {"baseline", f.baseline},
                         {"candidate", f.candidate},
                         {"delta", f.delta()},
                         {"relative", f.baseline == 0 ? json(nullptr)
                                                      : json(static_cast<double>(f.delta()) /
                                                             static_cast<double>(f.baseline))}});
    }
  }
  return json{{"profiler", NullIfEmpty(w.events->profiler)},
              {"shown", w.events->shown},
              {"note", NullIfEmpty(w.events->note)},
              {"figures", figures}};
}

json HardwareEventsToJson(const std::optional<HardwareEvents>& h) {
  if (!h) return nullptr;
  json events = json::array();
  for (const HardwareEvent& e : h->events) {
    events.push_back({{"event", e.event},
                      {"baseline", e.baseline},
                      {"candidate", e.candidate},
                      {"baseline_multiplexed", e.baseline_multiplexed},
                      {"candidate_multiplexed", e.candidate_multiplexed}});
  }
  return json{{"events", events}, {"note", NullIfEmpty(h->note)}};
}

namespace {

json AcceptedToJson(const std::optional<Acceptance>& a) {
  if (!a) return nullptr;
  const AcceptedWork& e = a->entry;
  return json{{"reason", e.reason},
              {"delta", e.delta},
              {"relative", e.relative()},
              {"baseline_count", e.baseline_count},
              {"backend", e.backend},
              {"event", e.event},
              {"workload_digest", e.workload_digest},
              {"baseline_sha256", e.baseline_sha256},
              {"candidate_sha256", e.candidate_sha256},
              {"status", AcceptedStatusName(a->status)},
              {"problem", a->problem.empty() ? json(nullptr) : json(a->problem)}};
}

json WorkloadToJson(const WorkloadResult& w) {
  const bool figures = HasDelta(w);
  auto figure = [figures](auto v) { return figures ? json(v) : json(nullptr); };
  return json{{"name", w.name},
              {"command", w.command},
              {"verdict", VerdictName(w.verdict)},
              {"reason", w.reason},
              {"max_work_added", 100 * w.max_work_added},
              {"expected_score", OrNull(w.expected_score)},
              {"previous_score", OrNull(w.previous_score)},
              {"score_changed", w.score_changed},
              {"baseline", SideToJson(w.baseline)},
              {"candidate", SideToJson(w.candidate)},
              {"delta", figure(w.delta)},
              {"relative", figure(w.relative)},
              {"relative_low", figure(w.relative_low)},
              {"relative_high", figure(w.relative_high)},
              {"accepted", AcceptedToJson(w.accepted)},
              {"deterministic", w.baseline.deterministic && w.candidate.deterministic},
              {"unpinned", UnpinnedToJson(w)},
              {"stability", StabilityToJson(w.stability)},
              {"thread_hint", ThreadHintToJson(w.thread_hint)},
              {"timed", TimedStatsToJson(w.timed_stats)},
              {"timing_vs_count", TimingVsCountToJson(w.timing_vs_count)},
              {"explanation", ExplanationToJson(w.explanation)},
              {"metric", MetricName(w.metric)},
              {"events", WorkloadEventsToJson(w)},
              {"hardware_events", HardwareEventsToJson(w.hardware)}};
}

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json StoredBaselineToJson(const std::optional<StoredBaselineUse>& use) {
  if (!use) return nullptr;
  return json{{"path", use->path},
              {"status", StoredBaselineStatusName(use->status)},
              {"problem", OrNull(use->problem)}};
}

json SettingsToJson(const RunSettings& s) {
  return json{{"suite", OrNull(s.suite)},
              {"suite_sha256", OrNull(s.suite_sha256)},
              {"command", s.command},
              {"stability", s.stability},
              {"max_repeat", s.max_repeat},
              {"explain", s.explain},
              {"explain_top", s.explain_top},
              {"events", s.events},
              {"as_is", s.as_is},
              {"env", s.env},
              {"pass_env", s.pass_env}};
}

json ShardToJson(const std::optional<ShardInfo>& shard) {
  if (!shard) return nullptr;
  return json{{"index", shard->index},
              {"count", shard->count},
              {"workloads", shard->workloads},
              {"baseline_sha256", OrNull(shard->baseline_sha256)},
              {"candidate_sha256", OrNull(shard->candidate_sha256)}};
}

json MergedToJson(const std::optional<MergeInfo>& merged) {
  if (!merged) return nullptr;
  return json{{"shards", merged->shards}, {"parts", merged->parts}};
}

}  // namespace

json ToJson(const CompareReport& report) {
  json workloads = json::array();
  for (const WorkloadResult& w : report.workloads) workloads.push_back(WorkloadToJson(w));
  return json{{"schema_version", report.schema_version},
              {"workgate_version", report.workgate_version},
              {"verdict", VerdictName(report.verdict)},
              {"exit_code", report.exit_code},
              {"backend", report.backend},
              {"backend_reason", report.backend_reason},
              {"event", report.event},
              {"max_work_added", 100 * report.max_work_added},
              {"repeat", report.repeat},
              {"timed_samples", report.timed_samples},
              {"timed_seed", report.timed_seed},
              {"baseline_label", report.baseline_label},
              {"candidate_label", report.candidate_label},
              {"notes", report.notes},
              {"candidate_reach", report.candidate_reach},
              {"stored_baseline", StoredBaselineToJson(report.stored_baseline)},
              {"store", StoreToJson(report)},
              {"settings", SettingsToJson(report.settings)},
              {"shard", ShardToJson(report.shard)},
              {"merged", MergedToJson(report.merged)},
              {"workloads", workloads}};
}

bool WriteJsonReport(const std::string& path, const CompareReport& report, std::string* err) {
  return WriteJsonFile(path, ToJson(report), "the JSON report", err);
}

}  // namespace workgate
