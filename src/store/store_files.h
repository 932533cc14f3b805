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
