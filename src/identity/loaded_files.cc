#include "identity/loaded_files.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <optional>

#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {

namespace {

// Whether the file or directory `path` (no symbolic link) is root's alone.
bool RootsAlone(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && st.st_uid == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// "the library NAME at PATH", or "the library NAME" where none was found.
std::string DescribeLoaded(const LoadedFile& file) {
  return file.path.empty() ? fmt::format("the library {}", file.name)
                           : fmt::format("the library {} at {}", file.name, file.path);
}

// How `now` differs from `before`, the same file asked for by the same name.
std::string LoadedFileDiffers(const LoadedFile& before, const LoadedFile& now) {
  if (before.path != now.path) {
    return fmt::format("{} is now found {}", DescribeLoaded(before),
                       now.path.empty() ? "nowhere" : "at " + now.path);
  }
  if (before.real_path != now.real_path) {
    return fmt::format("{} now leads to {} (it led to {})", DescribeLoaded(before), now.real_path,
                       before.real_path);
  }
  if (before.out_of_reach != now.out_of_reach || before.sha256 != now.sha256) {
    return fmt::format("{} changed", DescribeLoaded(before));
  }
  return "";
}

}  // namespace

bool OnlyRootMayChange(const std::string& path) {
  std::string real = RealPath(path);
  if (real.empty() || !RootsAlone(real)) return false;
  while (real.size() > 1) {
    real.erase(real.rfind('/'));
    if (real.empty()) real = "/";
    if (!RootsAlone(real)) return false;
  }
  return true;
}

bool TakeLoadedFiles(const std::string& exe, const LoaderInputs& inputs,
                     std::vector<LoadedFile>* files, std::string* err) {
  files->clear();
  std::vector<LoadedObject> objects;
  if (!ResolveSharedLibraries(exe, inputs, &objects, err)) return false;
  const bool as_root = geteuid() == 0;
  for (const LoadedObject& object : objects) {
    LoadedFile file{object.name, object.path, "", false, ""};
    if (!object.path.empty()) {
      file.real_path = RealPath(object.path);
      file.out_of_reach = !as_root && OnlyRootMayChange(object.path);
      if (!file.out_of_reach) {
        std::optional<std::string> digest = Sha256OfFile(object.path, err);
        if (!digest) return false;
        file.sha256 = *digest;
      }
    }
    files->push_back(std::move(file));
  }
  return true;
}

std::string LoadedFilesChange(const std::vector<LoadedFile>& before,
                              const std::vector<LoadedFile>& now) {
  std::map<std::string, const LoadedFile*> by_name;
  for (const LoadedFile& file : now) by_name.emplace(file.name, &file);
  for (const LoadedFile& was : before) {
    const auto found = by_name.find(was.name);
    if (found == by_name.end()) return fmt::format("{} is no longer loaded", DescribeLoaded(was));
    std::string change = LoadedFileDiffers(was, *found->second);
    if (!change.empty()) return change;
    by_name.erase(found);
  }
  if (!by_name.empty()) {
    return fmt::format("{} is loaded now and was not before",
                       DescribeLoaded(*by_name.begin()->second));
  }
  return "";
}

}  // namespace workgate
