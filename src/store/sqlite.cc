#include "store/sqlite.h"

namespace workgate::sqlite {

bool IsDamage(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

void SetError(sqlite3* db, int code, SqlError* e) {
  e->code = code;
  const int current = db != nullptr ? sqlite3_extended_errcode(db) : SQLITE_OK;
  // The connection's message describes `code` only while it is the
  // connection's last error; a kept bind failure is older than that.
  e->message = current == code ? sqlite3_errmsg(db) : sqlite3_errstr(code);
}

bool Exec(sqlite3* db, const char* sql, SqlError* e) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return true;
  SetError(db, sqlite3_extended_errcode(db), e);
  return false;
}

bool ReadBlob(sqlite3* db, const char* table, const char* column, int64_t rowid, std::string* out,
              SqlError* e) {
  sqlite3_blob* blob = nullptr;
  int rc = sqlite3_blob_open(db, "main", table, column, rowid, /*flags=*/0, &blob);
  if (rc == SQLITE_OK) {
    out->resize(sqlite3_blob_bytes(blob));
    rc = sqlite3_blob_read(blob, out->data(), static_cast<int>(out->size()), 0);
  }
  sqlite3_blob_close(blob);
  if (rc == SQLITE_OK) return true;
  SetError(db, sqlite3_extended_errcode(db) != SQLITE_OK ? sqlite3_extended_errcode(db) : rc, e);
  return false;
}

Statement::Statement(sqlite3* db, const char* sql) : db_(db) {
  Keep(sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::Keep(int rc) {
  if (rc != SQLITE_OK && pending_ == SQLITE_OK) {
    pending_ = sqlite3_extended_errcode(db_) != SQLITE_OK ? sqlite3_extended_errcode(db_) : rc;
  }
}

// A null pointer would bind SQL NULL, whatever the length; an empty value
// is an empty string or blob.
static const char* NonNull(std::string_view v) { return v.data() != nullptr ? v.data() : ""; }

void Statement::BindText(int i, std::string_view text) {
  if (stmt_ == nullptr) return;
  Keep(sqlite3_bind_text64(stmt_, i, NonNull(text), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

void Statement::BindBlob(int i, std::string_view bytes) {
  if (stmt_ == nullptr) return;
  Keep(sqlite3_bind_blob64(stmt_, i, NonNull(bytes), bytes.size(), SQLITE_TRANSIENT));
}

void Statement::BindInt(int i, int64_t value) {
  if (stmt_ != nullptr) Keep(sqlite3_bind_int64(stmt_, i, value));
}

void Statement::BindDouble(int i, double value) {
  if (stmt_ != nullptr) Keep(sqlite3_bind_double(stmt_, i, value));
}

void Statement::BindNull(int i) {
  if (stmt_ != nullptr) Keep(sqlite3_bind_null(stmt_, i));
}

bool Statement::Step(bool* row, SqlError* e) {
  *row = false;
  if (pending_ != SQLITE_OK || stmt_ == nullptr) {
    SetError(db_, pending_ != SQLITE_OK ? pending_ : SQLITE_MISUSE, e);
    return false;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    *row = true;
    return true;
  }
  if (rc == SQLITE_DONE) return true;
  SetError(db_, sqlite3_extended_errcode(db_), e);
  return false;
}

bool Statement::Run(SqlError* e) {
  bool row = true;
  while (row) {
    if (!Step(&row, e)) return false;
  }
  return true;
}

void Statement::Reset() {
  if (stmt_ != nullptr) sqlite3_reset(stmt_);
}

int Statement::Type(int col) const { return sqlite3_column_type(stmt_, col); }

std::string Statement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  // sqlite3_column_bytes after the conversion gives the text's length.
  const int n = sqlite3_column_bytes(stmt_, col);
  return p != nullptr ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

bool Transaction::Begin(SqlError* e) {
  // A write that began as a read could not take the write lock later without
  // risking a deadlock, and SQLite then fails at once instead of waiting
  // for the busy timeout: every write takes the lock up front.
  if (!Exec(db_, write_ ? "BEGIN IMMEDIATE" : "BEGIN", e)) return false;
  open_ = true;
  return true;
}

bool Transaction::Commit(SqlError* e) {
  if (!Exec(db_, "COMMIT", e)) return false;
  open_ = false;
  return true;
}

}  // namespace workgate::sqlite
