#pragma once
// One interface for every way of counting the instructions a process tree
// retires: the perf_event backend (hardware counters, or software events
// through the same code path) and the Valgrind backends (callgrind, and
// workgate's own vgcount tool). Exactly one factory (counter/factory.h)
// knows which backends exist.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counter/input_record.h"
#include "launch/launch.h"
#include "model/backend.h"

namespace workgate {

/// One event's reading (perf), or the one total (Valgrind).
struct EventCount {
  std::string event;
  uint64_t value = 0;
  uint64_t time_enabled = 0;  // ns; perf only
  uint64_t time_running = 0;  // ns; perf only
  /// The kernel time-shared the counter with other events: `value` counts
  /// only the time it ran. workgate reports this and never scales it.
  bool multiplexed() const { return time_running < time_enabled; }
};

struct CountOptions {
  /// The workload marks its own region (include/workgate/region.h): count
  /// only inside it.
  bool region = false;
  /// Keep the backend's per-process profile files here (the Valgrind
  /// backends; for explanations and the stability check). Empty: discard
  /// them. A profile that cannot be kept makes the run invalid.
  std::string keep_profiles_dir;
  /// Pin time and entropy inside the counter where it can (vgcount: the TSC,
  /// RDRAND, the time and getrandom system calls, the random devices).
  /// Off only for --as-is.
  bool pin = true;
  /// Simulate, beside the count, what an instruction count cannot see:
  /// branch mispredictions and cache misses, on one fixed model whatever the
  /// machine (docs/counting.md, "Simulated events"), so that the figures
  /// repeat like the count. The Valgrind backends only; it costs more than
  /// counting, so a gate asks for it only where a workload's work changed.
  bool simulate = false;
};

/// The outcome of one counted run.
struct CountedRun {
  LaunchResult launch;
  std::vector<EventCount> events;  // events[0] is the primary (instructions)
  std::string error;  // non-empty: no valid count (failed start, exit, signal, timeout, parse)
  int processes = 0;  // processes counted (Valgrind: those that wrote a total; perf: unknown, 0)
  /// Valgrind: the primary count of each process that wrote one, the
  /// launched process first (TotalsRootFirst, counter/valgrind_counter.h),
  /// the others in pid order, which is not creation order: pids wrap.
  std::vector<uint64_t> per_process;
  /// Whether the counter saw every nondeterministic input the run met, so
  /// that an empty `unpinned` means it met none: vgcount with pinning on.
  /// Callgrind and perf see none of them.
  bool inputs_seen = false;
  /// vgcount: the inputs it answered with the pinned sequences, by kind
  /// ("tsc", "rdrand", "rdseed", "clock", "getrandom", "random-device",
  /// "sysinfo"), summed over the run's processes.
  std::map<std::string, uint64_t> pinned;
  /// vgcount: what the run met that nothing pinned, by kind ("threads",
  /// "signals", "times", ...), summed over the processes (DescribeUnpinned
  /// says them in words).
  std::map<std::string, uint64_t> unpinned;
  /// What the run did that is counted but worth saying (vgcount: a process
  /// that ran another program by exec).
  std::vector<std::string> notes;
  /// vgcount, in a run without a region: the program turned collection on
  /// or off as <workgate/region.h>'s markers do (the run is invalid).
  bool toggled_collection = false;
  /// What the run read from the file system (counter/input_record.h): the
  /// union of every process's and every exec part's records, each once,
  /// sorted (InputRecordBefore). Meaningful only where `inputs_traced`.
  std::vector<InputRecord> inputs;
  /// The counter recorded what the run read: vgcount (--vgcount-inputs=yes).
  /// Callgrind and perf record nothing.
  bool inputs_traced = false;
  /// Some process read more than its records say (it passed the tool's
  /// bound, or read a path the tool could not name), or a record line of a
  /// report did not parse: `inputs` is then incomplete, so the run's inputs
  /// are unknown. The count itself is not affected.
  bool inputs_overflow = false;
  /// With CountOptions::simulate: the simulated events, summed over the
  /// run's processes (and their exec parts), by cachegrind's names: "Dr",
  /// "Dw" (data reads and writes), "I1mr", "D1mr", "D1mw" (first-level
  /// misses), "ILmr", "DLmr", "DLmw" (last-level misses), "Bc", "Bcm"
  /// (conditional branches, mispredicted), "Bi", "Bim" (indirect branches,
  /// mispredicted). Empty without simulation. The instruction count stays
  /// events[0].
  std::map<std::string, uint64_t> simulated;

  bool valid() const { return error.empty() && !events.empty(); }
  std::optional<uint64_t> instructions() const {
    if (!valid()) return std::nullopt;
    return events[0].value;
  }
};

/// `unpinned` (CountedRun::unpinned) in words, one entry per kind: "4
/// threads (the schedule decides which thread reads what)", "2 signals
/// delivered", "times() called 3 times (not pinned)".
std::vector<std::string> DescribeUnpinned(const std::map<std::string, uint64_t>& unpinned);

class Counter {
 public:
  virtual ~Counter() = default;
  /// Which backend this is (model/backend.h says what each one is).
  virtual Backend backend() const = 0;
  /// "perf", "callgrind" or "vgcount".
  std::string name() const { return std::string(BackendName(backend())); }
  /// The primary event's name as reported: "instructions:u" (or what the user
  /// asked for) on perf, "Ir" on Valgrind.
  virtual std::string event() const = 0;
  /// The counted tool's version where it matters for comparability
  /// (Valgrind's), else empty.
  virtual std::string tool_version() const { return ""; }
  /// The absolute path of the counting tool where it is a program of its own
  /// (Valgrind), else empty; part of each side's fingerprint.
  virtual std::string tool_path() const { return ""; }
  /// The file of the code that counts where it is not the kernel's: the
  /// Valgrind tool (vgcount-amd64-linux, callgrind-amd64-linux); "" when
  /// none, or when it cannot be found. What the result store's keys
  /// identify the counting code by (identity/count_key.h).
  virtual std::string tool_file() const { return ""; }
  /// Runs `spec` to completion under the counter. A non-zero exit, a signal
  /// or a timeout make the run invalid (CountedRun::error says which).
  virtual CountedRun Run(const LaunchSpec& spec, const CountOptions& options) = 0;
};

/// Fills `run->error` from the launch outcome when the run cannot count:
/// could not start, non-zero exit, signal or timeout. Returns true if it did.
bool MarkFailedLaunch(CountedRun* run, double timeout_seconds);

/// Why a run with CountOptions::region whose program never started its
/// region is invalid: nothing was counted, and 0 instructions would pass any
/// gate. `evidence` says how the backend knows ("its counters were never
/// enabled").
std::string RegionNeverEntered(const std::string& evidence);

}  // namespace workgate
