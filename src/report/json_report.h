#pragma once
// The JSON report (`--json FILE`): every figure of a comparison, for machines.
//
// Schema version 10 (CompareReport::schema_version; 2 added the slots and the
// two-test timed context, 3 the result store, 4 what the counted runs met
// unpinned, 5 what the candidate could reach, 6 the ad hoc workload's command
// and a score changed on purpose: previous_score, score_changed, 7 the
// explanation's stored_baseline and its rows' lines, 8 the timed ratio held
// against the count: timing_vs_count, and the explanation's profile_cuts, 9 the
// simulated events: each side's "simulated", each workload's "metric" and
// "events", the explanation's "simulated" and its rows' and lines' "events";
// a row's renamed_from and its lines' numbering, changed and folded; the
// verdict "accepted" and each workload's accepted entry; an
// unstable threaded workload's thread_hint, 10 each workload's command).
// Units: `max_work_added`
// is in percent, as given on the command line (1.0 = 1%); `relative`,
// `relative_low` and `relative_high` are fractions (0.031 = +3.1%). Figures
// that do not exist (a side without counts) are null, never 0.
//
// {"schema_version", "workgate_version", "verdict", "exit_code", "backend",
//  "backend_reason", "event", "max_work_added", "repeat", "timed_samples",
//  "timed_seed" (of the bootstrap and the sampled sign flips: the samples and it
//  give the timed context again),
//  "baseline_label", "candidate_label", "notes": [--note texts],
//  "stored_baseline": {"path", "status": "used" | "missing" | "unreadable" |
//    "incompatible", "problem" | null} | null (without --baseline-results),
//  "store": {"path" | null, "notes": [what went wrong with it], "recorded_as"
//    (compare --record REF) | null} | null (--no-store, nothing to say),
//  "settings": {"suite" | null, "suite_sha256" | null, "command": [the ad hoc
//    workload's argv, {exe} for the build; empty for a suite], "stability",
//    "max_repeat", "explain", "explain_top", "events", "as_is", "env",
//    "pass_env"},
//  "shard": {"index", "count", "workloads": [every selected workload of the
//    suite], "baseline_sha256" | null, "candidate_sha256" | null} | null,
//  "merged": {"shards", "parts": [files]} | null (set by workgate merge),
//  "workloads": [{"name", "command": [its argv as the suite gives it, {exe}
//      and {suite_dir} as written; an ad hoc run's is settings.command;
//      empty where the report does not know it: a workload no shard gave a
//      result for],
//    "verdict", "reason", "max_work_added",
//    "expected_score" (score.expect: what the candidate must print, and the
//      baseline unless it prints the previous score) | null,
//    "previous_score" (score.previous: the score before a change that alters
//      it on purpose, which the baseline alone may print) | null,
//    "score_changed" (the baseline printed previous_score and the candidate
//      expected_score: the sides did different work by design, and the delta
//      includes it; the verdict is still the counts'),
//    "baseline": SIDE, "candidate": SIDE, "delta", "relative", "relative_low",
//    "relative_high",
//    "accepted": {"reason", "delta", "relative", "baseline_count", "backend",
//      "event", "workload_digest", "baseline_sha256", "candidate_sha256",
//      "status": "applied" | "exceeded" | "inconclusive" | "unneeded" |
//      "stale" | "unchecked", "problem" (why it is stale) | null} | null
//      (the suite's [workload.accepted]; decision/decision.h applies it),
//    "thread_hint": {"threads", "program": "unknown" | "zstd" | "go" |
//      "openmp" | "python" | "java" | "node", "advice" (report/summary.h
//      ThreadHintSentence)} | null (an unstable workload whose runs met
//      threads only),
//    "timed": TIMED (report/timed_json.h) | null,
//    "timing_vs_count": VS (report/timed_json.h) | null,
//    "metric": "instructions" | "estimated-cycles" (what the counts, delta
//      and margin are of),
//    "events": {"profiler" | null, "shown" (false: the reports show the
//      note, not the figures), "note" | null, "figures": [{"name":
//      "instructions" | "mispredicted_branches" | "l1_misses" |
//      "last_level_misses" | "estimated_cycles", "baseline", "candidate",
//      "delta", "relative" | null}] (empty unless both sides have events)}
//      | null (no simulated run: model/simulated_events.h),
//    "explanation": {"total_delta", "error", "profiler", "rerun",
//              "stored_baseline" (the baseline's profile is the stored
//              baseline's), "rows": [{"function", "renamed_from" | null,
//              "object", "clones": [full names, when the row sums clones],
//              "baseline", "candidate", "delta", "lines": [{"file", "line",
//              "baseline", "candidate", "delta", "baseline_only",
//              "numbering", "changed" | null, "folded": [lines], "path",
//              "text", "url", "events": EVENTS | null}], "moves": [...],
//              "events": EVENTS | null} (explain/explain.h: DiffProfiles)],
//              "missing_symbols": [{"object", "delta" (of its code without a
//                symbol), "files": [{"path", "side", "build_id" | null,
//                "debug_file" | null, "debug_file_exists"}]}],
//              "profile_cuts": [{"side", "table": "call_edges" |
//                "source_lines", "named", "more_than_named", "kept"}]
//                (explain/callgrind_profile.h: ProfileBounds),
//              "simulated" (both profiles carry the simulated events)} | null}]}
// EVENTS = {"baseline": {"Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr",
//           "DLmw", "Bc", "Bcm", "Bi", "Bim"}, "candidate": {the same}}
// SIDE = {"instructions" (the point count: the minimum of the repeats),
//         "counts": [...], "min", "max", "score", "error",
//         "timed": [{"score", "wall_seconds", "slot" (its place in the run's
//                    sequence of timed runs, measure/timed_runs.h)}],
//         "fingerprint": {...},
//         "from_store": {"counted_at", "ref" | null, "label", "counts" (how
//                        many of the side's counts the store gave)} | null,
//         "simulated": {"instructions" (of the simulated run), "events": {the
//                       twelve events by name}} | null}

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/model.h"

namespace workgate {

/// The whole report as JSON (see the schema above).
nlohmann::json ToJson(const CompareReport& report);

/// One workload's explanation as the report's "explanation" shows it (null
/// without one); `workgate explain --json` writes the same.
nlohmann::json ExplanationToJson(const std::optional<Explanation>& e);

/// A workload's "events" (null without): the tool that simulated, whether
/// the events are shown, the note, and the figures both sides' events give
/// (model/simulated_events.h: SimulatedFigures), each with its relative
/// change (null on a baseline of 0).
nlohmann::json WorkloadEventsToJson(const WorkloadResult& w);

/// Writes ToJson(report) to `path` (report/report_output.h).
bool WriteJsonReport(const std::string& path, const CompareReport& report, std::string* err);

}  // namespace workgate
