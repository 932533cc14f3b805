// Which Valgrind vgcount belongs to: the record the build writes beside the
// tool, and vgcount refused under a launcher of another version.

#include "counter/vgcount_install.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "machine/system_info.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/input_file.h"
#include "util/paths.h"

namespace workgate {
namespace {

TEST(VgcountRecordTest, ReadsTheVersionAndTheLauncher) {
  VgcountValgrind built;
  std::string err;
  ASSERT_TRUE(ParseVgcountRecord(
      "version: valgrind-3.22.0\nlauncher: /opt/valgrind-3.22/bin/valgrind\n", &built, &err))
      << err;
  EXPECT_EQ(built.version, "valgrind-3.22.0");
  EXPECT_EQ(built.launcher, "/opt/valgrind-3.22/bin/valgrind");
}

TEST(VgcountRecordTest, RefusesWhatIsNoRecord) {
  VgcountValgrind built;
  std::string err;
  EXPECT_FALSE(ParseVgcountRecord("version: valgrind-3.22.0\n", &built, &err));
  EXPECT_EQ(err, "it gives no launcher");
  EXPECT_FALSE(ParseVgcountRecord("launcher: /usr/bin/valgrind\nversion: \n", &built, &err));
  EXPECT_EQ(err, "it gives no version");
  EXPECT_FALSE(ParseVgcountRecord(
      "version: valgrind-3.22.0\nversion: valgrind-3.19.0\nlauncher: /v\n", &built, &err));
  EXPECT_EQ(err, "it gives version twice");
  EXPECT_FALSE(ParseVgcountRecord("version: a\nlauncher: /v\ntool: x\n", &built, &err));
  EXPECT_EQ(err, "it has a line it should not: \"tool: x\"");
}

TEST(VgcountValgrindMismatchTest, NamesBothValgrindsAndTheLauncherToUse) {
  const VgcountValgrind built{"valgrind-3.22.0", "/opt/valgrind-3.22/bin/valgrind"};
  EXPECT_EQ(VgcountValgrindMismatch("/b/valgrind-lib", built,
                                    {"/usr/bin/valgrind.bin", "valgrind-3.19.0", ""}),
            "vgcount in /b/valgrind-lib was built against valgrind-3.22.0 "
            "(/opt/valgrind-3.22/bin/valgrind), but the Valgrind that workgate runs is "
            "valgrind-3.19.0 (/usr/bin/valgrind.bin): set "
            "WORKGATE_VALGRIND=/opt/valgrind-3.22/bin/valgrind, or rebuild vgcount against "
            "valgrind-3.19.0");
  // The same version elsewhere (Debian's wrapper and its valgrind.bin) runs it.
  EXPECT_EQ(VgcountValgrindMismatch("/b/valgrind-lib", built,
                                    {"/usr/local/bin/valgrind", "valgrind-3.22.0", ""}),
            "");
}

// A valgrind-lib of the test's own, as WORKGATE_VGCOUNT_LIB; checked against
// the Valgrind this process finds.
class CheckVgcountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    setenv("WORKGATE_VGCOUNT_LIB", lib_.path().c_str(), 1);
  }
  void TearDown() override { unsetenv("WORKGATE_VGCOUNT_LIB"); }
  void Tool() const { std::ofstream(lib_.path() + "/vgcount-amd64-linux"); }
  void Record(const std::string& text) const {
    std::ofstream(lib_.path() + "/" + kVgcountRecordName) << text;
  }
  TempDir lib_;
};

TEST_F(CheckVgcountTest, RunsOnlyUnderTheVersionItWasBuiltAgainst) {
  VgcountStatus status = CheckVgcount();
  EXPECT_FALSE(status.built);
  EXPECT_EQ(status.unusable.rfind("the vgcount Valgrind tool is not built", 0), 0u)
      << status.unusable;

  Tool();  // a lib from before the record: taken as it is
  status = CheckVgcount();
  EXPECT_TRUE(status.built);
  EXPECT_EQ(status.lib, lib_.path());
  EXPECT_EQ(status.unusable, "");

  Record("version: " + FindValgrind().version + "\nlauncher: /v/bin/valgrind\n");
  EXPECT_EQ(CheckVgcount().unusable, "");

  Record("version: valgrind-2.0.0\nlauncher: /v/bin/valgrind\n");
  status = CheckVgcount();
  EXPECT_TRUE(status.built);
  EXPECT_EQ(
      status.unusable,
      VgcountValgrindMismatch(lib_.path(), {"valgrind-2.0.0", "/v/bin/valgrind"}, FindValgrind()));

  Record("launcher only\n");
  EXPECT_EQ(CheckVgcount().unusable,
            "vgcount's record of its Valgrind, " + lib_.path() +
                "/vgcount.valgrind, is not one: it has a line it should not: \"launcher only\"");
}

// The build's record names the Valgrind it built vgcount against: a launcher
// that says it is that version, and the Valgrind this test run finds. (A
// build against a Valgrind installed from source is tested where that
// Valgrind is the one found: docs/install.md.)
TEST(VgcountBuildRecordTest, NamesTheValgrindTheToolWasBuiltAgainst) {
#ifndef WORKGATE_VGCOUNT_BUILT
  WORKGATE_REQUIRE_TOOL(false, "CMake did not build vgcount");
#endif
  WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  const std::string lib = testing::BuildPath("valgrind-lib");
  std::string text, err;
  VgcountValgrind built;
  ASSERT_TRUE(ReadRegularFile(lib + "/" + kVgcountRecordName, 4096, &text, &err)) << err;
  ASSERT_TRUE(ParseVgcountRecord(text, &built, &err)) << err;
  Probed<std::string> version = ReadValgrindVersion(built.launcher, 30);
  ASSERT_TRUE(version.value) << version.note;
  EXPECT_EQ(*version.value, built.version);
  setenv("WORKGATE_VGCOUNT_LIB", lib.c_str(), 1);
  EXPECT_EQ(CheckVgcount().unusable, "");
  unsetenv("WORKGATE_VGCOUNT_LIB");
}

}  // namespace
}  // namespace workgate
