#include "cli/progress.h"

#include <fmt/format.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "util/text.h"

namespace workgate {

namespace {

constexpr int kDefaultProgressSeconds = 30;
constexpr int kMostProgressSeconds = 86400;

// "45 s", "3 min 05 s", "1 h 02 min".
std::string Elapsed(std::chrono::steady_clock::duration d) {
  const long long s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

}  // namespace

int ProgressSecondsFromEnvironment(std::string* warning) {
  const char* value = getenv("WORKGATE_PROGRESS_SECONDS");
  if (value == nullptr) return kDefaultProgressSeconds;
  const std::string_view text(value);
  int seconds = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 0 ||
      seconds > kMostProgressSeconds) {
    *warning = fmt::format(
        "WORKGATE_PROGRESS_SECONDS={} is not a whole number of seconds from 0 to {}; "
        "progress lines come every {} s",
        TerminalSafe(value, LineBreaks::kToSpace), kMostProgressSeconds, kDefaultProgressSeconds);
    return kDefaultProgressSeconds;
  }
  return seconds;
}

Progress::Progress()
    : terminal_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {
  if (terminal_) return;
  std::string warning;
  seconds_ = ProgressSecondsFromEnvironment(&warning);
  if (!warning.empty()) fmt::print(stderr, "workgate: warning: {}\n", warning);
}

Progress::~Progress() { Done(); }

void Progress::Show(const std::string& text) {
  // The line names a workload, which the suite names: it must not move the cursor.
  const std::string safe = TerminalSafe(text, LineBreaks::kToSpace);
  std::lock_guard<std::mutex> lock(mutex_);
  if (terminal_) {
    fprintf(stderr, "\r\033[K%s", safe.c_str());
    fflush(stderr);
    return;
  }
  if (seconds_ == 0 || done_) return;
  text_ = safe;
  // The thread that writes the lines starts with the first step, so that a
  // command that shows none has none.
  if (!beat_.joinable()) beat_ = std::thread([this] { Beat(); });
}

void Progress::Done() {
  std::thread beat;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (terminal_ && !done_) {
      fprintf(stderr, "\r\033[K");
      fflush(stderr);
    }
    done_ = true;
    beat.swap(beat_);
  }
  wake_.notify_all();
  if (beat.joinable()) beat.join();
}

void Progress::Beat() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto every = std::chrono::seconds(seconds_);
  auto next = start_ + every;
  while (!wake_.wait_until(lock, next, [this] { return done_; })) {
    fprintf(stderr, "workgate: %s (at work for %s)\n", text_.c_str(),
            Elapsed(std::chrono::steady_clock::now() - start_).c_str());
    fflush(stderr);
    next += every;
  }
}

}  // namespace workgate
