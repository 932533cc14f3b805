#pragma once
// Counting one side of one workload through the result store's count cache
// (store/result_store.h): on an exact backend a count is a pure function of
// everything its key digests (identity/count_key.h), so a side whose key the
// store holds is not run again, and a side that is counted is kept for the
// next run. perf counts vary, so on perf this only counts.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "identity/count_key.h"
#include "measure/input_manifest.h"
#include "measure/measure.h"
#include "model/model.h"
#include "store/result_store.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {

/// The store as one run of workgate (a comparison, a suite count) uses it.
/// Shared by the jobs of that run.
///
/// The builds a run counts are untrusted, and run as the user who owns the
/// store: a build could write into the store file while it runs, to give a
/// later workload of the same run a count it never made. So a run reads the
/// store once, before any workload runs (Prefetch), and afterwards answers
/// from what it read and from what it added itself; it only writes.
class CountCache {
 public:
  /// No store: every side is counted and nothing is kept.
  CountCache() = default;
  /// Counts through `store` (not null). `context` holds the key's parts
  /// that are the same for every side of the run (its cwd is each run's own).
  CountCache(ResultStore* store, CountContext context);

  bool enabled() const { return store_ != nullptr; }
  const CountContext& context() const { return context_; }

  /// Reads the entries of `keys` from the store, once; from then on Find
  /// never reads it again. Called before the run's first workload runs.
  void Prefetch(const std::vector<std::string>& keys);
  /// The entry under `key`: what Prefetch read, or what this run added
  /// since; before Prefetch, read from the store.
  std::optional<StoredCount> Find(const std::string& key);
  /// Adds `entry` under `key` to the store (ResultStore::Add) and to what
  /// this run knows (appending its counts to an entry of the same inputs,
  /// replacing one of other inputs). False with `*err` when the store failed.
  bool Add(const std::string& key, const StoredCount& entry, std::string* err);
  /// Gives the entry under `key` a run's simulated events and profiles
  /// (ResultStore::AddSimulated), in the store and in what this run knows.
  bool AddSimulated(const std::string& key, const std::string& inputs_digest, uint64_t count,
                    const SimulatedEvents& events,
                    const std::vector<std::pair<std::string, std::string>>& profiles,
                    std::string* err);

  /// Says that the store failed (`what`): the run goes on without what it
  /// would have given, and the reports say so, each different message once.
  void Note(const std::string& what);
  /// The notes so far.
  std::vector<std::string> notes() const;

 private:
  std::optional<StoredCount> Read(const std::string& key);  // from the store

  ResultStore* store_ = nullptr;
  CountContext context_;
  mutable std::mutex mutex_;
  bool prefetched_ = false;
  std::map<std::string, StoredCount> known_;  // what was read or added
  std::vector<std::string> notes_;
  std::set<std::string> noted_;
};

/// The parts of every key of a run counted by `counter` (identity/count_key.h):
/// this workgate's executable, the counter's tool file, the guest CPU. False
/// with `*err` when one cannot be read: keys without it could give one
/// tool's count to another, so the run counts without the store.
bool MakeCountContext(const Counter& counter, CountContext* context, std::string* err);

/// One side of one workload, counted or taken from the store.
struct CachedSide {
  CountedWorkload counted;
  Fingerprint fingerprint;
  std::string fingerprint_error;  // non-empty: the fingerprint could not be taken
  std::string key;                // the cache key; "" where the store was not used
  std::optional<FromStore> from_store;  // set when the store gave counts
  size_t in_store = 0;  // how many of counted.counts() the store holds now
  /// The input manifest of the entry its counts are kept under (JSON, and
  /// the digest of what identifies the inputs); "" when they are not kept.
  std::string inputs;
  std::string inputs_digest;
  /// The simulated events the store gave with the counts (its entry's), so
  /// that the side needs no simulated run; and whether the store has the
  /// side's events already, from the store or kept since (KeepSimulated).
  std::optional<SimulatedEvents> simulated;
  bool simulated_in_store = false;
};

/// What the store should say of a side it keeps.
struct SideLabels {
  std::string label;  // the build as named on the command line
  std::string ref;    // --record REF, for the build recorded; "" otherwise
};

/// One side to count: a workload, its private directory, the build, how it
/// is counted (CountSpec), and what the store says of it. The suite's folder
/// and the launch options are the SideCounter's.
struct SideRequest {
  const Workload& w;
  const WorkDir& dir;
  const std::string& exe;
  CountSpec count;
  SideLabels labels;
};

/// The count cache as the orchestration (a comparison, a suite count) uses
/// it: what every side of one run is counted with (one counter, the
/// fingerprint's parts every side shares, the suite's directory, the launch
/// options) and the result store behind it. The orchestration reads the
/// store once (Prefetch), counts each side with one call (Count), and hands
/// back the counts a stability check added (KeepMore); when and whether the
/// store is used is decided here. Shared by the jobs of the run.
class SideCounter {
 public:
  /// `cache` null, or disabled, or a counter that is not exact: every side
  /// is counted, and nothing is kept.
  SideCounter(Counter& counter, Fingerprint common, std::string suite_dir, LaunchOptions options,
              CountCache* cache);

  Counter& counter() const { return counter_; }
  const Fingerprint& common() const { return common_; }
  const std::string& suite_dir() const { return suite_dir_; }
  const LaunchOptions& options() const { return options_; }
  /// The store is used: a cache, enabled, and an exact counter.
  bool storing() const;

  /// Reads the store's entries for every side the run will count, once,
  /// before any build runs (CountCache::Prefetch): the side of each of
  /// `workloads` for each of `exes` (an empty one is no side).
  void Prefetch(const std::vector<Workload>& workloads, const std::vector<std::string>& exes);

  /// The cache key of `w`'s side for the build `exe`, from its launch planned
  /// (PlanCountedRun) and fingerprinted (FingerprintSide) without running it;
  /// "" when the store is not used or the side cannot be fingerprinted.
  std::string Key(const Workload& w, const WorkDir& dir, const std::string& exe) const;

  /// Counts the side `count.repeat` times (CountWorkload), through the store
  /// where it is used:
  ///   - the side is fingerprinted before it runs and looked up under its key;
  ///   - a stored entry whose inputs are all as they were (ManifestChange:
  ///     the script, the data, the modules and directories the program read)
  ///     and with a score the workload asserts of the side gives its counts
  ///     (all of them: an entry counted more than once shows whether the
  ///     workload repeats), and its profile is written to the side's
  ///     `count.keep_profiles_dir` where one is asked for; only the repeats
  ///     it lacks are run, and they simulate where `count.simulate` asks
  ///     (the stored side's events are its entry's: CachedSide::simulated);
  ///   - what is run is added to the store, once the fingerprint taken again
  ///     after the run is the one it was looked up under (a program that
  ///     changed its own files is counted, never kept), with the manifest of
  ///     what its runs read (MakeInputManifest); a run whose reads the
  ///     counter cannot show (callgrind), or whose inputs changed while it
  ///     ran, is counted and not kept, and the store's notes say why.
  /// Without the store the side is counted and fingerprinted after its
  /// first run.
  CachedSide Count(const SideRequest& side);

  /// Adds the counts of `result` (the side's whole list, stored ones first)
  /// beyond the `side->in_store` the store already holds (a stability
  /// check's, an unstable workload's repeats) to its entry; nothing when
  /// `result` has an error: a run that failed makes none of its side's
  /// counts evidence.
  void KeepMore(const SideResult& result, CachedSide* side);

  /// Keeps `result`'s simulated events, and the profile of the run that
  /// simulated them (in `profile_dir`, "" none), with the side's entry, so
  /// that a later gate given its counts needs no simulated run: only where
  /// the side is in the store, its run gave one of its counts (the count
  /// for the metric), and the entry has no events yet.
  void KeepSimulated(const SideResult& result, const std::string& profile_dir, Metric metric,
                     CachedSide* side);

 private:
  // `w`'s side for the build `exe`, run with the suite's folder and the
  // launch options every side of the run shares.
  SideRun RunOf(const Workload& w, const WorkDir& dir, const std::string& exe) const;
  // What is the run's own, and what the exe link stands for, in the
  // manifests of `w`'s side for the build `exe`.
  ManifestScope Scope(const WorkDir& dir, const std::string& exe,
                      const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& env) const;
  // The side counted and fingerprinted without the store.
  void CountUncached(const SideRequest& request, CachedSide* out) const;
  // The side's launch and its fingerprint before it runs; false when the
  // launch cannot be planned (`*planned` false, `*err`) or the side cannot
  // be fingerprinted.
  bool PlanAndFingerprint(const SideRun& side, RunIdentity* run, Fingerprint* fp, bool* planned,
                          std::string* err) const;

  Counter& counter_;
  Fingerprint common_;
  std::string suite_dir_;
  LaunchOptions options_;
  CountCache* cache_;
};

}  // namespace workgate
