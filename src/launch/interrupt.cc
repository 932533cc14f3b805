#include "launch/interrupt.h"

#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "launch/tree_registry.h"
#include "util/cleanup.h"
#include "util/text.h"

namespace workgate {

namespace {

// Set by the signal thread before the clean-up starts, so that whatever the
// clean-up makes fail in the main thread comes after it.
std::atomic<bool> g_interruption_begun{false};

std::mutex& PublishMutex() {
  static std::mutex m;
  return m;
}

// How long the supervisors get to kill their trees before their process
// groups are killed outright.
constexpr int kTreePatienceMs = 2000;

// "3 temporary paths removed", and how many were not, each named with the
// reason on a line of its own after the message.
std::string CleanupSummary(const CleanupResult& cleanup) {
  const size_t removed = cleanup.removed.size();
  std::string text = removed == 0   ? std::string("no temporary path left to remove")
                     : removed == 1 ? std::string("1 temporary path removed")
                                    : fmt::format("{} temporary paths removed", removed);
  if (!cleanup.failed.empty()) {
    text += fmt::format(", {} could not be removed", cleanup.failed.size());
  }
  return text;
}

[[noreturn]] void EndEverything(int sig) {
  // Held until the exit: nothing is published from now on.
  PublishMutex().lock();
  const int trees = EndAllTrees(kTreePatienceMs);
  const CleanupResult cleanup = RemoveCleanupPaths(CleanupEnd::kLast);
  const char* name = sigabbrev_np(sig);
  std::string text = fmt::format(
      "\nworkgate: interrupted by {}: {} running workload tree{} killed, {}, no report written\n",
      name != nullptr ? std::string("SIG") + name : std::to_string(sig), trees,
      trees == 1 ? "" : "s", CleanupSummary(cleanup));
  for (const CleanupResult::Failure& f : cleanup.failed) {
    text += fmt::format("workgate: could not remove {}: {}\n",
                        TerminalSafe(f.path, LineBreaks::kToSpace), f.reason);
  }
  fmt::print(stderr, "{}", text);
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
    g_interruption_begun.store(true);
    std::thread(EndEverything, sig).detach();
  }
}

}  // namespace

void HandleInterruptions() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now {};
    if (sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) continue;
    sigaddset(&set, sig);
  }
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(TakeSignals, set).detach();
}

void AwaitInterruption() {
  if (!g_interruption_begun.load()) return;
  // The thread that ends everything exits the process with 128 + the
  // signal; this thread only waits for it.
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

std::optional<std::unique_lock<std::mutex>> BeginPublishing() {
  std::unique_lock<std::mutex> lock(PublishMutex());
  if (LaunchesInterrupted()) return std::nullopt;
  return lock;
}

}  // namespace workgate
