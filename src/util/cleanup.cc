#include "util/cleanup.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace workgate {

namespace {

std::mutex& CleanupMutex() {
  static std::mutex m;
  return m;
}

std::multiset<std::string>& Paths() {
  static std::multiset<std::string> paths;
  return paths;
}

// Set, under CleanupMutex, when the interruption's last sweep has ended:
// nothing registered after that would be removed before the exit.
bool& Closed() {
  static bool closed = false;
  return closed;
}

// Directories to remove at an interruption only when empty
// (RegisterCleanupDirectoryIfEmpty).
std::set<std::string>& EmptyDirectories() {
  static std::set<std::string> dirs;
  return dirs;
}

}  // namespace

void RegisterCleanupDirectoryIfEmpty(const std::string& dir) {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  EmptyDirectories().insert(dir);
}

void RegisterCleanupPath(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(CleanupMutex());
    if (!Closed()) {
      Paths().insert(path);
      return;
    }
  }
  // Made after the interruption's last sweep (a run that went on making its
  // directory): it goes now, as the process is about to exit.
  RemoveTree(path);
}

void UnregisterCleanupPath(const std::string& path) {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  auto it = Paths().find(path);
  if (it != Paths().end()) Paths().erase(it);
}

bool RemoveTree(const std::string& path, std::string* why) {
  namespace fs = std::filesystem;
  auto failed = [why](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  // remove_all gives up, leaving the rest, when an entry it listed is gone
  // before it gets to it (ENOENT), or a directory it emptied gained an entry
  // (ENOTEMPTY): another thread removing the same tree (the run that owns it,
  // while an interruption removes everything). Each try removes what is left,
  // and together the two always make progress, but one of them can lose many
  // tries in a row on a loaded machine (a fixed 100 tries were not always
  // enough on 2 busy cores), so the tries are bounded by time instead. Any
  // other error (EACCES, EROFS, EBUSY) does not go away by trying again.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    std::error_code removing;
    fs::remove_all(path, removing);
    std::error_code looking;
    const fs::file_status st = fs::symlink_status(path, looking);
    if (st.type() == fs::file_type::not_found) return true;
    if (looking) return failed(looking.message());
    if (removing && removing != std::errc::no_such_file_or_directory &&
        removing != std::errc::directory_not_empty) {
      return failed(removing.message());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return failed("something kept adding to it for 10 s");
    }
    std::this_thread::yield();
  }
}

namespace {

// The registered paths, each once, in order (a directory before what is
// registered inside it, which removing it removes).
std::set<std::string> RegisteredPaths() {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  return {Paths().begin(), Paths().end()};
}

bool SomethingAt(const std::string& path) {
  std::error_code ec;
  return std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found;
}

}  // namespace

CleanupResult RemoveCleanupPaths(CleanupEnd end) {
  // The runs' own threads are still winding down while this runs: a run
  // whose tree was just killed removes its private directory as it returns,
  // and until then it can write into it, or make and register another
  // directory. So the sweeps repeat, a short pause apart, while the last one
  // still found something to remove or the registered paths changed since
  // the one before; they end when nothing is registered any more, when two
  // sweeps in a row saw the same paths and the second found all of them
  // gone, or at a deadline (a run that keeps writing must not hold up the
  // exit). The registry is not held while a sweep removes or pauses, so a
  // run can register and unregister meanwhile.
  constexpr auto kPause = std::chrono::milliseconds(10);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  CleanupResult result;
  std::set<std::string> removed;
  std::map<std::string, std::string> failed;  // not tried again: see RemoveTree
  std::set<std::string> previous;
  for (int sweep = 0;; ++sweep) {
    const std::set<std::string> paths = RegisteredPaths();
    bool found = false;
    for (const std::string& path : paths) {
      if (failed.count(path) != 0 || !SomethingAt(path)) continue;
      found = true;
      std::string why;
      if (!RemoveTree(path, &why)) {
        failed[path] = why;
      } else if (removed.insert(path).second) {
        result.removed.push_back(path);
      }
    }
    const bool done = paths.empty() || (sweep > 0 && !found && paths == previous);
    const bool late = std::chrono::steady_clock::now() >= deadline;
    if (done || late) {
      // The last sweep is the last only if nothing was registered since it
      // read the registry; deciding so and closing the registry happen
      // under its lock, so that whatever registers next finds it closed.
      std::lock_guard<std::mutex> lock(CleanupMutex());
      if (late || std::set<std::string>(Paths().begin(), Paths().end()) == paths) {
        if (end == CleanupEnd::kLast) Closed() = true;
        break;
      }
    }
    previous = paths;
    std::this_thread::sleep_for(kPause);
  }
  std::set<std::string> dirs;
  {
    std::lock_guard<std::mutex> lock(CleanupMutex());
    dirs = EmptyDirectories();
  }
  for (const std::string& dir : dirs) rmdir(dir.c_str());
  // What could not be removed and is still there (its owner may have
  // removed it meanwhile).
  for (const auto& [path, why] : failed) {
    if (SomethingAt(path)) result.failed.push_back({path, why});
  }
  return result;
}

}  // namespace workgate
