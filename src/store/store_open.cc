// Opening the result store: what the file at the path is (new, ours, ours
// but older, someone else's, damaged), making it a current store, and
// moving a damaged one aside, then or later.

#include <fmt/format.h>
#include <unistd.h>

#include "store/result_store.h"
#include "store/sqlite.h"
#include "store/store_files.h"
#include "store/store_schema.h"

namespace workgate {
namespace {

using sqlite::SqlError;

// Two CI jobs on one runner may both write for a while (a profile of
// megabytes); the other waits rather than counting again.
constexpr int kBusyTimeoutMs = 30000;

// No value the store keeps is longer: SQLite itself refuses (SQLITE_TOOBIG)
// to read a larger one from a changed file, which bounds what a row costs.
constexpr int kMaxValueBytes = static_cast<int>(kMaxStoredProfileBytes + (1 << 20));

enum class Opened { kOk, kDamaged, kRefused };

// Closes a connection to a damaged file without the checkpoint a last close
// makes, so the WAL stays beside the file as it was, for whoever looks.
void CloseDamaged(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_close_v2(db);
}

bool QueryInt(sqlite3* db, const char* sql, int64_t* value, SqlError* e) {
  sqlite::Statement s(db, sql);
  bool row = false;
  if (!s.Step(&row, e)) return false;
  *value = row ? s.Int(0) : 0;
  return true;
}

// What the file's header and schema say: true when it is new or ours, at a
// version this workgate can use; otherwise false with `*why`.
bool OursToUse(int64_t application_id, int64_t version, int64_t objects, std::string* why) {
  if (application_id == 0 && objects == 0) return true;  // a new, empty database
  if (application_id == 0) {
    *why = "it is an SQLite database, but not a workgate store (it has no application_id)";
    return false;
  }
  if (application_id != kStoreApplicationId) {
    *why = fmt::format(
        "it belongs to another application (application_id {:#x}; a workgate "
        "store's is {:#x})",
        application_id, kStoreApplicationId);
    return false;
  }
  if (version > kStoreSchemaVersion) {
    *why = fmt::format(
        "its schema version {} is newer than this workgate's ({}): a newer "
        "workgate wrote it",
        version, kStoreSchemaVersion);
    return false;
  }
  return true;
}

// Switching a file into WAL mode takes it whole for a moment, and SQLite
// answers SQLITE_BUSY at once there instead of calling the busy handler (two
// processes making a new store meet here): try again for as long as the
// busy timeout would have waited.
bool SetWalMode(sqlite3* db, SqlError* e) {
  constexpr int kPauseMs = 5;
  for (int waited = 0;; waited += kPauseMs) {
    if (sqlite::Exec(db, "PRAGMA journal_mode = WAL", e)) return true;
    if ((e->code & 0xff) != SQLITE_BUSY || waited >= kBusyTimeoutMs) return false;
    usleep(kPauseMs * 1000);
  }
}

// PRAGMA quick_check: its first row is "ok" or the first problem found.
bool QuickCheck(sqlite3* db, std::string* problem, SqlError* e) {
  sqlite::Statement check(db, "PRAGMA quick_check");
  bool row = false;
  if (!check.Step(&row, e)) return false;
  *problem = row && check.Text(0) == "ok" ? "" : "quick_check: " + check.Text(0);
  return true;
}

// The connection's settings, then the file made a current store.
Opened Prepare(sqlite3* db, std::string* why) {
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // The file may have been written by anyone: no schema edits through SQL,
  // and nothing the schema names (a trigger, a view) may run a function
  // with side effects.
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  SqlError e;
  const auto failed = [&](const char* doing) {
    *why = fmt::format("cannot {}: {}", doing, e.message);
    return sqlite::IsDamage(e.code) ? Opened::kDamaged : Opened::kRefused;
  };
  int64_t application_id = 0, version = 0, objects = 0;
  {
    // One snapshot: another process may be making the store right now, and
    // its first step sets the id, the version and the tables together.
    sqlite::Transaction read(db, /*write=*/false);
    if (!read.Begin(&e) || !QueryInt(db, "PRAGMA application_id", &application_id, &e) ||
        !QueryInt(db, "PRAGMA user_version", &version, &e) ||
        !QueryInt(db, "SELECT count(*) FROM sqlite_master", &objects, &e) || !read.Commit(&e)) {
      return failed("read it");
    }
  }
  if (!OursToUse(application_id, version, objects, why)) return Opened::kRefused;
  // WAL: readers go on while one process writes. synchronous=NORMAL syncs
  // at checkpoints, not at every commit: a crash of the machine may lose the
  // last entries, never the file's consistency, and a cache can lose them.
  if (!SetWalMode(db, &e) ||
      !sqlite::Exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", &e)) {
    return failed("set it up");
  }
  if (version >= 1 && version < kStoreSchemaVersion) {
    // A migration rewrites tables: not on top of pages that are already bad.
    std::string problem;
    if (!QuickCheck(db, &problem, &e)) return failed("check it before migrating");
    if (!problem.empty()) {
      *why = problem;
      return Opened::kDamaged;
    }
  }
  if (!MigrateStore(db, kStoreSchemaVersion, &e)) return failed("migrate it");
  if (!PruneStore(db, StoreDate(kStoreEntryMaxAgeDays), &e)) return failed("prune unused entries");
  return Opened::kOk;
}

Opened OpenFile(const std::string& path, sqlite3** out, StoreFileId* file, std::string* why) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    *why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Opened::kRefused;
  }
  // SQLite opens the file here, so this names the file the connection has.
  IdentifyStoreFile(path, file);
  // READWRITE falls back to reading only when the file cannot be written.
  Opened opened = Opened::kRefused;
  if (sqlite3_db_readonly(db, "main") == 1) {
    *why = "the file is read-only";
  } else {
    opened = Prepare(db, why);
  }
  if (opened == Opened::kOk) {
    *out = db;
  } else if (opened == Opened::kDamaged) {
    CloseDamaged(db);
  } else {
    sqlite3_close_v2(db);
  }
  return opened;
}

}  // namespace

ResultStore::ResultStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

ResultStore::~ResultStore() { sqlite3_close_v2(db_); }

std::unique_ptr<ResultStore> ResultStore::Open(const std::string& path,
                                               std::vector<std::string>* notes, std::string* err) {
  if (!MakeStoreDirectory(path, err)) return nullptr;
  // What is not a workgate store is someone's file: SQLite must not write
  // into it, and it is never moved aside (--store /etc/passwd, as root).
  if (std::string what = NotAStoreFile(path); !what.empty()) {
    *err = fmt::format("cannot use the result store {}: {}; it is left as it is", path, what);
    return nullptr;
  }
  std::string why;
  // A damaged file moved aside leaves the path free for a new store; a
  // second damaged file in a row is not chased further.
  for (int attempt = 0; attempt < 3; ++attempt) {
    sqlite3* db = nullptr;
    StoreFileId file;
    switch (OpenFile(path, &db, &file, &why)) {
      case Opened::kOk: {
        std::unique_ptr<ResultStore> store(new ResultStore(path, db));
        store->file_ = file;
        return store;
      }
      case Opened::kRefused:
        *err = fmt::format("cannot use the result store {}: {}", path, why);
        return nullptr;
      case Opened::kDamaged:
        break;
    }
    // Only a file marked as workgate's is moved aside: one SQLite finds
    // damaged that carries no mark may be another program's.
    if (!MarkedAsStore(path)) {
      *err = fmt::format(
          "cannot use the result store {}: SQLite finds it damaged ({}), and it is not marked as "
          "a workgate store (no application_id {:#010x} in its header), so it is left as it is",
          path, why, static_cast<uint32_t>(kStoreApplicationId));
      return nullptr;
    }
    std::string moved_to, move_err;
    switch (MoveStoreAside(path, file, &moved_to, &move_err)) {
      case MoveAside::kMoved:
        notes->push_back(fmt::format(
            "the result store {} is damaged ({}): moved aside to {}, and a new store made", path,
            why, moved_to));
        break;
      case MoveAside::kGone:  // another workgate moved it and may have made a new one
        break;
      case MoveAside::kFailed:
        *err = fmt::format("the result store {} is damaged ({}), and {}", path, why, move_err);
        return nullptr;
    }
  }
  *err = fmt::format("cannot use the result store {}: still damaged after moving it aside: {}",
                     path, why);
  return nullptr;
}

bool ResultStore::Usable(std::string* err) const {
  if (broken_) *err = broken_reason_;
  return !broken_;
}

bool ResultStore::Fail(const SqlError& e, const std::string& doing, std::string* err) {
  *err = fmt::format("result store {}: cannot {}: {}", path_, doing, e.message);
  if (!sqlite::IsDamage(e.code)) return false;
  CloseDamaged(db_);
  db_ = nullptr;
  broken_ = true;
  std::string moved_to, move_err;
  switch (MoveStoreAside(path_, file_, &moved_to, &move_err)) {
    case MoveAside::kMoved:
      broken_reason_ = fmt::format("the result store {} is damaged ({}): moved aside to {}", path_,
                                   e.message, moved_to);
      break;
    case MoveAside::kGone:
      broken_reason_ =
          fmt::format("the result store {} is damaged ({}); another workgate has moved it aside",
                      path_, e.message);
      break;
    case MoveAside::kFailed:
      broken_reason_ =
          fmt::format("the result store {} is damaged ({}), and {}", path_, e.message, move_err);
      break;
  }
  *err = broken_reason_;
  return false;
}

}  // namespace workgate
