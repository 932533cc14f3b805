#pragma once
// Runs a program the way a pinned run is launched: exactly the given
// environment, ASLR off, a fixed working directory, stdin from /dev/null,
// stdout and stderr captured. The shim tests use this rather than the
// launcher so that they test the shim alone.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace workgate::shim_test {

/// What a finished child left behind.
struct ChildResult {
  int exit_code = -1;  // -1 if it died by a signal, was killed or never ran
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;  // wall time
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

/// Runs argv[0] (an absolute path) with exactly `env` in `cwd`; kills it
/// after `timeout_seconds`. Safe to call from several threads at once.
inline ChildResult RunChild(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env, const std::string& cwd,
                            int timeout_seconds = 120) {
  ChildResult result;
  // Everything the child needs is built before fork: after fork it may only
  // make async-signal-safe calls.
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cargv.push_back(nullptr);
  cenv.push_back(nullptr);
  // O_CLOEXEC, so a child forked by another test thread does not keep our
  // pipes open and delay their end of file.
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return result;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    personality(ADDR_NO_RANDOMIZE);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || chdir(cwd.c_str()) != 0) _exit(126);
    dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  const auto deadline = start + std::chrono::seconds(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) continue;  // EINTR
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace workgate::shim_test
