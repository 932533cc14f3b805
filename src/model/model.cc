#include "model/model.h"

#include <algorithm>

namespace workgate {

bool HasDelta(const WorkloadResult& w) {
  return !w.baseline.counts.empty() && !w.candidate.counts.empty() && w.baseline.min() > 0 &&
         w.baseline.max() <= kMaxCount && w.candidate.max() <= kMaxCount;
}

double MedianCount(std::vector<uint64_t> counts) {
  if (counts.empty()) return 0;
  std::sort(counts.begin(), counts.end());
  const size_t n = counts.size();
  if (n % 2 == 1) return static_cast<double>(counts[n / 2]);
  // Halves first: two counts near 2^64 must not overflow.
  return static_cast<double>(counts[n / 2 - 1]) / 2 + static_cast<double>(counts[n / 2]) / 2;
}

const char* StoredBaselineStatusName(StoredBaselineStatus s) {
  switch (s) {
    case StoredBaselineStatus::kUsed:
      return "used";
    case StoredBaselineStatus::kMissing:
      return "missing";
    case StoredBaselineStatus::kUnreadable:
      return "unreadable";
    case StoredBaselineStatus::kIncompatible:
      return "incompatible";
  }
  return "unreadable";
}

bool ParseStoredBaselineStatus(const std::string& name, StoredBaselineStatus* s) {
  for (StoredBaselineStatus each :
       {StoredBaselineStatus::kUsed, StoredBaselineStatus::kMissing,
        StoredBaselineStatus::kUnreadable, StoredBaselineStatus::kIncompatible}) {
    if (name == StoredBaselineStatusName(each)) {
      *s = each;
      return true;
    }
  }
  return false;
}

const char* ThreadRuntimeName(ThreadRuntime r) {
  switch (r) {
    case ThreadRuntime::kUnknown:
      return "unknown";
    case ThreadRuntime::kZstd:
      return "zstd";
    case ThreadRuntime::kGo:
      return "go";
    case ThreadRuntime::kOpenMp:
      return "openmp";
    case ThreadRuntime::kPython:
      return "python";
    case ThreadRuntime::kJava:
      return "java";
    case ThreadRuntime::kNode:
      return "node";
  }
  return "unknown";
}

bool ParseThreadRuntime(const std::string& name, ThreadRuntime* r) {
  for (ThreadRuntime each : {ThreadRuntime::kUnknown, ThreadRuntime::kZstd, ThreadRuntime::kGo,
                             ThreadRuntime::kOpenMp, ThreadRuntime::kPython, ThreadRuntime::kJava,
                             ThreadRuntime::kNode}) {
    if (name == ThreadRuntimeName(each)) {
      *r = each;
      return true;
    }
  }
  return false;
}

bool ParseStabilityMode(const std::string& text, StabilityMode* mode) {
  if (text == "auto")
    *mode = StabilityMode::kAuto;
  else if (text == "always")
    *mode = StabilityMode::kAlways;
  else if (text == "never")
    *mode = StabilityMode::kNever;
  else
    return false;
  return true;
}

const char* StabilityModeName(StabilityMode mode) {
  switch (mode) {
    case StabilityMode::kAuto:
      return "auto";
    case StabilityMode::kAlways:
      return "always";
    case StabilityMode::kNever:
      return "never";
  }
  return "auto";
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kWorkAdded:
      return "work-added";
    case Verdict::kWorkRemoved:
      return "work-removed";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kAccepted:
      return "accepted";
  }
  return "invalid";
}

bool ParseVerdict(const std::string& name, Verdict* v) {
  for (Verdict each : {Verdict::kOk, Verdict::kWorkAdded, Verdict::kWorkRemoved,
                       Verdict::kInconclusive, Verdict::kInvalid, Verdict::kAccepted}) {
    if (name == VerdictName(each)) {
      *v = each;
      return true;
    }
  }
  return false;
}

double AcceptedWork::relative() const {
  return baseline_count == 0 ? 0 : static_cast<double>(delta) / static_cast<double>(baseline_count);
}

const char* AcceptedStatusName(AcceptedStatus s) {
  switch (s) {
    case AcceptedStatus::kApplied:
      return "applied";
    case AcceptedStatus::kExceeded:
      return "exceeded";
    case AcceptedStatus::kInconclusive:
      return "inconclusive";
    case AcceptedStatus::kUnneeded:
      return "unneeded";
    case AcceptedStatus::kStale:
      return "stale";
    case AcceptedStatus::kUnchecked:
      return "unchecked";
  }
  return "unchecked";
}

bool ParseAcceptedStatus(const std::string& name, AcceptedStatus* s) {
  for (AcceptedStatus each : {AcceptedStatus::kApplied, AcceptedStatus::kExceeded,
                              AcceptedStatus::kInconclusive, AcceptedStatus::kUnneeded,
                              AcceptedStatus::kStale, AcceptedStatus::kUnchecked}) {
    if (name == AcceptedStatusName(each)) {
      *s = each;
      return true;
    }
  }
  return false;
}

const char* ExplainModeName(ExplainMode mode) {
  switch (mode) {
    case ExplainMode::kNever:
      return "never";
    case ExplainMode::kWorkAdded:
      return "work-added";
    case ExplainMode::kAlways:
      return "always";
  }
  return "work-added";
}

bool ParseExplainMode(const std::string& name, ExplainMode* mode) {
  for (ExplainMode each : {ExplainMode::kNever, ExplainMode::kWorkAdded, ExplainMode::kAlways}) {
    if (name == ExplainModeName(each)) {
      *mode = each;
      return true;
    }
  }
  return false;
}

const char* EventsModeName(EventsMode mode) {
  switch (mode) {
    case EventsMode::kNever:
      return "never";
    case EventsMode::kWork:
      return "work";
    case EventsMode::kAlways:
      return "always";
  }
  return "work";
}

bool ParseEventsMode(const std::string& name, EventsMode* mode) {
  for (EventsMode each : {EventsMode::kNever, EventsMode::kWork, EventsMode::kAlways}) {
    if (name == EventsModeName(each)) {
      *mode = each;
      return true;
    }
  }
  return false;
}

uint64_t SideResult::min() const {
  return counts.empty() ? 0 : *std::min_element(counts.begin(), counts.end());
}

uint64_t SideResult::max() const {
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

const char* TimedLabelName(TimedLabel label) {
  switch (label) {
    case TimedLabel::kFaster:
      return "faster";
    case TimedLabel::kSlower:
      return "slower";
    case TimedLabel::kWithinNoise:
      return "within noise";
    case TimedLabel::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

bool ParseTimedLabel(const std::string& name, TimedLabel* label) {
  for (TimedLabel each : {TimedLabel::kFaster, TimedLabel::kSlower, TimedLabel::kWithinNoise,
                          TimedLabel::kInconclusive}) {
    if (name == TimedLabelName(each)) {
      *label = each;
      return true;
    }
  }
  return false;
}

const char* CountDisagreementName(CountDisagreement d) {
  switch (d) {
    case CountDisagreement::kNone:
      return "none";
    case CountDisagreement::kSlower:
      return "slower";
    case CountDisagreement::kFaster:
      return "faster";
  }
  return "none";
}

bool ParseCountDisagreement(const std::string& name, CountDisagreement* d) {
  for (CountDisagreement each :
       {CountDisagreement::kNone, CountDisagreement::kSlower, CountDisagreement::kFaster}) {
    if (name == CountDisagreementName(each)) {
      *d = each;
      return true;
    }
  }
  return false;
}

CountDisagreement DisagreementOf(const TimingVsCount& t) {
  if (!(t.p_adjusted < kTimedAlpha)) return CountDisagreement::kNone;
  if (t.bound > t.count_high && t.ci_low > t.bound) return CountDisagreement::kSlower;
  if (t.bound < t.count_low && t.ci_high < t.bound) return CountDisagreement::kFaster;
  return CountDisagreement::kNone;
}

const char* SelftestOutcomeName(SelftestOutcome outcome) {
  switch (outcome) {
    case SelftestOutcome::kResolves:
      return "resolves";
    case SelftestOutcome::kMisses:
      return "misses";
    case SelftestOutcome::kFalseEffect:
      return "false effect";
    case SelftestOutcome::kFailed:
      return "failed";
  }
  return "failed";
}

bool ShowsEffect(const TimedTest& t) { return t.excludes_one && t.p_adjusted < kTimedAlpha; }

bool TimedStats::aa_effect() const { return aa_control && ShowsEffect(*aa_control); }

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace workgate
