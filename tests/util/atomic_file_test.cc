#include "util/atomic_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace workgate {
namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/wg_atomic_XXXXXX";
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::vector<std::string> Entries() {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    return names;
  }

  static std::string Read(const std::string& path) {
    std::ostringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
  }

  std::string dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesLeavingNoTemporaryFile) {
  const std::string path = dir_ + "/report.json";
  std::string err;
  ASSERT_TRUE(WriteFileAtomically(path, "first\n", &err)) << err;
  EXPECT_EQ(Read(path), "first\n");
  ASSERT_TRUE(WriteFileAtomically(path, "second\n", &err)) << err;
  EXPECT_EQ(Read(path), "second\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, TheUmaskDecidesTheMode) {
  mode_t old = umask(022);
  std::string err;
  const std::string path = dir_ + "/out.md";
  bool ok = WriteFileAtomically(path, "x", &err);
  umask(old);
  ASSERT_TRUE(ok) << err;
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicFileTest, FailuresLeaveNothingBehind) {
  std::string err;
  EXPECT_FALSE(WriteFileAtomically(dir_ + "/no/such/dir/file", "x", &err));
  EXPECT_NE(err.find("cannot create"), std::string::npos) << err;
  // Renaming over a directory fails after the temporary file was written.
  mkdir((dir_ + "/taken").c_str(), 0755);
  EXPECT_FALSE(WriteFileAtomically(dir_ + "/taken", "x", &err));
  EXPECT_NE(err.find("cannot rename"), std::string::npos) << err;
  EXPECT_EQ(Entries(), std::vector<std::string>{"taken"});
}

}  // namespace
}  // namespace workgate
