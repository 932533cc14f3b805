#pragma once
// Runs a program the way a pinned run is launched: exactly the given
// environment, ASLR off, a fixed working directory, stdin from /dev/null,
// stdout and stderr captured (the launcher alone, without a counter or the
// private directory, so these tests test the shim).

#include <filesystem>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "workloads/run_program.h"

namespace workgate::shim_test {

/// What a finished child left behind.
struct ChildResult {
  int exit_code = -1;  // -1 if it died by a signal, was killed or never ran
  bool timed_out = false;
  std::string out;
  std::string err;
};

/// The shim and the probe, as built by src/shim/CMakeLists.txt.
inline std::string ShimLibrary() { return WORKGATE_BUILD_DIR "/libworkgate-clock.so"; }
inline std::string ClockProbe() { return WORKGATE_BUILD_DIR "/probes/shim_clock_probe"; }

/// An empty directory at a fixed path: Python puts the working directory on
/// sys.path and lists it, so its path and contents are part of the count.
inline std::string FixedWorkDir() {
  const std::string dir = WORKGATE_BUILD_DIR "/shim-test-cwd";
  std::filesystem::create_directories(dir);
  return dir;
}

/// The fixed minimal environment, with the shim preloaded unless `shim` is
/// false, plus `extra` ("NAME=value" entries).
inline std::vector<std::string> PinnedEnv(const std::vector<std::string>& extra = {},
                                          bool shim = true) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  if (shim) env.push_back("LD_PRELOAD=" + ShimLibrary());
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

/// Runs argv[0] (an absolute path) with exactly `env` in `cwd`, ASLR off,
/// through workgate's own launcher; kills it after `timeout_seconds`. Safe to
/// call from several threads at once.
inline ChildResult RunChild(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env, const std::string& cwd,
                            int timeout_seconds = 120) {
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = testing::EnvMap(env);
  spec.cwd = cwd;
  spec.timeout_seconds = timeout_seconds;
  // The launcher keeps only the ends of long output; these tests read all of
  // stdout, so they take it as it streams by.
  std::string out;
  spec.passthrough = [&out](int fd, std::string_view chunk) {
    if (fd == 1) out.append(chunk);
  };
  LaunchResult r = Launch(spec);
  ChildResult result;
  if (r.started && r.signal == 0 && !r.timed_out) result.exit_code = r.exit_code;
  result.timed_out = r.timed_out;
  result.out = out;
  result.err = r.err;
  return result;
}

}  // namespace workgate::shim_test
