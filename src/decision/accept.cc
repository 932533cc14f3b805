#include "decision/accept.h"

#include <fmt/format.h>

#include "decision/decision.h"
#include "util/text.h"

namespace workgate {
namespace {

// `w` decided as if the suite had accepted nothing.
WorkloadResult WithoutAccepted(const WorkloadResult& w) {
  WorkloadResult again = w;
  again.accepted.reset();
  Decide(&again);
  return again;
}

}  // namespace

std::string AcceptReasonProblem(const std::string& reason) {
  if (reason.find_first_not_of(" \t") == std::string::npos) {
    return "--reason must say why the work is intended; it is empty";
  }
  if (reason == kAcceptReasonPlaceholder) {
    return fmt::format("--reason is still the placeholder '{}': replace it with why the work is "
                       "intended, which the suite keeps beside the accepted delta",
                       kAcceptReasonPlaceholder);
  }
  if (reason.size() > kMaxAcceptReasonBytes) {
    return fmt::format("--reason is at most {} bytes; this one has {}", kMaxAcceptReasonBytes,
                       reason.size());
  }
  if (ValidUtf8(reason) != reason) return "--reason must be UTF-8 text";
  for (unsigned char c : reason) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return fmt::format("--reason cannot hold control characters (byte 0x{:02x})", c);
    }
  }
  return "";
}

bool AcceptEntryFor(const WorkloadResult& w, const std::string& digest,
                    const std::string& reason, AcceptedWork* entry, std::string* err) {
  const std::string name = TerminalSafe(w.name, LineBreaks::kToSpace);
  for (const auto& [side, result] : {std::pair{"baseline", &w.baseline},
                                     std::pair{"candidate", &w.candidate}}) {
    if (result->fingerprint.suite_sha256 != digest) {
      *err = fmt::format(
          "workload '{}': the {} was counted for another definition of the workload (digest "
          "{}) than the suite's now ({}): count it again with this suite, or accept from a "
          "report of it",
          name, side, result->fingerprint.suite_sha256.substr(0, 12), digest.substr(0, 12));
      return false;
    }
  }
  const WorkloadResult again = WithoutAccepted(w);
  switch (again.verdict) {
    case Verdict::kWorkAdded:
      break;
    case Verdict::kOk:
    case Verdict::kWorkRemoved:
      *err = fmt::format(
          "workload '{}' is {} ({}): the gate passes it already, so there is no work added to "
          "accept; an accepted entry only lets a delta beyond the margin pass",
          name, VerdictName(again.verdict), again.reason);
      return false;
    case Verdict::kInconclusive:
      *err = fmt::format(
          "workload '{}' is inconclusive ({}): accept a delta the gate calls work added; "
          "count it again with more repeats (--repeat, --max-repeat) first",
          name, again.reason);
      return false;
    case Verdict::kInvalid:
    case Verdict::kAccepted:
      *err = fmt::format("workload '{}' is invalid ({}): an invalid comparison has no delta to "
                         "accept",
                         name, again.reason);
      return false;
  }
  AcceptedWork e;
  e.reason = reason;
  e.delta = again.delta;
  e.baseline_count = again.baseline.min();
  e.backend = again.baseline.fingerprint.backend;
  e.event = again.baseline.fingerprint.event;
  e.workload_digest = digest;
  e.baseline_sha256 = again.baseline.fingerprint.binary_sha256;
  e.candidate_sha256 = again.candidate.fingerprint.binary_sha256;
  *entry = std::move(e);
  return true;
}

std::vector<std::string> WorkAddedWorkloads(const CompareReport& report) {
  std::vector<std::string> names;
  for (const WorkloadResult& w : report.workloads) {
    if (WithoutAccepted(w).verdict == Verdict::kWorkAdded) names.push_back(w.name);
  }
  return names;
}

}  // namespace workgate
