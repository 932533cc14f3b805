#pragma once
// The deliberately misbehaving workload (hostile.c) and the checks the tests
// make after it ran: by pid, whether anything of its tree still runs.

#include <signal.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_paths.h"
#include "util/paths.h"

namespace workgate::testing {

inline std::string HostileWorkload() { return BuildPath("tests/hostile_workload"); }
/// The same program built to behave: prints "score: 1", exits 0.
inline std::string BenignWorkload() { return BuildPath("tests/benign_workload"); }

/// The pids the hostile workload's processes recorded in `path`.
inline std::vector<pid_t> RecordedPids(const std::string& path) {
  std::ifstream in(path);
  std::vector<pid_t> pids;
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

/// Whether `pid` is a process that still runs (a zombie has ended).
inline bool Running(pid_t pid) {
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  size_t close = stat->rfind(')');
  return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
}

/// The recorded pids that still run.
inline std::vector<pid_t> Survivors(const std::string& pid_file) {
  std::vector<pid_t> alive;
  for (pid_t pid : RecordedPids(pid_file)) {
    if (Running(pid)) alive.push_back(pid);
  }
  return alive;
}

}  // namespace workgate::testing
