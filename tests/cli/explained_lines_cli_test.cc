// The bundled demo, explained line by line (issue 29's "done means"): each
// workload's explanation names the lines of vm_run that the candidate
// changed, with their text from this checkout and links to them, under the
// exact backend the demo uses.

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_fixture.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

TEST_F(CountingCliTest, TheDemoNamesTheLinesOfVmRunThatTheCandidateChanged) {
  const std::string root = SourcePath("");
  const std::string in_git =
      "git -C '" + root + "' rev-parse --is-inside-work-tree >/dev/null 2>&1";
  WORKGATE_REQUIRE_TOOL(std::system(in_git.c_str()) == 0,
                        "the source tree is not a git checkout, so no line has a text");
  LaunchResult r = Run({"compare",
                        "--backend",
                        kExactBackend,
                        "--baseline",
                        BuildPath("workloads/wgi-baseline"),
                        "--candidate",
                        BuildPath("workloads/wgi-candidate"),
                        "--suite",
                        SourcePath("workloads/interp.toml"),
                        "--timed",
                        "0",
                        "--no-store",
                        "--source-root",
                        root,
                        "--source-link",
                        "https://example.org/wgi/{path}#L{line}",
                        "--json",
                        "demo.json",
                        "--markdown",
                        "demo.md"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json j = ReadJson("demo.json");
  ASSERT_EQ(j["workloads"].size(), 5u);
  for (const nlohmann::json& w : j["workloads"]) {
    const nlohmann::json& e = w["explanation"];
    ASSERT_TRUE(e.is_object()) << w["name"];
    const nlohmann::json& top = e["rows"][0];
    EXPECT_EQ(top["function"], "vm_run") << w["name"];
    ASSERT_GE(top["lines"].size(), 2u) << w["name"] << " " << top.dump();
    // The candidate's per-opcode counter is the line that gained most.
    const nlohmann::json& first = top["lines"][0];
    EXPECT_EQ(first["path"], "workloads/wgi/vm.c") << first.dump();
    EXPECT_EQ(first["baseline"], 0) << first.dump();
    EXPECT_NE(first["text"].get<std::string>().find("g_op_counts"), std::string::npos)
        << first.dump();
    EXPECT_EQ(first["url"], "https://example.org/wgi/workloads/wgi/vm.c#L" +
                                std::to_string(first["line"].get<uint64_t>()));
  }
  // The comment links the line and shows its text.
  const std::string md = ReadFile(Path("demo.md")).value_or("");
  EXPECT_NE(md.find("](https://example.org/wgi/workloads/wgi/vm.c#L"), std::string::npos) << md;
  EXPECT_NE(md.find("`++g_op_counts[*ip];`"), std::string::npos) << md;
}

}  // namespace
}  // namespace workgate
