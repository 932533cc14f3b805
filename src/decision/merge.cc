#include "decision/merge.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "decision/decision.h"
#include "model/backend.h"
#include "stats/timed_context.h"
#include "util/sha256.h"

namespace workgate {
namespace {

std::string ShardName(int index, int count) { return fmt::format("shard {}/{}", index, count); }

// A value from a part, cut for a message: the part may hold anything.
std::string Shown(const std::string& value) {
  constexpr size_t kMost = 120;
  if (value.empty()) return "(none)";
  return value.size() <= kMost ? value : value.substr(0, kMost) + "...";
}

// Each list as JSON, so that no choice of names can make two lists read alike.
std::string ListKey(const std::vector<std::string>& list) { return nlohmann::json(list).dump(); }

// What must be the same in every part of one run, by the name a message uses.
std::vector<std::pair<std::string, std::string>> ReportIdentity(const CompareReport& r) {
  const RunSettings& s = r.settings;
  const ShardInfo& shard = *r.shard;
  return {
      {"schema_version", std::to_string(r.schema_version)},
      {"workgate version", r.workgate_version},
      {"backend", r.backend},
      {"event", r.event},
      {"margin", fmt::format("{}%", 100 * r.max_work_added)},
      {"repeat", std::to_string(r.repeat)},
      {"timed samples", std::to_string(r.timed_samples)},
      {"timed seed", std::to_string(r.timed_seed)},
      {"suite", s.suite},
      {"suite digest", s.suite_sha256},
      {"ad hoc command", ListKey(s.command)},
      {"stability", s.stability},
      {"max_repeat", std::to_string(s.max_repeat)},
      {"explain", s.explain},
      {"explain_top", std::to_string(s.explain_top)},
      {"events", s.events},
      {"as_is", s.as_is ? "on" : "off"},
      {"env", ListKey(s.env)},
      {"pass_env", ListKey(s.pass_env)},
      {"list of selected workloads", ListKey(shard.workloads)},
      {"baseline build digest", shard.baseline_sha256},
      {"candidate build digest", shard.candidate_sha256},
      {"stored baseline", r.stored_baseline ? r.stored_baseline->path : ""},
  };
}

// Why `b` cannot be merged with `a`, or "".
std::string RunProblem(const ReportPart& a, const ReportPart& b) {
  const auto ours = ReportIdentity(a.report);
  const auto theirs = ReportIdentity(b.report);
  for (size_t i = 0; i < ours.size(); ++i) {
    if (ours[i].second == theirs[i].second) continue;
    return fmt::format("{} does not belong with {}: its {} is {}, where {}'s is {}", b.path, a.path,
                       ours[i].first, Shown(theirs[i].second), a.path, Shown(ours[i].second));
  }
  return "";
}

// Why a part is not what it says it is, or "": its workloads must be its
// shard's share of the list it gives, and its verdicts must follow from its
// counts (the gate's own rule, applied again).
std::string PartProblem(const ReportPart& part) {
  const CompareReport& r = part.report;
  const ShardInfo& s = *r.shard;
  const std::string shard = ShardName(s.index, s.count);
  if (std::set<std::string>(s.workloads.begin(), s.workloads.end()).size() != s.workloads.size()) {
    return fmt::format("{} ({}) names a workload twice in its suite's list", part.path, shard);
  }
  std::vector<std::string> names;
  for (const WorkloadResult& w : r.workloads) names.push_back(w.name);
  if (names != ShardNames(s.workloads, {s.index, s.count})) {
    return fmt::format("{} ({}) does not hold that shard's share of its suite's workloads",
                       part.path, shard);
  }
  for (const WorkloadResult& w : r.workloads) {
    WorkloadResult again = w;
    Decide(&again);
    if (again.verdict != w.verdict || again.delta != w.delta) {
      return fmt::format(
          "{} ({}) contradicts itself: workload {} says {} (delta {}), its counts "
          "say {} (delta {})",
          part.path, shard, Shown(w.name), VerdictName(w.verdict), w.delta,
          VerdictName(again.verdict), again.delta);
    }
  }
  CompareReport again;
  again.shard = r.shard;
  again.workloads = r.workloads;
  DecideSuite(&again);
  if (again.verdict != r.verdict || again.exit_code != r.exit_code) {
    return fmt::format(
        "{} ({}) contradicts itself: it says {} (exit {}), its workloads say {} "
        "(exit {})",
        part.path, shard, VerdictName(r.verdict), r.exit_code, VerdictName(again.verdict),
        again.exit_code);
  }
  return "";
}

// The parts sorted by shard; false with `*err` unless each is a shard, all of
// one count, each index once.
bool SortShards(const std::vector<ReportPart>& parts, std::vector<const ReportPart*>* sorted,
                std::string* err) {
  if (parts.empty()) {
    *err = "no parts to merge";
    return false;
  }
  for (const ReportPart& p : parts) {
    if (!p.report.shard) {
      *err = p.path + " is not a shard: it was written without --shard I/N (or by merge)";
      return false;
    }
    sorted->push_back(&p);
  }
  std::stable_sort(sorted->begin(), sorted->end(), [](const ReportPart* a, const ReportPart* b) {
    return a->report.shard->index < b->report.shard->index;
  });
  const ShardInfo& first = *sorted->front()->report.shard;
  for (size_t i = 0; i < sorted->size(); ++i) {
    const ReportPart& p = *(*sorted)[i];
    const ShardInfo& s = *p.report.shard;
    if (s.count != first.count) {
      *err = fmt::format("{} is {} but {} is {}: the parts split the suite differently",
                         sorted->front()->path, ShardName(first.index, first.count), p.path,
                         ShardName(s.index, s.count));
      return false;
    }
    if (i > 0 && (*sorted)[i - 1]->report.shard->index == s.index) {
      *err = fmt::format("{} is given twice: {} and {}", ShardName(s.index, s.count),
                         (*sorted)[i - 1]->path, p.path);
      return false;
    }
  }
  return true;
}

int StoredSeverity(const std::optional<StoredBaselineUse>& use) {
  return use ? static_cast<int>(use->status) : -1;
}

// The merged report from parts that belong together (sorted by shard).
void Combine(const std::vector<const ReportPart*>& sorted, CompareReport* merged,
             std::vector<std::string>* missing) {
  const CompareReport& first = sorted.front()->report;
  const int count = first.shard->count;
  *merged = first;
  merged->workloads.clear();
  merged->notes.clear();
  merged->shard.reset();
  merged->merged = MergeInfo{count, {}};
  std::map<std::string, const WorkloadResult*> by_name;
  std::set<int> given;
  for (const ReportPart* p : sorted) {
    merged->merged->parts.push_back(p->path);
    given.insert(p->report.shard->index);
    for (const WorkloadResult& w : p->report.workloads) by_name[w.name] = &w;
    for (const std::string& note : p->report.notes) {
      if (std::find(merged->notes.begin(), merged->notes.end(), note) == merged->notes.end()) {
        merged->notes.push_back(note);
      }
    }
    // Incompatible in one part is incompatible for the run.
    if (StoredSeverity(p->report.stored_baseline) > StoredSeverity(merged->stored_baseline)) {
      merged->stored_baseline = p->report.stored_baseline;
    }
  }
  for (int i = 1; i <= count; ++i) {
    if (!given.count(i)) missing->push_back(ShardName(i, count) + " is missing");
  }
  const std::vector<std::string>& all = first.shard->workloads;
  for (size_t p = 0; p < all.size(); ++p) {
    auto it = by_name.find(all[p]);
    if (it != by_name.end()) {
      merged->workloads.push_back(*it->second);
      // The timed context is held against these figures: they come from the
      // counts again, as the verdict and delta were checked to (PartProblem).
      WorkloadResult again = *it->second;
      Decide(&again);
      WorkloadResult& w = merged->workloads.back();
      w.relative = again.relative;
      w.relative_low = again.relative_low;
      w.relative_high = again.relative_high;
      continue;
    }
    WorkloadResult absent;
    absent.name = all[p];
    absent.verdict = Verdict::kInvalid;
    absent.reason = ShardName(static_cast<int>(p % count) + 1, count) +
                    " is missing: no part gave this workload's result";
    absent.max_work_added = first.max_work_added;
    merged->workloads.push_back(std::move(absent));
  }
  // The timed context is decided again from the parts' samples, with the
  // whole suite as Holm's family: what a part said of its share counts for
  // nothing here (its family was its share).
  DecideTimedContext(&merged->workloads, merged->timed_seed);
  DecideSuite(merged);
}

// What a side's fingerprint says that every workload of a run shares.
std::vector<std::pair<const char*, std::string>> SideIdentity(const Fingerprint& fp) {
  return {{"workgate version", fp.workgate_version},
          {"backend", fp.backend},
          {"event", fp.event},
          {"Valgrind version", fp.valgrind_version},
          {"Valgrind path", fp.valgrind_path},
          {"loader cache digest", fp.ld_so_cache_sha256},
          // Valgrind's count does not depend on the CPU model; perf's does.
          {"CPU model", IsBackend(fp.backend, Backend::kPerf) ? fp.cpu_model : ""}};
}

}  // namespace

ShardInfo MakeShardInfo(const ShardSpec& spec, std::vector<std::string> all,
                        const std::string& baseline, const std::string& candidate) {
  auto digest = [](const std::string& path) {
    struct stat st;
    std::string err;
    // A regular file only: a FIFO would block, a directory has no digest.
    if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::string();
    return Sha256OfFile(path, &err).value_or("");
  };
  return ShardInfo{spec.index, spec.count, std::move(all), digest(baseline), digest(candidate)};
}

std::string CheckFingerprints(const std::vector<ReportPart>& parts) {
  for (const bool baseline : {true, false}) {
    const char* role = baseline ? "baseline" : "candidate";
    // The first value seen of each part, and where it was seen.
    std::map<std::string, std::pair<std::string, std::string>> seen;
    for (const ReportPart& part : parts) {
      for (const WorkloadResult& w : part.report.workloads) {
        const Fingerprint& fp = baseline ? w.baseline.fingerprint : w.candidate.fingerprint;
        std::vector<std::pair<std::string, std::string>> values;
        for (const auto& [name, value] : SideIdentity(fp)) values.emplace_back(name, value);
        for (const auto& [path, sha] : fp.libraries) values.emplace_back("library " + path, sha);
        const std::string where = part.path + " (workload " + Shown(w.name) + ")";
        for (const auto& [name, value] : values) {
          if (value.empty()) continue;
          auto [it, fresh] = seen.emplace(name, std::pair{value, where});
          if (fresh || it->second.first == value) continue;
          return fmt::format(
              "the {} sides of {} and {} were measured differently: {} {} against {}", role,
              it->second.second, where, Shown(name), Shown(it->second.first), Shown(value));
        }
      }
    }
  }
  return "";
}

bool MergeShards(const std::vector<ReportPart>& parts, CompareReport* merged,
                 std::vector<std::string>* missing, std::string* err) {
  std::vector<const ReportPart*> sorted;
  if (!SortShards(parts, &sorted, err)) return false;
  for (const ReportPart* p : sorted) {
    std::string problem = RunProblem(*sorted.front(), *p);
    if (problem.empty()) problem = PartProblem(*p);
    if (!problem.empty()) {
      *err = problem;
      return false;
    }
  }
  if (std::string problem = CheckFingerprints(parts); !problem.empty()) {
    *err = problem;
    return false;
  }
  Combine(sorted, merged, missing);
  return true;
}

}  // namespace workgate
