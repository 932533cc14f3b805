#include "util/cleanup.h"

#include <chrono>
#include <filesystem>
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

}  // namespace

void RegisterCleanupPath(const std::string& path) {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  Paths().insert(path);
}

void UnregisterCleanupPath(const std::string& path) {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  auto it = Paths().find(path);
  if (it != Paths().end()) Paths().erase(it);
}

bool RemoveTree(const std::string& path) {
  namespace fs = std::filesystem;
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
    if (looking) return false;
    if (removing && removing != std::errc::no_such_file_or_directory &&
        removing != std::errc::directory_not_empty) {
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

int RemoveCleanupPaths() {
  std::lock_guard<std::mutex> lock(CleanupMutex());
  for (const std::string& path : Paths()) RemoveTree(path);
  // The runs' own threads are still winding down (a run whose tree was just
  // killed removes its private directory as it returns): a second sweep
  // removes whatever one of them made in between.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (const std::string& path : Paths()) RemoveTree(path);
  return static_cast<int>(Paths().size());
}

}  // namespace workgate
