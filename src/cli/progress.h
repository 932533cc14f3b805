#pragma once
// What a long command is doing, on stderr. On a terminal, one line that
// each step replaces and Done clears (hyperfine's rule). Elsewhere (a CI
// log, a pipe), nothing for a command that ends quickly, and for one that
// does not, a line every WORKGATE_PROGRESS_SECONDS (default 30; 0: never)
// saying what it is doing and for how long it has been at work, so that a
// long gate does not look like a hang and a stopped one shows how far it
// got.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace workgate {

/// The seconds between two progress lines where stderr is no terminal:
/// WORKGATE_PROGRESS_SECONDS, a whole number of seconds from 0 (never) to
/// 86400, or 30 where it is unset. `*warning` says why a value that is set
/// was not taken (30 then).
int ProgressSecondsFromEnvironment(std::string* warning);

class Progress {
 public:
  Progress();
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// "workload  side  step": on a terminal the line shown now; elsewhere
  /// what the next periodic line says.
  void Show(const std::string& text);
  /// Clears the terminal's line, or stops the periodic lines.
  void Done();

 private:
  void Beat();

  const bool terminal_;
  int seconds_ = 0;  // elsewhere: between two lines; 0 none
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string text_;
  bool done_ = false;
  std::chrono::steady_clock::time_point start_;
  std::thread beat_;
};

}  // namespace workgate
