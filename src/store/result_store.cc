// The count cache: Find and Add. Every row read is checked before it is
// used (types, bounds, checksum); the SQL lives in free functions so that a
// failure is turned into an error (ResultStore::Fail) only after every
// statement and transaction of the call is gone.

#include "store/result_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/sqlite.h"
#include "store/store_codec.h"
#include "store/store_files.h"

namespace workgate {
namespace {

using sqlite::SqlError;
using sqlite::Statement;
using Profiles = std::vector<std::pair<std::string, std::string>>;

enum class Entry { kNone, kValid, kInvalid };

// A cache row as read, with what it says of itself.
struct EntryRow {
  StoredCount value;
  std::string profiles_digest;
  std::string checksum;
  std::string last_used;
};

// SQLite refuses to read a value beyond the connection's length limit: such
// a row is out of the store's bounds, not a failure of the store.
bool TooBig(const SqlError& e, Entry* state, std::string* problem) {
  if ((e.code & 0xff) != SQLITE_TOOBIG) return false;
  *state = Entry::kInvalid;
  *problem = "it holds a value larger than the store keeps";
  return true;
}

// The entry's profiles, in order; "" in `*problem`, or what is wrong. Each
// file's size is known before it is read, so no more than the bound is.
bool ReadProfiles(sqlite3* db, const std::string& key, Profiles* profiles, std::string* problem,
                  SqlError* e) {
  Statement s(db,
              "SELECT rowid, name, typeof(contents), length(contents) FROM cache_profiles "
              "WHERE key = ?1 ORDER BY ordinal");
  s.BindText(1, key);
  size_t total = 0;
  for (bool row = true;;) {
    Entry ignored;
    if (!s.Step(&row, e)) return TooBig(*e, &ignored, problem);
    if (!row) return true;
    if (s.Type(1) != SQLITE_TEXT || s.Text(2) != "blob") {
      *problem = "a profile's name or contents are of the wrong type";
      return true;
    }
    total += static_cast<size_t>(s.Int(3));
    std::string name = s.Text(1);
    if (profiles->size() == kMaxStoredProfileFiles || total > kMaxStoredProfileBytes ||
        name.size() > kMaxStoredTextBytes) {
      *problem = "its profiles exceed the store's bounds";
      return true;
    }
    std::string contents;
    if (!sqlite::ReadBlob(db, "cache_profiles", "contents", s.Int(0), &contents, e)) return false;
    profiles->emplace_back(std::move(name), std::move(contents));
  }
}

// Reads the entry under `key` into `*row` and judges it: `*problem` says
// why it is kInvalid. With `with_profiles` its profiles are read and held
// to the digest the row keeps; without, the digest is taken as the row says
// (the checksum covers it, so it cannot be changed unseen).
bool ReadEntry(sqlite3* db, const std::string& key, bool with_profiles, Entry* state, EntryRow* row,
               std::string* problem, SqlError* e) {
  Statement s(db,
              "SELECT counts, score, profiles_sha256, counted_at, ref, label, workgate_version, "
              "checksum, last_used, deterministic, inputs, inputs_sha256, simulated FROM count_cache "
              "WHERE key = ?1");
  s.BindText(1, key);
  bool have = false;
  if (!s.Step(&have, e)) return TooBig(*e, state, problem);
  *state = have ? Entry::kInvalid : Entry::kNone;
  if (!have) return true;
  for (int col : {0, 2, 3, 4, 5, 6, 7}) {
    if (s.Type(col) != SQLITE_TEXT) {
      *problem = "a field is not text";
      return true;
    }
  }
  if (s.Type(1) != SQLITE_TEXT && s.Type(1) != SQLITE_NULL) {
    *problem = "its score is neither text nor absent";
    return true;
  }
  StoredCount& v = row->value;
  if (!ParseCounts(s.Text(0), &v.counts, problem)) return true;
  if (s.Type(1) == SQLITE_TEXT) v.score = s.Text(1);
  row->profiles_digest = s.Text(2);
  v.counted_at = s.Text(3);
  v.ref = s.Text(4);
  v.label = s.Text(5);
  v.workgate_version = s.Text(6);
  row->checksum = s.Text(7);
  row->last_used = s.Type(8) == SQLITE_TEXT ? s.Text(8) : "";
  if (s.Type(9) != SQLITE_INTEGER || (s.Int(9) != 0 && s.Int(9) != 1)) {
    *problem = "its deterministic flag is not 0 or 1";
    return true;
  }
  v.deterministic = s.Int(9) == 1;
  if (s.Type(10) != SQLITE_TEXT || s.Type(11) != SQLITE_TEXT) {
    *problem = "its input manifest is not text";
    return true;
  }
  v.inputs = s.Text(10);
  v.inputs_digest = s.Text(11);
  if (s.Type(12) != SQLITE_TEXT) {
    *problem = "its simulated events are not text";
    return true;
  }
  if (!ParseSimulated(s.Text(12), &v.simulated, problem)) return true;
  if (with_profiles) {
    if (!ReadProfiles(db, key, &v.profiles, problem, e)) return false;
    if (!problem->empty()) return true;
    if (ProfilesDigest(v.profiles) != row->profiles_digest) {
      *problem = "its profiles do not match their digest";
      return true;
    }
  }
  if (*problem = EntryProblem(v); !problem->empty()) return true;
  if (EntryChecksum(key, v, row->profiles_digest) != row->checksum) {
    *problem = "its checksum does not match its contents";
    return true;
  }
  *state = Entry::kValid;
  return true;
}

bool DeleteEntry(sqlite3* db, const std::string& key, SqlError* e) {
  // Profiles go with their entry (ON DELETE CASCADE); deleting them by key
  // as well leaves none behind whatever a changed file's rows refer to.
  Statement entry(db, "DELETE FROM count_cache WHERE key = ?1");
  Statement profiles(db, "DELETE FROM cache_profiles WHERE key = ?1");
  entry.BindText(1, key);
  profiles.BindText(1, key);
  return entry.Run(e) && profiles.Run(e);
}

bool MarkUsed(sqlite3* db, const std::string& key, const std::string& today, SqlError* e) {
  sqlite::Transaction t(db, /*write=*/true);
  Statement s(db, "UPDATE count_cache SET last_used = ?1 WHERE key = ?2");
  s.BindText(1, today);
  s.BindText(2, key);
  return t.Begin(e) && s.Run(e) && t.Commit(e);
}

bool FindEntry(sqlite3* db, const std::string& key, std::optional<StoredCount>* found,
               std::string* note, SqlError* e) {
  Entry state = Entry::kNone;
  EntryRow row;
  std::string problem;
  {
    // One snapshot for the entry and its profiles, which another process
    // may be writing.
    sqlite::Transaction read(db, /*write=*/false);
    if (!read.Begin(e) || !ReadEntry(db, key, true, &state, &row, &problem, e) || !read.Commit(e)) {
      return false;
    }
  }
  if (state == Entry::kInvalid) {
    // Judge it again under the write lock: another process may have
    // replaced it meanwhile, and a good entry is not deleted.
    sqlite::Transaction t(db, /*write=*/true);
    row = EntryRow();
    if (!t.Begin(e) || !ReadEntry(db, key, true, &state, &row, &problem, e)) return false;
    if (state == Entry::kInvalid) {
      if (!DeleteEntry(db, key, e) || !t.Commit(e)) return false;
      *note = fmt::format("the cached count {} was not trusted and is deleted: {}", key, problem);
      return true;
    }
    if (!t.Commit(e)) return false;
  }
  if (state == Entry::kNone) return true;
  // Pruning needs the day, not the moment: one write a day per entry.
  const std::string today = StoreDate(0);
  if (row.last_used != today && !MarkUsed(db, key, today, e)) return false;
  *found = std::move(row.value);
  return true;
}

// The entry's profiles, in order, under `key`.
bool InsertProfiles(sqlite3* db, const std::string& key, const Profiles& profiles, SqlError* e) {
  Statement p(db,
              "INSERT INTO cache_profiles(key, ordinal, name, contents) VALUES(?1, ?2, ?3, ?4)");
  for (size_t i = 0; i < profiles.size(); ++i) {
    p.Reset();
    p.BindText(1, key);
    p.BindInt(2, static_cast<int64_t>(i));
    p.BindText(3, profiles[i].first);
    p.BindBlob(4, profiles[i].second);
    if (!p.Run(e)) return false;
  }
  return true;
}

bool InsertEntry(sqlite3* db, const std::string& key, const StoredCount& fields,
                 const Profiles& profiles, SqlError* e) {
  const std::string digest = ProfilesDigest(profiles);
  Statement s(db,
              "INSERT INTO count_cache(key, counts, score, profiles_sha256, counted_at, ref, "
              "label, workgate_version, checksum, last_used, deterministic, inputs, inputs_sha256, "
              "simulated) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  s.BindText(1, key);
  s.BindText(2, EncodeCounts(fields.counts));
  fields.score ? s.BindText(3, *fields.score) : s.BindNull(3);
  s.BindText(4, digest);
  s.BindText(5, fields.counted_at);
  s.BindText(6, fields.ref);
  s.BindText(7, fields.label);
  s.BindText(8, fields.workgate_version);
  s.BindText(9, EntryChecksum(key, fields, digest));
  s.BindText(10, StoreDate(0));
  s.BindInt(11, fields.deterministic ? 1 : 0);
  s.BindText(12, fields.inputs);
  s.BindText(13, fields.inputs_digest);
  s.BindText(14, EncodeSimulated(fields.simulated));
  if (!s.Run(e)) return false;
  return InsertProfiles(db, key, profiles, e);
}

bool AddEntry(sqlite3* db, const std::string& key, const StoredCount& fields,
              const Profiles& profiles, SqlError* e) {
  // The read, the append and the new checksum in one write transaction:
  // counts that several processes add each land, and each stays signed.
  sqlite::Transaction t(db, /*write=*/true);
  Entry state = Entry::kNone;
  EntryRow row;
  std::string problem;
  if (!t.Begin(e) || !ReadEntry(db, key, false, &state, &row, &problem, e)) return false;
  if (state == Entry::kValid && row.value.inputs_digest == fields.inputs_digest) {
    StoredCount& v = row.value;
    for (uint64_t c : fields.counts) {
      if (v.counts.size() < kMaxStoredCounts) v.counts.push_back(c);
    }
    if (v.ref.empty()) v.ref = fields.ref;
    Statement s(db,
                "UPDATE count_cache SET counts = ?1, ref = ?2, checksum = ?3, last_used = ?4 "
                "WHERE key = ?5");
    s.BindText(1, EncodeCounts(v.counts));
    s.BindText(2, v.ref);
    // Re-signed only because the row passed its checksum just now: a
    // changed row is replaced, never signed anew.
    s.BindText(3, EntryChecksum(key, v, row.profiles_digest));
    s.BindText(4, StoreDate(0));
    s.BindText(5, key);
    if (!s.Run(e)) return false;
  } else {
    // A damaged entry, or one whose program read other inputs: replaced.
    if (state != Entry::kNone && !DeleteEntry(db, key, e)) return false;
    if (!InsertEntry(db, key, fields, profiles, e)) return false;
  }
  return t.Commit(e);
}

bool AddSimulatedEntry(sqlite3* db, const std::string& key, const std::string& inputs_digest,
                       uint64_t count, const SimulatedEvents& events, const Profiles* profiles,
                       SqlError* e) {
  sqlite::Transaction t(db, /*write=*/true);
  Entry state = Entry::kNone;
  EntryRow row;
  std::string problem;
  if (!t.Begin(e) || !ReadEntry(db, key, false, &state, &row, &problem, e)) return false;
  StoredCount& v = row.value;
  if (state != Entry::kValid || v.simulated || v.inputs_digest != inputs_digest ||
      std::find(v.counts.begin(), v.counts.end(), count) == v.counts.end()) {
    return t.Commit(e);  // nothing to give: left as it is
  }
  v.simulated = events;
  const std::string digest = profiles != nullptr ? ProfilesDigest(*profiles) : row.profiles_digest;
  Statement s(db,
              "UPDATE count_cache SET simulated = ?1, profiles_sha256 = ?2, checksum = ?3, "
              "last_used = ?4 WHERE key = ?5");
  s.BindText(1, EncodeSimulated(v.simulated));
  s.BindText(2, digest);
  // Re-signed only because the row passed its checksum just now.
  s.BindText(3, EntryChecksum(key, v, digest));
  s.BindText(4, StoreDate(0));
  s.BindText(5, key);
  if (!s.Run(e)) return false;
  if (profiles != nullptr) {
    Statement drop(db, "DELETE FROM cache_profiles WHERE key = ?1");
    drop.BindText(1, key);
    if (!drop.Run(e) || !InsertProfiles(db, key, *profiles, e)) return false;
  }
  return t.Commit(e);
}

}  // namespace

bool ResultStore::Find(const std::string& key, std::optional<StoredCount>* found, std::string* note,
                       std::string* err) {
  found->reset();
  note->clear();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Usable(err)) return false;
  SqlError e;
  return FindEntry(db_, key, found, note, &e) || Fail(e, "read a cached count", err);
}

bool ResultStore::Add(const std::string& key, const StoredCount& entry, std::string* err) {
  if (!IsHexDigest(key)) {
    *err = fmt::format("result store {}: not a count key: {}", path_, NoteText(key));
    return false;
  }
  if (!IsStoreTimestamp(entry.counted_at)) {
    *err = fmt::format("result store {}: the time counted is not YYYY-MM-DDTHH:MM:SSZ: {}", path_,
                       NoteText(entry.counted_at));
    return false;
  }
  // Everything but the profiles, which are used in place (megabytes).
  StoredCount fields;
  const size_t kept = std::min(entry.counts.size(), kMaxStoredCounts);
  fields.counts.assign(entry.counts.begin(), entry.counts.begin() + kept);
  fields.score = entry.score;
  fields.counted_at = entry.counted_at;
  fields.ref = entry.ref;
  fields.label = entry.label;
  fields.workgate_version = entry.workgate_version;
  fields.deterministic = entry.deterministic;
  fields.inputs = entry.inputs;
  fields.inputs_digest = entry.inputs_digest;
  fields.simulated = entry.simulated;
  if (!EntryProblem(fields).empty()) return true;  // no counts, or a text too long: not kept
  static const Profiles kNoProfiles;
  const Profiles& profiles = ProfilesFit(entry.profiles) ? entry.profiles : kNoProfiles;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Usable(err)) return false;
  SqlError e;
  return AddEntry(db_, key, fields, profiles, &e) || Fail(e, "add a count", err);
}

bool ResultStore::AddSimulated(const std::string& key, const std::string& inputs_digest,
                               uint64_t count, const SimulatedEvents& events,
                               const Profiles& profiles, std::string* err) {
  if (!IsHexDigest(key)) {
    *err = fmt::format("result store {}: not a count key: {}", path_, NoteText(key));
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Usable(err)) return false;
  SqlError e;
  return AddSimulatedEntry(db_, key, inputs_digest, count, events,
                           !profiles.empty() && ProfilesFit(profiles) ? &profiles : nullptr, &e) ||
         Fail(e, "add simulated events", err);
}

}  // namespace workgate
