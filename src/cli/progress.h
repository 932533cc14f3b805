#pragma once
// What a long command is doing, on stderr. On a terminal, one status line
// that each step replaces and Done clears (hyperfine's rule): how many of
// the planned workloads are done, what each job is running and, once one is
// done, about how long the rest will take; each finished workload's line is
// kept above it. Elsewhere (a CI log, a pipe), nothing for a command that
// ends quickly, and for one that does not, the same status as a line every
// WORKGATE_PROGRESS_SECONDS (default 30; 0: never) with the time at work,
// so that a long gate does not look like a hang and a stopped one shows how
// far it got.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace workgate {

/// The seconds between two progress lines where stderr is no terminal:
/// WORKGATE_PROGRESS_SECONDS, a whole number of seconds from 0 (never) to
/// 86400, or 30 where it is unset. `*warning` says why a value that is set
/// was not taken (30 then).
int ProgressSecondsFromEnvironment(std::string* warning);

/// The status a progress line shows: `done` of `total` units (none where
/// `total` is 0), what runs (one job's step each), and once one unit is
/// done, the time the rest will take at the pace so far. Pure, for tests.
std::string ProgressStatus(size_t done, size_t total, const std::string& unit,
                           const std::vector<std::string>& running,
                           std::chrono::steady_clock::duration elapsed);

class Progress {
 public:
  Progress();
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// The command will finish `total` units ("workloads") in all.
  void Expect(size_t total, std::string unit);
  /// "workload  side  step": what the calling thread (one job) runs now;
  /// "" when it has finished its step and runs nothing.
  void Show(const std::string& text);
  /// One unit is done. `print` (which may be empty) writes what is kept of
  /// it, to stdout or stderr; on a terminal the status line is cleared
  /// first and drawn again after it.
  void Finished(const std::function<void()>& print = {});
  /// Clears the terminal's line, or stops the periodic lines.
  void Done();
  /// Whether stderr is a terminal, where the status is one line redrawn.
  bool terminal() const { return terminal_; }

 private:
  void StartBeat();
  void Beat();
  std::string StatusLocked() const;
  void DrawLocked();

  const bool terminal_;
  int seconds_ = 0;  // elsewhere: between two lines; 0 none
  std::mutex mutex_;
  std::condition_variable wake_;
  // Each job's step, in the order the jobs first showed one.
  std::vector<std::pair<std::thread::id, std::string>> running_;
  size_t total_ = 0;
  size_t finished_ = 0;
  std::string unit_;
  bool done_ = false;
  std::chrono::steady_clock::time_point start_;
  std::thread beat_;
};

}  // namespace workgate
