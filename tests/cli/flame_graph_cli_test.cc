// `--flamegraph FILE` end to end: compare counts two real builds of a
// program whose candidate stops inlining a helper
// (tests/explain/testdata/inline_move.c) under callgrind, whose profiles
// have call edges, and writes the page with the helper's frame under its
// caller, new in the candidate; the comment links the page; without an
// explanation nothing is written and stderr says why.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "explain/callgrind_run.h"
#include "report/history_sample.h"
#include "test_requirements.h"
#include "util/atomic_file.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::Occurrences;

class FlameGraphCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped()) return;
    WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
    const std::string source = WORKGATE_SOURCE_DIR "/tests/explain/testdata/inline_move.c";
    for (const char* side : {"base", "cand"}) {
      const std::string cc = "mkdir -p " + Path(side) + " && cc -O2 -g " +
                             (std::string(side) == "cand" ? "-DCANDIDATE " : "") + "-o " +
                             Path(side) + "/prog " + source;
      ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
    }
  }

  LaunchResult Compare(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"compare",   "--backend",         "callgrind",
                                     "--baseline", Path("base/prog"), "--candidate",
                                     Path("cand/prog"), "--name",      "inline",
                                     "--timed",    "0",               "--no-store"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "{exe}"});
    return Run(args);
  }
};

// The <g class="frame ..."> element whose data-function is `function`.
std::string FrameOf(const std::string& page, const std::string& function) {
  const size_t at = page.find("data-function=\"" + function + "\"");
  if (at == std::string::npos) return "";
  const size_t start = page.rfind("<g class=\"frame", at);
  return page.substr(start, page.find("</g>", at) - start);
}

TEST_F(FlameGraphCliTest, TheMovedHelperIsANewFrameUnderItsCaller) {
  const LaunchResult r =
      Compare({"--explain", "always", "--flamegraph", "flame.html", "--flamegraph-link",
               "https://ci.example.org/runs/7#artifacts", "--markdown", "comment.md"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const std::string page = ReadFile(Path("flame.html")).value_or("");
  ASSERT_FALSE(page.empty()) << r.err;
  EXPECT_EQ(Occurrences(page, "<section class=\"workload\" data-workload=\"inline\">"), 1u);
  EXPECT_EQ(page.find("The profiles carry no call edges"), std::string::npos);
  const std::string helper = FrameOf(page, "insert_key");
  ASSERT_FALSE(helper.empty()) << page;
  EXPECT_NE(helper.find("<g class=\"frame more\""), std::string::npos) << helper;
  EXPECT_NE(helper.find("data-baseline=\"0\""), std::string::npos) << helper;
  EXPECT_NE(helper.find("(new)</title>"), std::string::npos) << helper;
  // Under new_key: the frame just before it at one level less deep is its
  // caller's, and main's is below that.
  const std::string caller = FrameOf(page, "new_key");
  ASSERT_FALSE(caller.empty());
  const auto y_of = [](const std::string& frame) {
    const size_t at = frame.find(" y=\"") + 4;
    return std::stod(frame.substr(at, frame.find('"', at) - at));
  };
  EXPECT_EQ(y_of(caller) - y_of(helper), 18.0);
  EXPECT_LT(page.find("data-function=\"new_key\""), page.find("data-function=\"insert_key\""));
  EXPECT_LT(page.find("data-function=\"main\""), page.find("data-function=\"new_key\""));
  const std::string md = ReadFile(Path("comment.md")).value_or("");
  EXPECT_NE(md.find("Differential flame graph of the explained workloads: `flame.html`, [with "
                    "the reports of this run](https://ci.example.org/runs/7#artifacts)."),
            std::string::npos)
      << md;
}

TEST_F(FlameGraphCliTest, WithoutAnExplanationNothingIsWrittenAndStderrSaysWhy) {
  std::string err;
  ASSERT_TRUE(WriteFileAtomically(Path("flame.html"), "an earlier run's page", &err)) << err;
  const LaunchResult r =
      Compare({"--explain", "never", "--flamegraph", "flame.html", "--flamegraph-link",
               "https://ci.example.org/runs/7", "--markdown", "comment.md"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_FALSE(ReadFile(Path("flame.html")).has_value());
  EXPECT_NE(r.err.find("--flamegraph: no flame graph written: no workload was explained "
                       "(--explain never)\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(Path("comment.md")).value_or("").find("flame graph"), std::string::npos);
}

TEST_F(FlameGraphCliTest, ALinkThatIsNoPlainUrlIsAUsageError) {
  const LaunchResult r =
      Compare({"--flamegraph", "flame.html", "--flamegraph-link", "javascript:alert(1)"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--flamegraph-link"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace workgate
