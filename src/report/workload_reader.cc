#include "report/workload_reader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "model/backend.h"
#include "model/model.h"
#include "model/model_json.h"
#include "report/json_fields.h"
#include "report/json_report.h"
#include "report/report_reader.h"
#include "report/summary.h"
#include "report/timed_json.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

// Self costs in an explanation: far above any profile callgrind can take
// (4.5e15 instructions), and low enough that the renderers' sums of a
// thousand rows cannot overflow.
constexpr int64_t kMaxCost = int64_t{1} << 52;
constexpr int64_t kMaxCostDelta = int64_t{1} << 62;

// Exactly the writer's fields (FingerprintToJson), each of its type.
bool ReadFingerprint(const json& j, const std::string& where, Fingerprint* fp, std::string* err) {
  const json written = FingerprintToJson(Fingerprint());
  JsonFields f(j, where, err);
  for (const auto& item : written.items()) f.Any(item.key().c_str());
  return f.Done() && FingerprintFromJson(j, where, fp, err);
}

bool ReadTimedSamples(const json& list, const std::string& where, std::vector<TimedSample>* out,
                      std::string* err) {
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    TimedSample t;
    if (!(f.NumberOrNull("score", &t.score) && f.Number("wall_seconds", &t.wall_seconds) &&
          f.Int("slot", 0, INT32_MAX, &t.slot) && f.Done())) {
      return false;
    }
    out->push_back(t);
  }
  return true;
}

// A side's "from_store" (null: its counts were all taken in the run).
bool ReadFromStore(const json* j, const std::string& where, std::optional<FromStore>* out,
                   std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  FromStore from;
  int64_t counts = 0;
  if (!(f.String("counted_at", &from.counted_at) && f.StringOrNull("ref", &from.ref) &&
        f.String("label", &from.label) &&
        f.Int("counts", int64_t{1}, int64_t{kMaxListItems}, &counts) && f.Done())) {
    return false;
  }
  from.counts = static_cast<size_t>(counts);
  *out = std::move(from);
  return true;
}

// The twelve simulated events by name (null: none).
bool ReadEventCosts(const json* j, const std::string& where, std::optional<SimulatedCosts>* out,
                    std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  SimulatedCosts costs = {};
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    if (!f.Uint(std::string(kSimulatedEventNames[i]).c_str(), &costs[i])) return false;
  }
  if (!f.Done()) return false;
  *out = costs;
  return true;
}

// A row's or line's "events": both sides' (null: none).
bool ReadRowEvents(const json* j, const std::string& where, std::optional<SimulatedCosts>* baseline,
                   std::optional<SimulatedCosts>* candidate, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  const json* b = f.Object("baseline", false);
  const json* c = f.Object("candidate", false);
  return f.Done() && ReadEventCosts(b, f.Path("baseline"), baseline, err) &&
         ReadEventCosts(c, f.Path("candidate"), candidate, err);
}

// A side's "simulated" (null: none).
bool ReadSimulatedSide(const json* j, const std::string& where,
                       std::optional<SimulatedEvents>* out, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  SimulatedEvents events;
  std::optional<SimulatedCosts> costs;
  const json* by_name = f.Object("events", false);
  if (!(f.Uint("instructions", &events.instructions) && f.Done() &&
        ReadEventCosts(by_name, f.Path("events"), &costs, err))) {
    return false;
  }
  events.costs = *costs;
  *out = events;
  return true;
}

bool ReadSide(const json& j, const std::string& where, SideResult* side, std::string* err) {
  JsonFields f(j, where, err);
  std::optional<uint64_t> instructions, min, max;
  const json* counts = f.Array("counts", kMaxListItems);
  if (counts && !CountsFromJson(*counts, f.Path("counts"), &side->counts, err)) return false;
  const json* timed = f.Array("timed", kMaxListItems);
  const json* fp = f.Object("fingerprint", false);
  const json* from_store = f.Object("from_store", true);
  const json* simulated = f.Object("simulated", true);
  if (!(f.UintOrNull("instructions", &instructions) && f.UintOrNull("min", &min) &&
        f.UintOrNull("max", &max) && f.StringOrNull("score", &side->score) &&
        f.StringOrNull("error", &side->error) && f.Strings("notes", kMaxListItems, &side->notes) &&
        f.Bool("deterministic", &side->deterministic) &&
        f.Strings("unpinned", kMaxListItems, &side->unpinned) && f.Done() &&
        ReadTimedSamples(*timed, f.Path("timed"), &side->timed, err) &&
        ReadFingerprint(*fp, f.Path("fingerprint"), &side->fingerprint, err) &&
        ReadFromStore(from_store, f.Path("from_store"), &side->from_store, err) &&
        ReadSimulatedSide(simulated, f.Path("simulated"), &side->simulated, err))) {
    return false;
  }
  if (side->from_store && side->from_store->counts > side->counts.size()) {
    return f.Fail("from_store", "gives more counts than the side has");
  }
  const bool counted = !side->counts.empty();
  auto agrees = [counted](const std::optional<uint64_t>& v, uint64_t want) {
    return counted ? v == want : !v.has_value();
  };
  if (!agrees(instructions, side->min()) || !agrees(min, side->min()) ||
      !agrees(max, side->max())) {
    return f.Fail("", "has an instructions, min or max that is not its counts' minimum or maximum");
  }
  return true;
}

// A row of self costs: `first`/`second` are the JSON names of its two costs.
bool ReadCostRow(JsonFields* f, const char* first, const char* second, FunctionDelta* row) {
  int64_t delta = 0;
  if (!(f->String("function", &row->function) && f->String("object", &row->object) &&
        f->Int(first, 0, kMaxCost, &row->baseline) &&
        f->Int(second, 0, kMaxCost, &row->candidate) &&
        f->Int("delta", -kMaxCost, kMaxCost, &delta))) {
    return false;
  }
  if (delta != row->delta()) return f->Fail("delta", fmt::format("is not {} - {}", second, first));
  return true;
}

bool ReadStability(const json& j, const std::string& where, Stability* st, std::string* err) {
  JsonFields f(j, where, err);
  std::optional<double> confidence;
  const json* functions = f.Array("functions", kMaxListItems);
  if (!(f.Bool("checked", &st->checked) && f.Bool("unstable", &st->unstable) &&
        f.StringOrNull("trigger", &st->trigger) && f.Uint("spread", &st->spread) &&
        f.Number("spread_ppm", &st->spread_ppm) && f.NumberOrNull("confidence", &confidence) &&
        f.StringOrNull("functions_side", &st->functions_side) && f.Done())) {
    return false;
  }
  if (confidence.has_value() != st->unstable) {
    return f.Fail("confidence", "must be a number for an unstable workload, else null");
  }
  st->confidence = confidence.value_or(0);
  for (size_t i = 0; i < functions->size(); ++i) {
    JsonFields row(functions->at(i), ItemPath(f.Path("functions"), i), err);
    FunctionDelta d;
    if (!(ReadCostRow(&row, "first", "second", &d) && row.Done())) return false;
    st->functions.push_back(std::move(d));
  }
  return true;
}

bool ReadStrippedFile(const json& j, const std::string& where, StrippedFile* file,
                      std::string* err) {
  JsonFields f(j, where, err);
  if (!(f.String("path", &file->path) && f.String("side", &file->side) &&
        f.StringOrNull("build_id", &file->build_id) &&
        f.StringOrNull("debug_file", &file->debug_file) &&
        f.Bool("debug_file_exists", &file->debug_file_exists) && f.Done())) {
    return false;
  }
  if (file->side != "baseline" && file->side != "candidate" && file->side != "both") {
    return f.Fail("side", "must be baseline, candidate or both");
  }
  return true;
}

bool ReadMissingSymbols(const json& list, const std::string& where,
                        std::vector<MissingSymbols>* out, std::string* err) {
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    MissingSymbols m;
    const json* files = f.Array("files", kMaxListItems);
    if (!(f.String("object", &m.object) &&
          f.Int("delta", -kMaxCostDelta, kMaxCostDelta, &m.delta) && f.Done())) {
      return false;
    }
    m.files.resize(files->size());
    for (size_t k = 0; k < files->size(); ++k) {
      if (!ReadStrippedFile(files->at(k), ItemPath(f.Path("files"), k), &m.files[k], err)) {
        return false;
      }
    }
    out->push_back(std::move(m));
  }
  return true;
}

// An explanation row's lines: each a file, a line from 1, and its costs,
// and the lines folded into it (`nested`: a folded line, which has none).
bool ReadLines(const json& list, const std::string& where, std::vector<LineDelta>* out,
               std::string* err, bool nested = false) {
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    LineDelta l;
    int64_t delta = 0;
    const json* events = f.Object("events", true);
    const json* folded = f.Array("folded", nested ? 0 : kMaxListItems);
    if (!(f.String("file", &l.file) && f.Uint("line", &l.line) &&
          f.Int("baseline", 0, kMaxCost, &l.baseline) &&
          f.Int("candidate", 0, kMaxCost, &l.candidate) &&
          f.Int("delta", -kMaxCost, kMaxCost, &delta) &&
          f.Bool("baseline_only", &l.baseline_only) && f.String("numbering", &l.numbering) &&
          f.BoolOrNull("changed", &l.changed) && f.StringOrNull("path", &l.path) &&
          f.StringOrNull("text", &l.text) && f.StringOrNull("url", &l.url) && f.Done() &&
          ReadRowEvents(events, f.Path("events"), &l.baseline_events, &l.candidate_events, err) &&
          ReadLines(*folded, f.Path("folded"), &l.folded, err, true))) {
      return false;
    }
    if (l.numbering != kBaselineNumbering && l.numbering != kCandidateNumbering) {
      return f.Fail("numbering", "must be baseline or candidate");
    }
    if (l.baseline_only && l.numbering != kBaselineNumbering) {
      return f.Fail("numbering", "must be baseline for a baseline_only line");
    }
    if (l.line == 0) return f.Fail("line", "must be at least 1");
    if (!l.url.empty() && !IsPlainHttpUrl(l.url)) {
      return f.Fail("url", "is not an http(s) URL of plain characters");
    }
    if (delta != l.delta()) return f.Fail("delta", "is not candidate - baseline");
    out->push_back(std::move(l));
  }
  return true;
}

// An explanation row's moves: each a caller, its calls and inclusive costs.
bool ReadMoves(const json& list, const std::string& where, std::vector<CallerMove>* out,
               std::string* err) {
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    CallerMove m;
    int64_t delta = 0;
    bool out_of_line = false;
    if (!(f.String("caller", &m.caller) && f.String("object", &m.object) &&
          f.Uint("baseline_calls", &m.baseline_calls) &&
          f.Uint("candidate_calls", &m.candidate_calls) &&
          f.Int("baseline_inclusive", 0, kMaxCost, &m.baseline_inclusive) &&
          f.Int("candidate_inclusive", 0, kMaxCost, &m.candidate_inclusive) &&
          f.Int("inclusive_delta", -kMaxCost, kMaxCost, &delta) &&
          f.Bool("out_of_line", &out_of_line) && f.Done())) {
      return false;
    }
    if (delta != m.inclusive_delta()) {
      return f.Fail("inclusive_delta", "is not candidate_inclusive - baseline_inclusive");
    }
    if ((m.baseline_calls == 0) == (m.candidate_calls == 0) || out_of_line != m.out_of_line()) {
      return f.Fail("out_of_line", "must say which side alone calls the function");
    }
    out->push_back(std::move(m));
  }
  return true;
}

// What the profiles' bounds left out: a table of a side, at most once each.
bool ReadProfileCuts(const json& list, const std::string& where, std::vector<ProfileCut>* out,
                     std::string* err) {
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], ItemPath(where, i), err);
    ProfileCut c;
    if (!(f.String("side", &c.side) && f.String("table", &c.table) && f.Uint("named", &c.named) &&
          f.Bool("more_than_named", &c.more_than_named) && f.Uint("kept", &c.kept) && f.Done())) {
      return false;
    }
    if (c.side != "baseline" && c.side != "candidate") {
      return f.Fail("side", "must be baseline or candidate");
    }
    if (c.table != "call_edges" && c.table != "source_lines") {
      return f.Fail("table", "must be call_edges or source_lines");
    }
    if (!seen.insert({c.side, c.table}).second) return f.Fail("table", "is cut twice for its side");
    if (c.more_than_named ? (c.named == 0 || c.kept != 0) : c.kept >= c.named) {
      return f.Fail("kept", "must be fewer than named, and none when more_than_named");
    }
    out->push_back(std::move(c));
  }
  return true;
}

bool ReadExplanation(const json* j, const std::string& where, std::optional<Explanation>* out,
                     std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  Explanation e;
  const json* rows = f.Array("rows", kMaxListItems);
  const json* missing = f.Array("missing_symbols", kMaxListItems);
  const json* cuts = f.Array("profile_cuts", 4);
  if (!(f.Int("total_delta", -kMaxCostDelta, kMaxCostDelta, &e.total_delta) &&
        f.StringOrNull("error", &e.error) && f.StringOrNull("profiler", &e.profiler) &&
        f.Strings("rerun", 2, &e.rerun) && f.Bool("stored_baseline", &e.stored_baseline) &&
        f.Bool("simulated", &e.simulated) && f.Done() &&
        ReadMissingSymbols(*missing, f.Path("missing_symbols"), &e.missing_symbols, err) &&
        ReadProfileCuts(*cuts, f.Path("profile_cuts"), &e.profile_cuts, err))) {
    return false;
  }
  if (!e.profiler.empty() &&
      (FindBackend(e.profiler) == nullptr || !FindBackend(e.profiler)->keeps_profiles)) {
    return f.Fail("profiler", "must be vgcount, callgrind or null");
  }
  for (const std::string& side : e.rerun) {
    if (side != "baseline" && side != "candidate") {
      return f.Fail("rerun", "may name only baseline and candidate");
    }
    if (side == "baseline" && e.stored_baseline) {
      return f.Fail("rerun", "cannot name the baseline when its profile is the stored baseline's");
    }
  }
  for (size_t i = 0; i < rows->size(); ++i) {
    JsonFields row(rows->at(i), ItemPath(f.Path("rows"), i), err);
    FunctionDelta d;
    const json* lines = row.Array("lines", kMaxListItems);
    const json* moves = row.Array("moves", kMaxListItems);
    const json* events = row.Object("events", true);
    if (!(ReadCostRow(&row, "baseline", "candidate", &d) &&
          row.Strings("clones", kMaxListItems, &d.clones) &&
          row.StringOrNull("renamed_from", &d.renamed_from) && row.Done() &&
          ReadLines(*lines, row.Path("lines"), &d.lines, err) &&
          ReadMoves(*moves, row.Path("moves"), &d.moves, err) &&
          ReadRowEvents(events, row.Path("events"), &d.baseline_events, &d.candidate_events,
                        err))) {
      return false;
    }
    if (d.baseline_events.has_value() && !e.simulated) {
      return row.Fail("events", "are set in an explanation whose profiles are not simulated");
    }
    e.rows.push_back(std::move(d));
  }
  *out = std::move(e);
  return true;
}

// A workload's "events" (null: none), after its sides: its figures must be
// what the sides' events give.
bool ReadWorkloadEvents(const json* j, const std::string& where, WorkloadResult* w,
                        std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  WorkloadEvents events;
  const json* figures = f.Array("figures", 8);
  if (!(f.StringOrNull("profiler", &events.profiler) && f.Bool("shown", &events.shown) &&
        f.StringOrNull("note", &events.note) && f.Done())) {
    return false;
  }
  if (!events.profiler.empty() &&
      (FindBackend(events.profiler) == nullptr || !FindBackend(events.profiler)->keeps_profiles)) {
    return f.Fail("profiler", "must be vgcount, callgrind or null");
  }
  if (events.shown && !(w->baseline.simulated && w->candidate.simulated)) {
    return f.Fail("shown", "is true without both sides' simulated events");
  }
  w->events = events;
  if (*figures != WorkloadEventsToJson(*w).at("figures")) {
    return f.Fail("figures", "are not what the sides' simulated events give");
  }
  return true;
}

// The suite's accepted entry as the writer wrote it (json_report.cc).
bool ReadAccepted(const json* j, const std::string& where, std::optional<Acceptance>* out,
                  std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  Acceptance a;
  AcceptedWork& e = a.entry;
  double relative = 0;
  std::string status;
  if (!(f.String("reason", &e.reason) &&
        f.Int("delta", -static_cast<int64_t>(kMaxCount), static_cast<int64_t>(kMaxCount),
              &e.delta) &&
        f.Number("relative", &relative) && f.Uint("baseline_count", &e.baseline_count) &&
        f.String("backend", &e.backend) && f.String("event", &e.event) &&
        f.String("workload_digest", &e.workload_digest) &&
        f.String("baseline_sha256", &e.baseline_sha256) &&
        f.String("candidate_sha256", &e.candidate_sha256) && f.String("status", &status) &&
        f.StringOrNull("problem", &a.problem) && f.Done())) {
    return false;
  }
  if (e.baseline_count == 0 || e.baseline_count > kMaxCount) {
    return f.Fail("baseline_count", "must be a count in [1, 2^63 - 1]");
  }
  if (relative != e.relative()) return f.Fail("relative", "must be delta / baseline_count");
  if (!ParseAcceptedStatus(status, &a.status)) return f.Fail("status", "is not a status");
  if ((a.status == AcceptedStatus::kStale) == a.problem.empty()) {
    return f.Fail("problem", "is set exactly when the status is stale");
  }
  *out = std::move(a);
  return true;
}

bool ReadThreadHint(const json* j, const std::string& where, std::optional<ThreadHint>* out,
                    std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  ThreadHint hint;
  std::string program, advice;
  if (!(f.Uint("threads", &hint.threads) && f.String("program", &program) &&
        f.String("advice", &advice) && f.Done())) {
    return false;
  }
  if (hint.threads < 2) return f.Fail("threads", "must be 2 or more");
  if (!ParseThreadRuntime(program, &hint.runtime)) return f.Fail("program", "is not a program");
  // The advice is workgate's own sentence for the two fields above.
  if (advice != ThreadHintSentence(hint)) return f.Fail("advice", "disagrees with its fields");
  *out = hint;
  return true;
}

// A workload's "hardware_events" (null: none): perf's readings, as read, or
// the note on why there are none.
bool ReadHardwareEvents(const json* j, const std::string& where,
                        std::optional<HardwareEvents>* out, std::string* err) {
  if (j == nullptr) return true;
  JsonFields f(*j, where, err);
  HardwareEvents h;
  const json* events = f.Array("events", kMaxListItems);
  if (!(f.StringOrNull("note", &h.note) && f.Done())) return false;
  for (size_t i = 0; i < events->size(); ++i) {
    JsonFields e(events->at(i), ItemPath(f.Path("events"), i), err);
    HardwareEvent event;
    if (!(e.String("event", &event.event) && e.Uint("baseline", &event.baseline) &&
          e.Uint("candidate", &event.candidate) &&
          e.Bool("baseline_multiplexed", &event.baseline_multiplexed) &&
          e.Bool("candidate_multiplexed", &event.candidate_multiplexed) && e.Done())) {
      return false;
    }
    if (event.event.empty()) return e.Fail("event", "must not be empty");
    h.events.push_back(std::move(event));
  }
  // Readings, or why there are none: never both, never neither.
  if (h.events.empty() == h.note.empty()) {
    return f.Fail("note", "must be set exactly when there are no events");
  }
  *out = std::move(h);
  return true;
}

}  // namespace

bool ReadWorkload(const json& j, const std::string& where, WorkloadResult* w, std::string* err) {
  JsonFields f(j, where, err);
  std::string verdict;
  double margin = 0;
  std::optional<int64_t> delta;
  std::optional<double> relative, low, high;
  bool deterministic = false;
  std::vector<std::string> unpinned;
  const json* base = f.Object("baseline", false);
  const json* cand = f.Object("candidate", false);
  const json* stability = f.Object("stability", false);
  const json* thread_hint = f.Object("thread_hint", true);
  const json* timed = f.Object("timed", true);
  const json* timing_vs_count = f.Object("timing_vs_count", true);
  const json* explanation = f.Object("explanation", true);
  const json* events = f.Object("events", true);
  const json* hardware = f.Object("hardware_events", true);
  std::string metric;
  const json* accepted = f.Object("accepted", true);
  if (!(f.String("name", &w->name) && f.Strings("command", kMaxListItems, &w->command) &&
        f.String("verdict", &verdict) && f.String("metric", &metric) &&
        f.String("reason", &w->reason) && f.Number("max_work_added", &margin) &&
        f.StringOrNull("expected_score", &w->expected_score) &&
        f.StringOrNull("previous_score", &w->previous_score) &&
        f.Bool("score_changed", &w->score_changed) && f.IntOrNull("delta", &delta) &&
        f.NumberOrNull("relative", &relative) && f.NumberOrNull("relative_low", &low) &&
        f.NumberOrNull("relative_high", &high) && f.Bool("deterministic", &deterministic) &&
        f.Strings("unpinned", kMaxListItems, &unpinned) && f.Done())) {
    return false;
  }
  if (w->name.empty()) return f.Fail("name", "must not be empty");
  if (!ParseVerdict(verdict, &w->verdict)) return f.Fail("verdict", "is not a verdict");
  if (!ParseMetric(metric, &w->metric)) {
    return f.Fail("metric", "must be instructions or estimated-cycles");
  }
  // A suite's score.previous stands beside its score.expect only.
  if (w->previous_score && !w->expected_score) {
    return f.Fail("previous_score", "is set without an expected_score");
  }
  if (w->score_changed && !w->previous_score) {
    return f.Fail("score_changed", "is true without a previous_score");
  }
  if (!(margin >= 0 && margin <= 1000)) return f.Fail("max_work_added", "must be in [0, 1000]");
  w->max_work_added = margin / 100;  // written in percent
  w->delta = delta.value_or(0);
  w->relative = relative.value_or(0);
  w->relative_low = low.value_or(0);
  w->relative_high = high.value_or(0);
  if (!(ReadSide(*base, f.Path("baseline"), &w->baseline, err) &&
        ReadSide(*cand, f.Path("candidate"), &w->candidate, err))) {
    return false;
  }
  // The workload's two fields say what its sides say (json_report.cc).
  if (deterministic != (w->baseline.deterministic && w->candidate.deterministic)) {
    return f.Fail("deterministic", "disagrees with its sides'");
  }
  if (unpinned.size() != w->baseline.unpinned.size() + w->candidate.unpinned.size()) {
    return f.Fail("unpinned", "disagrees with its sides'");
  }
  return ReadAccepted(accepted, f.Path("accepted"), &w->accepted, err) &&
         ReadStability(*stability, f.Path("stability"), &w->stability, err) &&
         ReadThreadHint(thread_hint, f.Path("thread_hint"), &w->thread_hint, err) &&
         TimedStatsFromJson(timed, f.Path("timed"), &w->timed_stats, err) &&
         TimingVsCountFromJson(timing_vs_count, f.Path("timing_vs_count"), w, err) &&
         ReadExplanation(explanation, f.Path("explanation"), &w->explanation, err) &&
         ReadWorkloadEvents(events, f.Path("events"), w, err) &&
         ReadHardwareEvents(hardware, f.Path("hardware_events"), &w->hardware, err);
}

}  // namespace workgate
