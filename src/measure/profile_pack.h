#pragma once
// A counted run's per-function profile as files on disk (where the
// explanation and the stability check read it), as the result store keeps
// it (plain (name, contents) pairs) and as a stored baseline keeps it
// (PackedProfile: compressed, with the names its build's code goes by).
//
// Profiles read back from the store or from a baseline file were written
// where anyone with the user's permissions could have changed them: every
// name must be a plain file name, every file must parse as callgrind output,
// the files must add up to the count they stand for, and nothing unpacks
// beyond the store's bounds (kMaxStoredProfileBytes, kMaxStoredProfileFiles).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace workgate {

/// Profile files as (file name, contents) pairs.
using ProfileTexts = std::vector<std::pair<std::string, std::string>>;

/// Writes `profiles` into `dir` (made here), where the explanation and the
/// stability check look for a count's profile. The files must add up to
/// `count`, the count they belong to, as vgcount's own profiles must: a
/// profile that does not is no explanation of that count. False with
/// `*err`; `dir` is then left empty.
bool WriteProfileFiles(const std::string& dir, const ProfileTexts& profiles, uint64_t count,
                       std::string* err);

/// The profile files a counted run kept in `dir`, in name order; none when
/// they are more than the store keeps (kMaxStoredProfileBytes or
/// kMaxStoredProfileFiles) or one cannot be read.
ProfileTexts ReadProfileFiles(const std::string& dir);

/// What a PackedProfile says of the build besides its files.
struct PackedProfileOrigin {
  std::string profiler;  // the tool that made the profile: "vgcount" or "callgrind"
  std::string build;     // the build as named on the command line
  std::string ran;       // the file that ran: the build, or its copy
};

/// The profile kept in `dir`, compressed, with its profiler and its build's
/// OwnProgram (explain/explain.h: OwnProgramOf `origin`'s build and ran,
/// resolved now, while both exist). nullopt with `*why` when `dir` holds none, holds more than
/// the store keeps, or a file is not callgrind output.
std::optional<PackedProfile> PackProfile(const std::string& dir, const PackedProfileOrigin& origin,
                                         std::string* why);

/// Unpacks `packed` into `dir` (WriteProfileFiles, against its `total`).
/// False with `*err` when a file is not gzip, would expand beyond the
/// store's bounds, has no plain name, or the files are not the profile
/// they claim to be.
bool UnpackProfile(const PackedProfile& packed, const std::string& dir, std::string* err);

}  // namespace workgate
