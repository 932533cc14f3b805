// The count cache on a real file: what goes in comes out, appended and
// bounded as the header says, and a row changed behind the store's back is
// never trusted.
#include "store/result_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>
#include <string>

#include "store/store_test_util.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {
namespace {

using testing_store::Key;
using testing_store::MakeEntry;
using testing_store::RawDb;

using ResultStoreTest = testing_store::StoreTest;

TEST_F(ResultStoreTest, AnEntryWithBinaryProfilesComesBackWhole) {
  StoredCount entry = MakeEntry({0, 42, UINT64_MAX});
  entry.ref = "v1.2";
  entry.profiles = {{"callgrind.out.1", std::string("fn=main\0\xff\x01 end", 15)},
                    {"callgrind.out.2", ""},
                    {"name\xc3", std::string(3, '\0')}};
  {
    auto store = OpenStore();
    Add(*store, Key(1), entry);
  }
  // A new process's view: everything read from the file.
  auto store = OpenStore();
  std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->counts, entry.counts);
  EXPECT_EQ(found->score, entry.score);
  EXPECT_EQ(found->profiles, entry.profiles);
  EXPECT_EQ(found->profiles[0].second.size(), 15u);
  EXPECT_EQ(found->counted_at, entry.counted_at);
  EXPECT_EQ(found->ref, "v1.2");
  EXPECT_EQ(found->label, "base");
  EXPECT_EQ(found->workgate_version, "0.1.0-test");
  EXPECT_FALSE(Find(*store, Key(2)).has_value());
  // No score is not an empty score.
  entry.score.reset();
  Add(*store, Key(3), entry);
  EXPECT_EQ(Find(*store, Key(3))->score, std::nullopt);
}

TEST_F(ResultStoreTest, MakesItsDirectoriesPrivate) {
  auto store = OpenStore();
  for (const std::string& dir : {dir_.path() + "/cache", dir_.path() + "/cache/workgate"}) {
    struct stat st;
    ASSERT_EQ(stat(dir.c_str(), &st), 0) << dir;
    EXPECT_EQ(st.st_mode & 0777, 0700u) << dir;
  }
}

TEST_F(ResultStoreTest, AddAppendsCountsAndKeepsTheFirstWritersFields) {
  auto store = OpenStore();
  StoredCount first = MakeEntry({100, 101}, "first");
  first.profiles = {{"p", "first's profile"}};
  StoredCount second = MakeEntry({102}, "second");
  second.score = "other";
  second.counted_at = "2026-12-03T00:00:00Z";
  second.ref = "main";
  second.workgate_version = "0.2.0";
  second.profiles = {{"p", "second's profile"}};
  Add(*store, Key(1), first);
  Add(*store, Key(1), second);
  std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->counts, (std::vector<uint64_t>{100, 101, 102}));
  EXPECT_EQ(found->score, "10.000");
  EXPECT_EQ(found->label, "first");
  EXPECT_EQ(found->counted_at, "2026-12-02T03:04:05Z");
  EXPECT_EQ(found->workgate_version, "0.1.0-test");
  EXPECT_EQ(found->profiles, first.profiles);
  // The empty ref was filled by the second writer; a third does not replace it.
  EXPECT_EQ(found->ref, "main");
  second.ref = "later";
  Add(*store, Key(1), second);
  EXPECT_EQ(Find(*store, Key(1))->ref, "main");
}

TEST_F(ResultStoreTest, CountsOfOtherInputsReplaceTheEntry) {
  auto store = OpenStore();
  StoredCount first = MakeEntry({100, 101}, "first");
  first.profiles = {{"p", "first's profile"}};
  Add(*store, Key(1), first);
  // The program read other inputs (its script changed): the new count is
  // the entry now, with its own manifest, profile and fields.
  StoredCount second = MakeEntry({900}, "second");
  second.inputs = R"({"entries":[],"made_at_ns":1,"version":1})";
  second.inputs_digest = Sha256Hex("other inputs");
  second.profiles = {{"p", "second's profile"}};
  Add(*store, Key(1), second);
  std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->counts, std::vector<uint64_t>{900});
  EXPECT_EQ(found->label, "second");
  EXPECT_EQ(found->inputs, second.inputs);
  EXPECT_EQ(found->inputs_digest, second.inputs_digest);
  EXPECT_EQ(found->profiles, second.profiles);
  // Counts of the same inputs are appended again.
  StoredCount third = MakeEntry({901}, "third");
  third.inputs_digest = second.inputs_digest;
  Add(*store, Key(1), third);
  StoredCount same = MakeEntry({902}, "fourth");
  same.inputs_digest = second.inputs_digest;
  Add(*store, Key(1), same);
  EXPECT_EQ(Find(*store, Key(1))->counts, (std::vector<uint64_t>{900, 901, 902}));
}

TEST_F(ResultStoreTest, AnEntryWithoutAManifestIsNotStored) {
  auto store = OpenStore();
  StoredCount none = MakeEntry({1});
  none.inputs.clear();
  Add(*store, Key(1), none);
  EXPECT_FALSE(Find(*store, Key(1)).has_value());
  StoredCount bad_digest = MakeEntry({1});
  bad_digest.inputs_digest = "abc";
  Add(*store, Key(2), bad_digest);
  EXPECT_FALSE(Find(*store, Key(2)).has_value());
}

TEST_F(ResultStoreTest, KeepsAtMostTheBoundOfCounts) {
  auto store = OpenStore();
  std::vector<uint64_t> counts(kMaxStoredCounts + 1);
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = i;
  Add(*store, Key(1), MakeEntry(counts));
  std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->counts.size(), kMaxStoredCounts);
  EXPECT_EQ(found->counts.back(), kMaxStoredCounts - 1);
  Add(*store, Key(1), MakeEntry({7, 8}));
  EXPECT_EQ(Find(*store, Key(1))->counts.size(), kMaxStoredCounts);
}

TEST_F(ResultStoreTest, ProfilesBeyondTheBoundAreNotStoredButTheCountsAre) {
  auto store = OpenStore();
  StoredCount big = MakeEntry({5});
  big.profiles = {{"a", std::string(kMaxStoredProfileBytes / 2, 'a')},
                  {"b", std::string(kMaxStoredProfileBytes / 2 + 1, 'b')}};
  Add(*store, Key(1), big);
  StoredCount many = MakeEntry({6});
  many.profiles.assign(kMaxStoredProfileFiles + 1, {"p", "x"});
  Add(*store, Key(2), many);
  for (auto [key, count] : {std::pair{Key(1), 5}, std::pair{Key(2), 6}}) {
    std::optional<StoredCount> found = Find(*store, key);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->counts, std::vector<uint64_t>{static_cast<uint64_t>(count)});
    EXPECT_TRUE(found->profiles.empty());
  }
}

TEST_F(ResultStoreTest, WhatItCouldNotReadBackIsNotStored) {
  auto store = OpenStore();
  StoredCount long_label = MakeEntry({1}, std::string(kMaxStoredTextBytes + 1, 'l'));
  Add(*store, Key(1), long_label);
  EXPECT_FALSE(Find(*store, Key(1)).has_value());
  Add(*store, Key(2), MakeEntry({}));
  EXPECT_FALSE(Find(*store, Key(2)).has_value());
  // A caller's mistakes are errors.
  std::string err;
  EXPECT_FALSE(store->Add("not-a-key", MakeEntry({1}), &err));
  EXPECT_NE(err.find("not a count key"), std::string::npos) << err;
  StoredCount bad_time = MakeEntry({1});
  bad_time.counted_at = "2026-12-02 03:04:05";
  EXPECT_FALSE(store->Add(Key(3), bad_time, &err));
  EXPECT_NE(err.find("YYYY-MM-DDTHH:MM:SSZ"), std::string::npos) << err;
  EXPECT_FALSE(Find(*store, Key(3)).has_value());
}

TEST_F(ResultStoreTest, AChangedRowFailsItsChecksumAndIsDeleted) {
  auto store = OpenStore();
  StoredCount entry = MakeEntry({1000, 1001});
  entry.profiles = {{"p", "profile"}};
  struct Change {
    const char* sql;
    const char* why;
  };
  static_assert(kMaxStoredProfileFiles == 4096, "the last change adds 4096 files to one");
  for (const Change& change : {
           Change{"UPDATE count_cache SET counts = '1000,1002' WHERE key = ?1", "checksum"},
           Change{"UPDATE count_cache SET label = 'other' WHERE key = ?1", "checksum"},
           Change{"UPDATE count_cache SET inputs = '{}' WHERE key = ?1", "checksum"},
           Change{"UPDATE count_cache SET inputs_sha256 = ?1 WHERE key = ?1", "checksum"},
           Change{"UPDATE count_cache SET inputs_sha256 = 'abc' WHERE key = ?1", "SHA-256"},
           Change{"UPDATE count_cache SET inputs = x'7b7d' WHERE key = ?1", "not text"},
           Change{"UPDATE cache_profiles SET contents = x'00' WHERE key = ?1", "digest"},
           Change{"UPDATE count_cache SET counts = '18446744073709551616' WHERE key = ?1",
                  "64 bits"},
           Change{"UPDATE count_cache SET counts = x'35' WHERE key = ?1", "not text"},
           Change{"UPDATE count_cache SET counted_at = '2026-12-02' WHERE key = ?1",
                  "YYYY-MM-DDTHH:MM:SSZ"},
           // One file more than an entry may hold.
           Change{"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4096) "
                  "INSERT INTO cache_profiles SELECT ?1, i, 'p', x'' FROM n",
                  "bounds"},
       }) {
    Add(*store, Key(1), entry);
    RawDb(path_).Exec(change.sql, {Key(1)});
    std::string note;
    EXPECT_FALSE(Find(*store, Key(1), &note).has_value()) << change.sql;
    EXPECT_NE(note.find(change.why), std::string::npos) << change.sql << ": " << note;
    EXPECT_NE(note.find(Key(1)), std::string::npos) << note;
    RawDb raw(path_);
    EXPECT_EQ(raw.Text("SELECT count(*) FROM count_cache WHERE key = ?1", {Key(1)}), "0");
    EXPECT_EQ(raw.Text("SELECT count(*) FROM cache_profiles WHERE key = ?1", {Key(1)}), "0");
  }
}

SimulatedEvents Events(uint64_t instructions) {
  SimulatedEvents e;
  e.instructions = instructions;
  for (size_t i = 0; i < e.costs.size(); ++i) e.costs[i] = 10 * i + 1;
  return e;
}

TEST_F(ResultStoreTest, SimulatedEventsJoinTheEntryWhoseCountTheirRunGave) {
  StoredCount entry = MakeEntry({1000, 1000});
  entry.profiles = {{"counted", "fn=main"}};
  {
    auto store = OpenStore();
    Add(*store, Key(1), entry);
    std::string err;
    const std::vector<std::pair<std::string, std::string>> profiles = {{"simulated", "events"}};
    // Another count, other inputs, or no such entry: left as it is.
    ASSERT_TRUE(store->AddSimulated(Key(1), entry.inputs_digest, 999, Events(999), profiles, &err));
    ASSERT_TRUE(store->AddSimulated(Key(1), Sha256Hex("other"), 1000, Events(1000), profiles, &err));
    ASSERT_TRUE(store->AddSimulated(Key(2), entry.inputs_digest, 1000, Events(1000), profiles, &err));
    EXPECT_FALSE(Find(*store, Key(1))->simulated);
    EXPECT_FALSE(Find(*store, Key(2)));
    ASSERT_TRUE(store->AddSimulated(Key(1), entry.inputs_digest, 1000, Events(1000), profiles, &err))
        << err;
    // The first events stay: another run's are not taken.
    ASSERT_TRUE(store->AddSimulated(Key(1), entry.inputs_digest, 1000, Events(7), {}, &err));
    EXPECT_FALSE(store->AddSimulated("not-a-key", entry.inputs_digest, 1000, Events(1), {}, &err));
  }
  auto store = OpenStore();
  const std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found);
  ASSERT_TRUE(found->simulated);
  EXPECT_EQ(*found->simulated, Events(1000));
  // The simulated run's profile, which carries the events, replaced the
  // counting run's; the counts are as they were.
  EXPECT_EQ(found->profiles, (std::vector<std::pair<std::string, std::string>>{{"simulated", "events"}}));
  EXPECT_EQ(found->counts, (std::vector<uint64_t>{1000, 1000}));
  // Appended counts keep them.
  Add(*store, Key(1), MakeEntry({1000}));
  EXPECT_EQ(Find(*store, Key(1))->simulated, Events(1000));
}

TEST_F(ResultStoreTest, SimulatedEventsAreSignedWithTheEntry) {
  auto store = OpenStore();
  StoredCount entry = MakeEntry({1000});
  entry.simulated = Events(1000);
  for (const char* change : {"UPDATE count_cache SET simulated = '1000,1,1,1,1,1,1,1,1,1,1,1,1' "
                             "WHERE key = ?1",
                             "UPDATE count_cache SET simulated = '' WHERE key = ?1",
                             "UPDATE count_cache SET simulated = '1000,1' WHERE key = ?1",
                             "UPDATE count_cache SET simulated = x'31' WHERE key = ?1"}) {
    Add(*store, Key(1), entry);
    ASSERT_EQ(Find(*store, Key(1))->simulated, Events(1000));
    RawDb(path_).Exec(change, {Key(1)});
    std::string note;
    EXPECT_FALSE(Find(*store, Key(1), &note).has_value()) << change;
    EXPECT_NE(note.find("was not trusted"), std::string::npos) << change << ": " << note;
  }
}

TEST_F(ResultStoreTest, AddReplacesAChangedEntryRatherThanSigningIt) {
  auto store = OpenStore();
  Add(*store, Key(1), MakeEntry({1}));
  RawDb(path_).Exec("UPDATE count_cache SET counts = '999' WHERE key = ?1", {Key(1)});
  Add(*store, Key(1), MakeEntry({2}));
  EXPECT_EQ(Find(*store, Key(1))->counts, std::vector<uint64_t>{2});
}

TEST_F(ResultStoreTest, AHitMarksTheEntryUsedToday) {
  auto store = OpenStore();
  Add(*store, Key(1), MakeEntry({1}));
  RawDb(path_).Exec("UPDATE count_cache SET last_used = '2020-01-01'");
  ASSERT_TRUE(Find(*store, Key(1)).has_value());
  EXPECT_EQ(RawDb(path_).Text("SELECT last_used FROM count_cache"), UtcNow().substr(0, 10));
}

TEST_F(ResultStoreTest, EntriesUnusedForSixtyDaysArePrunedOnOpen) {
  {
    auto store = OpenStore();
    StoredCount entry = MakeEntry({1});
    entry.profiles = {{"p", "profile"}};
    Add(*store, Key(1), entry);
    Add(*store, Key(2), entry);
    Record(*store, {testing_store::MakeRecord("r", "w", UtcNow(), {1})});
  }
  const auto days_ago = [](int days) {
    time_t t = time(nullptr) - days * 86400;
    struct tm utc;
    gmtime_r(&t, &utc);
    char date[16];
    strftime(date, sizeof date, "%Y-%m-%d", &utc);
    return std::string(date);
  };
  RawDb(path_).Exec("UPDATE count_cache SET last_used = ?1 WHERE key = ?2", {days_ago(61), Key(1)});
  RawDb(path_).Exec("UPDATE count_cache SET last_used = ?1 WHERE key = ?2", {days_ago(59), Key(2)});
  auto store = OpenStore();
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("SELECT count(*) FROM count_cache WHERE key = ?1", {Key(1)}), "0");
  EXPECT_EQ(raw.Text("SELECT count(*) FROM cache_profiles WHERE key = ?1", {Key(1)}), "0");
  EXPECT_TRUE(Find(*store, Key(2)).has_value());
  EXPECT_EQ(raw.Text("SELECT count(*) FROM history"), "1");  // history is kept
}

}  // namespace
}  // namespace workgate
