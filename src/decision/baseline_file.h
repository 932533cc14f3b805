#pragma once
// Stored baselines: `--save-baseline FILE` keeps one side's pinned counts with
// the fingerprint they were taken under; `--baseline-results FILE` compares a
// candidate against them instead of running the baseline build again.
//
// The file is JSON:
//   {"format": "workgate-baseline", "schema_version": 2,
//    "workgate_version": "0.1.0", "label": "<what was measured>",
//    "workloads": [{"name": "...", "counts": [123, ...], "score": "10.000" | null,
//                   "fingerprint": {...FingerprintToJson...},
//                   "profile": {"profiler": "vgcount", "object": "wgi",
//                               "ran": "/abs/path/that/ran", "build": "/abs/build",
//                               "total": 123,
//                               "files": [{"name": "vgcount.out.1", "gzip_base64": "..."}]}
//                              | null,
//                   "no_profile": "why there is none" (only with "profile": null)}, ...]}
// Version 2 added each workload's profile, which explains a delta against
// the stored counts (model.h, PackedProfile); version 1 files are refused
// (save the baseline again).
// A file that is missing, unreadable, not JSON, of another schema version, or
// incompatible with the candidate is never a pass: the caller turns it into an
// invalid comparison with the message.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "model/schema_versions.h"

namespace workgate {

/// The schema version this workgate writes and the only one it reads.

struct StoredWorkload {
  std::string name;
  std::vector<uint64_t> counts;
  std::optional<std::string> score;
  Fingerprint fingerprint;
  /// The profile of the baseline's first count (or, counted on perf, of a
  /// run of its own), still compressed: read, its names and base64 checked,
  /// but unpacked only where an explanation needs it (measure/profile_pack.h,
  /// which checks the rest). nullopt with `no_profile` saying why.
  std::optional<PackedProfile> profile;
  std::string no_profile;
};

/// The largest stored baseline LoadBaselineFile reads: thousands of
/// workloads, each with its libraries' digests, fit many times over.
inline constexpr size_t kMaxBaselineBytes = 64 << 20;

struct BaselineFile {
  /// Non-empty when the file could not be used (UnusableBaseline): why, naming
  /// the file. Every workload compared against it is invalid with this reason.
  std::string error;
  bool missing = false;  // with `error`: the file does not exist
  int schema_version = kBaselineSchemaVersion;
  std::string workgate_version;
  std::string label;  // the build or path that was measured
  std::vector<StoredWorkload> workloads;

  /// The workload called `name`, or nullptr.
  const StoredWorkload* Find(const std::string& name) const;
};

/// The most bytes of `no_profile` a file may hold: a sentence, not a store.
inline constexpr size_t kMaxNoProfileBytes = 1024;

/// One side (the candidate's when `candidate_side`, else the baseline's) of
/// `workloads` as a baseline file, with the side's profiles where kept. nullopt with `*err` when a
/// workload's side has an error or no count: a baseline must be complete evidence.
std::optional<BaselineFile> BaselineFromResults(const std::vector<WorkloadResult>& workloads,
                                                bool candidate_side,
                                                const std::string& workgate_version,
                                                const std::string& label, std::string* err);

/// Writes `file` to `path` atomically (see util/atomic_file.h).
bool SaveBaselineFile(const std::string& path, const BaselineFile& file, std::string* err);

/// Reads a baseline file. nullopt with a message that names `path` and says
/// what is wrong: it does not exist, is a directory, cannot be read, is too
/// large, is corrupt (not JSON, with the parser's position and reason, or a
/// malformed field, named, or a count above kMaxCount), is not a workgate
/// baseline, or is of another schema version.
std::optional<BaselineFile> LoadBaselineFile(const std::string& path, std::string* err);

/// LoadBaselineFile's parsing of `text`, read from `path` (named in messages).
std::optional<BaselineFile> ParseBaselineFile(std::string_view text, const std::string& path,
                                              std::string* err);

/// A stand-in for a file LoadBaselineFile refused with `error`: compared
/// against it, every workload is invalid with that reason. `missing`: the
/// file does not exist (IsMissingFile), as opposed to cannot be used.
BaselineFile UnusableBaseline(const std::string& error, bool missing = false);

/// The stored baseline at `path` for a comparison: the file as
/// LoadBaselineFile reads it, or, when it cannot be read, an unusable one
/// (UnusableBaseline) that makes every workload invalid: a baseline that
/// cannot be read is missing evidence, never a pass.
BaselineFile LoadBaselineForComparison(const std::string& path);

/// Whether nothing exists at `path` (not even a dangling link): what tells a
/// stored baseline that is missing from one that cannot be read.
bool IsMissingFile(const std::string& path);

/// Why `file` cannot stand for the baseline side of `w`, whose candidate is
/// measured: the file is unusable, lacks the workload, or its fingerprint is
/// incompatible with the candidate's (CompatibilityProblem); nullopt when it
/// can. `path` names the file.
std::optional<std::string> StoredBaselineProblem(const BaselineFile& file, const std::string& path,
                                                 const WorkloadResult& w);

/// What became of the stored baseline at `path` in a comparison of
/// `workloads`: missing or unreadable (its `error`), incompatible with the
/// first workload it cannot stand for (and how many more), or used.
StoredBaselineUse StoredBaselineUseOf(const BaselineFile& file, const std::string& path,
                                      const std::vector<WorkloadResult>& workloads);

/// Fills `w->baseline` from `file` for a workload whose candidate side is
/// already measured: the stored counts, score and fingerprint; or, when the
/// file is unusable (its `error`), has no such workload or its fingerprint is incompatible with the
/// candidate's (CompatibilityProblem), sets `w->baseline.error` to say so, so
/// that Decide makes the workload invalid. `path` names the file in messages.
void ApplyStoredBaseline(const BaselineFile& file, const std::string& path, WorkloadResult* w);

}  // namespace workgate
