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
  // before it gets to it: another thread removing the same tree (the run
  // that owns it, while an interruption removes everything). Each try
  // removes what is left.
  for (int tries = 0; tries < 100; ++tries) {
    std::error_code ec;
    fs::remove_all(path, ec);
    const fs::file_status st = fs::symlink_status(path, ec);
    if (st.type() == fs::file_type::not_found) return true;
    if (ec && ec != std::errc::no_such_file_or_directory) return false;
    std::this_thread::yield();
  }
  return false;
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
