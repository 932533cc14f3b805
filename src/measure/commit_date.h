#pragma once
// The date of the commit a history record is recorded under (`--record
// REF`), so that history shows when each commit was made, not only when its
// count was recorded. It is read before any workload runs, while the
// checkout is still as the CI made it: only `git rev-parse` runs there, and
// the commit object itself is read as data and checked against its name
// (measure/git_objects.h).

#include <optional>
#include <string>
#include <string_view>

namespace workgate {

/// The committer date of the commit `ref` names in the git checkout that
/// holds `dir` (empty: $GITHUB_WORKSPACE, else $CI_PROJECT_DIR, else the
/// current directory, as MakeSourceView finds it), in UTC as the store
/// writes times ("2026-12-02T03:04:05Z"); nullopt when `ref` names no
/// commit there (a label), or its commit cannot be read.
std::optional<std::string> CommitDate(const std::string& dir, const std::string& ref);

/// The committer date of a commit object's text (its "committer NAME
/// <EMAIL> SECONDS ZONE" header), in UTC as CommitDate gives it; nullopt
/// without one, or with a time before 1970 or after 9999.
std::optional<std::string> CommitterDate(std::string_view commit);

}  // namespace workgate
