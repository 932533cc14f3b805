// The loading the suite commands share, and the workload digest that
// fingerprints carry (workload/workload.h).

#include <gtest/gtest.h>

#include <fstream>

#include "util/error.h"
#include "util/paths.h"
#include "workload/workload.h"

namespace workgate {
namespace {

class WorkloadDigestTest : public ::testing::Test {
 protected:
  std::string Digest(const Workload& w, const std::string& suite_dir) {
    std::string digest, err;
    EXPECT_TRUE(WorkloadDigest(w, suite_dir, &digest, &err)) << err;
    EXPECT_EQ(digest.size(), 64u);
    return digest;
  }
  void Put(const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() + "/" + name) << text;
  }
  TempDir dir_;
};

Workload ScriptWorkload(const std::string& arg) {
  Workload w;
  w.name = "w";
  w.command = {"{exe}", arg};
  return w;
}

TEST_F(WorkloadDigestTest, HoldsTheContentOfTheFilesNamedThroughSuiteDir) {
  Put("a.wg", "print 1\n");
  Put("b.wg", "print 1\n");
  const std::string a = Digest(ScriptWorkload("{suite_dir}/a.wg"), dir_.path());
  EXPECT_EQ(Digest(ScriptWorkload("{suite_dir}/a.wg"), dir_.path()), a);
  // The same definition with another script beside another suite.
  TempDir other;
  std::ofstream(other.path() + "/a.wg") << "print 2\n";
  EXPECT_NE(Digest(ScriptWorkload("{suite_dir}/a.wg"), other.path()), a);
  Put("a.wg", "print 2\n");
  EXPECT_NE(Digest(ScriptWorkload("{suite_dir}/a.wg"), dir_.path()), a);
  // Another name for the same text is another definition.
  EXPECT_NE(Digest(ScriptWorkload("{suite_dir}/b.wg"), dir_.path()), a);
}

TEST_F(WorkloadDigestTest, FindsThePathInsideAnOptionAndSkipsWhatIsNoFile) {
  Put("in.txt", "1\n");
  const Workload w = ScriptWorkload("--input={suite_dir}/in.txt");
  const std::string before = Digest(w, dir_.path());
  Put("in.txt", "2\n");
  EXPECT_NE(Digest(w, dir_.path()), before);
  // An output the program makes, and a directory, count by name only.
  const Workload out = ScriptWorkload("{suite_dir}/out.txt");
  const std::string missing = Digest(out, dir_.path());
  EXPECT_EQ(Digest(ScriptWorkload("{suite_dir}/out.txt"), dir_.path()), missing);
  EXPECT_EQ(Digest(ScriptWorkload("{suite_dir}"), dir_.path()).size(), 64u);
  // An ad hoc workload has no suite directory.
  EXPECT_EQ(Digest(ScriptWorkload("x"), ""), Digest(ScriptWorkload("x"), dir_.path()));
}

TEST(LoadSuiteSelectingTest, LoadsSelectsAndFailsAsAUsageError) {
  TempDir dir;
  const std::string path = dir.path() + "/s.toml";
  std::ofstream(path) << "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"none\"\n"
                         "[[workload]]\nname = \"b\"\ncommand = [\"{exe}\"]\nclock = \"none\"\n";
  EXPECT_EQ(LoadSuiteSelecting(path, {}).workloads.size(), 2u);
  const Suite b = LoadSuiteSelecting(path, {"b"});
  ASSERT_EQ(b.workloads.size(), 1u);
  EXPECT_EQ(b.workloads[0].name, "b");
  EXPECT_EQ(b.dir, RealPath(dir.path()));
  for (const auto& [file, names] : {std::pair<std::string, std::vector<std::string>>{path, {"c"}},
                                    {dir.path() + "/none.toml", {}}}) {
    try {
      LoadSuiteSelecting(file, names);
      ADD_FAILURE() << file;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage) << e.what();
    }
  }
}

}  // namespace
}  // namespace workgate
