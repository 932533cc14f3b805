#pragma once
// The result store: one SQLite database per user (by default) that keeps
//   - the count cache: what counting one side of one workload on an exact
//     backend (Valgrind) gave, keyed by the digest of everything that count
//     is a function of (measure/count_key.h), so that the same count is never
//     taken twice; and
//   - the history: results recorded under a commit or label (--record REF),
//     for `workgate history` and its drift check (decision/history.h).
//
// The file is a cache, and a file anyone with the user's permissions could
// have changed: every value read back is checked (types, ranges, each
// entry's checksum), a damaged file is moved aside and reported, never
// trusted, and a store that cannot be used makes workgate count instead of
// fail. Several workgate processes may use one store at once (--jobs within
// one process; two CI jobs on one runner): WAL journal, a busy timeout, and
// every write in one BEGIN IMMEDIATE transaction.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/history.h"
#include "model/simulated_events.h"
#include "store/store_files.h"

struct sqlite3;

namespace workgate {

namespace sqlite {
struct SqlError;
}  // namespace sqlite

/// The schema version this workgate writes; an older store is migrated to
/// it step by step, a newer one is left alone.
inline constexpr int kStoreSchemaVersion = 7;

/// SQLite's application_id of a workgate store ("wgat"): a database with
/// another id is someone else's and is never touched.
inline constexpr int32_t kStoreApplicationId = 0x77676174;

/// Bounds on what one cache entry may hold: more is not stored (the count
/// is then taken again next time), and a stored entry beyond them is
/// corrupt.
inline constexpr size_t kMaxStoredCounts = 1000;
inline constexpr size_t kMaxStoredProfileBytes = 32 << 20;  // all of an entry's files
inline constexpr size_t kMaxStoredProfileFiles = 4096;      // one per process
inline constexpr size_t kMaxStoredTextBytes = 64 << 10;     // score, ref, label, names
inline constexpr size_t kMaxStoredInputsBytes = 32 << 20;   // the input manifest's JSON

/// Entries no gate has used for this long are removed (history is kept).
inline constexpr int kStoreEntryMaxAgeDays = 60;

/// The count cache's value: one side of one workload, counted.
struct StoredCount {
  std::vector<uint64_t> counts;      // every count taken, in the order taken
  std::optional<std::string> score;  // as the pinned run printed it
  /// The first count's per-function profile, one (file name, contents) pair
  /// per process, in callgrind's format; empty when none was kept.
  std::vector<std::pair<std::string, std::string>> profiles;
  std::string counted_at;  // ISO 8601 UTC of its first count, "2026-12-02T03:04:05Z"
  std::string ref;         // the commit or label it was recorded under; "" when none
  std::string label;       // the build as named on the command line that counted it
  std::string workgate_version;  // the workgate that counted it
  /// Its first count was deterministic by construction (vgcount pinned the
  /// run and it met nothing unpinned; CountedWorkload::deterministic), so a
  /// work verdict may stand on it alone. False in entries from before
  /// store version 3.
  bool deterministic = false;
  /// What the counted program read besides what the key holds: its input
  /// manifest's JSON (measure/input_manifest.h), which the caller checks
  /// before it uses the counts, and the digest of what identifies those
  /// inputs (ManifestDigest). Counts are appended to an entry only when
  /// their runs read the same inputs (equal digests); otherwise they replace
  /// it. An entry stored before store version 5 had none, and is gone.
  std::string inputs;
  std::string inputs_digest;
  /// The simulated events of one run of the side (the instructions that run
  /// retired, which are one of `counts` or, for a workload gated on
  /// estimated cycles, gave one of them), and then `profiles` are that
  /// run's, with the events' columns: a gate given these counts needs no
  /// simulated run. None in entries from before store version 6.
  std::optional<SimulatedEvents> simulated;
};

/// Where the store lives unless --store names it:
/// $XDG_CACHE_HOME/workgate/results.sqlite3, else
/// $HOME/.cache/workgate/results.sqlite3 (a variable that is unset, empty or
/// not an absolute path counts as unset). "" with `*why` when neither is set.
std::string DefaultStorePath(std::string* why);

/// The time now in UTC, as the store writes it: "2026-12-02T03:04:05Z".
std::string UtcNow();
/// `seconds` since the epoch in UTC, as UtcNow writes it; "" for a time
/// before 1970 or after 9999.
std::string UtcTime(int64_t seconds);

class ResultStore {
 public:
  /// Opens the store at `path`, creating it (and missing directories, mode
  /// 0700) when it does not exist, and migrating an older schema.
  ///   - A file that is not a workgate store (NotAStoreFile, store_files.h:
  ///     no SQLite database, another application's) is left as it is,
  ///     never written nor moved: nullptr with `*err` saying what it is.
  ///   - A store whose header holds workgate's application_id and that
  ///     SQLite reports damaged (SQLITE_CORRUPT, SQLITE_NOTADB, a failed
  ///     quick_check of a store it had to migrate) is moved aside to
  ///     `<path>.corrupt-<YYYYmmddTHHMMSSZ>` with its -wal and -shm files, a
  ///     new empty store is made at `path`, and `*notes` gets a line that
  ///     names both paths. A damaged file without that mark is left as it
  ///     is: nullptr with `*err`.
  ///   - A database of another application (application_id, or tables and
  ///     none), or of a newer schema version than kStoreSchemaVersion, is
  ///     left as it is: nullptr with `*err` saying so.
  ///   - Anything else that stops it (a directory that cannot be made, a
  ///     read-only file, a lock held past the busy timeout): nullptr with
  ///     `*err` naming the path and SQLite's message.
  static std::unique_ptr<ResultStore> Open(const std::string& path,
                                           std::vector<std::string>* notes, std::string* err);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  const std::string& path() const { return path_; }

  // Every method may be called from several threads at once. Each returns
  // false with `*err` when SQLite fails; when it fails because the file is
  // damaged, the store moves it aside first (as Open does; `*err` says so)
  // and every later call fails at once.

  /// The count cache entry under `key` (CountKey's 64 hex digits), and
  /// marks it used today. `*found` is nullopt when there is none. An entry
  /// whose checksum does not match its contents, or with a field out of its
  /// bounds, is deleted: `*found` is nullopt and `*note` says why (the caller
  /// reports it and counts again). true unless SQLite failed.
  bool Find(const std::string& key, std::optional<StoredCount>* found, std::string* note,
            std::string* err);

  /// Adds `entry` under `key`: a new entry when there is none, or when the
  /// stored one's inputs_digest differs (its inputs changed since: the new
  /// count replaces it); otherwise its counts are appended to the stored
  /// ones (two processes that counted the same thing at once both add their
  /// counts; the stored score, profiles, time, ref, label, version and
  /// manifest stay the first writer's). A ref given
  /// here replaces an empty stored ref. Counts beyond kMaxStoredCounts are
  /// dropped, profiles beyond kMaxStoredProfileBytes (or kMaxStoredProfileFiles
  /// files, or with a name beyond kMaxStoredTextBytes) are not stored, and an
  /// entry with a text beyond kMaxStoredTextBytes or without counts is not
  /// stored at all (true: the count is taken again next time). A key that is
  /// not 64 lower-case hex digits, or a counted_at not of UtcNow's form, is
  /// a caller's error: false with `*err`, nothing stored.
  bool Add(const std::string& key, const StoredCount& entry, std::string* err);

  /// Gives the entry under `key` the simulated events of a run of its side
  /// (StoredCount::simulated), and that run's `profiles` in place of its
  /// own, where `profiles` fit the bounds (else it keeps its own): only an
  /// entry that is valid, has none yet, was counted from the inputs of
  /// `inputs_digest` and holds `count` (the count the simulated run gave)
  /// takes them; any other is left as it is (true). False with `*err` when
  /// SQLite fails.
  bool AddSimulated(const std::string& key, const std::string& inputs_digest, uint64_t count,
                    const SimulatedEvents& events,
                    const std::vector<std::pair<std::string, std::string>>& profiles,
                    std::string* err);

  /// Stores `records` under their refs in one transaction, each replacing
  /// what the same ref recorded before for the same workload, backend and
  /// event. A record that ReadHistory would not trust (no counts or more than
  /// kMaxStoredCounts, a text beyond kMaxStoredTextBytes, recorded_at not of
  /// UtcNow's form, max_work_added not in [0, 10]) makes it false with `*err`,
  /// and nothing is stored.
  bool Record(const std::vector<HistoryRecord>& records, std::string* err);

  /// Every record of the named workloads (all when `workloads` is empty),
  /// oldest first (recorded_at, then the order they were recorded in).
  /// Records that fail their checksum or bounds are left out and named in
  /// `*notes`.
  bool ReadHistory(const std::vector<std::string>& workloads, std::vector<HistoryRecord>* out,
                   std::vector<std::string>* notes, std::string* err);

 private:
  ResultStore(std::string path, sqlite3* db);

  /// False with `*err` when an earlier call found the file damaged.
  bool Usable(std::string* err) const;
  /// Turns SQLite's failure `e` while `doing` something into `*err`; a
  /// damaged file is moved aside first and the store is broken from then
  /// on. Always false.
  bool Fail(const sqlite::SqlError& e, const std::string& doing, std::string* err);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  bool broken_ = false;  // moved aside mid-run: every call fails
  std::string broken_reason_;
  StoreFileId file_;  // the file db_ opened
};

}  // namespace workgate
