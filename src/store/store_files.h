#pragma once
// The result store's file on disk, apart from what is in it: its directory,
// which file a connection opened, moving a damaged file aside, and the
// dates the store writes.

#include <cstdint>
#include <string>

namespace workgate {

/// Which file a path named when the store opened it, so that a damaged file
/// is moved aside only while it is still the one at the path: another
/// workgate may have moved it already and made a new store there.
struct StoreFileId {
  uint64_t device = 0;
  uint64_t inode = 0;
};

/// The file at `path` now; false when there is none.
bool IdentifyStoreFile(const std::string& path, StoreFileId* id);

/// Makes the directories above `path` that are missing, each mode 0700 (a
/// store holds what a user's builds did). False with `*err` naming the
/// directory that could not be made.
bool MakeStoreDirectory(const std::string& path, std::string* err);

/// What the file at `path` is when it is not one the store may open, or ""
/// when it may: no file, an empty file (SQLite makes a database in it), or an
/// SQLite database whose header holds workgate's application_id, or none yet
/// and no schema (a new database). Otherwise, from its first 100 bytes
/// alone (SQLite's file header): "it is not a regular file", "it is not an
/// SQLite database (...)", "it is an SQLite database of another application
/// (application_id 0x...)". Such a file is never written, nor moved aside.
std::string NotAStoreFile(const std::string& path);

/// True when the file at `path` is an SQLite database whose header holds
/// workgate's application_id: the only file the store moves aside when it
/// is damaged.
bool MarkedAsStore(const std::string& path);

enum class MoveAside {
  kMoved,   // `*moved_to` is where the file is now
  kGone,    // the file at `path` is no longer the one identified: nothing moved
  kFailed,  // `*err` says why
};

/// Renames the store file `path`, with its -wal and -shm files, to
/// `<path>.corrupt-<YYYYmmddTHHMMSSZ>` (a number added when that is taken),
/// if it is still the file `id`.
MoveAside MoveStoreAside(const std::string& path, const StoreFileId& id, std::string* moved_to,
                         std::string* err);

/// The UTC date `days_ago` days before now, "YYYY-MM-DD": the form of an
/// entry's last use.
std::string StoreDate(int days_ago);

}  // namespace workgate
