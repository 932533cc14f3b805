// The recorded history on a real file: records come back whole and in the
// order they were recorded, a ref recorded again replaces its record, and a
// record changed behind the store's back is left out and named.
#include <gtest/gtest.h>

#include <cmath>

#include "store/result_store.h"
#include "store/store_test_util.h"

namespace workgate {
namespace {

using testing_store::MakeRecord;
using testing_store::RawDb;

using ResultStoreHistoryTest = testing_store::StoreTest;

std::vector<std::string> Refs(const std::vector<HistoryRecord>& records) {
  std::vector<std::string> refs;
  for (const HistoryRecord& r : records) refs.push_back(r.ref + "/" + r.workload);
  return refs;
}

TEST_F(ResultStoreHistoryTest, RecordsComeBackWhole) {
  HistoryRecord a = MakeRecord("abc123", "interp/fib", "2026-12-01T10:00:00Z", {1, 2, 3});
  a.score = "55";
  a.subject = "Speed up <fib> \xe2\x80\x94 by 3%";
  a.committed_at = "2026-11-30T23:59:59Z";
  a.max_work_added = 0.05;
  a.condition_parts["path"] = "bytes\x01 and NUL-free text";
  HistoryRecord b = MakeRecord("abc123", "interp/loop", "2026-12-01T10:00:00Z", {UINT64_MAX});
  b.max_work_added = 0;
  b.backend = "perf";
  b.event = "instructions:u";
  {
    auto store = OpenStore();
    Record(*store, {a, b});
  }
  auto store = OpenStore();
  const std::vector<HistoryRecord> read = ReadHistory(*store);
  ASSERT_EQ(read.size(), 2u);
  for (const auto& [got, want] : {std::pair{read[0], a}, std::pair{read[1], b}}) {
    EXPECT_EQ(got.ref, want.ref);
    EXPECT_EQ(got.recorded_at, want.recorded_at);
    EXPECT_EQ(got.workload, want.workload);
    EXPECT_EQ(got.backend, want.backend);
    EXPECT_EQ(got.event, want.event);
    EXPECT_EQ(got.counts, want.counts);
    EXPECT_EQ(got.max_work_added, want.max_work_added);
    EXPECT_EQ(got.score, want.score);
    EXPECT_EQ(got.subject, want.subject);
    EXPECT_EQ(got.committed_at, want.committed_at);
    EXPECT_EQ(got.conditions, want.conditions);
    EXPECT_EQ(got.condition_parts, want.condition_parts);
  }
  EXPECT_EQ(Refs(ReadHistory(*store, {"interp/loop"})),
            std::vector<std::string>{"abc123/interp/loop"});
  EXPECT_TRUE(ReadHistory(*store, {"no/such"}).empty());
}

TEST_F(ResultStoreHistoryTest, OldestFirstThenInTheOrderRecorded) {
  auto store = OpenStore();
  Record(*store, {MakeRecord("c3", "w", "2026-12-03T00:00:00Z", {3})});
  Record(*store, {MakeRecord("c1", "w", "2026-12-01T00:00:00Z", {1})});
  // Three records of one moment, recorded in this order.
  Record(*store, {MakeRecord("b", "w", "2026-12-02T00:00:00Z", {2}),
                  MakeRecord("a", "w", "2026-12-02T00:00:00Z", {2})});
  Record(*store, {MakeRecord("c", "w", "2026-12-02T00:00:00Z", {2})});
  EXPECT_EQ(Refs(ReadHistory(*store)),
            (std::vector<std::string>{"c1/w", "b/w", "a/w", "c/w", "c3/w"}));
  // Recording "b" again replaces its record, which now counts as the latest
  // of that moment.
  Record(*store, {MakeRecord("b", "w", "2026-12-02T00:00:00Z", {4})});
  const std::vector<HistoryRecord> read = ReadHistory(*store, {"w"});
  EXPECT_EQ(Refs(read), (std::vector<std::string>{"c1/w", "a/w", "c/w", "b/w", "c3/w"}));
  EXPECT_EQ(read[3].counts, std::vector<uint64_t>{4});
  // Another backend's record of the same ref is a record of its own.
  HistoryRecord perf = MakeRecord("b", "w", "2026-12-02T00:00:00Z", {5});
  perf.backend = "perf";
  Record(*store, {perf});
  EXPECT_EQ(ReadHistory(*store).size(), 6u);
}

TEST_F(ResultStoreHistoryTest, AChangedRecordIsLeftOutAndNamed) {
  auto store = OpenStore();
  Record(*store, {MakeRecord("good", "w", "2026-12-01T00:00:00Z", {1}),
                  MakeRecord("counts", "w", "2026-12-01T00:00:00Z", {1}),
                  MakeRecord("margin", "w", "2026-12-01T00:00:00Z", {1}),
                  MakeRecord("time", "w", "2026-12-01T00:00:00Z", {1}),
                  MakeRecord("parts", "w", "2026-12-01T00:00:00Z", {1})});
  RawDb raw(path_);
  raw.Exec("UPDATE history SET counts = '2' WHERE ref = 'counts'");
  raw.Exec("UPDATE history SET max_work_added = 11 WHERE ref = 'margin'");
  raw.Exec("UPDATE history SET recorded_at = '2026-12-01T00:00:00' WHERE ref = 'time'");
  raw.Exec("UPDATE history SET condition_parts = '{}' WHERE ref = 'parts'");
  std::vector<std::string> notes;
  EXPECT_EQ(Refs(ReadHistory(*store, {}, &notes)), std::vector<std::string>{"good/w"});
  ASSERT_EQ(notes.size(), 4u);
  for (const auto& [ref, why] : {std::pair{"counts", "checksum"},
                                 {"margin", "max_work_added"},
                                 {"time", "YYYY-MM-DDTHH:MM:SSZ"},
                                 {"parts", "checksum"}}) {
    bool named = false;
    for (const std::string& note : notes) {
      named |= note.find(std::string("ref ") + ref + ",") != std::string::npos &&
               note.find(why) != std::string::npos;
    }
    EXPECT_TRUE(named) << ref << " is not named with \"" << why << "\" in " << notes[0];
  }
}

// The checksum covers a subject and a commit date; a record without one has
// none to lose, and one that is not text is no record.
TEST_F(ResultStoreHistoryTest, AChangedOrAddedSubjectOrCommitDateIsLeftOut) {
  struct Column {
    std::string name, value, what;
    std::optional<std::string> HistoryRecord::*field;
  };
  for (const Column& c :
       {Column{"subject", "the author's subject", "subject", &HistoryRecord::subject},
        Column{"committed_at", "2026-11-30T08:00:00Z", "commit date",
               &HistoryRecord::committed_at}}) {
    // A workload of its own for each column, in one store.
    auto store = OpenStore();
    const std::string& w = c.name;
    HistoryRecord changed = MakeRecord("changed", w, "2026-12-01T00:00:00Z", {1});
    changed.*c.field = c.value;
    Record(*store, {changed, MakeRecord("added", w, "2026-12-01T00:00:00Z", {1}),
                    MakeRecord("none", w, "2026-12-01T00:00:00Z", {1})});
    RawDb raw(path_);
    const std::string set = "UPDATE history SET " + c.name;
    raw.Exec(set + " = '2026-11-29T08:00:00Z' WHERE workload = ?1 AND ref != 'none'", {w});
    raw.Exec(set + " = x'00' WHERE workload = ?1 AND ref = 'none'", {w});
    std::vector<std::string> notes;
    EXPECT_TRUE(ReadHistory(*store, {w}, &notes).empty()) << c.name;
    ASSERT_EQ(notes.size(), 3u) << c.name;
    EXPECT_NE(notes[0].find("checksum"), std::string::npos) << notes[0];
    EXPECT_NE(notes[1].find("checksum"), std::string::npos) << notes[1];
    EXPECT_NE(notes[2].find("its " + c.what + " is neither text nor absent"), std::string::npos)
        << notes[2];
  }
}

TEST_F(ResultStoreHistoryTest, ARecordItCouldNotReadBackIsAnErrorAndNothingIsStored) {
  auto store = OpenStore();
  for (HistoryRecord bad :
       {MakeRecord("r", "w", "2026-12-01T00:00:00Z", {}), MakeRecord("r", "w", "yesterday", {1}),
        MakeRecord("r", std::string(kMaxStoredTextBytes + 1, 'w'), "2026-12-01T00:00:00Z", {1})}) {
    std::string err;
    EXPECT_FALSE(store->Record({MakeRecord("ok", "w", "2026-12-01T00:00:00Z", {1}), bad}, &err));
    EXPECT_NE(err, "");
  }
  HistoryRecord margin = MakeRecord("r", "w", "2026-12-01T00:00:00Z", {1});
  margin.max_work_added = std::nan("");
  std::string err;
  EXPECT_FALSE(store->Record({margin}, &err));
  EXPECT_NE(err.find("max_work_added"), std::string::npos) << err;
  HistoryRecord dated = MakeRecord("r", "w", "2026-12-01T00:00:00Z", {1});
  dated.committed_at = "2026-12-01 08:00";
  EXPECT_FALSE(store->Record({dated}, &err));
  EXPECT_NE(err.find("its commit date is not YYYY-MM-DDTHH:MM:SSZ"), std::string::npos) << err;
  EXPECT_TRUE(ReadHistory(*store).empty());
}

TEST_F(ResultStoreHistoryTest, BytesThatAreNotUtf8InAConditionPartStillReadBack) {
  auto store = OpenStore();
  HistoryRecord r = MakeRecord("r", "w", "2026-12-01T00:00:00Z", {1});
  r.condition_parts["valgrind"] = "/opt/\xff/valgrind";
  Record(*store, {r});
  const std::vector<HistoryRecord> read = ReadHistory(*store);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].condition_parts.at("valgrind"), "/opt/\xef\xbf\xbd/valgrind");  // U+FFFD
}

}  // namespace
}  // namespace workgate
