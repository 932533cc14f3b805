#include "measure/build_copies.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>

#include "identity/elf_file.h"
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
    if (!dir_) {
      dir_ = std::make_unique<TempDir>("workgate-builds");
      fs::permissions(dir_->path(), kOwnersOnly);
    }
    // One directory per build, each file named `exe`: the path a program
    // finds in /proc/self/exe has the same shape on both sides.
    const fs::path into = fs::path(dir_->path()) / std::to_string(builds_.size());
    const fs::path copy = into / "exe";
    std::error_code ec;
    fs::create_directory(into, ec);
    if (!ec) fs::copy_file(build, copy, ec);
    if (!ec) fs::permissions(copy, kReadOnly, ec);
    if (!ec) fs::permissions(into, kOwnersOnly, ec);
    if (ec) {
      *err = fmt::format("cannot copy the build {} to {}: {}", build, copy.string(), ec.message());
      return false;
    }
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
