#include "measure/build_copies.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <filesystem>
#include <memory>

#include "identity/elf_file.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/sha256.h"

namespace workgate {

namespace fs = std::filesystem;

namespace {

// Whether the loader finds some of the program's libraries relative to the
// program's own directory (ld.so(8): $ORIGIN in DT_RUNPATH or DT_RPATH): a
// copy elsewhere would load others, or none.
bool FindsLibrariesBesideItself(const std::string& path) {
  FileSource file;
  ElfFile elf;
  std::string ignored;
  if (!file.Open(path, &ignored) || !ReadElfFile(file, &elf, &ignored)) return false;
  const std::string search = elf.runpath.value_or("") + ":" + elf.rpath.value_or("");
  return search.find("ORIGIN") != std::string::npos;
}

// Why a run of `build` is refused when a file it loads changed (`why`).
std::string LoadsChangedError(const std::string& build, const std::string& why) {
  return fmt::format(
      "the files the build {} loads changed during the run ({}): no count after that is a count "
      "of the build that was named, so the run is invalid",
      build, why);
}

constexpr fs::perms kReadOnly = fs::perms::owner_read | fs::perms::owner_exec |
                                fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec;
// The directories: workgate's to write (so that it can remove them as any
// user, an interruption's clean-up included), anyone's to pass through (a
// workload run as another identity must reach the copy it executes).
constexpr fs::perms kOwnersOnly = kReadOnly | fs::perms::owner_write;

// The directory the copies go in: $TMPDIR/workgate-<uid>-builds (/tmp
// without TMPDIR), this user's and writable by no one else; made when
// missing. "" with `*err` when another user could have prepared it.
std::string CopiesDirectory(std::string* err) {
  const char* tmp = getenv("TMPDIR");
  const std::string dir = fmt::format("{}/workgate-{}-builds",
                                      tmp != nullptr && *tmp == '/' ? tmp : "/tmp", getuid());
  mkdir(dir.c_str(), 0755);
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 0022) != 0) {
    *err = fmt::format("{} is not a directory of this user that only it may write; remove it "
                       "and run again",
                       dir);
    return "";
  }
  return dir;
}

// Takes a shared lock on `lock`, the lock file of a copy, that is still the
// file at its path once held (a last user removes both, and a waiter may
// have locked the file it unlinked). The descriptor, or -1 with `*err`.
// The last workgate to end removes the directory of copies too once it is
// empty, and may do so between another's making it and this open: then the
// directory is made again (CopiesDirectory) and the lock taken in it.
int HoldShared(const std::string& lock, std::string* err) {
  for (int remade = 0;;) {
    const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 && errno == ENOENT && remade++ < 100) {
      if (CopiesDirectory(err).empty()) return -1;
      continue;
    }
    if (fd < 0 || flock(fd, LOCK_SH) != 0) {
      *err = fmt::format("cannot lock {}: {}", lock, strerror(errno));
      if (fd >= 0) close(fd);
      return -1;
    }
    struct stat held, named;
    if (fstat(fd, &held) == 0 && stat(lock.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      return fd;
    }
    close(fd);
  }
}

// Puts a read-only copy of `build`, whose digest is `sha`, at `into`/exe,
// unless one is there already (this workgate's, or another's that copied
// the same build): made aside and renamed into place, so that no run ever
// executes half a copy. False with `*err`.
bool PlaceCopy(const std::string& build, const std::string& sha, const fs::path& into,
               std::string* err) {
  const fs::path copy = into / "exe";
  std::string why;
  if (Sha256OfFile(copy.string(), &why) == sha) return true;
  std::error_code ec;
  // Something else is there (a copy a program damaged, half a copy of a
  // workgate that was killed): it goes.
  fs::remove_all(into, ec);
  ec.clear();
  const fs::path aside = into.string() + fmt::format(".{}.{}", getpid(), gettid());
  fs::remove_all(aside, ec);
  ec.clear();
  fs::create_directory(aside, ec);
  if (!ec) fs::copy_file(build, aside / "exe", ec);
  if (!ec) fs::permissions(aside / "exe", kReadOnly, ec);
  if (!ec) fs::permissions(aside, kOwnersOnly, ec);
  if (ec) {
    *err = fmt::format("cannot copy the build {} to {}: {}", build, aside.string(), ec.message());
    fs::remove_all(aside, ec);
    return false;
  }
  if (rename(aside.c_str(), into.c_str()) != 0) {
    // Another workgate put the same build there first, or a damaged copy
    // is in the way: the one there is used only if it is the build.
    fs::remove_all(aside, ec);
    if (Sha256OfFile(copy.string(), &why) == sha) return true;
    *err = fmt::format("cannot put the copy of the build {} at {}: {}", build, into.string(),
                       why.empty() ? strerror(errno) : why);
    return false;
  }
  return true;
}

}  // namespace

bool BuildCopies::Add(const std::string& build, bool copy, std::string* err) {
  if (builds_.count(build)) return true;
  struct stat st;
  if (stat(build.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    builds_[build] = Pinned{};
    return true;
  }
  std::optional<std::string> sha = Sha256OfFile(build, err);
  if (!sha) return false;
  Pinned pinned{*sha, "", {}};
  if (!TakeLoadedFiles(build, LoaderInputs{}, &pinned.loads, err)) return false;
  if (copy && !FindsLibrariesBesideItself(build)) {
    if (dir_.empty()) {
      if ((dir_ = CopiesDirectory(err)).empty()) return false;
      RegisterCleanupDirectoryIfEmpty(dir_);
    }
    // One directory per build, named by its digest, each file named `exe`:
    // the path a program finds in /proc/self/exe has the same shape on both
    // sides, and is the same on every run of the build.
    const fs::path into = fs::path(dir_) / sha->substr(0, 32);
    const fs::path copy = into / "exe";
    const std::string lock = into.string() + ".lock";
    const int fd = HoldShared(lock, err);
    if (fd < 0) return false;
    held_.push_back({into.string(), fd});
    // An interruption removes it whoever else holds it: theirs is then a
    // run whose copy is gone, which they refuse by name. Each is registered
    // once it is made (util/cleanup.h).
    RegisterCleanupPath(lock);
    const bool placed = PlaceCopy(build, *sha, into, err);
    RegisterCleanupPath(into.string());
    if (!placed) return false;
    std::optional<std::string> copied = Sha256OfFile(copy.string(), err);
    if (!copied) return false;
    if (*copied != *sha) {
      *err = fmt::format("the build {} changed while it was copied", build);
      return false;
    }
    pinned.copy = copy.string();
  }
  builds_[build] = pinned;
  return true;
}

BuildCopies::~BuildCopies() {
  for (const Held& h : held_) {
    // The last holder removes the copy; the others leave it to that one.
    if (flock(h.lock_fd, LOCK_EX | LOCK_NB) == 0) {
      RemoveTree(h.into);
      unlink((h.into + ".lock").c_str());
    }
    close(h.lock_fd);
    UnregisterCleanupPath(h.into);
    UnregisterCleanupPath(h.into + ".lock");
  }
  if (!dir_.empty()) rmdir(dir_.c_str());  // only once it is empty
}

bool BuildCopies::Resolve(const std::string& build, const std::map<std::string, std::string>* env,
                          std::string* target, std::string* err) const {
  const auto found = builds_.find(build);
  *target = build;
  if (found == builds_.end() || found->second.sha256.empty()) return true;
  const Pinned& pinned = found->second;
  for (const std::string& file : {build, pinned.copy}) {
    if (file.empty()) continue;
    std::string why;
    std::optional<std::string> now = Sha256OfFile(file, &why);
    if (now == pinned.sha256) continue;
    *err = fmt::format(
        "the build {} changed during the run ({}): no count after that is a count of the "
        "build that was named, so the run is invalid",
        build,
        file == build ? (now ? "its content is not what it was when the run started" : why)
                      : fmt::format("the copy it runs from, {}, was {}", file,
                                    now ? "rewritten" : "removed or made unreadable"));
    return false;
  }
  std::vector<LoadedFile> loads;
  std::string why;
  if (!TakeLoadedFiles(build, LoaderInputs{}, &loads, &why) ||
      !(why = LoadedFilesChange(pinned.loads, loads)).empty()) {
    *err = LoadsChangedError(build, why);
    return false;
  }
  if (env != nullptr && !EnvironmentLoadsUnchanged(build, *env, err)) return false;
  if (!pinned.copy.empty()) *target = pinned.copy;
  return true;
}

bool BuildCopies::EnvironmentLoadsUnchanged(const std::string& build,
                                            const std::map<std::string, std::string>& env,
                                            std::string* err) const {
  const LoaderInputs inputs = LoaderInputsOf(env);
  if (inputs.ld_library_path.empty() && inputs.ld_preload.empty()) return true;
  std::vector<LoadedFile> loads;
  std::string why;
  if (!TakeLoadedFiles(build, inputs, &loads, &why)) {
    *err = LoadsChangedError(build, why);
    return false;
  }
  const std::vector<std::string> key = {build, inputs.ld_library_path, inputs.ld_preload};
  std::lock_guard<std::mutex> lock(mutex_);
  const auto [first, added] = env_loads_.emplace(key, loads);
  if (added || (why = LoadedFilesChange(first->second, loads)).empty()) return true;
  *err = LoadsChangedError(build, why);
  return false;
}

ResolveBuild PinBuilds(const std::vector<std::string>& builds, bool copy) {
  auto copies = std::make_shared<BuildCopies>();
  for (const std::string& build : builds) {
    std::string err;
    if (!build.empty() && !copies->Add(build, copy, &err)) throw EnvironmentError(err);
  }
  return [copies](const std::string& build, const std::map<std::string, std::string>* env,
                  std::string* target,
                  std::string* err) { return copies->Resolve(build, env, target, err); };
}

}  // namespace workgate
