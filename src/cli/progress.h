#pragma once
// Progress lines on stderr, only when stderr is a terminal (hyperfine's
// rule): logs and CI output stay clean.

#include <mutex>
#include <string>

namespace workgate {

class Progress {
 public:
  Progress();
  /// Shows "workload  side  elapsed" on one line that the next call replaces.
  void Show(const std::string& text);
  /// Clears the line.
  void Done();

 private:
  bool enabled_;
  std::mutex mutex_;
};

}  // namespace workgate
