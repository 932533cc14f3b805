#include "cli/progress.h"

#include <stdio.h>
#include <unistd.h>

namespace workgate {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) != 0) {}

void Progress::Show(const std::string& text) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  fprintf(stderr, "\r\033[K%s", text.c_str());
  fflush(stderr);
}

void Progress::Done() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}

}  // namespace workgate
