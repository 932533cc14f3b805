#pragma once
// Options shared by the subcommands that count.

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "counter/factory.h"
#include "workload/run_plan.h"

namespace workgate {

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

}  // namespace workgate
