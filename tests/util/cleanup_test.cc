#include "util/cleanup.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

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
// registered it (a multiset: two owners of one path), and nothing else.
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
  EXPECT_EQ(RemoveCleanupPaths(), 3 + 1);  // and the TempDir, which registers itself
  EXPECT_FALSE(fs::exists(tmp.path()));
  EXPECT_TRUE(fs::is_directory(outside.path()));
  UnregisterCleanupPath(one.string());
  UnregisterCleanupPath(two.string());
  UnregisterCleanupPath(two.string());
}

}  // namespace
}  // namespace workgate
