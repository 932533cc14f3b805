// Runs a program for the workload tests: fixed argv and environment, stdin
// from /dev/null, stdout and stderr captured. POSIX only, no shell. Header
// only because tests/CMakeLists.txt compiles just the *_test.cc files.
#ifndef WORKGATE_TESTS_WORKLOADS_RUN_PROGRAM_H_
#define WORKGATE_TESTS_WORKLOADS_RUN_PROGRAM_H_

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

namespace workgate::testing {

/// What a finished program left behind. `exit_code` is -1 when it did not exit
/// normally (killed by a signal) or could not be started.
struct ProgramResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs argv[0] (a path; no PATH search) with exactly `env` as its
/// environment and waits for it. File descriptors the caller opened without
/// O_CLOEXEC are inherited, as the region tests need.
inline ProgramResult RunProgram(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env) {
  ProgramResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  // Build the C arrays before fork: the child may only call async-signal-safe
  // functions.
  std::vector<char*> c_argv;
  for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (const std::string& e : env) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execve(c_argv[0], c_argv.data(), c_env.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  // Drain both pipes together so that neither can fill up and stall the child.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
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
