#pragma once
// A thin RAII layer over SQLite's C API for the result store: a connection,
// prepared statements with bound parameters (the store never builds SQL text
// from a value), and transactions that roll back unless committed. Errors
// are values: the result code and SQLite's message at the time.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace workgate::sqlite {

/// Why a call into SQLite failed.
struct SqlError {
  int code = SQLITE_OK;  // extended result code
  std::string message;   // sqlite3_errmsg at the time, or what the caller found
};

/// Whether `code` (primary or extended) means the file is damaged or is no
/// database at all: the cases the store moves the file aside for.
bool IsDamage(int code);

/// Fills `*e` from the connection's last error (`code` when it has none).
void SetError(sqlite3* db, int code, SqlError* e);

/// Runs `sql` (one or more statements, no parameters, rows ignored).
bool Exec(sqlite3* db, const char* sql, SqlError* e);

/// Reads the BLOB in `column` of the row `rowid` of `table` straight into
/// `*out`: one copy, where a statement's column would make two.
bool ReadBlob(sqlite3* db, const char* table, const char* column, int64_t rowid, std::string* out,
              SqlError* e);

/// One prepared statement. A failure to prepare or bind is kept and reported
/// by the first Step or Run, so a caller binds without checking each call.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are numbered from 1, as in SQLite. Values are copied.
  void BindText(int i, std::string_view text);
  void BindBlob(int i, std::string_view bytes);
  void BindInt(int i, int64_t value);
  void BindDouble(int i, double value);
  void BindNull(int i);

  /// Steps once: true with `*row` set when a row is ready, cleared when the
  /// statement is done; false with `*e` on an error.
  bool Step(bool* row, SqlError* e);
  /// Steps to the end, ignoring rows.
  bool Run(SqlError* e);
  /// Starts the statement again with the same bindings.
  void Reset();

  // The current row's columns, numbered from 0. Type is SQLITE_INTEGER,
  // SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL; the readers
  // convert as SQLite does, so check Type first where the type matters.
  int Type(int col) const;
  std::string Text(int col) const;  // binary-safe: every byte, NULs too
  int64_t Int(int col) const;
  double Double(int col) const;

 private:
  void Keep(int rc);

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int pending_ = SQLITE_OK;  // the first failure to prepare or bind
};

/// BEGIN IMMEDIATE (`write`) or BEGIN (a read snapshot), rolled back when it
/// goes away uncommitted.
class Transaction {
 public:
  Transaction(sqlite3* db, bool write) : db_(db), write_(write) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  bool Begin(SqlError* e);
  bool Commit(SqlError* e);

 private:
  sqlite3* db_;
  bool write_;
  bool open_ = false;
};

}  // namespace workgate::sqlite
