#include "report/report_reader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "report/json_fields.h"
#include "report/workload_reader.h"
#include "util/input_file.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

// The most workloads a suite's list may name: a 4 MiB suite holds fewer.
constexpr size_t kMaxWorkloads = 100000;

bool ReadSettings(const json& j, RunSettings* s, std::string* err) {
  JsonFields f(j, "settings", err);
  StabilityMode mode;
  if (!(f.StringOrNull("suite", &s->suite) && f.StringOrNull("suite_sha256", &s->suite_sha256) &&
        f.Strings("command", kMaxListItems, &s->command) && f.String("stability", &s->stability) &&
        f.Int("max_repeat", 1, 1000, &s->max_repeat) && f.String("explain", &s->explain) &&
        f.Int("explain_top", 1, 1000, &s->explain_top) && f.String("events", &s->events) &&
        f.Bool("as_is", &s->as_is) &&
        f.Strings("env", kMaxListItems, &s->env) &&
        f.Strings("pass_env", kMaxListItems, &s->pass_env) && f.Done())) {
    return false;
  }
  if (!ParseStabilityMode(s->stability, &mode)) {
    return f.Fail("stability", "must be auto, always or never");
  }
  ExplainMode explain;
  if (!ParseExplainMode(s->explain, &explain)) {
    return f.Fail("explain", "must be never, work-added or always");
  }
  EventsMode events;
  if (!ParseEventsMode(s->events, &events)) return f.Fail("events", "must be never, work or always");
  return true;
}

bool ReadStoredBaseline(const json* j, std::optional<StoredBaselineUse>* out, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, "stored_baseline", err);
  StoredBaselineUse use;
  std::string status;
  if (!(f.String("path", &use.path) && f.String("status", &status) &&
        f.StringOrNull("problem", &use.problem) && f.Done())) {
    return false;
  }
  if (!ParseStoredBaselineStatus(status, &use.status)) {
    return f.Fail("status", "must be used, missing, unreadable or incompatible");
  }
  if (use.problem.empty() != (use.status == StoredBaselineStatus::kUsed)) {
    return f.Fail("problem", "must be null exactly when the status is used");
  }
  *out = use;
  return true;
}

bool ReadShard(const json* j, std::optional<ShardInfo>* out, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, "shard", err);
  ShardInfo s;
  if (!(f.Int("count", 1, kMaxShards, &s.count) && f.Int("index", 1, s.count, &s.index) &&
        f.Strings("workloads", kMaxWorkloads, &s.workloads) &&
        f.StringOrNull("baseline_sha256", &s.baseline_sha256) &&
        f.StringOrNull("candidate_sha256", &s.candidate_sha256) && f.Done())) {
    return false;
  }
  *out = std::move(s);
  return true;
}

bool ReadMerged(const json* j, std::optional<MergeInfo>* out, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, "merged", err);
  MergeInfo m;
  if (!(f.Int("shards", 1, kMaxShards, &m.shards) && f.Strings("parts", kMaxShards, &m.parts) &&
        f.Done())) {
    return false;
  }
  *out = std::move(m);
  return true;
}

// "store": null, or the result store's path (null when none was used),
// its notes and the ref recorded as.
bool ReadStore(const json* j, CompareReport* r, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, "store", err);
  return f.StringOrNull("path", &r->store) &&
         f.Strings("notes", kMaxListItems, &r->store_notes) &&
         f.StringOrNull("recorded_as", &r->recorded_as) && f.Done();
}

// The run's own fields; the workloads are read after.
bool ReadHeader(JsonFields* f, CompareReport* r, std::string* err) {
  std::string verdict;
  int64_t seed = 0;
  const json* settings = f->Object("settings", false);
  const json* stored = f->Object("stored_baseline", true);
  const json* store = f->Object("store", true);
  const json* shard = f->Object("shard", true);
  const json* merged = f->Object("merged", true);
  if (!(f->String("workgate_version", &r->workgate_version) && f->String("verdict", &verdict) &&
        f->Int("exit_code", 0, 5, &r->exit_code) && f->String("backend", &r->backend) &&
        f->String("backend_reason", &r->backend_reason) && f->String("event", &r->event) &&
        f->Number("max_work_added", &r->max_work_added) && f->Int("repeat", 1, 1000, &r->repeat) &&
        f->Int("timed_samples", 0, 1000, &r->timed_samples) &&
        f->Int("timed_seed", int64_t{0}, int64_t{4294967295}, &seed) &&
        f->String("baseline_label", &r->baseline_label) &&
        f->String("candidate_label", &r->candidate_label) &&
        f->Strings("notes", kMaxListItems, &r->notes) &&
        f->Strings("candidate_reach", kMaxListItems, &r->candidate_reach))) {
    return false;
  }
  if (!ParseVerdict(verdict, &r->verdict)) return f->Fail("verdict", "is not a verdict");
  if (!(r->max_work_added >= 0 && r->max_work_added <= 1000)) {
    return f->Fail("max_work_added", "must be in [0, 1000]");
  }
  r->max_work_added /= 100;  // written in percent
  r->timed_seed = static_cast<uint64_t>(seed);
  return ReadSettings(*settings, &r->settings, err) &&
         ReadStoredBaseline(stored, &r->stored_baseline, err) && ReadStore(store, r, err) &&
         ReadShard(shard, &r->shard, err) &&
         ReadMerged(merged, &r->merged, err);
}

}  // namespace

std::optional<CompareReport> ParseCompareReport(std::string_view text, const std::string& path,
                                                std::string* err) {
  const std::string report_is = "the report " + path + " ";
  json doc;
  if (std::string why; !ParseJsonText(text, &doc, &why)) {
    *err = report_is + "is corrupt: " + why;
    return std::nullopt;
  }
  if (!doc.is_object() || !doc.contains("verdict") || !doc.contains("workloads") ||
      !doc.contains("schema_version")) {
    *err = report_is +
           "is not a workgate compare report (it has no \"schema_version\", \"verdict\" and "
           "\"workloads\"; write one with compare --json FILE)";
    return std::nullopt;
  }
  CompareReport r;
  if (doc["schema_version"] != r.schema_version) {
    *err = fmt::format("{}has schema_version {}; this workgate reads version {}", report_is,
                       doc["schema_version"].dump(), r.schema_version);
    return std::nullopt;
  }
  std::string why;
  JsonFields f(doc, "", &why);
  int version = 0;
  const json* workloads = f.Array("workloads", kMaxWorkloads);
  bool ok = f.Int("schema_version", r.schema_version, r.schema_version, &version) && ReadHeader(&f, &r, &why) && f.Done();
  for (size_t i = 0; ok && i < workloads->size(); ++i) {
    r.workloads.emplace_back();
    ok = ReadWorkload(workloads->at(i), ItemPath("workloads", i), &r.workloads.back(), &why);
    // An ad hoc run's one workload runs the command its settings name.
    if (ok && !r.settings.command.empty() && r.workloads.back().command != r.settings.command) {
      why = ItemPath("workloads", i) + ".command differs from settings.command";
      ok = false;
    }
  }
  if (!ok) {
    *err = report_is + "is corrupt: " + why;
    return std::nullopt;
  }
  return r;
}

std::optional<CompareReport> LoadCompareReport(const std::string& path, std::string* err) {
  std::string text;
  if (!ReadInputFile(path, "the report", kMaxReportBytes, &text, err)) return std::nullopt;
  return ParseCompareReport(text, path, err);
}

}  // namespace workgate
