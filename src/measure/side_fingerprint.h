#pragma once
// What one side of one workload was measured with: its fingerprint
// (model/model.h), from the run's argv and environment and from the files it
// ran, read as the launch found them.

#include <map>
#include <string>
#include <vector>

#include "model/model.h"
#include "workload/run_plan.h"

namespace workgate {

/// The run a side's fingerprint describes: its argv and environment as
/// launched, and the directory it started in (empty: workgate's own, with
/// --as-is).
struct RunIdentity {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::string cwd;
  /// Where `cwd` is on this machine, when the run has it bound there
  /// (LaunchSpec::cwd_source); "" for `cwd` itself.
  std::string host_cwd;
};

class Counter;

/// The parts of a fingerprint every side of a run shares: `machine`'s (CPU
/// model, kernel), `workgate_version`, the counter's (backend, event,
/// Valgrind's version and path) and the loader cache's digest. Throws
/// EnvironmentError when the loader cache exists but cannot be read: both
/// sides would share the failure, and it would show only later, against a
/// stored result, as a changed cache.
Fingerprint CommonFingerprint(const Fingerprint& machine, const Counter& counter,
                              const std::string& workgate_version);

/// `common` (the machine's, workgate's and the counter's parts) with
/// `side`'s own: `run`'s argv and environment, its workload's digest
/// (WorkloadDigest, with its suite's folder), and the digests of the program
/// that runs and of its shared libraries. The program is the side's build
/// when that is a file, else the command's first program found as the
/// launch found it: on the run's PATH, a relative path from `run.cwd`. False
/// with `*err` when a file cannot be read or the program is not there: a
/// fingerprint that cannot say what was measured is no evidence to store or
/// compare.
bool FingerprintSide(const Fingerprint& common, const SideRun& side, const RunIdentity& run,
                     Fingerprint* fp, std::string* err);

}  // namespace workgate
