// `compare --explain` on stripped builds, end to end: stripped copies of
// tests/explain/testdata/unnamed_work.c (known GNU build IDs, the candidate
// looping 50,000 times more), whose work callgrind can name only by address.
// The explanation must say that the program has no symbols, which files,
// their build IDs, whether a debug file exists, and how to get names.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli/cli_fixture.h"
#include "explain/explain.h"
#include "test_paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBaseId = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kCandId = "fedcba9876543210fedcba9876543210fedcba98";

class ExplainStrippedCliTest : public CountingCliTest {
 protected:
  // A copy of tests/unnamed_work_SIDE at DIR/SIDE/unnamed_work, stripped
  // when `strip` is set.
  std::string Copy(const std::string& side, bool strip) {
    const std::string path = Path(side + "/unnamed_work");
    fs::create_directories(fs::path(path).parent_path());
    fs::copy_file(testing::BuildPath("tests/unnamed_work_" + side), path,
                  fs::copy_options::overwrite_existing);
    if (strip) {
      const std::string cmd = std::string(WORKGATE_STRIP) + " " + path;
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    return path;
  }
};

TEST_F(ExplainStrippedCliTest, StrippedBuildsAreNamedWithTheirBuildIds) {
  const std::string base = Copy("base", true);
  const std::string cand = Copy("cand", true);
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", base, "--candidate", cand, "--explain", "always", "--timed",
                        "0", "--json", "s.json", "--markdown", "s.md", "--", "{exe}"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto e = ReadJson("s.json")["workloads"][0]["explanation"];
  ASSERT_FALSE(e["rows"].empty()) << e.dump();
  EXPECT_EQ(e["rows"][0]["function"], kUnnamedCode);
  EXPECT_EQ(e["rows"][0]["object"], "{exe}");
  ASSERT_EQ(e["missing_symbols"].size(), 1u) << e.dump();
  auto m = e["missing_symbols"][0];
  EXPECT_EQ(m["object"], "{exe}");
  EXPECT_EQ(m["delta"], e["rows"][0]["delta"]);
  ASSERT_EQ(m["files"].size(), 2u) << m.dump();
  // By path: DIR/base/... before DIR/cand/...
  EXPECT_EQ(m["files"][0]["path"], base);
  EXPECT_EQ(m["files"][0]["side"], "baseline");
  EXPECT_EQ(m["files"][0]["build_id"], kBaseId);
  EXPECT_EQ(m["files"][1]["path"], cand);
  EXPECT_EQ(m["files"][1]["side"], "candidate");
  EXPECT_EQ(m["files"][1]["build_id"], kCandId);
  const std::string debug = std::string("/usr/lib/debug/.build-id/fe/") + (kCandId + 2) + ".debug";
  EXPECT_EQ(m["files"][1]["debug_file"], debug);
  EXPECT_EQ(m["files"][1]["debug_file_exists"], false);
  // The terminal and the comment say it in words.
  EXPECT_NE(r.out.find("{exe} has no symbol table; its code without a symbol carries +"),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(cand + " (candidate): GNU build ID " + kCandId + ", no debug file at " + debug),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-dbgsym package"), std::string::npos) << r.out;
  auto md = ReadFile(Path("s.md"));
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("`{exe}` has no symbol table"), std::string::npos) << *md;
  EXPECT_NE(md->find("GNU build ID `" + std::string(kCandId) + "`"), std::string::npos) << *md;
}

TEST_F(ExplainStrippedCliTest, BuildsWithSymbolsGetNoHint) {
  LaunchResult r =
      Run({"compare", "--backend", kExactBackend, "--baseline", Copy("base", false), "--candidate", Copy("cand", false),
           "--explain", "always", "--timed", "0", "--json", "p.json", "--", "{exe}"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto e = ReadJson("p.json")["workloads"][0]["explanation"];
  EXPECT_TRUE(e["missing_symbols"].empty()) << e.dump();
  ASSERT_FALSE(e["rows"].empty());
  EXPECT_NE(e["rows"][0]["function"], kUnnamedCode);
  EXPECT_EQ(r.out.find("has no symbol table"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace workgate
