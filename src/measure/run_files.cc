#include "measure/run_files.h"

#include <filesystem>
#include <vector>

#include "identity/shared_libraries.h"
#include "launch/file_system.h"
#include "measure/measure.h"

namespace workgate {

namespace {

// Whether `path` lies in a directory a contained run gets fresh, and is not
// that directory itself.
bool InFreshDirectory(const std::string& path) {
  for (const char* dir : kFreshDirectories) {
    if (path != dir && PathIsWithin(path.c_str(), dir)) return true;
  }
  return false;
}

}  // namespace

void BindWhatTheRunLoads(const LaunchOptions& options, const std::string& exe,
                         const std::string& suite_dir, LaunchSpec* spec) {
  const std::string ran = ExecutedFile(options, exe);
  if (ran != exe) {
    spec->readonly_dirs.push_back(std::filesystem::path(ran).parent_path().parent_path());
  }
  if (!spec->new_pid_namespace) return;
  std::vector<std::string> seen;
  if (ran == exe) seen.push_back(exe);
  if (!suite_dir.empty()) seen.push_back(suite_dir);
  // A build that cannot be walked (a directory, a script) loads nothing
  // workgate can name; its run fails by itself if it misses a file.
  std::vector<LoadedObject> objects;
  std::string ignored;
  if (ResolveSharedLibraries(ran, LoaderInputsOf(spec->env), &objects, &ignored)) {
    for (const LoadedObject& object : objects) {
      if (!object.path.empty()) seen.push_back(object.path);
    }
  }
  for (const std::string& path : seen) {
    if (InFreshDirectory(path)) spec->readonly_dirs.push_back(path);
  }
}

}  // namespace workgate
