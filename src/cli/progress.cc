#include "cli/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "util/text.h"

namespace workgate {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) != 0) {}

void Progress::Show(const std::string& text) {
  if (!enabled_) return;
  // The line names a workload, which the suite names: it must not move the cursor.
  const std::string safe = TerminalSafe(text, LineBreaks::kToSpace);
  std::lock_guard<std::mutex> lock(mutex_);
  fprintf(stderr, "\r\033[K%s", safe.c_str());
  fflush(stderr);
}

void Progress::Done() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}

}  // namespace workgate
