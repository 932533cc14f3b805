// Runs a program for the tests: fixed argv and environment, stdin from
// /dev/null, stdout and stderr captured, no shell; through workgate's own
// launcher (src/launch), which its own tests cover.
#ifndef WORKGATE_TESTS_WORKLOADS_RUN_PROGRAM_H_
#define WORKGATE_TESTS_WORKLOADS_RUN_PROGRAM_H_

#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "launch/launch.h"

namespace workgate::testing {

/// What a finished program left behind. `exit_code` is -1 when it did not exit
/// normally (killed by a signal) or could not be started.
struct ProgramResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// "NAME=value" entries as the launcher's environment map.
inline std::map<std::string, std::string> EnvMap(const std::vector<std::string>& env) {
  std::map<std::string, std::string> map;
  for (const std::string& e : env) {
    const size_t eq = e.find('=');
    map[e.substr(0, eq)] = eq == std::string::npos ? "" : e.substr(eq + 1);
  }
  return map;
}

/// Runs argv[0] (a path; no PATH search) with exactly `env` as its
/// environment and waits for it, through workgate's own launcher. The program
/// inherits `inherit_fds` besides stdin, stdout and stderr (the region tests
/// hand it counters that way), and no other descriptor.
inline ProgramResult RunProgram(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env,
                                const std::vector<int>& inherit_fds = {}) {
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = EnvMap(env);
  spec.inherit_fds = inherit_fds;
  spec.no_aslr = false;
  LaunchResult r = Launch(spec);
  ProgramResult result;
  if (r.started && r.signal == 0) result.exit_code = r.exit_code;
  result.out = r.out;
  result.err = r.err;
  return result;
}

/// Path of a program in the build tree's workloads/ folder.
inline std::string WorkloadBinary(const std::string& name) {
  return std::string(WORKGATE_BUILD_DIR) + "/workloads/" + name;
}

/// True when `path` is an executable file.
inline bool IsExecutable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

}  // namespace workgate::testing

#endif  // WORKGATE_TESTS_WORKLOADS_RUN_PROGRAM_H_
