// RunCommand: a command's exit code, its error's, and, once an interruption
// has begun, the interruption's (128 + the signal) whatever the command did
// meanwhile. Each case runs in a child process, which takes its signals as
// workgate does (HandleInterruptions).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "cli/commands.h"
#include "launch/interrupt.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/exit_codes.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// The exit code of a child that runs `command` through RunCommand, with
// workgate's signal handling; -1 if it did not exit.
int ExitOfChild(const std::function<int(const std::string&)>& command) {
  TempDir held("run-command-test");
  const std::string dir = held.path() + "/work";
  fs::create_directory(dir);
  const pid_t pid = fork();
  if (pid == 0) {
    HandleInterruptions();
    RegisterCleanupPath(dir);
    _exit(RunCommand([&] { return command(dir); }));
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// Interrupts this process, as ctrl-c does, and waits until the
// interruption's clean-up has removed `dir`: what the command then does
// races the interruption's exit.
void InterruptAndAwaitCleanup(const std::string& dir, int sig) {
  kill(getpid(), sig);
  while (fs::exists(dir)) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

TEST(RunCommandTest, ACommandsCodeAndItsErrorsCodesPass) {
  EXPECT_EQ(ExitOfChild([](const std::string&) { return 4; }), 4);
  EXPECT_EQ(ExitOfChild([](const std::string&) -> int {
              throw Error(kExitInvalid, "the candidate crashed");
            }),
            kExitInvalid);
  EXPECT_EQ(ExitOfChild([](const std::string&) -> int { throw std::runtime_error("disk"); }),
            kExitEnvironment);
}

TEST(RunCommandTest, AnErrorTheCleanupCausedExitsWithTheInterruption) {
  // The temporary directory listed while the clean-up removes it.
  EXPECT_EQ(ExitOfChild([](const std::string& dir) -> int {
              InterruptAndAwaitCleanup(dir, SIGINT);
              throw fs::filesystem_error("cannot list", dir,
                                         std::make_error_code(std::errc::no_such_file_or_directory));
            }),
            128 + SIGINT);
  EXPECT_EQ(ExitOfChild([](const std::string& dir) -> int {
              InterruptAndAwaitCleanup(dir, SIGTERM);
              throw Error(kExitInvalid, "the workload was killed");
            }),
            128 + SIGTERM);
}

TEST(RunCommandTest, ACodeReturnedAfterTheInterruptionBeganIsTheInterruptions) {
  // A run whose workload the interruption killed, returning invalid.
  EXPECT_EQ(ExitOfChild([](const std::string& dir) {
              InterruptAndAwaitCleanup(dir, SIGHUP);
              return static_cast<int>(kExitInvalid);
            }),
            128 + SIGHUP);
}

}  // namespace
}  // namespace workgate
