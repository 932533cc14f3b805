#include "measure/count_cache.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "launch/file_system.h"
#include "launch/launch.h"

#include "explain/callgrind_profile.h"
#include "measure/profile_pack.h"
#include "measure/simulated_runs.h"
#include "measure/stability_runs.h"
#include "store/store_codec.h"
#include "util/atomic_file.h"
#include "util/paths.h"

namespace workgate {

namespace fs = std::filesystem;

bool MakeCountContext(const Counter& counter, CountContext* context, std::string* err) {
  context->workgate_build = FileIdentity("/proc/self/exe", err);
  if (context->workgate_build.empty()) return false;
  const std::string tool = counter.tool_file();
  if (tool.empty()) {
    *err = "the file of Valgrind's " + counter.name() + " tool was not found";
    return false;
  }
  context->tool_build = FileIdentity(tool, err);
  if (context->tool_build.empty()) return false;
  context->guest_cpu = ReadGuestCpuFeatures();
  if (context->guest_cpu.empty()) {
    *err = "/proc/cpuinfo could not be read";
    return false;
  }
  return true;
}

CountCache::CountCache(ResultStore* store, CountContext context)
    : store_(store), context_(std::move(context)) {}

std::optional<StoredCount> CountCache::Read(const std::string& key) {
  std::optional<StoredCount> entry;
  std::string note, err;
  if (!store_->Find(key, &entry, &note, &err)) {
    Note("the result store could not be read (" + err + "); counting instead");
    return std::nullopt;
  }
  if (!note.empty()) Note(note);
  return entry;
}

void CountCache::Prefetch(const std::vector<std::string>& keys) {
  if (!enabled()) return;
  std::map<std::string, StoredCount> found;
  for (const std::string& key : keys) {
    if (key.empty() || found.count(key) != 0) continue;
    if (std::optional<StoredCount> entry = Read(key)) found.emplace(key, std::move(*entry));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, entry] : found) known_.insert_or_assign(key, std::move(entry));
  prefetched_ = true;
}

std::optional<StoredCount> CountCache::Find(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = known_.find(key);
    if (it != known_.end()) return it->second;
    if (prefetched_) return std::nullopt;
  }
  return Read(key);
}

bool CountCache::Add(const std::string& key, const StoredCount& entry, std::string* err) {
  if (!store_->Add(key, entry, err)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = known_.try_emplace(key, entry);
  if (added) return true;
  if (it->second.inputs_digest != entry.inputs_digest) {
    it->second = entry;  // other inputs: the store replaced it too
  } else {
    it->second.counts.insert(it->second.counts.end(), entry.counts.begin(), entry.counts.end());
  }
  return true;
}

bool CountCache::AddSimulated(const std::string& key, const std::string& inputs_digest,
                              uint64_t count, const SimulatedEvents& events,
                              const std::vector<std::pair<std::string, std::string>>& profiles,
                              std::string* err) {
  if (!store_->AddSimulated(key, inputs_digest, count, events, profiles, err)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = known_.find(key);
  if (it != known_.end() && !it->second.simulated && it->second.inputs_digest == inputs_digest) {
    it->second.simulated = events;
    if (!profiles.empty() && ProfilesFit(profiles)) it->second.profiles = profiles;
  }
  return true;
}

void CountCache::Note(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (noted_.insert(what).second) notes_.push_back(what);
}

std::vector<std::string> CountCache::notes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return notes_;
}

namespace {

// The entry under `key`, if there is one the workload can use.
// The key holds no expected score (Workload::Canonical): the stored score is
// checked against what this run expects of the side.
std::optional<StoredCount> LookUp(CountCache& cache, const Workload& w, ScoreSide side,
                                  const std::string& label, const std::string& key) {
  std::optional<StoredCount> entry = cache.Find(key);
  if (!entry) return std::nullopt;
  // Everything the program read besides what the key holds must be as it
  // was when it was counted.
  InputManifest manifest;
  std::string why;
  if (ParseManifestJson(entry->inputs, &manifest, &why)) why = ManifestChange(manifest);
  if (!why.empty()) {
    cache.Note(fmt::format("{} ({}): the stored count was not used: {}; counted again", w.name,
                           label, why));
    return std::nullopt;
  }
  std::optional<std::string> score;
  const std::string wrong = CheckScore(w, side, entry->score, &score);
  if (!wrong.empty()) {
    cache.Note(fmt::format("{}: the stored count's score is not the one asserted ({}); counted again",
                           w.name, wrong));
    return std::nullopt;
  }
  return entry;
}

// The cache key of a side of `w` fingerprinted as `fp`, run in `cwd`.
std::string KeyOf(const CountCache& cache, const Workload& w, const Fingerprint& fp,
                  const std::string& cwd) {
  CountContext context = cache.context();
  context.cwd = cwd;
  context.metric = MetricName(w.metric);
  return CountKey(fp, context);
}

}  // namespace

SideCounter::SideCounter(Counter& counter, Fingerprint common, std::string suite_dir,
                         LaunchOptions options, CountCache* cache)
    : counter_(counter),
      common_(std::move(common)),
      suite_dir_(std::move(suite_dir)),
      options_(std::move(options)),
      cache_(cache) {}

bool SideCounter::storing() const {
  return cache_ != nullptr && cache_->enabled() && IsExactBackend(counter_.name());
}

SideRun SideCounter::RunOf(const Workload& w, const WorkDir& dir, const std::string& exe) const {
  return {w, suite_dir_, dir, exe, options_};
}

ManifestScope SideCounter::Scope(const WorkDir& dir, const std::string& exe,
                                 const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env) const {
  ManifestScope scope;
  scope.pinned = options_.pin_inputs;
  scope.excluded_files.push_back(ExecutedFile(options_, exe));
  if (const auto tmpdir = env.find("TMPDIR"); tmpdir != env.end() && !tmpdir->second.empty()) {
    scope.excluded_dirs.push_back(tmpdir->second);
  }
  if (options_.as_is) return scope;
  // Workgate's base directory: every workload's private directory (this
  // one's is its working directory and HOME), and the build's copy.
  scope.excluded_dirs.push_back(fs::path(dir.path()).parent_path().string());
  scope.exe_link = dir.exe_link();
  scope.exe = fs::absolute(exe).lexically_normal().string();
  if (PidNamespaceAvailable()) {
    const std::vector<std::string> shared = SharedTemporaryDirectories();
    for (const char* fresh : kFreshDirectories) {
      if (std::find(shared.begin(), shared.end(), fresh) == shared.end()) {
        scope.excluded_dirs.push_back(fresh);
      }
    }
    // What the command names there is bound into the run from outside
    // (launch/launch.h): the program's own, like any input.
    for (const std::string& arg : argv) {
      if (!arg.empty() && arg[0] == '/') scope.bound.push_back(arg);
    }
  }
  return scope;
}

// Counted and fingerprinted without the store: the fingerprint is taken
// after the runs, from what they ran.
void SideCounter::CountUncached(const SideRequest& request, CachedSide* out) const {
  const SideRun side = RunOf(request.w, request.dir, request.exe);
  out->counted = CountWorkload(counter_, side, request.count);
  RunIdentity run{out->counted.argv, out->counted.env, "", ""};
  SetRunDirectory(side, &run);
  FingerprintSide(common_, side, run, &out->fingerprint, &out->fingerprint_error);
}

bool SideCounter::PlanAndFingerprint(const SideRun& side, RunIdentity* run, Fingerprint* fp,
                                     bool* planned, std::string* err) const {
  *planned = PlanCountedRun(side, run, err);
  return *planned && FingerprintSide(common_, side, *run, fp, err);
}

std::string SideCounter::Key(const Workload& w, const WorkDir& dir, const std::string& exe) const {
  if (!storing()) return "";
  RunIdentity run;
  Fingerprint fp;
  bool planned = false;
  std::string err;
  if (!PlanAndFingerprint(RunOf(w, dir, exe), &run, &fp, &planned, &err)) return "";
  return KeyOf(*cache_, w, fp, run.cwd);
}

void SideCounter::Prefetch(const std::vector<Workload>& workloads,
                           const std::vector<std::string>& exes) {
  if (!storing()) return;
  std::vector<std::string> keys;
  for (const Workload& w : workloads) {
    WorkDir dir(w, suite_dir_);
    for (const std::string& exe : exes) {
      if (!exe.empty()) keys.push_back(Key(w, dir, exe));
    }
  }
  cache_->Prefetch(keys);
}

CachedSide SideCounter::Count(const SideRequest& request) {
  CachedSide side;
  if (!storing()) {
    CountUncached(request, &side);
    return side;
  }
  CountCache& cache = *cache_;
  const Workload& w = request.w;
  const SideRun side_run = RunOf(w, request.dir, request.exe);
  RunIdentity run;
  std::string err;
  Fingerprint before;
  bool planned = false;
  if (!PlanAndFingerprint(side_run, &run, &before, &planned, &err)) {
    if (!planned) {
      side.counted.error = err;  // as CountWorkload would say
      return side;
    }
    // Nothing to key it by: counted as without the store, and the error
    // comes again from the fingerprint after the runs.
    CountUncached(request, &side);
    return side;
  }
  side.key = KeyOf(cache, w, before, run.cwd);
  side.fingerprint = before;

  std::optional<StoredCount> entry =
      LookUp(cache, w, request.count.score_side, request.labels.label, side.key);
  std::string keep = request.count.keep_profiles_dir;
  if (entry) {
    side.counted.from_store = entry->counts;
    side.counted.score = entry->score;
    side.counted.argv = run.argv;
    side.counted.env = run.env;
    side.counted.deterministic = entry->deterministic;
    side.from_store = FromStore{entry->counted_at, entry->ref, entry->label, entry->counts.size()};
    side.in_store = entry->counts.size();
    side.inputs = entry->inputs;
    side.inputs_digest = entry->inputs_digest;
    side.simulated = entry->simulated;
    side.simulated_in_store = entry->simulated.has_value();
    if (!keep.empty() && !entry->profiles.empty()) {
      if (WriteProfileFiles(keep, entry->profiles, entry->counts.front(), &err)) {
        keep.clear();  // the first count's profile is in place: the runs keep none
      } else {
        cache.Note(fmt::format("{}: {}; its profile comes from a run", w.name, err));
      }
    }
    if (static_cast<int>(entry->counts.size()) >= request.count.repeat) return side;
  }

  // The repeats the store lacks (all of them on a miss).
  CountSpec missing = request.count;
  missing.repeat -= static_cast<int>(side.counted.from_store.size());
  missing.keep_profiles_dir = keep;
  CountedWorkload fresh = CountWorkload(counter_, side_run, missing);
  fresh.from_store = std::move(side.counted.from_store);
  // Stored counts are deterministic where their entry says its first run
  // was (StoredCount::deterministic).
  fresh.deterministic = fresh.deterministic && (!entry || entry->deterministic);
  side.counted = std::move(fresh);
  if (!side.counted.valid()) return side;

  // Kept only when the files are still those the key was made of.
  Fingerprint after;
  const RunIdentity ran{side.counted.argv, side.counted.env, run.cwd, run.host_cwd};
  if (!FingerprintSide(common_, side_run, ran, &after, &side.fingerprint_error)) {
    side.fingerprint = after;
    return side;
  }
  if (KeyOf(cache, w, after, run.cwd) != side.key) {
    side.fingerprint = after;
    cache.Note(fmt::format("{}: the program's files changed while it ran; its count is not kept",
                           w.name));
    side.key.clear();
    return side;
  }
  // What the runs read, as it is now: what a later run must find unchanged
  // to be given these counts.
  std::string not_kept;
  InputManifest manifest;
  std::vector<InputRecord> records;
  for (const CountedRun& r : side.counted.runs) {
    if (!r.inputs_traced) {
      not_kept = counter_.name() + " does not show what the program reads";
    } else if (r.inputs_overflow && not_kept.empty()) {
      not_kept = "vgcount could not record all that the program read";
    }
    records.insert(records.end(), r.inputs.begin(), r.inputs.end());
  }
  if (not_kept.empty()) {
    MakeInputManifest(records, Scope(request.dir, request.exe, side.counted.argv, side.counted.env), &manifest,
                      &not_kept);
  }
  if (!not_kept.empty()) {
    cache.Note(fmt::format("{}: its count is not kept in the store: {}", w.name, not_kept));
    side.key.clear();
    return side;
  }
  StoredCount add;
  add.inputs = ManifestJson(manifest);
  add.inputs_digest = ManifestDigest(manifest);
  const std::vector<uint64_t> counts = side.counted.counts();
  add.counts.assign(counts.begin() + static_cast<long>(side.in_store), counts.end());
  add.score = side.counted.score;
  if (!keep.empty()) add.profiles = ReadProfileFiles(keep);
  add.counted_at = UtcNow();
  add.ref = request.labels.ref;
  add.label = request.labels.label;
  add.workgate_version = common_.workgate_version;
  add.deterministic = side.counted.deterministic;
  // Counted runs that simulated (a workload gated on estimated cycles):
  // the first one's events go with its profile.
  if (side.in_store == 0 && !side.counted.runs.empty()) {
    add.simulated = SimulatedOf(side.counted.runs.front());
  }
  if (cache.Add(side.key, add, &err)) {
    side.in_store = counts.size();
    side.inputs = add.inputs;
    side.inputs_digest = add.inputs_digest;
    side.simulated_in_store = side.simulated_in_store || add.simulated.has_value();
  } else {
    cache.Note("the result store could not keep a count (" + err + ")");
  }
  return side;
}

void SideCounter::KeepMore(const SideResult& result, CachedSide* side) {
  const std::vector<uint64_t>& counts = result.counts;
  if (!storing() || side->key.empty() || side->inputs.empty() || !result.error.empty() ||
      counts.size() <= side->in_store) {
    return;
  }
  StoredCount more;
  more.counts.assign(counts.begin() + static_cast<long>(side->in_store), counts.end());
  more.score = side->counted.score;
  more.counted_at = UtcNow();
  more.workgate_version = side->fingerprint.workgate_version;
  // The same inputs as the entry: appended to it, never replacing it.
  more.inputs = side->inputs;
  more.inputs_digest = side->inputs_digest;
  std::string err;
  if (cache_->Add(side->key, more, &err)) {
    side->in_store = counts.size();
  } else {
    cache_->Note("the result store could not keep a count (" + err + ")");
  }
}

void SideCounter::KeepSimulated(const SideResult& result, const std::string& profile_dir,
                                Metric metric, CachedSide* side) {
  if (!storing() || side->key.empty() || side->inputs.empty() || side->simulated_in_store ||
      !result.error.empty() || !result.simulated) {
    return;
  }
  const uint64_t count = GatedFigure(metric, *result.simulated);
  if (std::find(result.counts.begin(), result.counts.end(), count) == result.counts.end()) return;
  std::string err;
  if (cache_->AddSimulated(side->key, side->inputs_digest, count, *result.simulated,
                           profile_dir.empty() ? ProfileTexts() : ReadProfileFiles(profile_dir),
                           &err)) {
    side->simulated_in_store = true;
  } else {
    cache_->Note("the result store could not keep simulated events (" + err + ")");
  }
}

}  // namespace workgate
