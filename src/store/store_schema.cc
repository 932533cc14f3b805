#include "store/store_schema.h"

#include <fmt/format.h>

#include <iterator>

#include "store/result_store.h"
#include "store/store_files.h"

namespace workgate {
namespace {

using sqlite::Exec;
using sqlite::SqlError;
using sqlite::Statement;

// Not STRICT tables: those need SQLite 3.37, and an older SQLite would take
// such a store for a damaged one. Every value read back is checked for its
// type instead.
constexpr char kBaseTables[] = R"sql(
CREATE TABLE count_cache(
  key TEXT PRIMARY KEY NOT NULL,
  counts TEXT NOT NULL,
  score TEXT,
  profiles_sha256 TEXT NOT NULL,
  counted_at TEXT NOT NULL,
  ref TEXT NOT NULL,
  label TEXT NOT NULL,
  workgate_version TEXT NOT NULL,
  checksum TEXT NOT NULL);
CREATE TABLE cache_profiles(
  key TEXT NOT NULL REFERENCES count_cache(key) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  name TEXT NOT NULL,
  contents BLOB NOT NULL,
  PRIMARY KEY(key, ordinal));
CREATE TABLE history(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ref TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  workload TEXT NOT NULL,
  backend TEXT NOT NULL,
  event TEXT NOT NULL,
  counts TEXT NOT NULL,
  max_work_added REAL NOT NULL,
  score TEXT,
  conditions TEXT NOT NULL,
  condition_parts TEXT NOT NULL,
  checksum TEXT NOT NULL,
  UNIQUE(ref, workload, backend, event));
CREATE INDEX history_by_workload ON history(workload, recorded_at, seq);
)sql";

bool CreateBaseTables(sqlite3* db, SqlError* e) {
  if (!Exec(db, kBaseTables, e)) return false;
  // A constant of ours, not a stored value: PRAGMA takes no parameters.
  return Exec(db, fmt::format("PRAGMA application_id = {}", kStoreApplicationId).c_str(), e);
}

bool AddLastUsed(sqlite3* db, SqlError* e) {
  if (!Exec(db,
            "ALTER TABLE count_cache ADD COLUMN last_used TEXT NOT NULL DEFAULT '';"
            "CREATE INDEX count_cache_by_last_used ON count_cache(last_used);",
            e)) {
    return false;
  }
  // What an older workgate stored counts as used today: it starts its 60
  // days now rather than being pruned at once.
  Statement today(db, "UPDATE count_cache SET last_used = ?1");
  today.BindText(1, StoreDate(0));
  return today.Run(e);
}

bool AddDeterministic(sqlite3* db, SqlError* e) {
  // What an older workgate stored is not known to be deterministic.
  return Exec(db, "ALTER TABLE count_cache ADD COLUMN deterministic INTEGER NOT NULL DEFAULT 0;",
              e);
}

bool AddSubject(sqlite3* db, SqlError* e) {
  // NULL for every row an older workgate recorded: no subject was given.
  return Exec(db, "ALTER TABLE history ADD COLUMN subject TEXT;", e);
}

bool AddInputs(sqlite3* db, SqlError* e) {
  // An entry an older workgate stored does not say what its program read,
  // so nothing tells whether its count is still the program's: every such
  // entry goes (history stays), and is counted again when next asked for.
  return Exec(db,
              "DELETE FROM cache_profiles; DELETE FROM count_cache;"
              "ALTER TABLE count_cache ADD COLUMN inputs TEXT NOT NULL DEFAULT '';"
              "ALTER TABLE count_cache ADD COLUMN inputs_sha256 TEXT NOT NULL DEFAULT '';",
              e);
}

bool AddCommittedAt(sqlite3* db, SqlError* e) {
  // NULL for every row an older workgate recorded: the commit's date was
  // not kept, only when the row was recorded.
  return Exec(db, "ALTER TABLE history ADD COLUMN committed_at TEXT;", e);
}

bool AddSimulated(sqlite3* db, SqlError* e) {
  // An entry an older workgate stored has no simulated events: "".
  return Exec(db, "ALTER TABLE count_cache ADD COLUMN simulated TEXT NOT NULL DEFAULT '';", e);
}

struct Step {
  int version;  // the user_version once it is applied
  bool (*apply)(sqlite3* db, SqlError* e);
};

constexpr Step kSteps[] = {{1, CreateBaseTables}, {2, AddLastUsed}, {3, AddDeterministic},
                           {4, AddSubject},       {5, AddInputs},   {6, AddSimulated},
                           {7, AddCommittedAt}};
static_assert(std::size(kSteps) == kStoreSchemaVersion, "one step per schema version");

bool UserVersion(sqlite3* db, int64_t* version, SqlError* e) {
  Statement s(db, "PRAGMA user_version");
  bool row = false;
  if (!s.Step(&row, e)) return false;
  *version = row ? s.Int(0) : 0;
  return true;
}

}  // namespace

bool MigrateStore(sqlite3* db, int target, SqlError* e) {
  int64_t version = 0;
  if (!UserVersion(db, &version, e)) return false;
  if (version >= target) return true;
  for (const Step& step : kSteps) {
    if (step.version > target) break;
    sqlite::Transaction t(db, /*write=*/true);
    // Read again under the write lock: another process may have applied
    // this step since.
    if (!t.Begin(e) || !UserVersion(db, &version, e)) return false;
    if (version >= step.version) continue;
    if (!step.apply(db, e) ||
        !Exec(db, fmt::format("PRAGMA user_version = {}", step.version).c_str(), e) ||
        !t.Commit(e)) {
      return false;
    }
  }
  return true;
}

bool PruneStore(sqlite3* db, const std::string& cutoff_date, SqlError* e) {
  // Most opens find nothing to prune: look before taking the write lock.
  Statement any(db, "SELECT 1 FROM count_cache WHERE last_used < ?1 LIMIT 1");
  any.BindText(1, cutoff_date);
  bool row = false;
  if (!any.Step(&row, e)) return false;
  if (!row) return true;
  any.Reset();
  sqlite::Transaction t(db, /*write=*/true);
  Statement prune(db, "DELETE FROM count_cache WHERE last_used < ?1");
  prune.BindText(1, cutoff_date);
  return t.Begin(e) && prune.Run(e) && t.Commit(e);
}

}  // namespace workgate
