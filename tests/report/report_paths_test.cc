#include "report/report_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "util/error.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

TEST(ReportPathsTest, ANewFileInAnExistingDirectoryIsFine) {
  TempDir dir;
  EXPECT_EQ(ReportPathProblem({"--json", dir.path() + "/r.json"}), "");
  EXPECT_EQ(ReportPathProblem({"--json", ""}), "");  // no report asked for
  std::ofstream(dir.path() + "/summary.md") << "earlier step\n";
  EXPECT_EQ(ReportPathProblem({"$GITHUB_STEP_SUMMARY", dir.path() + "/summary.md", true}), "");
}

TEST(ReportPathsTest, SaysWhyAPathCannotTakeAReport) {
  TempDir dir;
  EXPECT_EQ(ReportPathProblem({"--json", dir.path()}), "it is a directory");
  EXPECT_EQ(ReportPathProblem({"--json", dir.path() + "/missing/r.json"}),
            "its directory " + dir.path() + "/missing cannot be used: No such file or directory");
  std::ofstream(dir.path() + "/file") << "x";
  EXPECT_EQ(ReportPathProblem({"--markdown", dir.path() + "/file/r.md"}),
            dir.path() + "/file is not a directory");
  try {
    CheckReportPaths({{"--json", dir.path() + "/ok.json"}, {"--markdown", dir.path()}});
    FAIL() << "a directory was accepted as a report file";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
    EXPECT_EQ(std::string(e.what()),
              "cannot write the --markdown report to " + dir.path() + ": it is a directory");
  }
}

TEST(ReportPathsTest, AReportOverAnInputOrAnotherReportIsAUsageError) {
  TempDir dir;
  const std::string cand = dir.path() + "/cand";
  std::ofstream(cand) << "build";
  ASSERT_EQ(link(cand.c_str(), (dir.path() + "/hard").c_str()), 0);
  ASSERT_EQ(symlink("cand", (dir.path() + "/soft").c_str()), 0);
  const std::vector<InputPath> inputs = {{"--candidate", cand}, {"--suite", ""}};
  for (const std::string& same :
       {cand, dir.path() + "/./x/../cand", dir.path() + "/hard", dir.path() + "/soft"}) {
    try {
      CheckNoCollision({{"--json", same}}, inputs);
      ADD_FAILURE() << same << " was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
      EXPECT_NE(std::string(e.what()).find("--json " + same), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--candidate " + cand), std::string::npos) << e.what();
    }
  }
  // Two reports at one path that does not exist yet.
  EXPECT_THROW(
      CheckNoCollision({{"--json", dir.path() + "/r"}, {"--markdown", dir.path() + "/x/../r"}}, {}),
      Error);
  // Distinct files, standard output twice (refused elsewhere), no path.
  EXPECT_NO_THROW(CheckNoCollision(
      {{"--json", dir.path() + "/r.json"}, {"--markdown", "-"}, {"--save-baseline", ""}},
      {{"--candidate", cand}, {"--baseline", "-"}}));
}

TEST(ReportPathsTest, StaleReportsGoAppendedFilesStay) {
  TempDir dir;
  const std::string json = dir.path() + "/r.json", summary = dir.path() + "/summary.md";
  std::ofstream(json) << "{\"verdict\": \"ok\"}\n";
  std::ofstream(summary) << "earlier step\n";
  RemoveStaleReports({{"--json", json},
                      {"--markdown", dir.path() + "/never-written.md"},
                      {"$GITHUB_STEP_SUMMARY", summary, true}});
  EXPECT_FALSE(fs::exists(json));
  EXPECT_TRUE(fs::exists(summary));
}

}  // namespace
}  // namespace workgate
