#pragma once
// The deliberately misbehaving workload (hostile.c), launches of it that
// cannot hang a test, and the checks the tests make after it ran: by pid,
// whether anything of its tree still runs.

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate::testing {

inline std::string HostileWorkload() { return BuildPath("tests/hostile_workload"); }
/// The same program built to behave: prints "score: 1", exits 0 (in its
/// one mode, `valgrind-aware N`, after N iterations, counted or not).
inline std::string BenignWorkload() { return BuildPath("tests/benign_workload"); }

/// Where the hostile workload's processes record themselves: a listening
/// abstract Unix socket named after `path` (no file: a workload's fresh /tmp
/// cannot hide it), which each of them connects to. The kernel says
/// who connected (SO_PEERCRED), by the pid this process knows it by: a
/// process inside the workload's PID namespace, whose /proc shows that
/// namespace alone, cannot tell its pid outside. Connections wait in the
/// backlog until RecordedPids accepts them.
struct PidCollector {
  int fd = -1;
  std::vector<pid_t> pids;
};
inline std::map<std::string, PidCollector>& PidCollectors() {
  static std::map<std::string, PidCollector> collectors;
  return collectors;
}

/// Starts collecting at `path` afresh (forgetting what was collected there).
/// Call before the workload starts.
inline void CollectPids(const std::string& path) {
  PidCollector& c = PidCollectors()[path];
  if (c.fd >= 0) close(c.fd);
  c = PidCollector{};
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() + 1 >= sizeof address.sun_path) abort();
  path.copy(address.sun_path + 1, path.size());
  c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (c.fd < 0 || bind(c.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(c.fd, 4096) != 0) {
    abort();
  }
}

/// The pids of the processes that recorded themselves at `path`: on its
/// socket after CollectPids(path), else one per line of the file (what
/// hostile.c writes without a socket: the pid /proc/self names, which is
/// the test's own outside a PID namespace).
inline std::vector<pid_t> RecordedPids(const std::string& path) {
  if (!PidCollectors().count(path)) {
    std::ifstream in(path);
    std::vector<pid_t> pids;
    for (pid_t pid; in >> pid;) pids.push_back(pid);
    return pids;
  }
  PidCollector& c = PidCollectors()[path];
  for (int conn; (conn = accept4(c.fd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
    ucred peer{};
    socklen_t size = sizeof peer;
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 && peer.pid > 0) {
      c.pids.push_back(peer.pid);
    }
    close(conn);
  }
  return c.pids;
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

/// Launch(spec), where the tree records its pids in `pid_file`, given
/// `seconds` to return. A launch that waits for a process it should have
/// killed would wait for ever: then the recorded processes are killed so that
/// the test ends, and the result is nullopt. Not a measure of speed: a
/// launch that works returns in a fraction of it.
inline std::optional<LaunchResult> LaunchWithin(const LaunchSpec& spec, const std::string& pid_file,
                                                int seconds = 60) {
  auto launched = std::async(std::launch::async, [&spec] { return Launch(spec); });
  if (launched.wait_for(std::chrono::seconds(seconds)) == std::future_status::ready) {
    return launched.get();
  }
  for (pid_t pid : RecordedPids(pid_file)) kill(pid, SIGKILL);
  launched.wait();
  return std::nullopt;
}

/// LaunchWithin for a tree that runs into its deadline (`spec->timeout_seconds`)
/// once its `n` processes have recorded their pids. Where the deadline came
/// first (a loaded machine slow to start them), the run proved nothing, so it
/// runs again with four times the deadline, three runs at most;
/// `spec->timeout_seconds` is the deadline of the run returned.
inline std::optional<LaunchResult> LaunchUntilRecorded(LaunchSpec* spec,
                                                       const std::string& pid_file, size_t n) {
  for (int attempt = 0;; ++attempt) {
    if (PidCollectors().count(pid_file)) {
      CollectPids(pid_file);
    } else {
      unlink(pid_file.c_str());
    }
    std::optional<LaunchResult> r = LaunchWithin(*spec, pid_file);
    if (!r || RecordedPids(pid_file).size() >= n || attempt == 2) return r;
    spec->timeout_seconds *= 4;
  }
}

}  // namespace workgate::testing
