#include "cli/progress.h"

#include <fmt/format.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "util/text.h"

namespace workgate {

namespace {

constexpr int kDefaultProgressSeconds = 30;
constexpr int kMostProgressSeconds = 86400;
// On a terminal the line is drawn again this often, so that its estimate
// and time move while one long count runs.
constexpr auto kTerminalRedraw = std::chrono::seconds(1);

// "45 s", "3 min 05 s", "1 h 02 min".
std::string Elapsed(std::chrono::steady_clock::duration d) {
  const long long s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

// `text` cut to `columns` characters (UTF-8 code points; the text is
// TerminalSafe already), so that the line never wraps: a wrapped line is
// not what "\r\033[K" clears.
std::string FitColumns(const std::string& text, size_t columns) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (seen++ == columns) return text.substr(0, i);
  }
  return text;
}

size_t TerminalColumns() {
  struct winsize size {};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1;
  return 79;
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

std::string ProgressStatus(size_t done, size_t total, const std::string& unit,
                           const std::vector<std::string>& running,
                           std::chrono::steady_clock::duration elapsed) {
  std::string out;
  if (total > 0) out = fmt::format("{}/{} {} done", std::min(done, total), total, unit);
  for (size_t i = 0; i < running.size(); ++i) {
    out += (out.empty() ? "" : i == 0 ? "; " : ", ") + running[i];
  }
  // The pace so far: jobs run side by side, so the time per finished unit
  // already counts them.
  if (total > done && done > 0) {
    out += fmt::format("; about {} left", Elapsed(elapsed * (total - done) / done));
  }
  return out;
}

Progress::Progress()
    : terminal_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {
  if (terminal_) return;
  std::string warning;
  seconds_ = ProgressSecondsFromEnvironment(&warning);
  if (!warning.empty()) fmt::print(stderr, "workgate: warning: {}\n", warning);
}

Progress::~Progress() { Done(); }

void Progress::Expect(size_t total, std::string unit) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
  unit_ = std::move(unit);
}

void Progress::Show(const std::string& text) {
  // The line names a workload, which the suite names: it must not move the cursor.
  const std::string safe = TerminalSafe(text, LineBreaks::kToSpace);
  const std::thread::id me = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return;
  auto mine = std::find_if(running_.begin(), running_.end(),
                           [&](const auto& job) { return job.first == me; });
  if (safe.empty()) {
    if (mine != running_.end()) running_.erase(mine);
  } else if (mine != running_.end()) {
    mine->second = safe;
  } else {
    running_.emplace_back(me, safe);
  }
  if (terminal_) DrawLocked();
  StartBeat();
}

void Progress::Finished(const std::function<void()>& print) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_;
  if (!print) return;
  if (terminal_ && !done_) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
  }
  print();
  fflush(stdout);
  if (terminal_ && !done_) DrawLocked();
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

std::string Progress::StatusLocked() const {
  std::vector<std::string> running;
  for (const auto& job : running_) running.push_back(job.second);
  return ProgressStatus(finished_, total_, unit_, running,
                        std::chrono::steady_clock::now() - start_);
}

void Progress::DrawLocked() {
  fprintf(stderr, "\r\033[K%s", FitColumns(StatusLocked(), TerminalColumns()).c_str());
  fflush(stderr);
}

// The thread that draws the line again (terminal) or writes the lines
// (elsewhere) starts with the first step, so that a command that shows none
// has none.
void Progress::StartBeat() {
  if (beat_.joinable() || (!terminal_ && seconds_ == 0)) return;
  beat_ = std::thread([this] { Beat(); });
}

void Progress::Beat() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::chrono::steady_clock::duration every =
      terminal_ ? std::chrono::steady_clock::duration(kTerminalRedraw)
                : std::chrono::steady_clock::duration(std::chrono::seconds(seconds_));
  auto next = terminal_ ? std::chrono::steady_clock::now() + every : start_ + every;
  while (!wake_.wait_until(lock, next, [this] { return done_; })) {
    if (terminal_) {
      DrawLocked();
    } else {
      const std::string status = StatusLocked();
      fprintf(stderr, "workgate: %s (at work for %s)\n", status.empty() ? "working" : status.c_str(),
              Elapsed(std::chrono::steady_clock::now() - start_).c_str());
      fflush(stderr);
    }
    next += every;
  }
}

}  // namespace workgate
