#pragma once
// What the result store's count cache (store/result_store.h) keys a count by,
// and what makes two recorded commits' counts comparable in history.
//
// A count on an exact backend (Valgrind) is a pure function of what the
// program runs and sees, and of what counts it: the side's fingerprint
// (model/model.h) plus the few things a fingerprint leaves out because both
// sides of one comparison share them. CountKey digests all of it, so a
// change to any part is another key: a miss, never a stale count.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/history.h"
#include "model/model.h"

namespace workgate {

/// What a count depends on beyond its side's fingerprint.
struct CountContext {
  /// The workgate that launched the count: its executable's GNU build ID
  /// ("build-id:<hex>"), else its SHA-256 ("sha256:<hex>"). The version
  /// string alone does not tell two edits of a dirty tree apart.
  std::string workgate_build;
  /// The Valgrind tool's own file (vgcount-amd64-linux, callgrind-amd64-linux),
  /// identified the same way; its path and version are in the fingerprint.
  std::string tool_build;
  /// The host CPU features Valgrind's guest CPU is made from
  /// (GuestCpuFeatures): what CPUID tells the program, and so which
  /// memcpy, strlen, ... the C library picks.
  std::string guest_cpu;
  /// The directory the runs start in (the workload's private directory, or
  /// the user's with --as-is).
  std::string cwd;
  /// What the stored counts are of (MetricName): "instructions", or
  /// "estimated-cycles", so that an instruction count is never given for
  /// a workload gated on cycles, nor the other way round.
  std::string metric = "instructions";
};

/// The count cache's key: the SHA-256, in 64 lowercase hex digits, of one
/// canonical text of every field of `fp` (the CPU model only on perf, where
/// the PMU is the host's; Valgrind's guest CPU is in `context`) and of
/// `context`, with a version of the key's own format.
std::string CountKey(const Fingerprint& fp, const CountContext& context);

/// "build-id:<hex>" of the ELF file at `path` where it has a GNU build ID,
/// else "sha256:<hex>" of its bytes; "" with `*err` when it cannot be read.
std::string FileIdentity(const std::string& path, std::string* err);

/// The features of the host CPU that Valgrind's guest CPU is chosen from,
/// from /proc/cpuinfo text (the first processor): on x86 its vendor and
/// which of the extensions VEX looks for it has (sse3, ssse3, sse4, cx16,
/// lzcnt, popcnt, avx, avx2, bmi1/2, fma, f16c, movbe, rdtscp, rdrand,
/// rdseed, xsave/osxsave); elsewhere the vendor and the whole feature list.
/// Sorted and space-separated, so the same features give the same text.
std::string GuestCpuFeatures(const std::string& cpuinfo);

/// GuestCpuFeatures of this machine's /proc/cpuinfo; "" when it cannot be
/// read.
std::string ReadGuestCpuFeatures();

/// What must stay the same for two recorded commits' counts of a workload
/// to compare: every part of the side's fingerprint but the build's own
/// files (its binary and the libraries inside `build_dir`, the directory
/// the build under test lives in), by name ("backend", "event", "valgrind",
/// "workgate", "cpu" on perf, "workload", "argv", "environment",
/// "loader cache", "system libraries"), each as readable text or a digest.
std::map<std::string, std::string> HistoryConditionParts(const Fingerprint& fp,
                                                         const std::string& build_dir);

/// The SHA-256 of `parts` (HistoryConditionParts) in one canonical text.
std::string HistoryConditionsDigest(const std::map<std::string, std::string>& parts);

/// The directory a build under test lives in: the build itself when it is
/// a directory, else the directory of the file it names (symlinks
/// resolved); "" when it does not exist.
std::string BuildDirectoryOf(const std::string& exe);

/// One side of one workload as history keeps it: recorded under `ref` at
/// `recorded_at`, its counts, margin (a fraction) and score, and the
/// conditions its fingerprint `fp` was measured under (`build` is the
/// build as given: its own files are no condition).
HistoryRecord MakeHistoryRecord(const std::string& ref, const std::string& recorded_at,
                                const std::string& workload, const std::vector<uint64_t>& counts,
                                double max_work_added, const std::optional<std::string>& score,
                                const Fingerprint& fp, const std::string& build);

/// The candidate side of every workload of `report` that has counts and no
/// error, as history records under `ref` (`candidate` is the build as given).
std::vector<HistoryRecord> CandidateRecords(const CompareReport& report, const std::string& ref,
                                            const std::string& recorded_at,
                                            const std::string& candidate);

}  // namespace workgate
