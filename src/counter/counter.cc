#include "counter/counter.h"

#include <fmt/format.h>

namespace workgate {

bool MarkFailedLaunch(CountedRun* run, double timeout_seconds) {
  if (run->launch.ok()) return false;
  run->error = run->launch.Describe(timeout_seconds);
  return true;
}

std::string RegionNeverEntered(const std::string& evidence) {
  return fmt::format(
      "uncounted work: the program never started its region (region = true, or count --region): "
      "{}, so nothing was counted. Call WORKGATE_REGION_BEGIN() before the work to count and "
      "WORKGATE_REGION_END() after it (<workgate/region.h>), or count without a region",
      evidence);
}

std::vector<std::string> DescribeUnpinned(const std::map<std::string, uint64_t>& unpinned) {
  // vgcount's names for the system calls it counts unpinned.
  static const std::map<std::string, std::string> kCalls = {
      {"times", "times()"},
      {"getrusage", "getrusage()"},
      {"getcpu", "getcpu()"},
      {"timer-read", "timer_gettime() or timerfd_gettime()"},
      {"adjtime", "adjtimex() or clock_adjtime()"}};
  std::vector<std::string> words;
  for (const auto& [kind, n] : unpinned) {
    if (n == 0) continue;
    if (kind == "threads") {
      words.push_back(fmt::format("{} threads (the schedule decides which thread reads what)", n));
    } else if (kind == "signals") {
      words.push_back(fmt::format("{} signal{} delivered", n, n == 1 ? "" : "s"));
    } else if (kind == "machine-file") {
      words.push_back(
          fmt::format("{} read{} of files or devices that change as the machine runs (/proc, /sys: "
                      "docs/counting.md says which)",
                      n, n == 1 ? "" : "s"));
    } else {
      const auto call = kCalls.find(kind);
      words.push_back(fmt::format("{} called {} time{} (not pinned)",
                                  call != kCalls.end() ? call->second : kind, n,
                                  n == 1 ? "" : "s"));
    }
  }
  return words;
}

}  // namespace workgate
