#pragma once
// What the result store's tests share: keys, entries and records to store,
// and a connection of the tests' own to the store's file, through which a
// test changes rows behind the store's back as anyone could.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/history.h"
#include "store/result_store.h"
#include "store/sqlite.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate::testing_store {

/// A count key: 64 hex digits, one per `n`.
inline std::string Key(int n) { return Sha256Hex("key " + std::to_string(n)); }

inline StoredCount MakeEntry(std::vector<uint64_t> counts, const std::string& label = "base") {
  StoredCount e;
  e.counts = std::move(counts);
  e.score = "10.000";
  e.counted_at = "2026-12-02T03:04:05Z";
  e.label = label;
  e.workgate_version = "0.1.0-test";
  // A manifest of no inputs (measure/input_manifest.h's form): the store
  // keeps and checks it as text, whatever it holds.
  e.inputs = R"({"entries":[],"made_at_ns":0,"version":1})";
  e.inputs_digest = Sha256Hex("inputs");
  return e;
}

inline HistoryRecord MakeRecord(const std::string& ref, const std::string& workload,
                                const std::string& recorded_at, std::vector<uint64_t> counts) {
  HistoryRecord r;
  r.ref = ref;
  r.recorded_at = recorded_at;
  r.workload = workload;
  r.backend = "vgcount";
  r.event = "Ir";
  r.counts = std::move(counts);
  r.max_work_added = 0.01;
  r.conditions = Sha256Hex("conditions");
  r.condition_parts = {{"valgrind", "valgrind-3.19.0 at /usr/bin/valgrind.bin"},
                       {"workgate", "0.1.0-test"}};
  return r;
}

/// The whole file at `path`, "" when there is none.
inline std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A connection of the test's own to a store file, separate from any
/// ResultStore's.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr),
        SQLITE_OK)
        << path;
    sqlite3_busy_timeout(db_, 10000);
  }
  ~RawDb() { sqlite3_close_v2(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  sqlite3* get() { return db_; }

  /// Runs `sql` with `params` bound as text to ?1, ?2, ...; with none, `sql`
  /// may hold several statements.
  void Exec(const std::string& sql, const std::vector<std::string>& params = {}) {
    sqlite::SqlError e;
    if (params.empty()) {
      EXPECT_TRUE(sqlite::Exec(db_, sql.c_str(), &e)) << sql << ": " << e.message;
      return;
    }
    sqlite::Statement s(db_, sql.c_str());
    for (size_t i = 0; i < params.size(); ++i) s.BindText(static_cast<int>(i + 1), params[i]);
    EXPECT_TRUE(s.Run(&e)) << sql << ": " << e.message;
  }

  /// The first column of the first row of `sql`, as text ("" for none).
  std::string Text(const std::string& sql, const std::vector<std::string>& params = {}) {
    sqlite::Statement s(db_, sql.c_str());
    for (size_t i = 0; i < params.size(); ++i) s.BindText(static_cast<int>(i + 1), params[i]);
    sqlite::SqlError e;
    bool row = false;
    EXPECT_TRUE(s.Step(&row, &e)) << sql << ": " << e.message;
    return row ? s.Text(0) : "";
  }

 private:
  sqlite3* db_ = nullptr;
};

/// A store in a directory of its own, which Open must make.
class StoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<ResultStore> OpenStore() {
    std::vector<std::string> notes;
    std::string err;
    auto store = ResultStore::Open(path_, &notes, &err);
    EXPECT_TRUE(notes.empty()) << notes.front();
    // The test cannot go on; GoogleTest reports the exception as a failure.
    if (store == nullptr) throw std::runtime_error("cannot open the store: " + err);
    return store;
  }

  std::optional<StoredCount> Find(ResultStore& store, const std::string& key,
                                  std::string* note = nullptr) {
    std::optional<StoredCount> found;
    std::string n, err;
    EXPECT_TRUE(store.Find(key, &found, &n, &err)) << err;
    if (note != nullptr) {
      *note = n;
    } else {
      EXPECT_EQ(n, "");
    }
    return found;
  }

  void Add(ResultStore& store, const std::string& key, const StoredCount& entry) {
    std::string err;
    EXPECT_TRUE(store.Add(key, entry, &err)) << err;
  }

  void Record(ResultStore& store, const std::vector<HistoryRecord>& records) {
    std::string err;
    EXPECT_TRUE(store.Record(records, &err)) << err;
  }

  std::vector<HistoryRecord> ReadHistory(ResultStore& store,
                                         const std::vector<std::string>& workloads = {},
                                         std::vector<std::string>* notes = nullptr) {
    std::vector<HistoryRecord> out;
    std::vector<std::string> n;
    std::string err;
    EXPECT_TRUE(store.ReadHistory(workloads, &out, &n, &err)) << err;
    if (notes != nullptr) {
      *notes = n;
    } else {
      EXPECT_TRUE(n.empty()) << n.front();
    }
    return out;
  }

  TempDir dir_{"workgate-store-test"};
  std::string path_ = dir_.path() + "/cache/workgate/results.sqlite3";
};

}  // namespace workgate::testing_store
