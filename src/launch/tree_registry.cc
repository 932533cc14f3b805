#include "launch/tree_registry.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "launch/process_table.h"
#include "launch/supervisor.h"

namespace workgate {

namespace {

std::mutex& TreesMutex() {
  static std::mutex m;
  return m;
}

std::map<pid_t, int>& Trees() {  // supervisor pid -> control socket
  static std::map<pid_t, int> trees;
  return trees;
}

std::atomic<bool> interrupted{false};

// Kills the given children and reaps them, giving each up to a second to
// die (one in uninterruptible sleep is left rather than waited for forever).
void KillAndReap(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) kill(pid, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  std::vector<pid_t> left = pids;
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    std::vector<pid_t> still;
    for (pid_t pid : left) {
      int status;
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) still.push_back(pid);
    }
    left.swap(still);
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

int KillEscapeesLocked() {
  int killed = 0;
  ChildProcess kids[1024];
  // Each one killed hands its own children to workgate: repeat until none.
  for (int round = 0; round < 1000; ++round) {
    int n = ListChildren(getpid(), kids, 1024);
    std::vector<pid_t> escaped;
    for (int i = 0; i < n; ++i) {
      if (Trees().count(kids[i].pid)) continue;
      escaped.push_back(kids[i].pid);
      if (!kids[i].zombie) ++killed;
    }
    if (escaped.empty()) break;
    KillAndReap(escaped);
  }
  return killed;
}

}  // namespace

void BecomeSubreaper() {
  static std::once_flag once;
  std::call_once(once, [] { prctl(PR_SET_CHILD_SUBREAPER, 1); });
}

std::unique_lock<std::mutex> LockSpawning() { return std::unique_lock<std::mutex>(TreesMutex()); }

void RegisterTree(pid_t supervisor, int control) { Trees()[supervisor] = control; }

void UnregisterTree(pid_t supervisor) {
  std::lock_guard<std::mutex> lock(TreesMutex());
  Trees().erase(supervisor);
}

int KillEscapees() {
  std::lock_guard<std::mutex> lock(TreesMutex());
  return KillEscapeesLocked();
}

bool LaunchesInterrupted() { return interrupted.load(); }

int EndAllTrees(int patience_ms) {
  std::map<pid_t, int> trees;
  {
    std::lock_guard<std::mutex> lock(TreesMutex());
    interrupted = true;
    trees = Trees();
    for (const auto& [pid, control] : trees) {
      send(control, &kKillRequest, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
  }
  // The supervisors kill their trees and exit; the launches that wait for
  // them unregister them.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(patience_ms);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(TreesMutex());
      if (Trees().empty() || std::chrono::steady_clock::now() >= deadline) {
        // A supervisor that did not answer goes with its process group; its
        // orphans come back to workgate and are escapees now.
        for (const auto& [pid, control] : Trees()) {
          kill(-pid, SIGKILL);
          kill(pid, SIGKILL);
        }
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  KillEscapees();
  return static_cast<int>(trees.size());
}

}  // namespace workgate
