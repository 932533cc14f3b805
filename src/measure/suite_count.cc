#include "measure/suite_count.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "identity/count_key.h"
#include "measure/thread_runtime.h"
#include "model/backend.h"
#include "workload/number_range.h"

namespace workgate {

int SuiteCountRepeats(Backend backend, int requested, bool recording) {
  return recording && TraitsOf(backend).exact ? std::max(requested, 2) : requested;
}

namespace {

// One workload's count, with what it adds to the report.
struct Counted {
  SuiteWorkloadCount count;
  std::optional<HistoryRecord> record;
  std::string note;  // why it is not recorded
};

Counted CountOne(SideCounter& sides, const Suite& suite, size_t index, const std::string& exe,
                 int repeat, const std::string& record, const std::string& profiles_dir,
                 const std::string& now) {
  const Workload& w = suite.workloads[index];
  const bool exact = IsExactBackend(sides.counter().name());
  WorkDir dir(w, suite.dir);
  const std::string keep = profiles_dir.empty() ? "" : fmt::format("{}/{}", profiles_dir, index);
  Counted out;
  SuiteWorkloadCount& count = out.count;
  count.name = w.name;
  count.metric = w.metric;
  count.expected_score = w.score_expect;
  const CountSpec spec{
      .score_side = ScoreSide::kCandidate, .repeat = repeat, .keep_profiles_dir = keep};
  CachedSide side = sides.Count({w, dir, exe, spec, {exe, record}});
  count.result = std::move(side.counted);
  count.from_store = side.from_store;
  RejectMultiplexed(&count.result);
  if (!count.result.valid()) return out;
  const std::vector<uint64_t> counts = count.result.counts();
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  count.unstable = *hi != *lo && exact;
  if (const uint64_t threads = MostThreads(count.result.runs); count.unstable && threads > 1) {
    count.thread_hint =
        ThreadHint{threads, RuntimeOfWorkload(w, count.result, sides.options(), exe)};
  }
  if (!record.empty() && side.fingerprint_error.empty()) {
    out.record = MakeHistoryRecord(
        record, now, w.name, counts,
        w.max_work_added_percent.value_or(kDefaultMaxWorkAddedPercent) / 100,
        count.result.score, side.fingerprint, exe);
  } else if (!record.empty()) {
    out.note = fmt::format("{} is not recorded: cannot fingerprint it: {}", w.name,
                           side.fingerprint_error);
  }
  return out;
}

}  // namespace

std::vector<HistoryRecord> CountSuiteWorkloads(
    SideCounter& sides, const Suite& suite, const std::string& exe, int repeat, int jobs,
    const std::string& record, const std::string& profiles_dir,
    const std::function<void(const std::string&)>& progress,
    const std::function<void(const SuiteWorkloadCount&)>& counted, SuiteCount* report) {
  std::vector<HistoryRecord> records;
  const std::string now = UtcNow();
  const size_t n = suite.workloads.size();
  std::vector<std::optional<Counted>> done(n);
  std::mutex mutex;
  size_t next = 0;      // the next workload a job takes
  size_t reported = 0;  // how many, in suite order, have been handed on
  // The jobs take the workloads in suite order; each one done is handed on
  // (counted, the report, the records) once those before it are, so that
  // the output is in suite order whatever finishes first.
  auto job = [&] {
    for (;;) {
      size_t index;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == n) return;
        index = next++;
      }
      progress(repeat > 1 ? fmt::format("{}  counting {} times", suite.workloads[index].name, repeat)
                          : fmt::format("{}  counting", suite.workloads[index].name));
      Counted one = CountOne(sides, suite, index, exe, repeat, record, profiles_dir, now);
      progress("");
      std::lock_guard<std::mutex> lock(mutex);
      done[index] = std::move(one);
      for (; reported < n && done[reported]; ++reported) {
        Counted& c = *done[reported];
        if (!c.count.result.valid()) report->exit_code = kExitInvalid;
        if (c.record) records.push_back(std::move(*c.record));
        if (!c.note.empty()) report->store_notes.push_back(std::move(c.note));
        counted(c.count);
        report->workloads.push_back(std::move(c.count));
        done[reported].reset();
      }
    }
  };
  const size_t threads = std::min(static_cast<size_t>(std::max(jobs, 1)), n);
  if (threads <= 1) {
    job();
    return records;
  }
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(job);
  for (std::thread& t : pool) t.join();
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
