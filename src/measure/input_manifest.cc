#include "measure/input_manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "launch/file_system.h"
#include "util/sha256.h"
#include "util/text.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int64_t kNsPerSecond = 1000000000;
// A file changed this close to the making of its manifest may have changed
// again within the granularity of its change time: its stat alone does not
// show that it is unchanged.
constexpr int64_t kRacyNs = 2 * kNsPerSecond;

int64_t Ns(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * kNsPerSecond + t.tv_nsec; }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Whether `path` names a ".." component: such a path is kept whatever it
// seems to lie under, since its text does not say where it leads.
bool HasDotDot(const std::string& path) {
  for (const auto& part : fs::path(path)) {
    if (part == "..") return true;
  }
  return false;
}

bool IsPseudo(const std::string& path) {
  return StartsWith(path, "/proc/") || StartsWith(path, "/sys/");
}

// A process's own /proc entry: /proc/self, /proc/thread-self, /proc/<pid>.
bool IsOwnProcFile(const std::string& path) {
  if (!StartsWith(path, "/proc/")) return false;
  std::string_view rest = std::string_view(path).substr(6);
  const std::string_view first = rest.substr(0, rest.find('/'));
  if (first == "self" || first == "thread-self") return true;
  return !first.empty() && std::all_of(first.begin(), first.end(),
                                       [](char c) { return c >= '0' && c <= '9'; });
}

std::string Quoted(const std::string& path) { return TerminalSafe(path, LineBreaks::kToSpace); }

std::string TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "link";
  return "other";
}

// The errno of asking `op` of `path` now; 0 when it succeeds.
int Ask(const std::string& op, const std::string& path) {
  struct stat st;
  int rc = 0;
  if (op == "open") {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) close(fd);
    rc = fd >= 0 ? 0 : -1;
  } else if (op == "lstat") {
    rc = lstat(path.c_str(), &st);
  } else {
    rc = stat(path.c_str(), &st);
  }
  return rc == 0 ? 0 : errno;
}

bool IsMissingErrno(int e) { return e == ENOENT || e == ENOTDIR; }

// SHA-256 of the regular file at `path`, with what it was while read
// (`*st`: unchanged from before reading to after; else false with `*why`).
// /proc and /sys files change their times as they are read: only their
// content counts.
bool HashRegularFile(const std::string& path, bool pseudo, struct stat* st, std::string* sha,
                     std::string* why) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    *why = fmt::format("{} cannot be read: {}", Quoted(path), strerror(errno));
    return false;
  }
  struct stat before, after;
  std::string err;
  std::optional<std::string> digest;
  const bool regular = fstat(fd, &before) == 0 && S_ISREG(before.st_mode);
  if (regular) digest = Sha256OfDescriptor(fd, &err);
  const bool same = digest && fstat(fd, &after) == 0 &&
                    (pseudo || (Ns(after.st_ctim) == Ns(before.st_ctim) &&
                                after.st_size == before.st_size));
  close(fd);
  if (!regular || !digest) {
    *why = fmt::format("{} cannot be read{}", Quoted(path), err.empty() ? "" : ": " + err);
    return false;
  }
  if (!same) {
    *why = fmt::format("{} changed while it was read", Quoted(path));
    return false;
  }
  *st = before;
  *sha = *digest;
  return true;
}

// SHA-256 of the names in directory `path` with their types, sorted.
bool HashListing(const std::string& path, std::string* sha, std::string* why) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    *why = fmt::format("the directory {} cannot be listed: {}", Quoted(path), strerror(errno));
    return false;
  }
  std::vector<std::string> names;
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      type = static_cast<unsigned char>(
          fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? IFTODT(st.st_mode) : 0);
    }
    names.push_back(name + '\0' + std::to_string(type));
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  std::string all;
  for (const std::string& n : names) all += n + '\n';
  *sha = Sha256Hex(all);
  return true;
}

// Whether `now` is the file `record` saw: the same file, unchanged since.
// For a directory only its device and inode count, unless `contents`.
bool SameFile(const InputRecord& record, const struct stat& now, bool contents) {
  if (record.dev != static_cast<uint64_t>(now.st_dev) ||
      record.ino != static_cast<uint64_t>(now.st_ino) ||
      (record.mode & S_IFMT) != (now.st_mode & S_IFMT)) {
    return false;
  }
  if (S_ISDIR(now.st_mode) && !contents) return true;
  return record.size == static_cast<uint64_t>(now.st_size) &&
         record.mtime_ns == Ns(now.st_mtim) && record.ctime_ns == Ns(now.st_ctim);
}

// A record's path as the manifest names it (a path under the exe link is
// the same path under the build), or "" when the scope leaves it out.
std::string ScopedPath(const std::string& path, const ManifestScope& scope) {
  if (!scope.exe_link.empty() && !HasDotDot(path) &&
      PathIsWithin(path.c_str(), scope.exe_link.c_str())) {
    if (path.size() == scope.exe_link.size()) return "";  // the build: in the key
    return scope.exe + path.substr(scope.exe_link.size());
  }
  return ExcludedBecause(path, scope).empty() ? path : "";
}

class Maker {
 public:
  explicit Maker(InputManifest* out) : out_(out) {}

  bool Add(const InputRecord& r, const std::string& path, std::string* why) {
    switch (r.kind) {
      case InputRecord::Kind::kMachine:
        *why = fmt::format("the program read {}, which changes as the machine runs", Quoted(path));
        return false;
      case InputRecord::Kind::kOpen:
      case InputRecord::Kind::kExec:
        if (r.state == InputRecord::State::kPresent && S_ISREG(r.mode)) return File(r, path, why);
        if (r.state == InputRecord::State::kPresent && !S_ISDIR(r.mode)) return true;
        return Meta(r, path, r.kind == InputRecord::Kind::kOpen ? "open" : "stat", true, why);
      case InputRecord::Kind::kList:
        if (r.state == InputRecord::State::kPresent) return Listing(r, path, why);
        return Meta(r, path, "stat", true, why);
      case InputRecord::Kind::kMeta:
        return Meta(r, path, "stat", true, why);
      case InputRecord::Kind::kLinkMeta:
        return Meta(r, path, "lstat", false, why);
    }
    return true;
  }

 private:
  bool File(const InputRecord& r, const std::string& path, std::string* why) {
    ManifestEntry e;
    e.kind = ManifestEntry::Kind::kFile;
    e.path = path;
    e.pseudo = IsPseudo(path);
    struct stat now;
    if (!e.pseudo && (stat(path.c_str(), &now) != 0 || !SameFile(r, now, true))) {
      *why = fmt::format("the file {} changed while the program ran", Quoted(path));
      return false;
    }
    if (!HashRegularFile(path, e.pseudo, &now, &e.sha256, why)) return false;
    if (!e.pseudo && !SameFile(r, now, true)) {
      *why = fmt::format("the file {} changed while the program ran", Quoted(path));
      return false;
    }
    e.size = static_cast<uint64_t>(now.st_size);
    e.mtime_ns = Ns(now.st_mtim);
    e.ctime_ns = Ns(now.st_ctim);
    e.dev = static_cast<uint64_t>(now.st_dev);
    e.ino = static_cast<uint64_t>(now.st_ino);
    if (e.pseudo) e.size = e.mtime_ns = e.ctime_ns = 0, e.dev = e.ino = 0;
    out_->entries.push_back(std::move(e));
    return true;
  }

  bool Listing(const InputRecord& r, const std::string& path, std::string* why) {
    ManifestEntry e;
    e.kind = ManifestEntry::Kind::kListing;
    e.path = path;
    struct stat now;
    if (!IsPseudo(path) && (stat(path.c_str(), &now) != 0 || !SameFile(r, now, true))) {
      *why = fmt::format("the directory {} changed while the program ran", Quoted(path));
      return false;
    }
    if (!HashListing(path, &e.sha256, why)) return false;
    out_->entries.push_back(std::move(e));
    return true;
  }

  bool NotALink(const std::string& path, std::string* why) {
    ManifestEntry e;
    e.kind = ManifestEntry::Kind::kMeta;
    e.path = path;
    e.follow = false;
    struct stat now;
    if (lstat(path.c_str(), &now) != 0 || S_ISLNK(now.st_mode)) {
      *why = fmt::format("{} appeared or changed while the program ran", Quoted(path));
      return false;
    }
    if (!Describe(path, now, IsPseudo(path), &e, why)) return false;
    out_->entries.push_back(std::move(e));
    return true;
  }

  bool Meta(const InputRecord& r, const std::string& path, const std::string& op, bool follow,
            std::string* why) {
    ManifestEntry e;
    e.path = path;
    e.follow = follow;
    if (!follow && r.state == InputRecord::State::kError && r.error == EINVAL) {
      // readlink of what is no link: the program learnt that the path is
      // there and what it is not, as an lstat would tell.
      return NotALink(path, why);
    }
    if (r.state != InputRecord::State::kPresent) {
      const int asked = r.state == InputRecord::State::kMissing ? ENOENT : r.error;
      const int now = Ask(r.state == InputRecord::State::kMissing ? (follow ? "stat" : "lstat") : op,
                          path);
      const bool same = r.state == InputRecord::State::kMissing ? IsMissingErrno(now) : now == asked;
      if (!same) {
        *why = fmt::format("{} appeared or changed while the program ran", Quoted(path));
        return false;
      }
      if (r.state == InputRecord::State::kMissing) {
        e.kind = ManifestEntry::Kind::kMissing;
      } else {
        e.kind = ManifestEntry::Kind::kError;
        e.op = op;
        e.error = asked;
      }
      out_->entries.push_back(std::move(e));
      return true;
    }
    e.kind = ManifestEntry::Kind::kMeta;
    struct stat now;
    const int rc = follow ? stat(path.c_str(), &now) : lstat(path.c_str(), &now);
    const bool pseudo = IsPseudo(path);
    if (rc != 0 || (r.mode & S_IFMT) != (now.st_mode & S_IFMT) ||
        (!pseudo && !SameFile(r, now, false))) {
      *why = fmt::format("{} changed while the program ran", Quoted(path));
      return false;
    }
    if (!Describe(path, now, pseudo, &e, why)) return false;
    out_->entries.push_back(std::move(e));
    return true;
  }

 public:
  // What a kMeta entry keeps of `st`: type; size and time of a file; a
  // link's target. /proc and /sys keep the type alone.
  static bool Describe(const std::string& path, const struct stat& st, bool pseudo,
                       ManifestEntry* e, std::string* why) {
    e->type = TypeOf(st.st_mode);
    if (pseudo) return true;
    if (S_ISREG(st.st_mode)) {
      e->size = static_cast<uint64_t>(st.st_size);
      e->mtime_ns = Ns(st.st_mtim);
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(4096, '\0');
      const ssize_t n = readlink(path.c_str(), target.data(), target.size());
      if (n < 0) {
        *why = fmt::format("the link {} cannot be read: {}", Quoted(path), strerror(errno));
        return false;
      }
      target.resize(static_cast<size_t>(n));
      e->target = target;
    }
    return true;
  }

 private:
  InputManifest* out_;
};

auto SortKey(const ManifestEntry& e) {
  return std::tie(e.path, e.kind, e.follow, e.op, e.error, e.sha256, e.type, e.target, e.size,
                  e.mtime_ns);
}

const std::map<ManifestEntry::Kind, std::string>& KindNames() {
  static const std::map<ManifestEntry::Kind, std::string> names = {
      {ManifestEntry::Kind::kFile, "file"},       {ManifestEntry::Kind::kListing, "listing"},
      {ManifestEntry::Kind::kMeta, "meta"},       {ManifestEntry::Kind::kMissing, "missing"},
      {ManifestEntry::Kind::kError, "error"}};
  return names;
}

// The entry's identifying fields, as JSON (ManifestDigest hashes these).
Json Identity(const ManifestEntry& e) {
  Json j = {{"kind", KindNames().at(e.kind)}, {"path", e.path}};
  switch (e.kind) {
    case ManifestEntry::Kind::kFile:
    case ManifestEntry::Kind::kListing:
      j["sha256"] = e.sha256;
      break;
    case ManifestEntry::Kind::kMeta:
      j["follow"] = e.follow;
      j["type"] = e.type;
      j["size"] = e.size;
      j["mtime_ns"] = e.mtime_ns;
      j["target"] = e.target;
      break;
    case ManifestEntry::Kind::kMissing:
      j["follow"] = e.follow;
      break;
    case ManifestEntry::Kind::kError:
      j["op"] = e.op;
      j["errno"] = e.error;
      break;
  }
  return j;
}

}  // namespace

std::string ExcludedBecause(const std::string& path, const ManifestScope& scope) {
  if (IsOwnProcFile(path)) return "a process's own /proc file";
  if (scope.pinned && path == "/proc/uptime") return "the pinned clock";
  if (HasDotDot(path)) return "";
  for (const std::string& file : scope.excluded_files) {
    if (path == file) return "the build";
  }
  for (const std::string& bound : scope.bound) {
    if (PathIsWithin(path.c_str(), bound.c_str())) return "";
  }
  for (const std::string& dir : scope.excluded_dirs) {
    if (!dir.empty() && PathIsWithin(path.c_str(), dir.c_str())) {
      return "the workload's own directories";
    }
  }
  if ((path == "/dev" || StartsWith(path, "/dev/")) && !StartsWith(path, "/dev/shm/")) {
    return "a device";
  }
  return "";
}

bool MakeInputManifest(const std::vector<InputRecord>& records, const ManifestScope& scope,
                       InputManifest* out, std::string* why) {
  InputManifest manifest;
  manifest.made_at_ns = NowNs();
  Maker maker(&manifest);
  std::vector<InputRecord> sorted = records;
  std::sort(sorted.begin(), sorted.end(), [](const InputRecord& a, const InputRecord& b) {
    return std::tie(a.path, a.kind, a.state) < std::tie(b.path, b.kind, b.state);
  });
  for (const InputRecord& r : sorted) {
    const std::string path = ScopedPath(r.path, scope);
    if (path.empty()) continue;
    if (!maker.Add(r, path, why)) return false;
  }
  std::sort(manifest.entries.begin(), manifest.entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return SortKey(a) < SortKey(b); });
  manifest.entries.erase(
      std::unique(manifest.entries.begin(), manifest.entries.end(),
                  [](const ManifestEntry& a, const ManifestEntry& b) {
                    return SortKey(a) == SortKey(b);
                  }),
      manifest.entries.end());
  if (manifest.entries.size() > kMaxManifestEntries) {
    *why = fmt::format("the program read more than {} files and directories", kMaxManifestEntries);
    return false;
  }
  *out = std::move(manifest);
  return true;
}

std::string ManifestChange(const InputManifest& manifest) {
  for (const ManifestEntry& e : manifest.entries) {
    const std::string path = Quoted(e.path);
    std::string why;
    switch (e.kind) {
      case ManifestEntry::Kind::kFile: {
        struct stat now;
        if (stat(e.path.c_str(), &now) != 0) {
          return fmt::format("the file {} is gone since it was counted", path);
        }
        // Not in int64: the times come from a stored row, any int64 at all.
        const bool settled = static_cast<long double>(manifest.made_at_ns) -
                                 static_cast<long double>(e.ctime_ns) >
                             static_cast<long double>(kRacyNs);
        if (!e.pseudo && settled && S_ISREG(now.st_mode) &&
            e.dev == static_cast<uint64_t>(now.st_dev) &&
            e.ino == static_cast<uint64_t>(now.st_ino) &&
            e.size == static_cast<uint64_t>(now.st_size) && e.mtime_ns == Ns(now.st_mtim) &&
            e.ctime_ns == Ns(now.st_ctim)) {
          break;
        }
        std::string sha;
        if (!S_ISREG(now.st_mode) || !HashRegularFile(e.path, e.pseudo, &now, &sha, &why) ||
            sha != e.sha256) {
          return fmt::format("the file {} changed since it was counted", path);
        }
        break;
      }
      case ManifestEntry::Kind::kListing: {
        std::string sha;
        if (!HashListing(e.path, &sha, &why) || sha != e.sha256) {
          return fmt::format("the directory {} gained or lost entries since it was counted", path);
        }
        break;
      }
      case ManifestEntry::Kind::kMeta: {
        struct stat now;
        const int rc = e.follow ? stat(e.path.c_str(), &now) : lstat(e.path.c_str(), &now);
        ManifestEntry seen = e;
        if (rc != 0 || !Maker::Describe(e.path, now, IsPseudo(e.path), &seen, &why) ||
            seen.type != e.type || seen.size != e.size || seen.mtime_ns != e.mtime_ns ||
            seen.target != e.target) {
          return fmt::format("{} is not what it was when counted (its type, size, time or "
                             "target changed)",
                             path);
        }
        break;
      }
      case ManifestEntry::Kind::kMissing:
        if (!IsMissingErrno(Ask(e.follow ? "stat" : "lstat", e.path))) {
          return fmt::format("{} exists now; it did not when counted", path);
        }
        break;
      case ManifestEntry::Kind::kError:
        if (Ask(e.op, e.path) != e.error) {
          return fmt::format("{} can be reached differently since it was counted ({} said: {})",
                             path, e.op, strerror(e.error));
        }
        break;
    }
  }
  return "";
}

std::string ManifestJson(const InputManifest& manifest) {
  Json entries = Json::array();
  for (const ManifestEntry& e : manifest.entries) {
    Json j = Identity(e);
    if (e.kind == ManifestEntry::Kind::kFile) {
      j["size"] = e.size;
      j["mtime_ns"] = e.mtime_ns;
      j["ctime_ns"] = e.ctime_ns;
      j["dev"] = e.dev;
      j["ino"] = e.ino;
      j["pseudo"] = e.pseudo;
    }
    entries.push_back(std::move(j));
  }
  return Json{{"version", 1}, {"made_at_ns", manifest.made_at_ns}, {"entries", entries}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

namespace {

// Reads `j[key]` into `*out` when it is of type T; false otherwise.
template <typename T>
bool Field(const Json& j, const char* key, T* out) {
  const auto it = j.find(key);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return false;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned()) return false;
  } else {
    if (!it->is_number_integer()) return false;
  }
  *out = it->get<T>();
  return true;
}

bool ParseEntry(const Json& j, ManifestEntry* e, std::string* why) {
  std::string kind;
  if (!j.is_object() || !Field(j, "kind", &kind) || !Field(j, "path", &e->path) ||
      e->path.empty() || e->path[0] != '/') {
    *why = "an entry without its kind or an absolute path";
    return false;
  }
  bool known = false;
  for (const auto& [k, name] : KindNames()) {
    if (name == kind) e->kind = k, known = true;
  }
  size_t fields = 2;
  bool ok = known;
  switch (e->kind) {
    case ManifestEntry::Kind::kFile:
      ok = ok && Field(j, "sha256", &e->sha256) && Field(j, "size", &e->size) &&
           Field(j, "mtime_ns", &e->mtime_ns) && Field(j, "ctime_ns", &e->ctime_ns) &&
           Field(j, "dev", &e->dev) && Field(j, "ino", &e->ino) && Field(j, "pseudo", &e->pseudo);
      fields += 7;
      break;
    case ManifestEntry::Kind::kListing:
      ok = ok && Field(j, "sha256", &e->sha256);
      fields += 1;
      break;
    case ManifestEntry::Kind::kMeta:
      ok = ok && Field(j, "follow", &e->follow) && Field(j, "type", &e->type) &&
           Field(j, "size", &e->size) && Field(j, "mtime_ns", &e->mtime_ns) &&
           Field(j, "target", &e->target);
      fields += 5;
      break;
    case ManifestEntry::Kind::kMissing:
      ok = ok && Field(j, "follow", &e->follow);
      fields += 1;
      break;
    case ManifestEntry::Kind::kError:
      ok = ok && Field(j, "op", &e->op) && Field(j, "errno", &e->error) && e->error > 0 &&
           (e->op == "open" || e->op == "stat" || e->op == "lstat");
      fields += 2;
      break;
  }
  const bool digest_ok = (e->kind != ManifestEntry::Kind::kFile &&
                          e->kind != ManifestEntry::Kind::kListing) ||
                         (e->sha256.size() == 64 &&
                          e->sha256.find_first_not_of("0123456789abcdef") == std::string::npos);
  if (!ok || !digest_ok || j.size() != fields) {
    *why = "an entry of " + TerminalSafe(e->path, LineBreaks::kToSpace) +
           " whose fields are not those of its kind";
    return false;
  }
  return true;
}

}  // namespace

bool ParseManifestJson(std::string_view text, InputManifest* out, std::string* why) {
  const Json j = Json::parse(text, nullptr, false);
  int version = 0;
  InputManifest manifest;
  if (j.is_discarded() || !j.is_object() || j.size() != 3 || !Field(j, "version", &version) ||
      version != 1 || !Field(j, "made_at_ns", &manifest.made_at_ns) || !j.contains("entries") ||
      !j["entries"].is_array()) {
    *why = "the input manifest is not one workgate writes";
    return false;
  }
  if (j["entries"].size() > kMaxManifestEntries) {
    *why = "the input manifest has too many entries";
    return false;
  }
  for (const Json& item : j["entries"]) {
    ManifestEntry e;
    if (!ParseEntry(item, &e, why)) return false;
    manifest.entries.push_back(std::move(e));
  }
  *out = std::move(manifest);
  return true;
}

std::string ManifestDigest(const InputManifest& manifest) {
  Json all = Json::array();
  for (const ManifestEntry& e : manifest.entries) all.push_back(Identity(e));
  return Sha256Hex(all.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace workgate
