#include "measure/suite_count.h"

#include <fmt/format.h>

#include <algorithm>

#include "identity/count_key.h"
#include "measure/thread_runtime.h"
#include "model/backend.h"
#include "workload/number_range.h"

namespace workgate {

int SuiteCountRepeats(Backend backend, int requested, bool recording) {
  return recording && TraitsOf(backend).exact ? std::max(requested, 2) : requested;
}

std::vector<HistoryRecord> CountSuiteWorkloads(
    SideCounter& sides, const Suite& suite, const std::string& exe, int repeat,
    const std::string& record, const std::string& profiles_dir,
    const std::function<void(const SuiteWorkloadCount&)>& counted, SuiteCount* report) {
  const bool exact = IsExactBackend(sides.counter().name());
  std::vector<HistoryRecord> records;
  const std::string now = UtcNow();
  size_t index = 0;
  for (const Workload& w : suite.workloads) {
    WorkDir dir(w, suite.dir);
    const std::string keep =
        profiles_dir.empty() ? "" : fmt::format("{}/{}", profiles_dir, index++);
    SuiteWorkloadCount count;
    count.name = w.name;
    count.metric = w.metric;
    count.expected_score = w.score_expect;
    const CountSpec spec{
        .score_side = ScoreSide::kCandidate, .repeat = repeat, .keep_profiles_dir = keep};
    CachedSide side = sides.Count({w, dir, exe, spec, {exe, record}});
    count.result = std::move(side.counted);
    count.from_store = side.from_store;
    RejectMultiplexed(&count.result);
    if (count.result.valid()) {
      const std::vector<uint64_t> counts = count.result.counts();
      const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
      count.unstable = *hi != *lo && exact;
      if (const uint64_t threads = MostThreads(count.result.runs); count.unstable && threads > 1) {
        count.thread_hint =
            ThreadHint{threads, RuntimeOfWorkload(w, count.result, sides.options(), exe)};
      }
      if (!record.empty() && side.fingerprint_error.empty()) {
        records.push_back(MakeHistoryRecord(
            record, now, w.name, counts,
            w.max_work_added_percent.value_or(kDefaultMaxWorkAddedPercent) / 100,
            count.result.score, side.fingerprint, exe));
      } else if (!record.empty()) {
        report->store_notes.push_back(fmt::format("{} is not recorded: cannot fingerprint it: {}",
                                                  w.name, side.fingerprint_error));
      }
    } else {
      report->exit_code = kExitInvalid;
    }
    counted(count);
    report->workloads.push_back(std::move(count));
  }
  return records;
}

void RecordSuite(ResultStore& store, const std::string& record,
                 const std::vector<HistoryRecord>& records, SuiteCount* report) {
  std::string err;
  if (!records.empty() && store.Record(records, &err)) {
    report->recorded_as = record;
    return;
  }
  report->store_notes.push_back(
      "--record " + record + ": " +
      (records.empty() ? std::string("no workload was counted, so nothing was recorded") : err));
  if (report->exit_code == kExitPass) report->exit_code = kExitEnvironment;
}

}  // namespace workgate
