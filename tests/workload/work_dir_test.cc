// A workload's private directory across processes: WorkDir holds an exclusive
// flock(2) on the file beside it while it exists, so two workgate runs of one
// workload take turns (run_plan.h). Real processes, forked, each making a
// WorkDir for the same key; what the kernel says about the lock is read from
// /proc/locks (proc(5)), where a process blocked on a lock shows as "->".

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include "launch/launch.h"
#include "util/error.h"
#include "workload/run_plan.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// A workload named `name` that runs the build with `args`.
Workload Named(const std::string& name, std::vector<std::string> args = {}) {
  Workload w;
  w.name = name;
  w.command = {"{exe}"};
  w.command.insert(w.command.end(), args.begin(), args.end());
  return w;
}

// A forked process that makes WorkDir(w, suite_dir) at the workload's shared
// path (where a machine cannot bind it into the runs), writes its lock file's path on a
// pipe once it holds it, and keeps it until told to go or killed. Its stderr
// goes to `stderr_path` where one is given.
class Holder {
 public:
  explicit Holder(const Workload& w, const std::string& stderr_path = "",
                  const std::string& suite_dir = "") {
    if (pipe(to_child_) != 0 || pipe(from_child_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(to_child_[1]);
      close(from_child_[0]);
      if (!stderr_path.empty()) {
        const int fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || dup2(fd, 2) != 2) _exit(5);
      }
      try {
        WorkDir dir(w, suite_dir, WorkDir::Place::kShared);
        const std::string line = dir.lock_path() + "\n";
        if (write(from_child_[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
          _exit(3);
        }
        char go;
        if (read(to_child_[0], &go, 1) != 1) _exit(4);
      } catch (const Error&) {
        _exit(2);
      }
      _exit(0);  // WorkDir has removed its directory and lock file
    }
    close(to_child_[0]);
    close(from_child_[1]);
  }
  ~Holder() {
    if (pid_ > 0 && !reaped_) Kill();
    close(to_child_[1]);
    close(from_child_[0]);
  }

  pid_t pid() const { return pid_; }

  /// Waits up to `seconds` for the child to hold the lock; the lock file's
  /// path, or "" when it did not.
  std::string AwaitLock(int seconds) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (line.empty() || line.back() != '\n') {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{from_child_[0], POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) return "";
      char c;
      if (read(from_child_[0], &c, 1) != 1) return "";  // it ended without the lock
      line += c;
    }
    line.pop_back();
    return line;
  }
  /// Whether the child has said it holds the lock, without waiting.
  bool SaidLocked() const {
    pollfd p{from_child_[0], POLLIN, 0};
    return poll(&p, 1, 0) == 1;
  }
  /// Lets the child leave its WorkDir's scope; its exit status.
  int Release() {
    // A byte rather than EOF: a Holder forked later holds a copy of this end.
    const ssize_t n = write(to_child_[1], "x", 1);
    (void)n;
    return Reap();
  }
  /// SIGKILL: no destructor runs, the kernel alone drops the lock.
  void Kill() {
    kill(pid_, SIGKILL);
    Reap();
  }

 private:
  int Reap() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  int to_child_[2] = {-1, -1};
  int from_child_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool reaped_ = false;
};

enum class LockState { kNone, kHeld, kWaiting };

// What /proc/locks says of `pid`'s flock on the file with inode `inode`.
// Its lines: "1: FLOCK  ADVISORY  WRITE 4242 fe:00:1234 0 EOF", and for a
// process blocked on that lock "1: -> FLOCK  ADVISORY  WRITE 4243 ...".
LockState LockOf(pid_t pid, ino_t inode) {
  std::ifstream in("/proc/locks");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, device;
    pid_t holder = 0;
    fields >> id >> kind;
    const bool waiting = kind == "->";
    if (waiting) fields >> kind;
    fields >> mode >> access >> holder >> device;
    const size_t colon = device.rfind(':');
    if (kind != "FLOCK" || holder != pid || colon == std::string::npos) continue;
    if (std::stoull(device.substr(colon + 1)) != inode) continue;
    return waiting ? LockState::kWaiting : LockState::kHeld;
  }
  return LockState::kNone;
}

// Waits up to a minute for /proc/locks to show `state`.
bool AwaitLockState(pid_t pid, ino_t inode, LockState state) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (LockOf(pid, inode) != state) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

ino_t InodeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::string Key() {
  return "work-dir-lock-test-" + std::to_string(getpid()) + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

class WorkDirLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/proc/locks", R_OK) != 0) GTEST_SKIP() << "no /proc/locks to watch the lock in";
  }
};

TEST_F(WorkDirLockTest, ASecondProcessWaitsUntilTheFirstIsDone) {
  const std::string first_err = fs::temp_directory_path() / (Key() + ".first.err");
  const std::string second_err = fs::temp_directory_path() / (Key() + ".second.err");
  Holder first(Named(Key()), first_err);
  const std::string lock = first.AwaitLock(60);
  ASSERT_FALSE(lock.empty()) << "the first process did not get the lock";
  const ino_t first_inode = InodeOf(lock);
  ASSERT_EQ(LockOf(first.pid(), first_inode), LockState::kHeld);

  Holder second(Named(Key()), second_err);
  ASSERT_TRUE(AwaitLockState(second.pid(), first_inode, LockState::kWaiting))
      << "the second process is not waiting for the lock";
  EXPECT_FALSE(second.SaidLocked());
  // The wait is said, so that it does not look like a hang; the first, which
  // did not wait, said nothing.
  auto text = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(text(second_err), "workgate: waiting for another workgate that counts the workload " +
                                  Key() + " (lock " + lock + ")\n");
  EXPECT_EQ(text(first_err), "");

  // The first removes its lock file as it goes, so the second, woken with a
  // lock on a file no longer at the path, must lock the new one there.
  EXPECT_EQ(first.Release(), 0);
  EXPECT_EQ(second.AwaitLock(60), lock);
  const ino_t second_inode = InodeOf(lock);
  ASSERT_NE(second_inode, 0u) << lock << " is missing while the second process holds it";
  EXPECT_EQ(LockOf(second.pid(), second_inode), LockState::kHeld);
  const std::string dir = lock.substr(0, lock.size() - std::string(".lock").size());
  EXPECT_TRUE(fs::is_directory(dir)) << dir;

  EXPECT_EQ(second.Release(), 0);
  EXPECT_FALSE(fs::exists(lock));
  EXPECT_FALSE(fs::exists(dir));
  fs::remove(first_err);
  fs::remove(second_err);
}

TEST_F(WorkDirLockTest, AKilledHoldersLockIsReleasedAndItsLeftoversRemoved) {
  Holder first(Named(Key()));
  const std::string lock = first.AwaitLock(60);
  ASSERT_FALSE(lock.empty()) << "the first process did not get the lock";
  const std::string dir = lock.substr(0, lock.size() - std::string(".lock").size());
  std::ofstream(dir + "/left-by-the-first") << "x";
  first.Kill();
  // Killed, it removed nothing: its lock file is there, unlocked.
  ASSERT_TRUE(fs::exists(dir + "/left-by-the-first"));
  const ino_t inode = InodeOf(lock);
  EXPECT_EQ(LockOf(first.pid(), inode), LockState::kNone);

  Holder second(Named(Key()));
  EXPECT_EQ(second.AwaitLock(60), lock) << "the lock of a killed process was not released";
  EXPECT_EQ(LockOf(second.pid(), InodeOf(lock)), LockState::kHeld);
  EXPECT_FALSE(fs::exists(dir + "/left-by-the-first")) << "the directory is not fresh";
  EXPECT_EQ(second.Release(), 0);
}

// Two gates of unrelated workloads on one machine: two ad hoc commands with
// the same name, or one suite's workload in two checkouts. Each holds its
// own directory at once; neither waits.
TEST_F(WorkDirLockTest, UnrelatedWorkloadsNeverWaitForEachOther) {
  Holder sort(Named(Key(), {"--sort"}));
  const std::string sort_lock = sort.AwaitLock(60);
  ASSERT_FALSE(sort_lock.empty());
  Holder hash(Named(Key(), {"--hash"}));
  const std::string hash_lock = hash.AwaitLock(60);
  EXPECT_FALSE(hash_lock.empty()) << "another command waited for the first one's lock";
  EXPECT_NE(hash_lock, sort_lock);
  Holder elsewhere(Named(Key(), {"--sort"}), "", "/checkout/two/bench");
  const std::string elsewhere_lock = elsewhere.AwaitLock(60);
  EXPECT_FALSE(elsewhere_lock.empty()) << "the same workload of another suite folder waited";
  EXPECT_NE(elsewhere_lock, sort_lock);
  EXPECT_EQ(sort.Release(), 0);
  EXPECT_EQ(hash.Release(), 0);
  EXPECT_EQ(elsewhere.Release(), 0);
}

// Where the runs bind it, each workgate's directory of one workload is its
// own on this machine and the same path to the runs: none waits, no lock.
TEST(WorkDirPlaceTest, TwoWorkgatesOfOneWorkloadEachHaveOneOfTheirOwnAtOnePath) {
  const Workload w = Named(Key());
  WorkDir first(w, "");
  if (!first.bound()) {
    ASSERT_FALSE(BindableInRuns(first.path()));
    GTEST_SKIP() << "the runs here do not get " << first.path()
                 << "'s directory fresh (no PID namespace, or a shared /tmp): the directory is "
                    "shared, and the lock tests cover it";
  }
  WorkDir second(w, "");
  ASSERT_TRUE(second.bound());
  EXPECT_EQ(first.path(), second.path());
  EXPECT_NE(first.host_path(), second.host_path());
  EXPECT_EQ(fs::path(first.host_path()).filename().string().rfind(
                fs::path(first.path()).filename().string() + ".", 0),
            0u)
      << first.host_path();
  EXPECT_TRUE(fs::is_directory(first.host_path()));
  EXPECT_TRUE(fs::is_directory(second.host_path()));
  EXPECT_FALSE(fs::exists(first.path())) << "nothing is made at the shared path";
  EXPECT_FALSE(fs::exists(first.path() + ".lock"));
  EXPECT_EQ(first.lock_path(), "");
  std::string err;
  ASSERT_TRUE(first.PointExeAt("/bin/true", &err)) << err;
  EXPECT_EQ(fs::read_symlink(first.host_exe_link()), fs::canonical("/bin/true"));
  // Gone, it takes what the runs left in it.
  std::string gone_host;
  {
    WorkDir gone(Named(Key() + "-gone"), "");
    gone_host = gone.host_path();
    std::ofstream(gone_host + "/left") << "x";
  }
  EXPECT_FALSE(fs::exists(gone_host));
}

// The key is the whole definition: both sides of one comparison, and every
// later count of the same workload, get the same path; any change to what
// runs is another directory.
TEST(WorkDirKeyTest, TheWholeDefinitionAndTheSuiteFolderNameTheDirectory) {
  const Workload w = Named("sort", {"100"});
  EXPECT_EQ(WorkDirKey(w, "/s"), WorkDirKey(Named("sort", {"100"}), "/s"));
  EXPECT_NE(WorkDirKey(w, "/s"), WorkDirKey(Named("sort", {"200"}), "/s"));
  EXPECT_NE(WorkDirKey(w, "/s"), WorkDirKey(Named("hash", {"100"}), "/s"));
  EXPECT_NE(WorkDirKey(w, "/s"), WorkDirKey(w, "/t"));
  Workload with_env = w;
  with_env.env["N"] = "1";
  EXPECT_NE(WorkDirKey(w, "/s"), WorkDirKey(with_env, "/s"));
}

}  // namespace
}  // namespace workgate
