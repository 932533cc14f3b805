#include "counter/counter.h"

namespace workgate {

bool MarkFailedLaunch(CountedRun* run, double timeout_seconds) {
  if (run->launch.ok()) return false;
  run->error = run->launch.Describe(timeout_seconds);
  return true;
}

}  // namespace workgate
