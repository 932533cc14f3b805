#pragma once
// `workgate merge`: the parts of a sharded comparison (`compare --shard I/N
// --json PART`, workload/shard.h) joined into the report of the whole run,
// with its verdict and exit code. A CI matrix is the distributed engine;
// workgate only splits and joins.
//
// Parts are evidence gathered elsewhere, so nothing in them is taken on
// trust: each must be consistent in itself (its workloads are exactly its
// shard's share, every verdict follows from its counts, its suite verdict
// from its workloads), and the parts must belong to one run: the same suite
// (path and digest) and selection, the same settings, builds and stored
// baseline, and sides measured alike (CheckFingerprints). A shard that no
// part gives leaves its workloads invalid: missing evidence is never a pass.

#include <string>
#include <vector>

#include "model/model.h"
#include "workload/shard.h"

namespace workgate {

/// The `shard` record of a sharded run: `spec`, every selected workload
/// (`all`, in suite order), and the SHA-256 of `baseline` (the build, or the
/// --baseline-results file) and `candidate` where each is a regular file.
ShardInfo MakeShardInfo(const ShardSpec& spec, std::vector<std::string> all,
                        const std::string& baseline, const std::string& candidate);

/// One part given to merge: the report read from it and its path, which
/// messages name.
struct ReportPart {
  std::string path;
  CompareReport report;
};

/// Joins `parts` into `*merged`: the lowest shard's header, the notes of all
/// (each once), the workloads in suite order, decided again as a whole
/// (DecideSuite), their timed context decided again from their samples with
/// the whole suite as one family (DecideTimedContext), `merged` set and
/// `shard` unset. A shard that no part gives
/// is named in `*missing` ("shard 2/3 is missing") and its workloads are
/// invalid with that reason. False with `*err`, naming the files, when the
/// parts cannot be joined: a part is no shard, two give the same shard, they
/// split the suite differently, a part contradicts itself, or two parts
/// differ in suite, settings, builds, stored baseline or fingerprints.
bool MergeShards(const std::vector<ReportPart>& parts, CompareReport* merged,
                 std::vector<std::string>* missing, std::string* err);

/// Why the sides of `parts` (baseline sides with baseline sides, candidate
/// with candidate) cannot come from one run, or "": the parts of their
/// fingerprints that are the same for every workload of a run differ
/// (workgate and Valgrind version and path, backend, event, the loader cache,
/// the CPU model on perf, and a shared library's digest at one path).
/// Empty values say nothing and are skipped.
std::string CheckFingerprints(const std::vector<ReportPart>& parts);

}  // namespace workgate
