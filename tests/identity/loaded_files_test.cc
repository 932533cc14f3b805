// The files the loader maps for a build, taken twice: a library rewritten,
// one put earlier in the build's search path, one removed or a link moved
// is named; root's own files are not read.
#include "identity/loaded_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "identity/test_programs.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::CompileC;

constexpr char kLibrary[] = "int wg_work(void) { return 1; }\n";
constexpr char kOtherLibrary[] = "int wg_work(void) { return 2; }\n";
constexpr char kProgram[] = "int wg_work(void);\nint main(void) { return wg_work() - 1; }\n";

// A program whose RUNPATH is `first`:`second` and which needs
// libwgloaded.so, put in `second`.
class LoadedFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
    fs::create_directories(first());
    fs::create_directories(second());
    ASSERT_TRUE(CompileC(kLibrary, library(), "-shared -fPIC"));
    ASSERT_TRUE(CompileC(kProgram, program(),
                         "-L'" + second() + "' -lwgloaded -Wl,--enable-new-dtags -Wl,-rpath,'" +
                             first() + ":" + second() + "'"));
  }
  std::vector<LoadedFile> Take() {
    std::vector<LoadedFile> files;
    std::string err;
    EXPECT_TRUE(TakeLoadedFiles(program(), LoaderInputs{}, &files, &err)) << err;
    return files;
  }
  std::string first() const { return dir_.path() + "/first"; }
  std::string second() const { return dir_.path() + "/second"; }
  std::string library() const { return second() + "/libwgloaded.so"; }
  std::string program() const { return dir_.path() + "/program"; }
  TempDir dir_;
};

TEST_F(LoadedFilesTest, TheSameFilesAreNoChange) {
  const std::vector<LoadedFile> before = Take();
  EXPECT_EQ(LoadedFilesChange(before, Take()), "");
  // The library is read; the C library, root's alone, is not, but where
  // the workloads run as root.
  bool own = false, libc = false;
  for (const LoadedFile& file : before) {
    if (file.path == library()) {
      own = true;
      EXPECT_FALSE(file.out_of_reach);
      EXPECT_EQ(file.sha256.size(), 64u);
    }
    if (file.name == "libc.so.6") {
      libc = true;
      EXPECT_EQ(file.out_of_reach, geteuid() != 0) << file.path;
      EXPECT_EQ(file.sha256.size(), geteuid() != 0 ? 0u : 64u);
    }
  }
  EXPECT_TRUE(own) << "the program's own library is not among its files";
  EXPECT_TRUE(libc);
}

TEST_F(LoadedFilesTest, ARewrittenLibraryIsNamed) {
  const std::vector<LoadedFile> before = Take();
  ASSERT_TRUE(CompileC(kOtherLibrary, library(), "-shared -fPIC"));
  EXPECT_EQ(LoadedFilesChange(before, Take()),
            "the library libwgloaded.so at " + library() + " changed");
}

TEST_F(LoadedFilesTest, ALibraryPutEarlierInTheSearchPathIsNamed) {
  const std::vector<LoadedFile> before = Take();
  fs::copy_file(library(), first() + "/libwgloaded.so");
  EXPECT_EQ(LoadedFilesChange(before, Take()), "the library libwgloaded.so at " + library() +
                                                   " is now found at " + first() +
                                                   "/libwgloaded.so");
}

TEST_F(LoadedFilesTest, ARemovedLibraryIsNamed) {
  const std::vector<LoadedFile> before = Take();
  fs::remove(library());
  EXPECT_EQ(LoadedFilesChange(before, Take()),
            "the library libwgloaded.so at " + library() + " is now found nowhere");
}

TEST_F(LoadedFilesTest, ALinkThatLeadsElsewhereIsNamed) {
  // The library is a link to one of two identical files: moved to the
  // other, the content is the same, the file is not.
  fs::rename(library(), dir_.path() + "/a.so");
  fs::copy_file(dir_.path() + "/a.so", dir_.path() + "/b.so");
  fs::create_symlink(dir_.path() + "/a.so", library());
  const std::vector<LoadedFile> before = Take();
  fs::remove(library());
  fs::create_symlink(dir_.path() + "/b.so", library());
  EXPECT_EQ(LoadedFilesChange(before, Take()), "the library libwgloaded.so at " + library() +
                                                   " now leads to " + dir_.path() +
                                                   "/b.so (it led to " + dir_.path() + "/a.so)");
}

TEST(OnlyRootMayChangeTest, RootsOwnFilesAndNoOneElses) {
  EXPECT_TRUE(OnlyRootMayChange("/bin/sh"));
  TempDir dir;
  // Whoever owns them: a file others may write, or one in a directory
  // others may write (as /tmp).
  const std::string writable = dir.path() + "/writable";
  std::ofstream(writable) << "x";
  fs::permissions(writable, fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(OnlyRootMayChange(writable));
  fs::create_directory(dir.path() + "/open");
  fs::permissions(dir.path() + "/open", fs::perms::all);
  const std::string inside = dir.path() + "/open/f";
  std::ofstream(inside) << "x";
  fs::permissions(inside, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_FALSE(OnlyRootMayChange(inside));
  EXPECT_FALSE(OnlyRootMayChange(dir.path() + "/absent"));
}

}  // namespace
}  // namespace workgate
