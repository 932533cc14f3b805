#pragma once
// The real workgate binary run as a plain child of the test (fork and exec,
// not workgate's own launcher), so a test can signal it while it runs and
// watch its memory: its peak resident set (VmHWM) is sampled every few
// milliseconds until it exits.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.h"
#include "util/paths.h"

namespace workgate::testing {

/// The total of `count`'s report ("run 1/1: 6,149,368 Ir"), or -1.
inline long long CountedIr(const std::string& out) {
  const size_t at = out.find("run 1/1: ");
  if (at == std::string::npos) return -1;
  std::string digits;
  for (size_t i = at + 9; i < out.size() && (isdigit(out[i]) || out[i] == ','); ++i) {
    if (out[i] != ',') digits += out[i];
  }
  return digits.empty() ? -1 : std::stoll(digits);
}

class WorkgateProcess {
 public:
  /// Starts `workgate ARGS...` with exactly `env`, in `dir`, its stdout and
  /// stderr going to files there. With `wrapper`, runs `WRAPPER... workgate
  /// ARGS...` instead (unshare, to give it a file system of its own).
  WorkgateProcess(const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env, const std::string& dir,
                  const std::vector<std::string>& wrapper = {})
      : out_path_(dir + "/workgate.out"), err_path_(dir + "/workgate.err") {
    std::vector<std::string> argv = wrapper;
    argv.push_back(WorkgateBin());
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> envs;
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : envs) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    // The signals the tests send, blocked from before the fork until
    // workgate takes them: one sent at once, before the child has execed, is
    // then pending, not discarded (or the child's, killed before exec).
    sigset_t sent, before;
    sigemptyset(&sent);
    for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) sigaddset(&sent, sig);
    pthread_sigmask(SIG_BLOCK, &sent, &before);
    pid_ = fork();
    if (pid_ != 0) pthread_sigmask(SIG_SETMASK, &before, nullptr);
    if (pid_ == 0) {
      int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int null = open("/dev/null", O_RDONLY);
      if (out < 0 || err < 0 || null < 0 || chdir(dir.c_str()) != 0) _exit(126);
      dup2(null, 0);
      dup2(out, 1);
      dup2(err, 2);
      // The test's own blocked signals must not reach workgate, nor an
      // ignore it inherited: a non-interactive shell starts its background
      // jobs with SIGINT and SIGQUIT ignored, and the tests signal workgate
      // as a terminal would, from its first moment on. The signals sent stay
      // blocked across the exec: workgate blocks them first thing and takes
      // them on its own thread, pending ones included.
      for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
      sigprocmask(SIG_SETMASK, &sent, nullptr);
      execve(cargv[0], cargv.data(), cenv.data());
      _exit(127);
    }
  }
  ~WorkgateProcess() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }
  void Signal(int sig) const { kill(pid_, sig); }

  /// Waits up to `seconds` for it to exit, sampling its peak memory. Its
  /// exit code, or 128 + the signal that ended it; nullopt on timeout.
  std::optional<int> Wait(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      SamplePeak();
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return status_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
  }

  /// Waits until `path` exists (a workload has started), up to `seconds`.
  bool WaitForFile(const std::string& path, double seconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (access(path.c_str(), F_OK) == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  /// workgate's own peak resident set, in KiB, as last sampled.
  uint64_t peak_kib() const { return peak_kib_; }
  std::string out() const { return ReadFile(out_path_).value_or(""); }
  std::string err() const { return ReadFile(err_path_).value_or(""); }

 private:
  void SamplePeak() {
    auto status = ReadFile("/proc/" + std::to_string(pid_) + "/status");
    if (!status) return;
    size_t at = status->find("VmHWM:");
    if (at == std::string::npos) return;  // exiting: its memory is gone
    uint64_t kib = std::strtoull(status->c_str() + at + 6, nullptr, 10);
    if (kib > peak_kib_) peak_kib_ = kib;
  }

  std::string out_path_, err_path_;
  pid_t pid_ = -1;
  std::optional<int> status_;
  uint64_t peak_kib_ = 0;
};

}  // namespace workgate::testing
