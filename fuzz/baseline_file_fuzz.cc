// libFuzzer entry point for the stored-baseline reader and, through it, the
// decision arithmetic. Built by fuzz/CMakeLists.txt with clang only; run by
// ci/fuzz.
//
// Checks what the reader promises (an error names the file; an accepted file
// has complete, bounded counts) and that Decide, given any two of the stored
// workloads as sides, computes its figures without overflow (UBSan) and
// exactly; and that a stored profile unpacks (gzip, then the callgrind
// parser) into files that add up to its total, or into nothing.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "decision/baseline_file.h"
#include "decision/decision.h"
#include "measure/profile_pack.h"
#include "measure/stability_runs.h"
#include "util/paths.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string err;
  auto file = workgate::ParseBaselineFile(text, "fuzz.json", &err);
  if (!file) {
    Check(err.rfind("the stored baseline fuzz.json ", 0) == 0);
    return 0;
  }
  Check(file->error.empty());
  static const workgate::TempDir unpacked("baseline-fuzz");
  for (const workgate::StoredWorkload& stored : file->workloads) {
    Check(!stored.name.empty() && !stored.counts.empty());
    if (stored.profile) {
      const std::string dir = unpacked.path() + "/profile";
      std::string why;
      const bool ok = workgate::UnpackProfile(*stored.profile, dir, &why);
      const std::vector<std::string> files = workgate::ProfileFiles(dir);
      Check(ok ? files.size() == stored.profile->gzip_files.size() : files.empty() && !why.empty());
      for (const std::string& f : files) std::remove(f.c_str());
    }
    Check(file->Find(stored.name) == &stored);
    for (uint64_t c : stored.counts) Check(c <= workgate::kMaxCount);
  }
  // Every stored workload against the first one's counts as the candidate.
  for (const workgate::StoredWorkload& stored : file->workloads) {
    workgate::WorkloadResult w;
    w.name = stored.name;
    w.candidate.counts = file->workloads.front().counts;
    w.candidate.score = file->workloads.front().score;
    w.candidate.fingerprint = stored.fingerprint;
    workgate::ApplyStoredBaseline(*file, "fuzz.json", &w);
    Check(w.baseline.error.empty());
    workgate::Decide(&w);
    if (workgate::HasDelta(w)) {
      __int128 exact = static_cast<__int128>(w.candidate.min()) - w.baseline.min();
      Check(w.delta == exact);
    } else {
      Check(w.delta == 0 && w.verdict == workgate::Verdict::kInvalid);
    }
    Check(w.verdict != workgate::Verdict::kInvalid || !w.reason.empty());
  }
  return 0;
}
