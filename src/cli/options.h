#pragma once
// Options shared by the subcommands that count.

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "counter/factory.h"
#include "workload/number_range.h"
#include "workload/run_plan.h"

namespace workgate {

/// The ranges of the numeric options only the command line has (--timeout
/// and --max-work-added share the suite's: workload/number_range.h).
inline constexpr NumberRange kRepeatRange{1, 1000, false, /*integer=*/true};
inline constexpr NumberRange kJobsRange{1, 1024, false, /*integer=*/true};
inline constexpr NumberRange kTimedRange{0, 1000, false, /*integer=*/true};
inline constexpr NumberRange kTopRange{1, 1000, false, /*integer=*/true};
inline constexpr NumberRange kSeedRange{0, 4294967295.0, false, /*integer=*/true};

/// The one check of a numeric option, for CLI11's transform(): the value must
/// be a decimal number (an integer for an integer range) within `range`, else
/// CLI11 exits 2 with "--timeout: must be a number in (0, 604800], not nan".
/// An accepted integer is handed on in plain decimal, because CLI11 itself
/// would read "010" as octal and "-1" as 2^64-1.
CLI::Validator InRange(const NumberRange& range);

struct SystemInfo;

/// --backend and --event.
struct CounterArgs {
  std::string backend = "auto";
  std::string events = kDefaultPerfEvent;
  bool event_given = false;

  void Register(CLI::App* cmd);
  /// Validates the pair and decides the backend. Throws Error(kExitUsage) for
  /// a perf-only --event with a Valgrind backend, Error(kExitEnvironment) when
  /// nothing can count.
  BackendChoice Choose(const SystemInfo& info) const;
};

/// --as-is, --env KEY=VALUE, --pass-env KEY.
struct LaunchArgs {
  bool as_is = false;
  std::vector<std::string> env;
  std::vector<std::string> pass_env;

  void Register(CLI::App* cmd);
  LaunchOptions ToOptions() const;
};

/// The clock of an ad hoc command: `given` (--clock, one of CLI11's admitted
/// names), or by default the shim, which pins the clock and entropy so that
/// programs that read them count the same every run (README, "What a launch
/// pins"); with --as-is, nothing, because --as-is runs the command as it is.
ClockMode AdHocClock(const std::string& given, bool as_is);

}  // namespace workgate
