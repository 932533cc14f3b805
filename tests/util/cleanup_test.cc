#include "util/cleanup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// A tree wide and deep enough that two removers meet in it.
void MakeTree(const fs::path& root) {
  for (int d = 0; d < 60; ++d) {
    const fs::path dir = root / ("d" + std::to_string(d)) / "inner";
    fs::create_directories(dir);
    for (int f = 0; f < 20; ++f) std::ofstream(dir / ("f" + std::to_string(f))) << "x";
  }
}

// An interruption removes a run's directory while the run removes it too
// (its tree was just killed and it is returning): whichever finishes, the
// directory is gone and both say so. std::filesystem::remove_all alone gives
// up at the first entry the other one took, leaving the rest.
TEST(CleanupTest, TwoRemoversOfOneTreeLeaveNothing) {
  TempDir tmp("wg-cleanup");
  for (int round = 0; round < 5; ++round) {
    const fs::path root = fs::path(tmp.path()) / ("r" + std::to_string(round));
    MakeTree(root);
    bool first = false, second = false;
    std::thread a([&] { first = RemoveTree(root.string()); });
    std::thread b([&] { second = RemoveTree(root.string()); });
    a.join();
    b.join();
    EXPECT_TRUE(first) << "round " << round;
    EXPECT_TRUE(second) << "round " << round;
    EXPECT_FALSE(fs::exists(fs::symlink_status(root))) << "round " << round;
  }
}

TEST(CleanupTest, RemovingWhatIsNotThereSucceeds) {
  TempDir tmp("wg-cleanup");
  EXPECT_TRUE(RemoveTree(tmp.path() + "/never-made"));
}

TEST(CleanupTest, ALinkIsRemovedNotFollowed) {
  TempDir tmp("wg-cleanup");
  const fs::path kept = fs::path(tmp.path()) / "kept";
  MakeTree(kept);
  const fs::path link = fs::path(tmp.path()) / "link";
  fs::create_directory_symlink(kept, link);
  EXPECT_TRUE(RemoveTree(link.string()));
  EXPECT_FALSE(fs::exists(fs::symlink_status(link)));
  EXPECT_TRUE(fs::exists(kept / "d0" / "inner" / "f0"));
}

// What the interruption removes: every registered path, however many
// registered it (a multiset: two owners of one path), and nothing else; and
// it says what it removed.
TEST(CleanupTest, AnInterruptionRemovesEveryRegisteredPath) {
  TempDir outside("wg-cleanup");
  UnregisterCleanupPath(outside.path());  // not workgate's to remove, here
  TempDir tmp("wg-cleanup");
  const fs::path one = fs::path(tmp.path()) / "one", two = fs::path(tmp.path()) / "two";
  MakeTree(one);
  std::ofstream(two) << "file";
  RegisterCleanupPath(one.string());
  RegisterCleanupPath(two.string());
  RegisterCleanupPath(two.string());
  const CleanupResult result = RemoveCleanupPaths();
  EXPECT_FALSE(fs::exists(tmp.path()));
  EXPECT_TRUE(fs::is_directory(outside.path()));
  // The TempDir, which registers itself, goes first and takes the other two
  // with it: each path is listed once, as what was there when it was removed.
  EXPECT_EQ(result.removed, std::vector<std::string>{tmp.path()});
  EXPECT_TRUE(result.failed.empty());
  UnregisterCleanupPath(one.string());
  UnregisterCleanupPath(two.string());
  UnregisterCleanupPath(two.string());
}

// After the interruption's last sweep, a run may still be making its
// directory: registered then, it is removed at once, since no sweep follows.
// In a child process, as the registry stays closed until the exit.
TEST(CleanupTest, APathRegisteredAfterTheLastSweepIsRemovedAtOnce) {
  TempDir outside("wg-cleanup-outside");
  const fs::path late = fs::path(outside.path()) / "late";
  const fs::path early = fs::path(outside.path()) / "early";
  EXPECT_EXIT(
      {
        UnregisterCleanupPath(outside.path());  // this test's own, kept for the parent
        RemoveCleanupPaths(CleanupEnd::kKeepOpen);
        MakeTree(early);
        RegisterCleanupPath(early.string());  // still open: kept until a sweep
        const bool kept = fs::exists(early);
        UnregisterCleanupPath(early.string());
        RemoveCleanupPaths(CleanupEnd::kLast);
        MakeTree(late);
        RegisterCleanupPath(late.string());
        _exit(kept && !fs::exists(late) ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_TRUE(fs::exists(early));
  EXPECT_FALSE(fs::exists(late));
}

// A path that cannot be removed is named with the reason, and does not stop
// the rest. Nobody, root included, can remove a file of /proc: EACCES for a
// user (/proc is not writable), EPERM for root (procfs removes nothing).
TEST(CleanupTest, APathThatCannotBeRemovedIsNamedWithTheReason) {
  const std::string unremovable = "/proc/version";
  ASSERT_TRUE(fs::exists(unremovable)) << "no /proc here";
  TempDir tmp("wg-cleanup");
  const fs::path kept = fs::path(tmp.path()) / "kept";
  MakeTree(kept);
  RegisterCleanupPath(unremovable);
  const CleanupResult result = RemoveCleanupPaths();
  UnregisterCleanupPath(unremovable);
  EXPECT_FALSE(fs::exists(tmp.path()));
  EXPECT_EQ(result.removed, std::vector<std::string>{tmp.path()});
  ASSERT_EQ(result.failed.size(), 1u);
  EXPECT_EQ(result.failed[0].path, unremovable);
  const std::string reason = std::strerror(getuid() == 0 ? EPERM : EACCES);
  EXPECT_EQ(result.failed[0].reason, reason);
  std::string why;
  EXPECT_FALSE(RemoveTree(unremovable, &why));
  EXPECT_EQ(why, reason);
}

// A run that keeps writing into its registered directory while the
// interruption sweeps (a thread that does not wind down) cannot hold up the
// exit: the sweeps end at their deadline, about a second.
TEST(CleanupTest, SweepsEndWhileARunKeepsWriting) {
  TempDir tmp("wg-cleanup");
  const fs::path dir = tmp.path() + "-busy";  // a run's own directory, beside it
  RegisterCleanupPath(dir.string());
  std::atomic<bool> stop{false};
  std::atomic<bool> writing{false};
  std::thread writer([&] {
    while (!stop) {
      std::error_code ec;
      fs::create_directory(dir, ec);
      std::ofstream(dir / "f") << "x";
      writing = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  // The sweep starts once the run has written: on a loaded machine the
  // thread can start after two sweeps have already found nothing there.
  while (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto start = std::chrono::steady_clock::now();
  const CleanupResult result = RemoveCleanupPaths();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  writer.join();
  EXPECT_TRUE(RemoveTree(dir.string()));
  UnregisterCleanupPath(dir.string());
  EXPECT_LT(seconds, 5.0);
  EXPECT_NE(std::find(result.removed.begin(), result.removed.end(), dir.string()),
            result.removed.end());
  EXPECT_TRUE(result.failed.empty());
}

}  // namespace
}  // namespace workgate
