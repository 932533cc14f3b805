#pragma once
// The Valgrind backends: callgrind, and workgate's own counting tool
// (tools/vgcount) where it is built. Both follow children
// (--trace-children=yes) and report the total over the tree. Callgrind
// writes one output file per process into a private directory that is
// always removed; vgcount sends its outputs on a channel the workload cannot
// reach (counter/vgcount_channel.h).
// Valgrind is run by the absolute path found once (machine/system_info.h),
// with its gdb server off (--vgdb=no) and its messages in a private log.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "counter/input_record.h"
#include "counter/valgrind_messages.h"

namespace workgate {

/// Reads the total of one vgcount output file (the "instructions: N" line).
bool ParseVgcountTotal(const std::string& text, uint64_t* total, std::string* err);

/// What one vgcount output file says of the nondeterministic inputs its
/// process met: its "pinned:" and "unpinned:" lines (output version 2,
/// tools/vgcount/README.md), each "name=N" words.
struct VgcountInputs {
  bool listed = false;  // both lines were there
  std::map<std::string, uint64_t> pinned;
  std::map<std::string, uint64_t> unpinned;
};

/// Reads those two lines of a vgcount output. An output without them (an
/// older tool) is not an error: `listed` stays false. False with `*err` for
/// a malformed line.
bool ParseVgcountInputs(const std::string& text, VgcountInputs* inputs, std::string* err);

/// The "input:" lines of one vgcount output (--vgcount-inputs=yes,
/// counter/input_record.h), appended to `*records` in the order written.
/// Returns whether they are all the process read: false after an "input:
/// overflow" line (the tool stopped recording) or a line that does not
/// parse (`*why` then says which), whose records are unknown. Never an
/// error of the count: the records are for the result store alone.
bool ParseVgcountInputRecords(const std::string& text, std::vector<InputRecord>* records,
                              std::string* why);

/// The "simulated:" line of one vgcount output (--vgcount-sim=yes,
/// tools/vgcount/README.md): each of the events CountedRun::simulated names,
/// once, as "name=N", misses no more than their accesses. `*listed` stays
/// false for an output without the line; false with `*err` for a malformed
/// line or a second one.
bool ParseVgcountSimulated(const std::string& text, std::map<std::string, uint64_t>* events,
                           bool* listed, std::string* err);

/// One process of a Valgrind run, from the files it left.
struct TracedProcess {
  /// From its log's banner (callgrind) or its hello (vgcount); nullopt: none.
  std::optional<long long> parent_pid;
  /// Its outputs' total (all its parts); nullopt: it wrote none.
  std::optional<uint64_t> instructions;
  VgcountInputs inputs = {};  // vgcount only
  /// vgcount: its last program's count never came (it was killed after an
  /// exec), though an earlier program's did.
  bool incomplete = false;
  /// vgcount: what its parts read from the file system, and whether some
  /// part's records were incomplete (ParseVgcountInputRecords).
  std::vector<InputRecord> input_records = {};
  bool input_records_incomplete = false;
  /// vgcount --vgcount-sim=yes: its simulated events over its parts, and
  /// whether each of its parts listed them.
  std::map<std::string, uint64_t> simulated = {};
  bool simulated_listed = false;
};
/// The processes of one run by pid, the pid each file is named by.
using TracedTree = std::map<long long, TracedProcess>;

/// The totals of the processes that wrote one, the launched process first:
/// the one process whose parent is not in the tree. The others follow in
/// pid order, which is not the order they were created in (pids wrap), so
/// it means nothing. False with `*err` when a process's parent is unknown,
/// when no process or several have no parent in the tree, or when the
/// launched one wrote no total.
bool TotalsRootFirst(const TracedTree& tree, std::vector<uint64_t>* totals, std::string* err);

/// The simulated events of the processes of `tree` that wrote a count,
/// added up over processes and parts (CountedRun::simulated). False with
/// `*err` naming a process that counted without listing them in every part:
/// the run's figures would be short, so they are unknown; or saying that they
/// add up beyond 64 bits.
bool SumSimulated(const TracedTree& tree, std::map<std::string, uint64_t>* events,
                  std::string* err);

/// vgcount's profiles of one run (files vgcount.profile.<pid>, and
/// vgcount.profile.<pid>.<n> for the programs its execs ran, in callgrind's
/// format): every process of `tree` that wrote a count has them, and their
/// total is that count. False with `*err` saying which does not: a
/// profile that disagrees with its count explains nothing.
bool ProfilesMatchCounts(const std::vector<std::filesystem::path>& profiles, const TracedTree& tree,
                         std::string* err);

/// Where Valgrind is (absolute, symlinks resolved) and which version
/// ("valgrind-3.19.0"). Looked up once: WORKGATE_VALGRIND, else workgate's
/// own PATH. Without a usable one, `path` is empty and `missing` says what
/// was searched and how to fix it.
struct ValgrindInstall {
  std::string path;
  std::string version;
  std::string missing;
};
const ValgrindInstall& FindValgrind();

/// Whether `dir` holds a built vgcount tool (a file named vgcount-<platform>).
bool HoldsVgcountTool(const std::string& dir);

/// The directory to use as VALGRIND_LIB for the vgcount tool
/// ($WORKGATE_VGCOUNT_LIB where set, else the build's valgrind-lib/ or the
/// installed one); empty when that directory does not hold the tool.
std::string FindVgcountLib();

class ValgrindCounter : public Counter {
 public:
  enum class Tool { kCallgrind, kVgcount };
  /// Throws Error(kExitEnvironment) when Valgrind (or the vgcount tool) is
  /// missing, or the tool was built against another Valgrind
  /// (counter/vgcount_install.h).
  explicit ValgrindCounter(Tool tool);
  Backend backend() const override;
  std::string event() const override { return "Ir"; }
  std::string tool_version() const override { return FindValgrind().version; }
  std::string tool_path() const override { return FindValgrind().path; }
  /// vgcount's in its VALGRIND_LIB; callgrind's in $VALGRIND_LIB, else in
  /// <prefix>/libexec/valgrind beside the Valgrind that runs it.
  std::string tool_file() const override;
  /// Counts `spec` under Valgrind. A failed run's error quotes Valgrind's own
  /// errors from its log, labelled as Valgrind's; the program's stderr stays
  /// in launch.err, without Valgrind's messages. With
  /// options.keep_profiles_dir, each process's per-function profile goes
  /// there in callgrind's format: callgrind's own outputs, or vgcount's
  /// profiles from the same run (which must add up to its counts). A
  /// profile that cannot be kept makes the run invalid, its error naming the
  /// file. Throws
  /// Error(kExitEnvironment) when a file system Valgrind writes to is full
  /// and the run failed or left no readable output.
  CountedRun Run(const LaunchSpec& spec, const CountOptions& options) override;

 private:
  /// "callgrind.out." or "vgcount.out.": each process's output is PREFIX<pid>.
  std::string OutputPrefix() const {
    return tool_ == Tool::kCallgrind ? "callgrind.out." : "vgcount.out.";
  }
  /// `spec` run under Valgrind, its outputs and logs going to `dir`, or
  /// vgcount's outputs on the channel `channel_fd` (-1: none), which the
  /// workload inherits with its descriptor limit pinned.
  LaunchSpec UnderValgrind(const LaunchSpec& spec, const std::string& dir,
                           const CountOptions& options, int channel_fd) const;
  /// The total of one output file (callgrind's parser, explain/callgrind_profile.h,
  /// or vgcount's line), and for vgcount the inputs it lists and what its
  /// process read (`*records`, and `*records_complete`).
  bool ReadTotal(const std::filesystem::path& output, uint64_t* total, VgcountInputs* inputs,
                 std::vector<InputRecord>* records, bool* records_complete,
                 std::map<std::string, uint64_t>* simulated, bool* simulated_listed,
                 std::string* err) const;
  /// Each process's total (its output and its dumps) and parent pid (its
  /// log), by the pid in the files' names.
  bool ReadTree(const std::vector<std::filesystem::path>& outputs,
                const std::vector<std::filesystem::path>& logs, TracedTree* tree,
                std::string* err) const;
  /// Where a run writes: `dir` (outputs and logs) and the run's TMPDIR.
  static std::vector<std::string> DiskPlaces(const std::string& dir, const LaunchSpec& run_spec);
  /// Throws Error(kExitEnvironment) naming the place when one of DiskPlaces
  /// is on a full file system; `*what` is the run's error. When the workload
  /// filled that file system itself, with files in its own directory
  /// (FilledByWorkload, from `before`, the room there before the run), the
  /// run stays the side's failure and `*what` says so instead.
  void FailIfDiskFull(const std::string& dir, const LaunchSpec& run_spec,
                      const std::vector<SpaceLeft>& before, std::string* what) const;

  Tool tool_;
  std::string vgcount_lib_;
};

}  // namespace workgate
