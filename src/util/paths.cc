#include "util/paths.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/input_file.h"

namespace workgate {

namespace fs = std::filesystem;

std::string SelfDirectory() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return self.parent_path().string();
}

namespace {

// The build tree's layout, then the installed one (CMakeLists.txt,
// WORKGATE_INSTALL_COMPANION_DIR).
std::vector<fs::path> CompanionCandidates(const std::string& build_relative) {
  const fs::path dir = SelfDirectory();
  return {dir / build_relative,
          dir / ".." / "lib" / "workgate" / fs::path(build_relative).filename()};
}

}  // namespace

std::string FindCompanion(const std::string& build_relative) {
  std::error_code ec;
  for (const fs::path& candidate : CompanionCandidates(build_relative)) {
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

std::string CompanionPlaces(const std::string& build_relative) {
  const std::vector<fs::path> places = CompanionCandidates(build_relative);
  return places[0].lexically_normal().string() + " or " + places[1].lexically_normal().string();
}

std::string SearchPath(const std::string& name, const std::string& path_list) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  std::stringstream dirs(path_list);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      struct stat st;
      if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return candidate;
    }
  }
  return "";
}

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool PlainFileName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {

// An absolute path in `name`, or "" (unset, empty and relative all count as
// unset, as the XDG base directory specification says of relative paths).
std::string AbsoluteVariable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] == '/' ? value : "";
}

}  // namespace

std::string CacheDirectory(std::string* why) {
  if (std::string xdg = AbsoluteVariable("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/workgate";
  if (std::string home = AbsoluteVariable("HOME"); !home.empty()) return home + "/.cache/workgate";
  *why = "neither XDG_CACHE_HOME nor HOME is set to an absolute path";
  return "";
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) return "";
  return buf;
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + ".XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw EnvironmentError("cannot create a temporary directory under " + pattern);
  }
  path_ = pattern;
  RegisterCleanupPath(path_);
}

namespace {

// Gives the owner every permission on the directories under `dir` (not
// following symlinks), so that what a program locked itself out of can go.
void OpenUp(const fs::path& dir) {
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) OpenUp(it->path());
  }
}

}  // namespace

bool EmptyDirectory(const std::string& dir, std::string* err) {
  std::error_code ec;
  OpenUp(dir);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (rm) {
      *err = fmt::format("cannot remove {}: {}", it->path().string(), rm.message());
      return false;
    }
  }
  if (ec) {
    *err = fmt::format("cannot list {}: {}", dir, ec.message());
    return false;
  }
  return true;
}

TempDir::~TempDir() {
  RemoveTree(path_);
  UnregisterCleanupPath(path_);
}

std::optional<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::string text, why;
  if (!ReadRegularFile(path, max_bytes, &text, &why)) return std::nullopt;
  return text;
}

}  // namespace workgate
