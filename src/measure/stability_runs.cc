#include "measure/stability_runs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "decision/decision.h"
#include "explain/callgrind_profile.h"
#include "explain/explain.h"
#include "measure/measure.h"
#include "model/backend.h"

namespace workgate {

namespace fs = std::filesystem;

std::vector<std::string> ProfileFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// One side of the workload as the check sees it: its results, the build that
// can count it again (none for a stored baseline) and its first profiles.
struct CountableSide {
  const char* name;
  ScoreSide score_side;  // what its runs must print
  SideResult* result;
  const std::string* exe;
  const std::string* first_profiles;
  std::string second_profiles;
  bool countable() const { return !exe->empty() && result->error.empty(); }
};

// Counts `side` `more` times more. Its counts join the side's; a run that
// fails or prints another score makes the whole side invalid, as it would
// have on the first count. The first new run's profiles (callgrind) go to
// `keep`. With `simulated`, that run simulates too, and is the side's
// simulated run: its events, and where its profile is.
void CountMore(const StabilityPlan& plan, Counter& counter, const Workload& w, const WorkDir& dir,
               int more, const std::string& keep, CountableSide* side,
               SimulatedProfiles* simulated = nullptr) {
  const bool simulate = simulated != nullptr && !side->result->simulated;
  CountedWorkload c = CountWorkload(counter, {w, plan.suite_dir, dir, *side->exe, plan.launch},
                                    {.score_side = side->score_side,
                                     .repeat = more,
                                     .keep_profiles_dir = keep,
                                     .simulate = simulate});
  for (const std::string& note : c.notes) {
    auto& notes = side->result->notes;
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  }
  if (!c.valid()) {
    side->result->error = "a repeat count (stability check): " + c.error;
    return;
  }
  for (uint64_t n : c.counts()) side->result->counts.push_back(n);
  if (!simulate || c.runs.empty()) return;
  // A run with no events leaves the side to a simulated run of its own.
  side->result->simulated = SimulatedOf(c.runs.front());
  if (!side->result->simulated) return;
  simulated->tool = counter.name();
  (side->score_side == ScoreSide::kBaseline ? simulated->baseline : simulated->candidate) = keep;
}

// The functions whose self cost differed between the side's first two
// counts, from their callgrind profiles, when both were kept.
void DiffRuns(const StabilityPlan& plan, const CountableSide& side, Stability* st) {
  if (side.first_profiles->empty() || side.second_profiles.empty()) return;
  Profile runs[2];
  std::string err;
  if (!LoadProfiles(ProfileFiles(*side.first_profiles), &runs[0], &err) ||
      !LoadProfiles(ProfileFiles(side.second_profiles), &runs[1], &err)) {
    side.result->notes.push_back("the profiles of two runs could not be compared: " + err);
    return;
  }
  // The build as the explanations name it, not its copy's file name.
  const OwnProgram own = OwnProgramOf(*side.exe, ExecutedFile(plan.launch, *side.exe));
  for (Profile& run : runs) RenameOwnProgram(own, &run);
  Explanation e = DiffProfiles(runs[0], runs[1], plan.explain_top);
  if (!e.error.empty()) {
    side.result->notes.push_back("the profiles of two runs could not be compared: " + e.error);
    return;
  }
  st->functions = std::move(e.rows);
  st->functions_side = side.name;
}

bool Repeats(const SideResult& s) { return s.counts.size() > 1 && s.min() == s.max(); }
bool Differs(const SideResult& s) { return s.counts.size() > 1 && s.min() != s.max(); }

// A side whose one count a work verdict may not stand on alone: not
// deterministic by construction, and counted once.
bool Unconfirmed(const SideResult& s) {
  return s.error.empty() && s.counts.size() == 1 && !s.deterministic;
}

// Why a work verdict is confirmed, for the report.
std::string ConfirmationTrigger(const std::string& backend, const WorkloadResult& r) {
  std::vector<std::string> met;
  const std::pair<const char*, const SideResult*> sides[] = {{"baseline", &r.baseline},
                                                             {"candidate", &r.candidate}};
  for (const auto& [name, side] : sides) {
    if (!side->unpinned.empty()) {
      met.push_back(fmt::format("the {} met {}", name, fmt::join(side->unpinned, ", ")));
    }
  }
  std::string why;
  if (!met.empty()) {
    why = fmt::format("{}", fmt::join(met, "; "));
  } else if (IsBackend(backend, Backend::kVgcount) &&
             (r.baseline.from_store || r.candidate.from_store)) {
    why = "a count came from the result store, which does not keep what its run met";
  } else if (IsBackend(backend, Backend::kVgcount)) {
    why = "vgcount's pinning was off (--as-is)";
  } else {
    why = fmt::format(
        "{} cannot see the clock and entropy reads that bypass glibc (the TSC, RDRAND, system "
        "calls made directly); --backend vgcount pins them",
        backend);
  }
  return "a work verdict on counts that are not deterministic by construction is confirmed by "
         "counting again: " +
         why;
}

}  // namespace

bool SettleNeedsRuns(const StabilityPlan& plan, const std::string& backend,
                     const WorkloadResult& r) {
  if (!IsExactBackend(backend) || plan.mode == StabilityMode::kNever) return false;
  if (!r.baseline.error.empty() || !r.candidate.error.empty()) return false;
  if (Differs(r.baseline) || Differs(r.candidate)) return true;
  if (plan.candidate_twice && !plan.candidate_exe.empty() && r.candidate.counts.size() == 1) {
    return true;
  }
  const bool both = !r.baseline.counts.empty() && !r.candidate.counts.empty();
  if (both && IsWorkVerdict(r.verdict) &&
      ((!plan.baseline_exe.empty() && Unconfirmed(r.baseline)) ||
       (!plan.candidate_exe.empty() && Unconfirmed(r.candidate)))) {
    return true;
  }
  if (Repeats(r.baseline) || Repeats(r.candidate)) return false;
  return plan.mode == StabilityMode::kAlways || (both && NeedsStabilityCheck(r));
}

void SettleStability(const StabilityPlan& plan, Counter& counter, const Workload& w,
                     const WorkDir& dir, const FirstProfiles& first,
                     const std::string& profiles_dir, WorkloadResult* r,
                     SimulatedProfiles* simulated) {
  Decide(r);
  if (!IsExactBackend(counter.name()) || plan.mode == StabilityMode::kNever) return;
  CountableSide sides[2] = {
      {"baseline", ScoreSide::kBaseline, &r->baseline, &plan.baseline_exe, &first.baseline, ""},
      {"candidate", ScoreSide::kCandidate, &r->candidate, &plan.candidate_exe, &first.candidate,
       ""}};
  for (const CountableSide& s : sides) {
    // A side that failed, or that was never measured, settles nothing.
    if (!s.result->error.empty()) return;
  }
  Stability& st = r->stability;
  const bool both = !r->baseline.counts.empty() && !r->candidate.counts.empty();
  // A workload that gets simulated runs (its verdict as it stands) has its
  // first counts again simulate: each is then its side's simulated run too.
  SimulatedProfiles* simulate =
      simulated != nullptr &&
              WantsSimulatedRuns(plan.events, *r,
                                 !plan.baseline_exe.empty() && !plan.candidate_exe.empty())
          ? simulated
          : nullptr;
  if (Differs(r->baseline) || Differs(r->candidate) || Repeats(r->baseline) ||
      Repeats(r->candidate)) {
    st.checked = true;
    st.trigger = "a build was counted more than once";
  } else if (plan.mode == StabilityMode::kAlways || (both && NeedsStabilityCheck(*r))) {
    st.checked = true;
    st.trigger = plan.mode == StabilityMode::kAlways
                     ? "every workload is checked (--stability always)"
                     : fmt::format("the sides differ by less than {:g} times the margin",
                                   kStabilityCheckMargins);
    // The baseline is counted again (the candidate where the baseline is
    // stored); with `always`, every build that can be.
    for (CountableSide& s : sides) {
      if (!s.countable() || s.result->counts.empty()) continue;
      s.second_profiles = profiles_dir.empty() ? "" : profiles_dir + "/" + s.name + "-2";
      plan.progress(fmt::format("{}  {}  counting again (stability check{})", w.name, s.name,
                                simulate != nullptr ? ", simulating" : ""));
      CountMore(plan, counter, w, dir, 1, s.second_profiles, &s, simulate);
      if (plan.mode != StabilityMode::kAlways) break;
    }
  }
  // A work verdict stands on one count per side only where the counts are
  // deterministic by construction; any other side counted once is counted
  // again first, and counts that differ make the workload unstable.
  if (both && IsWorkVerdict(r->verdict)) {
    for (CountableSide& s : sides) {
      if (!s.countable() || !Unconfirmed(*s.result)) continue;
      if (!st.checked) {
        st.checked = true;
        st.trigger = ConfirmationTrigger(counter.name(), *r);
      }
      s.second_profiles = profiles_dir.empty() ? "" : profiles_dir + "/" + s.name + "-2";
      plan.progress(fmt::format("{}  {}  counting again (confirming a work verdict{})", w.name,
                                s.name, simulate != nullptr ? ", simulating" : ""));
      CountMore(plan, counter, w, dir, 1, s.second_profiles, &s, simulate);
    }
  }
  CountableSide& candidate = sides[1];
  if (plan.candidate_twice && candidate.countable() && candidate.result->counts.size() == 1) {
    if (!st.checked) {
      st.checked = true;
      st.trigger = "the candidate is recorded (--record): counted twice, so its stored results "
                   "say whether it repeats";
    }
    candidate.second_profiles = profiles_dir.empty() ? "" : profiles_dir + "/candidate-2";
    plan.progress(fmt::format("{}  candidate  counting again (recorded)", w.name));
    CountMore(plan, counter, w, dir, 1, candidate.second_profiles, &candidate);
  }
  st.unstable = Differs(r->baseline) || Differs(r->candidate);
  if (st.unstable) {
    for (const CountableSide& s : sides) {
      if (Differs(*s.result) && st.functions.empty()) DiffRuns(plan, s, &st);
    }
    // Enough counts on each side for the interval, then two more a side
    // while the verdict is still open, up to the cap.
    int target = std::min(plan.max_repeat, kUnstableStartRepeats);
    for (const CountableSide& s : sides) {
      target =
          std::max(target, std::min(plan.max_repeat, static_cast<int>(s.result->counts.size())));
    }
    while (true) {
      // One count a side in turn (AB AB ...), not one side's counts in a
      // row: a change of the machine's load while they run, which moves a
      // threaded program's schedule and so its work, then weighs on both
      // builds alike instead of on the one counted later.
      for (bool counted = true; counted;) {
        counted = false;
        for (CountableSide& s : sides) {
          const int have = static_cast<int>(s.result->counts.size());
          if (!s.countable() || !s.result->error.empty() || have == 0 || have >= target) {
            continue;  // a count that failed ends its side's counts
          }
          plan.progress(fmt::format("{}  {}  unstable: count {} of {}", w.name, s.name, have + 1,
                                    target));
          CountMore(plan, counter, w, dir, 1, "", &s);
          counted = true;
        }
      }
      MeasureSpread(*r, &st.spread, &st.spread_ppm);
      Decide(r);
      if (r->verdict != Verdict::kInconclusive || target >= plan.max_repeat) break;
      target = std::min(plan.max_repeat, target + 2);
    }
  }
  MeasureSpread(*r, &st.spread, &st.spread_ppm);
  Decide(r);
}

}  // namespace workgate
