#pragma once
// `workgate count --suite FILE --exe PATH`: every selected workload of a
// suite counted for one build, through the result store's count cache where
// the run has one, and recorded in the store's history under --record REF.
// The command line parses and prints (cli/count_command.cc); the rules of
// how many counts a recorded build gets, what is recorded and which exit a
// suite count ends with live here.

#include <functional>
#include <string>
#include <vector>

#include "measure/count_cache.h"
#include "measure/count_json.h"
#include "model/history.h"
#include "store/result_store.h"
#include "workload/workload.h"

namespace workgate {

/// The counts a suite count runs of each workload: `requested`, and at
/// least two for a build being recorded (`recording`) on an exact backend,
/// so that its stored counts say whether each workload repeats.
int SuiteCountRepeats(Backend backend, int requested, bool recording);

/// Counts every workload of `suite` for the build `exe` `repeat` times
/// through `sides` (SuiteCountRepeats gives `repeat`), `jobs` workloads at
/// once (a count does not depend on load), calling `counted` with each in
/// suite order, as soon as it and those before it are done. Fills `report->workloads`
/// (`report->exit_code` becomes kExitInvalid when one has no valid count)
/// and returns the history records of those counted, under `record` (none
/// when `record` is ""); a workload that cannot be fingerprinted is not
/// recorded, and a note in `report->store_notes` says why.
/// `profiles_dir` ("" none) is where each count's profile is kept for the
/// store. `progress` is called from the job that counts a workload with
/// what it counts, and with "" once that count is done.
std::vector<HistoryRecord> CountSuiteWorkloads(
    SideCounter& sides, const Suite& suite, const std::string& exe, int repeat, int jobs,
    const std::string& record, const std::string& profiles_dir,
    const std::function<void(const std::string&)>& progress,
    const std::function<void(const SuiteWorkloadCount&)>& counted, SuiteCount* report);

/// Records `records` in `store`'s history under `record` (report->recorded_as
/// then says so). When nothing could be recorded, a note says why and a
/// passing count ends with kExitEnvironment: --record was asked for and did
/// not happen.
void RecordSuite(ResultStore& store, const std::string& record,
                 const std::vector<HistoryRecord>& records, SuiteCount* report);

}  // namespace workgate
