// Counting one side through the result store (measure/count_cache.h): what
// is run, what is taken from the store, what is kept, and what a build that
// writes into the store while it runs can and cannot change. The workloads
// are real processes; a counter that reads fixed figures (and writes a
// profile of them, as vgcount does) stands in for Valgrind.

#include "measure/count_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "measure/input_record_of.h"
#include "measure/stability_runs.h"
#include "model/backend.h"
#include "store/result_store.h"
#include "util/paths.h"

namespace workgate {
namespace {

// An exact backend by name: every run counts `value`, and where a profile
// is asked for it writes one whose two functions add up to it; `after_run`
// is called after each run.
class FixedExactCounter : public Counter {
 public:
  explicit FixedExactCounter(uint64_t value) : value_(value) {}
  Backend backend() const override { return Backend::kVgcount; }
  std::string event() const override { return "Ir"; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions& options) override {
    ++runs;
    CountedRun run;
    run.launch = Launch(spec);
    MarkFailedLaunch(&run, spec.timeout_seconds);
    run.events = {EventCount{"Ir", value_, 0, 0}};
    run.inputs_traced = traced;
    run.inputs_overflow = overflow;
    for (const std::string& path : reads) {
      run.inputs.push_back(testing::InputRecordOf(InputRecord::Kind::kOpen, path));
    }
    if (!options.keep_profiles_dir.empty()) {
      std::filesystem::create_directories(options.keep_profiles_dir);
      std::ofstream(options.keep_profiles_dir + "/vgcount.profile.2")
          << "# callgrind format\nversion: 1\npositions: line\nevents: Ir\nob=(1) /bin/x\n"
          << "fn=(1) main\n0 " << value_ - 1 << "\nfn=(2) helper\n0 1\ntotals: " << value_ << "\n";
    }
    if (after_run) after_run();
    return run;
  }
  std::function<void()> after_run;
  std::vector<std::string> reads;  // the files each run opens
  bool traced = true;
  bool overflow = false;
  int runs = 0;
  uint64_t value_;
};

// A stored entry's manifest of no inputs.
void NoInputs(StoredCount* entry) {
  entry->inputs = ManifestJson(InputManifest{});
  entry->inputs_digest = ManifestDigest(InputManifest{});
}

class CountCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> notes;
    std::string err;
    store_ = ResultStore::Open(dir_.path() + "/store.sqlite3", &notes, &err);
    ASSERT_TRUE(store_) << err;
    context_ = {"build-id:01", "build-id:02", "GenuineIntel avx2", ""};
    w_.name = "count-cache-test";
    w_.command = {"/bin/true", "{exe}"};
    w_.timeout_seconds = 60;
    common_.backend = "vgcount";
    common_.event = "Ir";
    common_.workgate_version = "test";
  }

  CachedSide Count(CountCache& cache, Counter& counter, int repeat, const std::string& keep = "",
                   const std::string& exe = "/bin/true") {
    WorkDir dir(w_, dir_.path());
    SideCounter sides(counter, common_, dir_.path(), {}, &cache);
    const CountSpec spec{
        .score_side = ScoreSide::kCandidate, .repeat = repeat, .keep_profiles_dir = keep};
    return sides.Count({w_, dir, exe, spec, {"build", "ref-1"}});
  }
  std::string Key(CountCache& cache, Counter& counter, const std::string& exe = "/bin/true") {
    WorkDir dir(w_, dir_.path());
    return SideCounter(counter, common_, dir_.path(), {}, &cache).Key(w_, dir, exe);
  }

  TempDir dir_;
  std::unique_ptr<ResultStore> store_;
  CountContext context_;
  Workload w_;
  Fingerprint common_;
};

TEST_F(CountCacheTest, AMissIsCountedAndKeptAndTheNextRunTakesItWithItsProfile) {
  FixedExactCounter counter(5000);
  CountCache cache(store_.get(), context_);
  CachedSide first = Count(cache, counter, 1, dir_.path() + "/p1");
  ASSERT_TRUE(first.counted.valid()) << first.counted.error;
  EXPECT_EQ(counter.runs, 1);
  EXPECT_FALSE(first.from_store);
  EXPECT_EQ(first.in_store, 1u);
  ASSERT_EQ(first.key, Key(cache, counter));

  // Another run of workgate: a new cache over the same store.
  CountCache next(store_.get(), context_);
  next.Prefetch({Key(next, counter)});
  CachedSide second = Count(next, counter, 1, dir_.path() + "/p2");
  EXPECT_EQ(counter.runs, 1) << "the stored count was counted again";
  ASSERT_TRUE(second.from_store);
  EXPECT_EQ(second.from_store->ref, "ref-1");
  EXPECT_EQ(second.from_store->label, "build");
  EXPECT_EQ(second.counted.counts(), std::vector<uint64_t>{5000});
  // The first count's profile, written where the explanation looks for it.
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/p2/vgcount.profile.2"));
  EXPECT_TRUE(next.notes().empty());
}

TEST_F(CountCacheTest, OnlyTheRepeatsTheStoreLacksAreRun) {
  FixedExactCounter counter(7000);
  CountCache cache(store_.get(), context_);
  ASSERT_TRUE(Count(cache, counter, 1).counted.valid());
  CountCache next(store_.get(), context_);
  CachedSide side = Count(next, counter, 3);
  EXPECT_EQ(counter.runs, 3);  // 1, then the 2 the store lacked
  EXPECT_EQ(side.counted.counts(), (std::vector<uint64_t>{7000, 7000, 7000}));
  EXPECT_EQ(side.in_store, 3u);
  std::optional<StoredCount> entry;
  std::string note, err;
  ASSERT_TRUE(store_->Find(side.key, &entry, &note, &err)) << err;
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->counts.size(), 3u);
}

TEST_F(CountCacheTest, AChecksCountsAndASimulatedRunJoinTheEntry) {
  // A stability check's count again joins the stored entry, so that the
  // next gate knows the side repeats and counts nothing; a simulated run
  // that gave one of its counts leaves its events and profile there.
  FixedExactCounter counter(5000);
  CountCache cache(store_.get(), context_);
  WorkDir dir(w_, dir_.path());
  SideCounter sides(counter, common_, dir_.path(), {}, &cache);
  CachedSide side =
      sides.Count({w_, dir, "/bin/true", {.score_side = ScoreSide::kCandidate}, {"b", ""}});
  ASSERT_TRUE(side.counted.valid()) << side.counted.error;
  ASSERT_EQ(side.in_store, 1u);
  auto stored = [&]() {
    std::optional<StoredCount> entry;
    std::string note, err;
    EXPECT_TRUE(store_->Find(side.key, &entry, &note, &err)) << err;
    return entry.value_or(StoredCount());
  };
  SideResult result;
  result.counts = {5000, 5000};
  result.error = "a repeat count (stability check): it failed";
  sides.KeepMore(result, &side);  // a side that failed keeps none
  EXPECT_EQ(stored().counts, std::vector<uint64_t>{5000});
  result.error.clear();
  sides.KeepMore(result, &side);
  EXPECT_EQ(stored().counts, (std::vector<uint64_t>{5000, 5000}));
  EXPECT_EQ(side.in_store, 2u);
  sides.KeepMore(result, &side);  // nothing new: nothing added
  EXPECT_EQ(stored().counts.size(), 2u);

  const std::string profile = dir_.path() + "/simulated";
  std::filesystem::create_directories(profile);
  std::ofstream(profile + "/vgcount.profile.7")
      << "# callgrind format\nversion: 1\npositions: line\nevents: Ir\nob=(1) /bin/x\n"
      << "fn=(1) main\n0 5000\ntotals: 5000\n";
  SimulatedEvents events;
  events.costs[0] = 42;
  events.instructions = 4999;  // another count than the side's: not kept
  result.simulated = events;
  sides.KeepSimulated(result, profile, Metric::kInstructions, &side);
  EXPECT_FALSE(stored().simulated);
  events.instructions = 5000;
  result.simulated = events;
  sides.KeepSimulated(result, profile, Metric::kInstructions, &side);
  const StoredCount entry = stored();
  ASSERT_TRUE(entry.simulated);
  EXPECT_EQ(*entry.simulated, events);
  ASSERT_EQ(entry.profiles.size(), 1u);
  EXPECT_EQ(entry.profiles[0].first, "vgcount.profile.7");
  EXPECT_TRUE(side.simulated_in_store);
}

TEST_F(CountCacheTest, AfterPrefetchNothingWrittenToTheStoreByOthersIsBelieved) {
  // A build of this run writes a count of its own into the store file while
  // it runs: the run read the store before any build ran, and keeps to it.
  FixedExactCounter counter(9000);
  CountCache cache(store_.get(), context_);
  const std::string key = Key(cache, counter);
  cache.Prefetch({key});
  StoredCount forged;
  forged.counts = {1};
  forged.counted_at = UtcNow();
  forged.label = "forged";
  NoInputs(&forged);
  std::string err;
  std::vector<std::string> notes;
  auto other = ResultStore::Open(dir_.path() + "/store.sqlite3", &notes, &err);
  ASSERT_TRUE(other) << err;
  ASSERT_TRUE(other->Add(key, forged, &err)) << err;
  CachedSide side = Count(cache, counter, 1);
  EXPECT_EQ(counter.runs, 1);
  EXPECT_FALSE(side.from_store);
  EXPECT_EQ(side.counted.counts(), std::vector<uint64_t>{9000});
}

TEST_F(CountCacheTest, ACountAddedInThisRunServesAnIdenticalSide) {
  FixedExactCounter counter(4000);
  CountCache cache(store_.get(), context_);
  cache.Prefetch({Key(cache, counter)});
  ASSERT_TRUE(Count(cache, counter, 1).counted.valid());
  CachedSide again = Count(cache, counter, 1);
  EXPECT_EQ(counter.runs, 1);
  ASSERT_TRUE(again.from_store);
  EXPECT_EQ(again.counted.counts(), std::vector<uint64_t>{4000});
}

TEST_F(CountCacheTest, AStoredScoreTheSuiteDoesNotAssertIsCountedAgain) {
  // The suite's score is part of the key, so such an entry was put there by
  // something other than a run of this workload.
  w_.score_pattern = "(nothing)";
  w_.score_expect = "42";
  FixedExactCounter counter(3000);
  CountCache cache(store_.get(), context_);
  const std::string key = Key(cache, counter);
  StoredCount wrong;
  wrong.counts = {3000};
  wrong.score = "41";
  wrong.counted_at = UtcNow();
  NoInputs(&wrong);
  std::string err;
  ASSERT_TRUE(store_->Add(key, wrong, &err)) << err;
  CachedSide side = Count(cache, counter, 1);
  EXPECT_EQ(counter.runs, 1);  // counted again (its score is then checked as any run's)
  EXPECT_FALSE(side.from_store);
  ASSERT_FALSE(cache.notes().empty());
  EXPECT_NE(cache.notes()[0].find("score"), std::string::npos) << cache.notes()[0];
}

TEST_F(CountCacheTest, AStoredProfileThatDoesNotAddUpIsNotUsed) {
  FixedExactCounter counter(6000);
  CountCache cache(store_.get(), context_);
  const std::string key = Key(cache, counter);
  StoredCount entry;
  entry.counts = {6000};
  entry.counted_at = UtcNow();
  entry.profiles = {{"vgcount.profile.2",
                     "# callgrind format\nversion: 1\nevents: Ir\nfn=(1) main\n0 5999\n"
                     "totals: 5999\n"}};
  NoInputs(&entry);
  std::string err;
  ASSERT_TRUE(store_->Add(key, entry, &err)) << err;
  CachedSide side = Count(cache, counter, 1, dir_.path() + "/p");
  EXPECT_EQ(counter.runs, 0);  // the count serves; its profile does not
  ASSERT_TRUE(side.from_store);
  EXPECT_TRUE(ProfileFiles(dir_.path() + "/p").empty());
  ASSERT_FALSE(cache.notes().empty());
  EXPECT_NE(cache.notes()[0].find("adds up to 5999, its count is 6000"), std::string::npos)
      << cache.notes()[0];
}

TEST_F(CountCacheTest, ABuildThatChangesDuringItsRunIsCountedButNotKept) {
  // The program's file changes by the time its run ends (where its file
  // system is not read-only to it, the program itself could do it): what
  // ran is not what the key was made of.
  const std::string build = dir_.path() + "/changing";
  std::ofstream(build) << "#!/bin/sh\nexit 0\n";
  std::filesystem::permissions(build, std::filesystem::perms::owner_all);
  w_.command = {"{exe}"};
  FixedExactCounter counter(8000);
  counter.after_run = [&build] { std::ofstream(build, std::ios::app) << "# changed\n"; };
  CountCache cache(store_.get(), context_);
  CachedSide side = Count(cache, counter, 1, "", build);
  ASSERT_TRUE(side.counted.valid()) << side.counted.error;
  EXPECT_TRUE(side.key.empty());
  EXPECT_EQ(side.in_store, 0u);
  ASSERT_FALSE(cache.notes().empty());
  EXPECT_NE(cache.notes()[0].find("changed while it ran"), std::string::npos);
}

TEST_F(CountCacheTest, AnInputThatChangedIsCountedAgainAndTheNotesSayWhich) {
  const std::string script = dir_.path() + "/s.lua";
  std::ofstream(script) << "for i = 1, 100000 do end\n";
  // Named on the command line: bound into the run's file system even
  // where /tmp is the run's own.
  w_.command = {"/bin/true", "{exe}", script, dir_.path() + "/absent.lua"};
  FixedExactCounter counter(2000);
  counter.reads = {script, dir_.path() + "/absent.lua"};
  CountCache cache(store_.get(), context_);
  ASSERT_EQ(Count(cache, counter, 1).in_store, 1u);
  CountCache same(store_.get(), context_);
  EXPECT_TRUE(Count(same, counter, 1).from_store) << "nothing changed";
  EXPECT_EQ(counter.runs, 1);

  // The same length, other text: only the content tells.
  std::ofstream(script) << "for i = 1, 900000 do end\n";
  counter.value_ = 16000;
  CountCache next(store_.get(), context_);
  CachedSide side = Count(next, counter, 1);
  EXPECT_EQ(counter.runs, 2);
  EXPECT_FALSE(side.from_store);
  EXPECT_EQ(side.counted.counts(), std::vector<uint64_t>{16000});
  ASSERT_EQ(next.notes().size(), 1u);
  EXPECT_EQ(next.notes()[0], "count-cache-test (build): the stored count was not used: the file " +
                                 script + " changed since it was counted; counted again");
  // The new count replaced the entry: the next run takes it.
  CountCache after(store_.get(), context_);
  EXPECT_EQ(Count(after, counter, 1).counted.counts(), std::vector<uint64_t>{16000});
  EXPECT_EQ(counter.runs, 2);

  // A file the program looked for and did not find, there now.
  std::ofstream(dir_.path() + "/absent.lua") << "\n";
  CountCache appeared(store_.get(), context_);
  EXPECT_FALSE(Count(appeared, counter, 1).from_store);
  ASSERT_EQ(appeared.notes().size(), 1u);
  EXPECT_NE(appeared.notes()[0].find("absent.lua exists now; it did not when counted"),
            std::string::npos)
      << appeared.notes()[0];
}

TEST_F(CountCacheTest, AnInputThatChangesWhileTheProgramRunsIsNotKept) {
  const std::string input = dir_.path() + "/input.txt";
  std::ofstream(input) << "data\n";
  w_.command = {"/bin/true", "{exe}", input};
  FixedExactCounter counter(2500);
  counter.reads = {input};
  counter.after_run = [&input] { std::ofstream(input, std::ios::app) << "more\n"; };
  CountCache cache(store_.get(), context_);
  CachedSide side = Count(cache, counter, 1);
  ASSERT_TRUE(side.counted.valid()) << side.counted.error;
  EXPECT_TRUE(side.key.empty());
  EXPECT_EQ(side.in_store, 0u);
  ASSERT_EQ(cache.notes().size(), 1u);
  EXPECT_EQ(cache.notes()[0], "count-cache-test: its count is not kept in the store: the file " +
                                  input + " changed while the program ran");
}

TEST_F(CountCacheTest, ACounterThatCannotShowTheReadsKeepsNothing) {
  FixedExactCounter counter(3500);
  counter.traced = false;
  CountCache cache(store_.get(), context_);
  EXPECT_EQ(Count(cache, counter, 1).in_store, 0u);
  ASSERT_EQ(cache.notes().size(), 1u);
  EXPECT_NE(cache.notes()[0].find("does not show what the program reads"), std::string::npos);
  counter.traced = true;
  counter.overflow = true;
  CountCache next(store_.get(), context_);
  EXPECT_EQ(Count(next, counter, 1).in_store, 0u);
  ASSERT_EQ(next.notes().size(), 1u);
  EXPECT_NE(next.notes()[0].find("could not record all that the program read"),
            std::string::npos);
  EXPECT_EQ(counter.runs, 2);
}

TEST_F(CountCacheTest, WithoutAStoreEverySideIsCounted) {
  FixedExactCounter counter(1000);
  CountCache none;
  EXPECT_EQ(Key(none, counter), "");
  Count(none, counter, 2);
  Count(none, counter, 2);
  EXPECT_EQ(counter.runs, 4);
}

}  // namespace
}  // namespace workgate
