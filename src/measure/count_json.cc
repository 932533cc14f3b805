#include "measure/count_json.h"

#include <algorithm>

#include "model/model_json.h"

namespace workgate {
namespace {

using nlohmann::json;

json RunToJson(const CountedRun& run) {
  json j;
  j["instructions"] = run.instructions() ? json(*run.instructions()) : json();
  j["exit_status"] = run.launch.started && run.launch.signal == 0 && !run.launch.timed_out
                         ? json(run.launch.exit_code)
                         : json();
  j["signal"] = run.launch.signal != 0 ? json(run.launch.signal) : json();
  j["timed_out"] = run.launch.timed_out;
  j["wall_seconds"] = run.launch.wall_seconds;
  j["error"] = run.error.empty() ? json() : json(run.error);
  json events = json::array();
  for (const auto& e : run.events) {
    events.push_back({{"event", e.event},
                      {"value", e.value},
                      {"time_enabled_ns", e.time_enabled},
                      {"time_running_ns", e.time_running},
                      {"multiplexed", e.multiplexed()}});
  }
  j["events"] = events;
  if (!run.per_process.empty()) j["per_process"] = run.per_process;
  j["inputs_seen"] = run.inputs_seen;
  j["pinned"] = run.pinned;
  j["unpinned"] = run.unpinned;
  return j;
}

json RunsToJson(const std::vector<CountedRun>& runs) {
  json out = json::array();
  for (const auto& r : runs) out.push_back(RunToJson(r));
  return out;
}

// min and max of the counts (null without any), with their spread.
void AddMinMax(json* j, const std::vector<uint64_t>& counts) {
  if (counts.empty()) {
    (*j)["min"] = nullptr;
    (*j)["max"] = nullptr;
    return;
  }
  auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  (*j)["min"] = *lo;
  (*j)["max"] = *hi;
  (*j)["spread"] = *hi - *lo;
  (*j)["spread_ppm"] = SpreadPpm(*lo, *hi);
}

json Header(int exit_code, const std::string& backend, const std::string& backend_reason,
            const std::string& event) {
  return {{"schema_version", kCountSchemaVersion},
          {"exit_code", exit_code},
          {"backend", backend},
          {"backend_reason", backend_reason},
          {"event", event}};
}

}  // namespace

double SpreadPpm(uint64_t lo, uint64_t hi) {
  return lo ? 1e6 * static_cast<double>(hi - lo) / static_cast<double>(lo) : 0.0;
}

json CommandCountToJson(const CommandCount& count) {
  const CountedWorkload& result = count.result;
  json out = Header(count.exit_code, count.backend, count.backend_reason, count.event);
  out["argv"] = result.argv;
  out["valid"] = count.valid;
  out["error"] = count.valid ? json() : json(result.error);
  out["runs"] = RunsToJson(result.runs);
  out["notes"] = result.notes;
  out["deterministic"] = result.deterministic;
  out["unpinned"] = result.unpinned;
  AddMinMax(&out, count.valid ? result.counts() : std::vector<uint64_t>{});
  out["clock"] = count.clock;
  out["unstable"] = count.unstable;
  return out;
}

json SuiteCountToJson(const SuiteCount& count) {
  json out = Header(count.exit_code, count.backend, count.backend_reason, count.event);
  out["exe"] = count.exe;
  out["suite"] = count.suite;
  out["store"] =
      count.store.empty() && count.store_notes.empty()
          ? json()
          : json{{"path", count.store.empty() ? json() : json(count.store)},
                 {"notes", count.store_notes},
                 {"recorded_as", count.recorded_as.empty() ? json() : json(count.recorded_as)}};
  json workloads = json::array();
  for (const SuiteWorkloadCount& w : count.workloads) {
    const CountedWorkload& result = w.result;
    const std::vector<uint64_t> counts = result.valid() ? result.counts() : std::vector<uint64_t>{};
    json j = {{"name", w.name},
              {"metric", MetricName(w.metric)},
              {"score", result.score ? json(*result.score) : json()},
              {"expected_score", w.expected_score ? json(*w.expected_score) : json()},
              {"instructions", counts.empty() ? json() : json(counts[0])},
              {"error", result.valid() ? json() : json(result.error)},
              {"unstable", w.unstable},
              {"runs", RunsToJson(result.runs)},
              {"notes", result.notes},
              {"deterministic", result.deterministic},
              {"unpinned", result.unpinned},
              {"from_store", FromStoreToJson(w.from_store)}};
    AddMinMax(&j, counts);
    workloads.push_back(j);
  }
  out["workloads"] = workloads;
  return out;
}

}  // namespace workgate
