#include "launch/interrupt.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fmt/format.h>
#include <thread>

#include "launch/tree_registry.h"
#include "util/cleanup.h"

namespace workgate {

namespace {

std::mutex& PublishMutex() {
  static std::mutex m;
  return m;
}

// How long the supervisors get to kill their trees before their process
// groups are killed outright.
constexpr int kTreePatienceMs = 2000;

[[noreturn]] void EndEverything(int sig) {
  // Held until the exit: nothing is published from now on.
  PublishMutex().lock();
  const int trees = EndAllTrees(kTreePatienceMs);
  RemoveCleanupPaths();
  const char* name = sigabbrev_np(sig);
  fmt::print(stderr,
             "\nworkgate: interrupted by {}: {} running workload tree{} killed, temporary files "
             "removed, no report written\n",
             name != nullptr ? std::string("SIG") + name : std::to_string(sig), trees,
             trees == 1 ? "" : "s");
  fflush(stderr);
  _exit(128 + sig);
}

void TakeSignals(sigset_t set) {
  bool ending = false;
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (ending) _exit(128 + sig);  // a second signal: no more patience
    ending = true;
    std::thread(EndEverything, sig).detach();
  }
}

}  // namespace

void HandleInterruptions() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(TakeSignals, set).detach();
}

std::optional<std::unique_lock<std::mutex>> BeginPublishing() {
  std::unique_lock<std::mutex> lock(PublishMutex());
  if (LaunchesInterrupted()) return std::nullopt;
  return lock;
}

}  // namespace workgate
