#include "store/store_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "store/result_store.h"
#include "util/paths.h"

namespace workgate {
namespace {

std::string FormatUtc(time_t t, const char* format) {
  struct tm utc;
  gmtime_r(&t, &utc);
  char text[32];
  strftime(text, sizeof text, format, &utc);
  return text;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// SQLite's database header (the file format, section 1.3): the magic string,
// the schema cookie at offset 40 (0 until a schema is written) and the
// application_id at offset 68, both big-endian.
constexpr size_t kHeaderBytes = 100;
constexpr char kSqliteMagic[] = "SQLite format 3";  // and its NUL

uint32_t BigEndian32(const unsigned char* at) {
  return uint32_t{at[0]} << 24 | uint32_t{at[1]} << 16 | uint32_t{at[2]} << 8 | at[3];
}

struct Header {
  bool sqlite = false;
  uint32_t schema_cookie = 0;
  uint32_t application_id = 0;
};

// Reads the header of the regular file `path`; false (and `*size`) when it is
// shorter than a header, or cannot be read.
bool ReadHeader(const std::string& path, Header* header, off_t* size) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  unsigned char bytes[kHeaderBytes];
  const ssize_t n = pread(fd, bytes, sizeof bytes, 0);
  close(fd);
  if (n != static_cast<ssize_t>(sizeof bytes)) {
    *size = n < 0 ? 0 : n;
    return false;
  }
  header->sqlite = memcmp(bytes, kSqliteMagic, sizeof kSqliteMagic) == 0;
  header->schema_cookie = BigEndian32(bytes + 40);
  header->application_id = BigEndian32(bytes + 68);
  return true;
}

}  // namespace

std::string NotAStoreFile(const std::string& path) {
  struct stat st;
  // stat follows a symbolic link: what matters is the file it names.
  if (stat(path.c_str(), &st) != 0) return "";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (st.st_size == 0) return "";
  Header header;
  off_t size = st.st_size;
  // O_NOFOLLOW above: a link is read through its target's path.
  char resolved[PATH_MAX];
  const std::string file = realpath(path.c_str(), resolved) != nullptr ? resolved : path;
  if (!ReadHeader(file, &header, &size)) {
    if (access(file.c_str(), R_OK) != 0) {
      return fmt::format("it cannot be read: {}", std::strerror(errno));
    }
    return fmt::format(
        "it is not an SQLite database ({} bytes, shorter than SQLite's 100-byte header)", size);
  }
  if (!header.sqlite) {
    return "it is not an SQLite database (it does not start with SQLite's header, \"SQLite "
           "format 3\")";
  }
  if (header.application_id == static_cast<uint32_t>(kStoreApplicationId)) return "";
  if (header.application_id != 0) {
    return fmt::format(
        "it is an SQLite database of another application (application_id {:#010x}; a workgate "
        "store's is {:#010x})",
        header.application_id, static_cast<uint32_t>(kStoreApplicationId));
  }
  if (header.schema_cookie != 0) {
    return fmt::format(
        "it is an SQLite database of another application (it has tables but no "
        "application_id; a workgate store's is {:#010x})",
        static_cast<uint32_t>(kStoreApplicationId));
  }
  return "";
}

bool MarkedAsStore(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return false;
  Header header;
  off_t size = 0;
  return ReadHeader(resolved, &header, &size) && header.sqlite &&
         header.application_id == static_cast<uint32_t>(kStoreApplicationId);
}

std::string DefaultStorePath(std::string* why) {
  const std::string dir = CacheDirectory(why);
  return dir.empty() ? "" : dir + "/results.sqlite3";
}

std::string UtcNow() { return FormatUtc(time(nullptr), "%Y-%m-%dT%H:%M:%SZ"); }

std::string UtcTime(int64_t seconds) {
  constexpr int64_t kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  if (seconds < 0 || seconds >= kYear10000) return "";
  return FormatUtc(static_cast<time_t>(seconds), "%Y-%m-%dT%H:%M:%SZ");
}

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
