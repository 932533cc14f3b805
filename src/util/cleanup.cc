#include "util/cleanup.h"

#include <filesystem>
#include <mutex>
#include <set>

namespace workgate {

namespace {

std::mutex& Mutex() {
  static std::mutex m;
  return m;
}

std::multiset<std::string>& Paths() {
  static std::multiset<std::string> paths;
  return paths;
}

}  // namespace

void RegisterCleanupPath(const std::string& path) {
  std::lock_guard<std::mutex> lock(Mutex());
  Paths().insert(path);
}

void UnregisterCleanupPath(const std::string& path) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto it = Paths().find(path);
  if (it != Paths().end()) Paths().erase(it);
}

int RemoveCleanupPaths() {
  std::lock_guard<std::mutex> lock(Mutex());
  for (const std::string& path : Paths()) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  return static_cast<int>(Paths().size());
}

}  // namespace workgate
