// A store that an older workgate left at schema version 1 (migration step 1
// alone, rows written as that version's columns) is migrated to the
// current version on Open: its history is still there and trusted, and its
// cached counts, which do not say what their programs read, are gone.
#include <gtest/gtest.h>

#include <filesystem>

#include "store/result_store.h"
#include "store/store_codec.h"
#include "store/store_files.h"
#include "store/store_schema.h"
#include "store/store_test_util.h"

namespace workgate {
namespace {

using testing_store::Key;
using testing_store::MakeEntry;
using testing_store::MakeRecord;
using testing_store::RawDb;

using ResultStoreMigrationTest = testing_store::StoreTest;

TEST_F(ResultStoreMigrationTest, AVersionOneStoreIsMigratedKeepingItsHistory) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  StoredCount entry = MakeEntry({11, 12});
  entry.ref = "v1";
  entry.profiles = {{"callgrind.out.1", std::string("a\0b", 3)}};
  HistoryRecord record = MakeRecord("v1", "interp/fib", "2026-11-30T12:00:00Z", {11});
  record.max_work_added = 0.25;  // exact in binary, as text below
  {
    RawDb raw(path_);
    sqlite::SqlError e;
    ASSERT_TRUE(MigrateStore(raw.get(), 1, &e)) << e.message;
    ASSERT_EQ(raw.Text("PRAGMA user_version"), "1");
    const std::string digest = ProfilesDigest(entry.profiles);
    raw.Exec(
        "INSERT INTO count_cache(key, counts, score, profiles_sha256, counted_at, ref, label, "
        "workgate_version, checksum) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        {Key(1), "11,12", *entry.score, digest, entry.counted_at, entry.ref, entry.label,
         entry.workgate_version, EntryChecksum(Key(1), entry, digest)});
    raw.Exec(
        "INSERT INTO cache_profiles(key, ordinal, name, contents) "
        "VALUES(?1, 0, ?2, CAST(?3 AS BLOB))",
        {Key(1), entry.profiles[0].first, entry.profiles[0].second});
    const std::string parts = ConditionPartsJson(record.condition_parts);
    raw.Exec(
        "INSERT INTO history(ref, recorded_at, workload, backend, event, counts, "
        "max_work_added, score, conditions, condition_parts, checksum) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, CAST(?7 AS REAL), NULL, ?8, ?9, ?10)",
        {record.ref, record.recorded_at, record.workload, record.backend, record.event, "11",
         "0.25", record.conditions, parts, HistoryChecksum(record, parts)});
  }
  auto store = OpenStore();
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("PRAGMA user_version"), std::to_string(kStoreSchemaVersion));
  EXPECT_EQ(
      raw.Text("SELECT count(*) FROM sqlite_master WHERE name = ?1", {"count_cache_by_last_used"}),
      "1");
  // Version 5: an entry without an input manifest cannot be checked, so
  // it is not kept, nor its profiles.
  EXPECT_FALSE(Find(*store, Key(1)).has_value());
  EXPECT_EQ(raw.Text("SELECT count(*) FROM count_cache"), "0");
  EXPECT_EQ(raw.Text("SELECT count(*) FROM cache_profiles"), "0");
  // New entries carry their manifest, and are found again.
  std::string err;
  ASSERT_TRUE(store->Add(Key(2), MakeEntry({21}), &err)) << err;
  std::optional<StoredCount> found = Find(*store, Key(2));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->counts, std::vector<uint64_t>{21});
  EXPECT_EQ(found->inputs, MakeEntry({21}).inputs);
  EXPECT_EQ(found->inputs_digest, MakeEntry({21}).inputs_digest);
  const std::vector<HistoryRecord> history = ReadHistory(*store);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].workload, "interp/fib");
  EXPECT_EQ(history[0].max_work_added, 0.25);
  EXPECT_EQ(history[0].condition_parts, record.condition_parts);
  // A record from before subjects and commit dates has neither, and its
  // checksum still holds.
  EXPECT_EQ(raw.Text("SELECT count(*) FROM pragma_table_info('history') WHERE name = 'subject'"),
            "1");
  EXPECT_FALSE(history[0].subject.has_value());
  EXPECT_EQ(
      raw.Text("SELECT count(*) FROM pragma_table_info('history') WHERE name = 'committed_at'"),
      "1");
  EXPECT_FALSE(history[0].committed_at.has_value());
}

TEST_F(ResultStoreMigrationTest, AVersionFiveEntryIsKeptWithoutSimulatedEvents) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  StoredCount entry = MakeEntry({31, 31});
  entry.deterministic = true;
  {
    RawDb raw(path_);
    sqlite::SqlError e;
    ASSERT_TRUE(MigrateStore(raw.get(), 5, &e)) << e.message;
    const std::string digest = ProfilesDigest({});
    raw.Exec(
        "INSERT INTO count_cache(key, counts, score, profiles_sha256, counted_at, ref, label, "
        "workgate_version, checksum, last_used, deterministic, inputs, inputs_sha256) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1, ?11, ?12)",
        {Key(1), "31,31", *entry.score, digest, entry.counted_at, entry.ref, entry.label,
         entry.workgate_version, EntryChecksum(Key(1), entry, digest), StoreDate(0),
         entry.inputs, entry.inputs_digest});
  }
  auto store = OpenStore();
  EXPECT_EQ(RawDb(path_).Text("PRAGMA user_version"), std::to_string(kStoreSchemaVersion));
  // Its checksum still holds: it has no events, and takes them later.
  std::optional<StoredCount> found = Find(*store, Key(1));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->counts, (std::vector<uint64_t>{31, 31}));
  EXPECT_FALSE(found->simulated);
  SimulatedEvents events;
  events.instructions = 31;
  events.costs[0] = 5;
  std::string err;
  ASSERT_TRUE(store->AddSimulated(Key(1), entry.inputs_digest, 31, events, {}, &err)) << err;
  EXPECT_EQ(Find(*store, Key(1))->simulated, events);
}

TEST_F(ResultStoreMigrationTest, MigratingAgainChangesNothing) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  RawDb raw(path_);
  sqlite::SqlError e;
  ASSERT_TRUE(MigrateStore(raw.get(), kStoreSchemaVersion, &e)) << e.message;
  const std::string schema = raw.Text("SELECT group_concat(sql, ';') FROM sqlite_master");
  ASSERT_TRUE(MigrateStore(raw.get(), 1, &e)) << e.message;
  ASSERT_TRUE(MigrateStore(raw.get(), kStoreSchemaVersion, &e)) << e.message;
  EXPECT_EQ(raw.Text("SELECT group_concat(sql, ';') FROM sqlite_master"), schema);
  EXPECT_EQ(raw.Text("PRAGMA user_version"), std::to_string(kStoreSchemaVersion));
}

}  // namespace
}  // namespace workgate
