// What a CI workflow says in the reports and reads back from them: compare
// --note TEXT on every report, and the JSON's stored_baseline, which tells
// whether --baseline-results could be used or the workflow must build the
// merge base.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

class WorkflowCliTest : public KnownWorkSuiteTest {};

TEST_F(WorkflowCliTest, NotesGoUnderTheVerdictAsText) {
  const std::string hostile = "[pwned](https://x.invalid) \x1b[2J<b>`";
  LaunchResult r = Compare({"--workload", "wide-margin", "--note", "baseline: stored by main@abc",
                            "--note", hostile, "--json", "n.json", "--markdown", "n.md"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("note: baseline: stored by main@abc\nnote: [pwned](https://x.invalid) "
                        "<b>`\n\nworkload",
                        0),
            0u)
      << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  // Text, with what could be a link in code and the rest escaped.
  const std::string md = *ReadFile(Path("n.md"));
  EXPECT_NE(md.find("\n\n- baseline: stored by `main@abc`\n- `[pwned](https://x.invalid)` "
                    "&lt;b&gt;\\`\n\n| workload"),
            std::string::npos)
      << md;
  EXPECT_EQ(
      ReadJson("n.json")["notes"],
      nlohmann::json({"baseline: stored by main@abc", "[pwned](https://x.invalid) \x1b[2J<b>`"}));
}

TEST_F(WorkflowCliTest, TheStoredBaselineSaysWhetherItWasUsed) {
  LaunchResult save =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--suite", kSuite,
           "--workload", "size-1000", "--save-baseline", "base.json"});
  ASSERT_EQ(save.exit_code, 0) << save.err;
  std::ofstream(Path("corrupt.json")) << "{ nope";
  struct Case {
    std::string file, status, problem;
    std::vector<std::string> workloads;
    int exit;
  };
  const Case cases[] = {
      {"base.json", "used", "", {"size-1000"}, 1},
      {"nothing.json",
       "missing",
       "the stored baseline nothing.json does not exist",
       {"size-1000"},
       3},
      {"corrupt.json",
       "unreadable",
       "the stored baseline corrupt.json is corrupt",
       {"size-1000"},
       3},
      {"base.json",
       "incompatible",
       "size-2000: the stored baseline base.json has no workload size-2000",
       {"size-1000", "size-2000"},
       3},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"compare", "--backend",   kExactBackend, "--baseline-results",
                                     c.file,    "--candidate", kKnownWorkB,   "--suite",
                                     kSuite,    "--timed",     "0",           "--json",
                                     "s.json"};
    for (const std::string& w : c.workloads) args.insert(args.end(), {"--workload", w});
    LaunchResult r = Run(args);
    EXPECT_EQ(r.exit_code, c.exit) << c.status << ": " << r.out << r.err;
    nlohmann::json s = ReadJson("s.json")["stored_baseline"];
    EXPECT_EQ(s["path"], c.file);
    EXPECT_EQ(s["status"], c.status);
    if (c.problem.empty()) {
      EXPECT_TRUE(s["problem"].is_null()) << s;
    } else {
      EXPECT_EQ(s["problem"].get<std::string>().rfind(c.problem, 0), 0u) << s;
    }
  }
  // Without --baseline-results there is none.
  ASSERT_EQ(Compare({"--workload", "wide-margin", "--json", "plain.json"}).exit_code, 0);
  EXPECT_TRUE(ReadJson("plain.json")["stored_baseline"].is_null());
}

}  // namespace
}  // namespace workgate
