// The bundled demo, explained line by line: each
// workload's explanation names the lines of vm_run that the candidate
// changed, with their text from this checkout and links to them, under the
// exact backend the demo uses.

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "measure/git_test_repo.h"
#include "schemas/schema_check.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

class ExplainedLinesCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A line's text comes only from files git tracks: CI's source is a
    // clone.
    const std::string in_git =
        "git -C '" + root_ + "' rev-parse --is-inside-work-tree >/dev/null 2>&1";
    WORKGATE_REQUIRE_TOOL(std::system(in_git.c_str()) == 0,
                          "the source tree is not a git checkout, so no line has a text");
  }
  // The demo's comparison from this checkout, with `extra` arguments.
  LaunchResult RunDemo(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"compare",
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
                                     root_};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
  const std::string root_ = SourcePath("");
};

TEST_F(ExplainedLinesCliTest, TheDemoNamesTheLinesOfVmRunThatTheCandidateChanged) {
  LaunchResult r = RunDemo({"--source-link", "https://example.org/wgi/{path}#L{line}", "--json",
                            "demo.json", "--markdown", "demo.md"});
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

TEST_F(ExplainedLinesCliTest, ASourceBaseThatIsNoCommitIsSaidAndLinesMatchByNumber) {
  for (const std::string base : {"HEAD", "no-such-revision"}) {
    LaunchResult r =
        RunDemo({"--workload", "interp/fib", "--source-base", base, "--json", "base.json"});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const bool warned = r.err.find(
                            "warning: --source-base: lines matched by number: the source "
                            "base no-such-revision is not a commit of") != std::string::npos;
    EXPECT_EQ(warned, base != "HEAD") << r.err;
    // Both builds come from this checkout's vm.c: the same lines either way.
    const nlohmann::json top = ReadJson("base.json")["workloads"][0]["explanation"]["rows"][0];
    ASSERT_GE(top["lines"].size(), 1u) << top.dump();
    EXPECT_EQ(top["lines"][0]["baseline_only"], false) << top.dump();
    EXPECT_NE(top["lines"][0]["text"].get<std::string>().find("g_op_counts"), std::string::npos);
  }
}

// An inlining move, like Lua's insertkey leaving luaH_newkey, under the
// backend the gate counts with: a
// candidate that stops inlining a helper (tests/explain/testdata/
// inline_move.c). The counting run's profile has the call edges, so the
// helper's row names the caller it moved out of, in the JSON and the comment.
TEST_F(CountingCliTest, TheCountingRunNamesTheCallerAHelperMovedOutOfLineFrom) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string source = testing::SourcePath("tests/explain/testdata/inline_move.c");
  for (const std::string side : {"base", "cand"}) {
    const std::string cc = "mkdir -p '" + Path(side) + "' && cc -O2 -g " +
                           (side == "cand" ? "-DCANDIDATE " : "") + "-o '" + Path(side) +
                           "/prog' '" + source + "'";
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  }
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", Path("base/prog"),
                        "--candidate", Path("cand/prog"), "--timed", "0", "--no-store", "--explain",
                        "always", "--json", "r.json", "--markdown", "r.md", "--", "20000"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json j = ReadJson("r.json");
  const nlohmann::json& rows = j["workloads"][0]["explanation"]["rows"];
  const nlohmann::json* helper = nullptr;
  for (const nlohmann::json& row : rows) {
    if (row["function"] == "insert_key") helper = &row;
  }
  ASSERT_NE(helper, nullptr) << rows.dump();
  EXPECT_EQ((*helper)["baseline"], 0) << helper->dump();
  ASSERT_EQ((*helper)["moves"].size(), 1u) << helper->dump();
  const nlohmann::json& move = (*helper)["moves"][0];
  EXPECT_EQ(move["caller"], "new_key") << move.dump();
  EXPECT_EQ(move["out_of_line"], true);
  EXPECT_EQ(move["candidate_calls"], 20000) << move.dump();
  EXPECT_EQ(move["baseline_calls"], 0) << move.dump();
  // The move costs a call and a return a key: far less than the helper.
  EXPECT_GT(move["inclusive_delta"].get<int64_t>(), 0);
  EXPECT_LT(move["inclusive_delta"].get<int64_t>(), (*helper)["delta"].get<int64_t>() / 4);
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_NE(md.find("moved out of line from `new_key`"), std::string::npos) << md;
}

// A pull request of a dispatch loop whose two cases have one source text
// (tests/cli/testdata/dispatch): it sends the hot share of the work from
// one case to the other, which moves cost between lines of one text, and
// adds one line of work. Explained against its source base, the added line
// comes first, marked changed, and each pair of lines of one text is one
// folded line, not two rows that read as the change. Built at -O0, where
// each line keeps its own code, so the shape does not hang on how a GCC
// version merges the cases' tails (it does at -O2, as Lua's vmbreak lines
// show).
TEST_F(CountingCliTest, OffsettingLinesOfOneTextAreFoldedAndTheChangedLineIsMarked) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("git"), "git is not installed");
  const std::string repo = Path("repo");
  const std::string data = testing::SourcePath("tests/cli/testdata/dispatch/");
  auto build = [&](const std::string& side, const std::string& source) {
    testing::ShellIn(Path(""), "mkdir -p repo '" + side + "' && cp '" + data + source +
                                   "' repo/vm.c && cc -O0 -g -o '" + side + "/prog' '" + repo +
                                   "/vm.c'");
  };
  build("base", "base.c");
  testing::ShellIn(repo, "git init -q . && git add vm.c && " + testing::kGitCommit + " -m base");
  build("cand", "cand.c");
  testing::ShellIn(repo, testing::kGitCommit + " -am candidate");
  if (HasFatalFailure()) return;
  LaunchResult r = Run({"compare",
                        "--backend",
                        kExactBackend,
                        "--baseline",
                        Path("base/prog"),
                        "--candidate",
                        Path("cand/prog"),
                        "--timed",
                        "0",
                        "--no-store",
                        "--explain",
                        "always",
                        "--source-root",
                        repo,
                        "--source-base",
                        "HEAD~1",
                        "--source-link",
                        "none",
                        "--json",
                        "r.json",
                        "--markdown",
                        "r.md",
                        "--",
                        "200000"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json j = ReadJson("r.json");
  const nlohmann::json& rows = j["workloads"][0]["explanation"]["rows"];
  ASSERT_GE(rows.size(), 1u) << rows.dump();
  const nlohmann::json& run = rows[0];
  EXPECT_EQ(run["function"], "run") << run.dump();
  const nlohmann::json& lines = run["lines"];
  ASSERT_EQ(lines.size(), 3u) << lines.dump(1);
  // The added line: first, in the candidate's numbering, marked changed.
  EXPECT_EQ(lines[0]["text"], "acc ^= i >> 2;") << lines.dump(1);
  EXPECT_EQ(lines[0]["changed"], true);
  EXPECT_EQ(lines[0]["numbering"], "candidate");
  EXPECT_EQ(lines[0]["delta"], 600000);
  // The two cases' lines: each pair one line, its costs summed, unchanged.
  int folded = 0;
  for (const nlohmann::json& l : lines) {
    if (l["folded"].empty()) continue;
    ++folded;
    EXPECT_EQ(l["changed"], false) << l.dump();
    EXPECT_EQ(l["delta"], 0) << l.dump();
    ASSERT_EQ(l["folded"].size(), 1u) << l.dump();
    EXPECT_EQ(l["folded"][0]["text"], l["text"]) << l.dump();
    // The other line of the pair gave back what this one took.
    EXPECT_NE(l["folded"][0]["delta"], 0) << l.dump();
    EXPECT_NE(l["folded"][0]["line"], l["line"]);
  }
  EXPECT_EQ(folded, 2) << lines.dump(1);
  EXPECT_EQ(lines[1]["text"], "acc += (i * 31 + 7) % 13;") << lines.dump(1);
  EXPECT_EQ(lines[2]["text"], "break;") << lines.dump(1);
  // Both renderers mark the changed line and say what a folded line is.
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_NE(md.find("vm.c:12 (changed)"), std::string::npos) << md;
  EXPECT_NE(md.find("(same text)"), std::string::npos) << md;
  EXPECT_NE(md.find("(changed): the diff from the source base changed the line."),
            std::string::npos)
      << md;
  EXPECT_NE(r.out.find("vm.c:12 (changed)  acc ^= i >> 2;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(same text)"), std::string::npos) << r.out;
  testing::SchemaCheck schemas(Path(""));
  if (schemas.Available()) {
    const LaunchResult valid = schemas.Validate(true, "compare-report.schema.json", {"r.json"});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  }
}

}  // namespace
}  // namespace workgate
