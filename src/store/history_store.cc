// The recorded history: Record and ReadHistory. A record is one row per
// (ref, workload, backend, event); its seq, never reused, is the order it
// was recorded in.

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "store/result_store.h"
#include "store/sqlite.h"
#include "store/store_codec.h"

namespace workgate {
namespace {

using sqlite::SqlError;
using sqlite::Statement;

bool RecordAll(sqlite3* db, const std::vector<HistoryRecord>& records,
               const std::vector<std::string>& parts_json, SqlError* e) {
  sqlite::Transaction t(db, /*write=*/true);
  // REPLACE deletes the row the same ref recorded for the same workload,
  // backend and event (the UNIQUE constraint) and inserts a new one, with a
  // new seq: the replacement counts as recorded now.
  Statement s(db,
              "INSERT OR REPLACE INTO history(ref, recorded_at, workload, backend, event, counts, "
              "max_work_added, score, conditions, condition_parts, checksum, subject, "
              "committed_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!t.Begin(e)) return false;
  for (size_t i = 0; i < records.size(); ++i) {
    const HistoryRecord& r = records[i];
    s.Reset();
    s.BindText(1, r.ref);
    s.BindText(2, r.recorded_at);
    s.BindText(3, r.workload);
    s.BindText(4, r.backend);
    s.BindText(5, r.event);
    s.BindText(6, EncodeCounts(r.counts));
    s.BindDouble(7, r.max_work_added == 0 ? 0.0 : r.max_work_added);
    r.score ? s.BindText(8, *r.score) : s.BindNull(8);
    s.BindText(9, r.conditions);
    s.BindText(10, parts_json[i]);
    s.BindText(11, HistoryChecksum(r, parts_json[i]));
    r.subject ? s.BindText(12, *r.subject) : s.BindNull(12);
    r.committed_at ? s.BindText(13, *r.committed_at) : s.BindNull(13);
    if (!s.Run(e)) return false;
  }
  return t.Commit(e);
}

// One history row judged: "" when it can be trusted, else why not.
std::string ReadRecord(const Statement& s, HistoryRecord* r) {
  // The types before any value: reading one as text converts it, after
  // which SQLite no longer says what it was.
  int type[14];
  for (int col = 0; col < 14; ++col) type[col] = s.Type(col);
  // Then what names the record in a note, whatever else is wrong.
  r->ref = s.Text(1);
  r->workload = s.Text(3);
  for (int col : {1, 2, 3, 4, 5, 6, 9, 10, 11}) {
    if (type[col] != SQLITE_TEXT) return "a field is not text";
  }
  if (type[7] != SQLITE_FLOAT && type[7] != SQLITE_INTEGER) {
    return "its max_work_added is not a number";
  }
  if (type[8] != SQLITE_TEXT && type[8] != SQLITE_NULL) {
    return "its score is neither text nor absent";
  }
  if (type[12] != SQLITE_TEXT && type[12] != SQLITE_NULL) {
    return "its subject is neither text nor absent";
  }
  if (type[13] != SQLITE_TEXT && type[13] != SQLITE_NULL) {
    return "its commit date is neither text nor absent";
  }
  std::string why;
  r->recorded_at = s.Text(2);
  r->backend = s.Text(4);
  r->event = s.Text(5);
  if (!ParseCounts(s.Text(6), &r->counts, &why)) return why;
  r->max_work_added = s.Double(7);
  if (type[8] == SQLITE_TEXT) r->score = s.Text(8);
  if (type[12] == SQLITE_TEXT) r->subject = s.Text(12);
  if (type[13] == SQLITE_TEXT) r->committed_at = s.Text(13);
  r->conditions = s.Text(9);
  const std::string parts_json = s.Text(10);
  if (why = RecordProblem(*r, parts_json); !why.empty()) return why;
  if (HistoryChecksum(*r, parts_json) != s.Text(11)) {
    return "its checksum does not match its contents";
  }
  if (!ParseConditionParts(parts_json, &r->condition_parts, &why)) return why;
  return "";
}

struct Read {
  std::string recorded_at;
  int64_t seq;
  HistoryRecord record;
};

// The rows are listed by seq first and then read one at a time, so that a
// row SQLite refuses to read (a value beyond its length limit) is left out
// alone instead of failing the whole read.
bool ReadRecords(sqlite3* db, const std::vector<std::string>& workloads, std::vector<Read>* out,
                 std::vector<std::string>* notes, SqlError* e) {
  std::vector<int64_t> seqs;
  const auto list = [&](Statement& query) {
    for (bool row = true;;) {
      if (!query.Step(&row, e)) return false;
      if (!row) return true;
      seqs.push_back(query.Int(0));
    }
  };
  if (workloads.empty()) {
    Statement all(db, "SELECT seq FROM history");
    if (!list(all)) return false;
  }
  Statement named(db, "SELECT seq FROM history WHERE workload = ?1");
  for (const std::string& workload : std::set<std::string>(workloads.begin(), workloads.end())) {
    named.Reset();
    named.BindText(1, workload);
    if (!list(named)) return false;
  }
  Statement s(db,
              "SELECT seq, ref, recorded_at, workload, backend, event, counts, max_work_added, "
              "score, conditions, condition_parts, checksum, subject, committed_at FROM history "
              "WHERE seq = ?1");
  for (int64_t seq : seqs) {
    s.Reset();
    s.BindInt(1, seq);
    bool row = false;
    std::string problem;
    HistoryRecord r;
    if (!s.Step(&row, e)) {
      if ((e->code & 0xff) != SQLITE_TOOBIG) return false;
      problem = "it holds a value larger than the store keeps";
    } else if (!row) {
      continue;  // not in this snapshot: cannot happen inside one transaction
    } else {
      problem = ReadRecord(s, &r);
    }
    if (problem.empty()) {
      out->push_back({r.recorded_at, seq, std::move(r)});
    } else {
      notes->push_back(fmt::format("history record {} (ref {}, workload {}) is left out: {}", seq,
                                   NoteText(r.ref), NoteText(r.workload), problem));
    }
  }
  return true;
}

}  // namespace

bool ResultStore::Record(const std::vector<HistoryRecord>& records, std::string* err) {
  std::vector<std::string> parts_json;
  for (const HistoryRecord& r : records) {
    parts_json.push_back(ConditionPartsJson(r.condition_parts));
    if (std::string problem = RecordProblem(r, parts_json.back()); !problem.empty()) {
      *err = fmt::format("result store {}: cannot record {} of {}: {}", path_, NoteText(r.workload),
                         NoteText(r.ref), problem);
      return false;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Usable(err)) return false;
  SqlError e;
  return RecordAll(db_, records, parts_json, &e) || Fail(e, "record history", err);
}

bool ResultStore::ReadHistory(const std::vector<std::string>& workloads,
                              std::vector<HistoryRecord>* out, std::vector<std::string>* notes,
                              std::string* err) {
  out->clear();
  std::vector<Read> read;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!Usable(err)) return false;
    SqlError e;
    bool ok = false;
    {
      // One snapshot: a record replaced meanwhile is read once, old or new.
      sqlite::Transaction t(db_, /*write=*/false);
      ok = t.Begin(&e) && ReadRecords(db_, workloads, &read, notes, &e) && t.Commit(&e);
    }
    if (!ok) return Fail(e, "read the history", err);
  }
  // Oldest first; records of one moment in the order they were recorded.
  std::sort(read.begin(), read.end(), [](const Read& a, const Read& b) {
    return std::tie(a.recorded_at, a.seq) < std::tie(b.recorded_at, b.seq);
  });
  for (Read& r : read) out->push_back(std::move(r.record));
  return true;
}

}  // namespace workgate
