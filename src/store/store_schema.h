#pragma once
// The result store's schema and its migrations. A store's PRAGMA
// user_version is the last migration step applied to it; each step runs in
// one BEGIN IMMEDIATE transaction of its own, so a store is always at some
// step's version, whichever processes migrate it at once.
//
// Version 1:
//   count_cache     one row per count key: the counts (EncodeCounts' text),
//                   score (NULL when none), profiles_sha256 (ProfilesDigest
//                   of its profiles), counted_at, ref, label,
//                   workgate_version, and checksum (EntryChecksum)
//   cache_profiles  an entry's profile files: key, ordinal (their order),
//                   name, contents (a BLOB); removed with their entry
//   history         one row per (ref, workload, backend, event): seq (the
//                   recording order, never reused), the HistoryRecord's
//                   fields (counts as text, condition_parts as JSON text)
//                   and checksum (HistoryChecksum)
// Version 2 adds count_cache.last_used, the UTC date ("YYYY-MM-DD") a gate
// last used the entry, and its index, for pruning unused entries.
// Version 3 adds count_cache.deterministic.
// Version 4 adds history.subject, the commit's subject (NULL: none given,
// and every row recorded before it).
// Version 5 adds count_cache.inputs and inputs_sha256 (and empties the
// cache); version 6 count_cache.simulated.
// Version 7 adds history.committed_at, the commit's date (NULL: the ref
// was no commit of the checkout, and every row recorded before it).

#include <sqlite3.h>

#include <string>

#include "store/sqlite.h"

namespace workgate {

/// Applies the migration steps that `db` lacks, up to schema version
/// `target` (at most kStoreSchemaVersion; tests ask for 1 to make an older
/// store). The first step also sets the application_id. A store already at
/// `target` or beyond is left as it is.
bool MigrateStore(sqlite3* db, int target, sqlite::SqlError* e);

/// Deletes the count cache entries (and their profiles) last used before
/// `cutoff_date` ("YYYY-MM-DD"); history is never pruned. Writes only when
/// there is something to delete.
bool PruneStore(sqlite3* db, const std::string& cutoff_date, sqlite::SqlError* e);

}  // namespace workgate
