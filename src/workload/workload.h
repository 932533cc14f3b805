#pragma once
// A workload: the argv to run for one build, its environment, its clock, and
// the score its pinned run must print. Suites (TOML files) list workloads;
// `count -- CMD` and `compare -- ARGS` make one ad hoc.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace workgate {

enum class ClockMode {
  kNone,  // the program's work does not depend on the clock
  kEnv,   // cooperative: WORKGATE_FIXED_CLOCK=1, the program pins itself
  kShim,  // LD_PRELOAD of workgate's clock shim (libworkgate-clock.so)
};
const char* ClockModeName(ClockMode mode);
/// "none", "env" or "shim" (ClockModeName's words); false for anything else.
bool ParseClockMode(const std::string& text, ClockMode* mode);

struct Workload {
  std::string name;
  /// argv with the placeholders {exe} (the build under test) and {suite_dir}.
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  ClockMode clock = ClockMode::kNone;
  double timeout_seconds = 600;
  bool region = false;
  std::optional<double> max_work_added_percent;
  std::optional<std::string> score_pattern;  // regex with one capture group
  std::optional<std::string> score_expect;
  /// Where it was defined, for messages: "workloads/interp.toml:12".
  std::string origin;
  /// A canonical text of everything above; its digest goes in fingerprints so
  /// a stored baseline of another definition is not compared.
  std::string Canonical() const;
};

struct Suite {
  std::string path;  // as given
  std::string dir;   // absolute folder of the file: {suite_dir}
  std::vector<Workload> workloads;
};

/// Reads a suite. Errors name the file, line and key ("interp.toml:7:
/// workload 'fib': key 'comand' is not known"), and are usage errors.
bool LoadSuite(const std::string& path, Suite* suite, std::string* err);

/// Keeps the named workloads, in suite order. False if a name is unknown.
bool SelectWorkloads(Suite* suite, const std::vector<std::string>& names, std::string* err);

}  // namespace workgate
