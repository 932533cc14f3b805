#pragma once
// `workgate accept` edits the suite a reviewer commits: a workload's
// `[workload.accepted]` table, set or replaced, and every other byte of the
// file as its author wrote it (comments, order, spacing, line endings), so
// that the pull request's diff shows the accepted entry and nothing else.

#include <string>
#include <string_view>

#include "model/model.h"

namespace workgate {

/// The `[workload.accepted]` table of `entry`, lines ending in `eol`: a
/// comment on what it does, then reason, delta, delta_percent (rounded to
/// 4 decimals), baseline_count, backend, event, workload_digest,
/// baseline_sha256 and candidate_sha256, strings in TOML's escaping.
std::string AcceptedTable(const AcceptedWork& entry, std::string_view eol);

/// `text`, a suite read from `path` (named in messages), with workload
/// `name`'s accepted entry set to `entry` in `*out`. An earlier entry of that
/// workload is replaced where it stood; otherwise the table goes after the
/// workload's last line of its own (its keys and sub-tables), before any
/// comment that leads into the next workload. Nothing else changes. False
/// with `*err` when the suite does not parse (LoadSuite's message), has no
/// such workload, holds its entry in another form than a
/// `[workload.accepted]` table of its own, or when the edited text would not
/// read back as the same suite with this one entry set (a check of the edit
/// itself).
bool SetAcceptedEntry(std::string_view text, const std::string& path, const std::string& name,
                      const AcceptedWork& entry, std::string* out, std::string* err);

}  // namespace workgate
