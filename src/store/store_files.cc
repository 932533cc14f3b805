#include "store/store_files.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "store/result_store.h"

namespace workgate {
namespace {

std::string FormatUtc(time_t t, const char* format) {
  struct tm utc;
  gmtime_r(&t, &utc);
  char text[32];
  strftime(text, sizeof text, format, &utc);
  return text;
}

// An absolute path in `name`, or "" (unset, empty and relative all count as
// unset, as the XDG base directory specification says of relative paths).
std::string AbsoluteVariable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] == '/' ? value : "";
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::string DefaultStorePath(std::string* why) {
  if (std::string xdg = AbsoluteVariable("XDG_CACHE_HOME"); !xdg.empty()) {
    return xdg + "/workgate/results.sqlite3";
  }
  if (std::string home = AbsoluteVariable("HOME"); !home.empty()) {
    return home + "/.cache/workgate/results.sqlite3";
  }
  *why = "neither XDG_CACHE_HOME nor HOME is set to an absolute path";
  return "";
}

std::string UtcNow() { return FormatUtc(time(nullptr), "%Y-%m-%dT%H:%M:%SZ"); }

std::string StoreDate(int days_ago) {
  return FormatUtc(time(nullptr) - static_cast<time_t>(days_ago) * 86400, "%Y-%m-%d");
}

bool IdentifyStoreFile(const std::string& path, StoreFileId* id) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  id->device = st.st_dev;
  id->inode = st.st_ino;
  return true;
}

bool MakeStoreDirectory(const std::string& path, std::string* err) {
  // Each directory from the top down; an existing one is left as it is.
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    // Only what is missing: mkdir in a directory this user may not write
    // fails with EACCES even where the name exists.
    struct stat st;
    if (stat(dir.c_str(), &st) == 0 || mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) continue;
    *err = fmt::format("cannot make the directory {} for the result store {}: {}", dir, path,
                       std::strerror(errno));
    return false;
  }
  return true;
}

MoveAside MoveStoreAside(const std::string& path, const StoreFileId& id, std::string* moved_to,
                         std::string* err) {
  StoreFileId now;
  if (!IdentifyStoreFile(path, &now) || now.device != id.device || now.inode != id.inode) {
    return MoveAside::kGone;
  }
  const std::string base = path + ".corrupt-" + FormatUtc(time(nullptr), "%Y%m%dT%H%M%SZ");
  std::string target = base;
  for (int n = 2; Exists(target) || Exists(target + "-wal"); ++n) {
    target = fmt::format("{}-{}", base, n);
  }
  if (rename(path.c_str(), target.c_str()) != 0) {
    *err = fmt::format("cannot move {} aside to {}: {}", path, target, std::strerror(errno));
    return MoveAside::kFailed;
  }
  // The journal files belong with the database: SQLite finds them beside it
  // by these names, so the moved copy stays readable for a post-mortem.
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string from = path + suffix, to = target + suffix;
    if (rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
      *err = fmt::format("cannot move {} aside to {}: {}", from, to, std::strerror(errno));
      return MoveAside::kFailed;
    }
  }
  *moved_to = target;
  return MoveAside::kMoved;
}

}  // namespace workgate
