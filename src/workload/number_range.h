#pragma once
// The allowed range of a numeric input. The suite reader (TOML keys) and the
// command line (a CLI11 check in cli/options.cc) both test values against
// these, so a timeout or a margin has one range wherever it is given, and
// --help and the messages print it the same way.
//
// Every range is finite and closed at the top: NaN compares false with
// everything, so a check written as "v <= 0 is an error" let `timeout = nan`
// through (and then turned the timeout off), and infinity or 1e300 overflowed
// the deadline arithmetic and timed out at once.

#include <optional>
#include <string>

namespace workgate {

struct NumberRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;  // (min, max] rather than [min, max]
  bool integer = false;        // whole numbers only

  /// True when `v` is finite, within the range, and whole if `integer`.
  bool Contains(double v) const;
  /// "an integer in [1, 1000]", "a number in (0, 604800]".
  std::string Describe() const;
  /// The range alone: "[1, 1000]", "(0, 604800]".
  std::string Interval() const;
};

/// A workload's timeout, seconds: up to a week. Suite key `timeout`, --timeout.
inline constexpr NumberRange kTimeoutSeconds{0, 604800, /*min_exclusive=*/true};
/// The allowed work added where neither the suite nor --max-work-added says, percent.
inline constexpr double kDefaultMaxWorkAddedPercent = 1.0;
/// The allowed work added, percent. Suite key `max_work_added`, --max-work-added.
inline constexpr NumberRange kMaxWorkAddedPercent{0, 1000};

}  // namespace workgate
