// The one way reports are written: JSON to a file or a stream, text to a
// stream or appended to a file, every failure an error with the reason.

#include "report/report_output.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "util/paths.h"

namespace workgate {
namespace {

using nlohmann::json;

const json kDoc = {{"schema_version", 1}, {"name", "a\xff"}, {"counts", {1, 2}}};

std::string Slurp(const std::string& path) { return ReadFile(path).value_or("<missing>"); }

TEST(ReportOutputTest, AFileAndAStreamGetTheSameIndentedText) {
  TempDir dir;
  std::string err;
  ASSERT_TRUE(WriteJsonFile(dir.path() + "/r.json", kDoc, "the report", &err)) << err;
  const std::string text = Slurp(dir.path() + "/r.json");
  EXPECT_EQ(text.substr(0, 4), "{\n  ");  // two-space indent
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(json::parse(text)["name"], "a\xef\xbf\xbd");  // invalid UTF-8 replaced, not thrown

  FILE* stream = fopen((dir.path() + "/s.json").c_str(), "w");
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(PrintJson(kDoc, stream, "the report", &err)) << err;
  fclose(stream);
  EXPECT_EQ(Slurp(dir.path() + "/s.json"), text);
}

TEST(ReportOutputTest, AFileThatCannotBeWrittenNamesTheDocument) {
  std::string err;
  EXPECT_FALSE(WriteJsonFile("/nonexistent/r.json", kDoc, "the probe's JSON", &err));
  EXPECT_NE(err.find("cannot write the probe's JSON: "), std::string::npos) << err;
  EXPECT_NE(err.find("/nonexistent/r.json"), std::string::npos) << err;
}

TEST(ReportOutputTest, AFullDiskUnderAStreamIsAnErrorNotATruncatedReport) {
  FILE* full = fopen("/dev/full", "w");
  if (full == nullptr) GTEST_SKIP() << "no /dev/full here";
  std::string err;
  // Smaller than stdio's buffer: only the flush can find out.
  EXPECT_FALSE(PrintText("workload  verdict\n", full, "the report", &err));
  EXPECT_NE(err.find("cannot write the report to the output: No space left on device"),
            std::string::npos)
      << err;
  err.clear();
  EXPECT_FALSE(PrintJson(kDoc, full, "the probe's JSON", &err));
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
  fclose(full);
}

TEST(ReportOutputTest, AppendKeepsWhatWasThere) {
  TempDir dir;
  const std::string path = dir.path() + "/summary.md";
  std::string err;
  ASSERT_TRUE(AppendToFile(path, "first\n", &err)) << err;
  ASSERT_TRUE(AppendToFile(path, "second\n", &err)) << err;
  EXPECT_EQ(Slurp(path), "first\nsecond\n");
}

TEST(ReportOutputTest, AppendToAFullDiskOrNowhereSaysWhy) {
  std::string err;
  EXPECT_FALSE(AppendToFile("/dev/full", "## workgate\n", &err));
  EXPECT_EQ(err, "cannot append to /dev/full: No space left on device");
  EXPECT_FALSE(AppendToFile("/nonexistent/summary.md", "x", &err));
  EXPECT_EQ(err, "cannot append to /nonexistent/summary.md: No such file or directory");
}

}  // namespace
}  // namespace workgate
