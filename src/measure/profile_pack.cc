#include "measure/profile_pack.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "explain/callgrind_profile.h"
#include "explain/explain.h"
#include "measure/stability_runs.h"
#include "store/result_store.h"
#include "util/atomic_file.h"
#include "util/compression.h"
#include "util/paths.h"

namespace workgate {

namespace fs = std::filesystem;

namespace {

// The instructions callgrind output `contents` (the file `name`) counts.
bool ProfileTotal(const std::string& name, const std::string& contents, uint64_t* total,
                  std::string* err) {
  std::istringstream in(contents);
  return ParseCallgrindTotal(in, name, total, err);
}

// The total of `profiles`, each parsed; false with `*err` when one is no
// profile or they overflow a count.
bool ProfilesTotal(const ProfileTexts& profiles, uint64_t* total, std::string* err) {
  *total = 0;
  for (const auto& [name, contents] : profiles) {
    uint64_t part = 0;
    if (!ProfileTotal(name, contents, &part, err)) return false;
    if (part > kMaxCount - *total) {
      *err = "the profile's files add up to more than any count";
      return false;
    }
    *total += part;
  }
  return true;
}

}  // namespace

bool WriteProfileFiles(const std::string& dir, const ProfileTexts& profiles, uint64_t count,
                       std::string* err) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *err = fmt::format("cannot make {}: {}", dir, ec.message());
    return false;
  }
  uint64_t total = 0;
  bool ok = true;
  for (const auto& [name, contents] : profiles) {
    if (!PlainFileName(name)) {
      *err = "a stored profile has a file name that is no plain name";
      ok = false;
      break;
    }
  }
  ok = ok && ProfilesTotal(profiles, &total, err);
  for (size_t i = 0; ok && i < profiles.size(); ++i) {
    ok = WriteFileAtomically(dir + "/" + profiles[i].first, profiles[i].second, err);
  }
  if (ok && total != count) {
    *err = fmt::format("the stored profile adds up to {}, its count is {}", total, count);
    ok = false;
  }
  if (!ok) {
    for (const std::string& file : ProfileFiles(dir)) fs::remove(file, ec);
  }
  return ok;
}

ProfileTexts ReadProfileFiles(const std::string& dir) {
  ProfileTexts out;
  size_t bytes = 0;
  for (const std::string& file : ProfileFiles(dir)) {
    std::optional<std::string> text = ReadFile(file, kMaxStoredProfileBytes);
    if (!text || (bytes += text->size()) > kMaxStoredProfileBytes ||
        out.size() == kMaxStoredProfileFiles) {
      return {};
    }
    out.emplace_back(fs::path(file).filename().string(), std::move(*text));
  }
  return out;
}

std::optional<PackedProfile> PackProfile(const std::string& dir, const PackedProfileOrigin& origin,
                                         std::string* why) {
  const ProfileTexts files = ReadProfileFiles(dir);
  if (files.empty()) {
    *why = ProfileFiles(dir).empty()
               ? "its run kept no profile"
               : fmt::format("its profile is larger than a stored baseline keeps ({} MiB, {} files)",
                             kMaxStoredProfileBytes >> 20, kMaxStoredProfileFiles);
    return std::nullopt;
  }
  PackedProfile packed;
  if (!ProfilesTotal(files, &packed.total, why)) return std::nullopt;
  const OwnProgram own = OwnProgramOf(origin.build, origin.ran);
  packed.profiler = origin.profiler;
  packed.object = own.object;
  packed.ran = own.ran;
  packed.build = own.build;
  for (const auto& [name, contents] : files) {
    packed.gzip_files.emplace_back(name, GzipCompress(contents));
  }
  return packed;
}

bool UnpackProfile(const PackedProfile& packed, const std::string& dir, std::string* err) {
  if (packed.gzip_files.size() > kMaxStoredProfileFiles) {
    *err = fmt::format("it has {} files, more than {}", packed.gzip_files.size(),
                       kMaxStoredProfileFiles);
    return false;
  }
  ProfileTexts files;
  size_t left = kMaxStoredProfileBytes;
  for (const auto& [name, gz] : packed.gzip_files) {
    std::string contents, why;
    if (!GzipDecompress(gz, left, &contents, &why)) {
      *err = fmt::format("its file {}: {}",
                         PlainFileName(name) ? name : std::string("(not a plain name)"), why);
      return false;
    }
    left -= contents.size();
    files.emplace_back(name, std::move(contents));
  }
  return WriteProfileFiles(dir, files, packed.total, err);
}

}  // namespace workgate
