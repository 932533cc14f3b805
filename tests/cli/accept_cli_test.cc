// Accepting intended work end to end, with the real binary on probes/
// known_work's builds: the gate blocks, the comment gives the command, the
// command writes the suite from the saved JSON report, the gate passes with
// the reason, blocks again when the work grows, and calls the entry stale
// on another baseline.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "model/model.h"
#include "schemas/schema_check.h"

namespace workgate {
namespace {

/// known_work_b's work and 1,000,000 instructions more.
const std::string kKnownWorkD = testing::BuildPath("probes/known_work_d");

const char kSuite[] = R"(# The known work, as a reviewer's suite.
[[workload]]
name = "work"   # the one workload
command = ["{exe}", "1000"]
clock = "env"
timeout = 60
[workload.score]
pattern = 'score: ([0-9]+)'
expect = "1000"
)";

class AcceptCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    Write(kSuite);
  }
  LaunchResult Compare(const std::string& baseline, const std::string& candidate,
                       const std::string& name) {
    return Run({"compare", "--backend", kExactBackend, "--baseline", baseline, "--candidate",
                candidate, "--suite", "bench.toml", "--timed", "0", "--no-store", "--json",
                name + ".json", "--markdown", name + ".md"});
  }
  void Write(const std::string& text) { std::ofstream(Path("bench.toml")) << text; }
  std::string Text(const std::string& name) { return ReadFile(Path(name)).value_or(""); }
  static bool Contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

TEST_F(AcceptCliTest, AcceptedWorkPassesUntilItGrowsAndGoesStaleOnAnotherBaseline) {
  // The pull request adds work: blocked, and the comment says how to accept it.
  LaunchResult first = Compare(kKnownWorkA, kKnownWorkB, "first");
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const std::string command =
      "workgate accept --suite bench.toml --workload work --reason 'REPLACE with why this work "
      "is intended' --report first.json";
  EXPECT_TRUE(Contains(Text("first.md"), "```sh\n" + command + "\n```")) << Text("first.md");
  EXPECT_TRUE(Contains(first.out, "  " + command + "\n")) << first.out;

  // The placeholder as it stands is refused, and the suite is left alone.
  LaunchResult placeholder = Run({"accept", "--suite", "bench.toml", "--workload", "work",
                                  "--reason", kAcceptReasonPlaceholder, "--report", "first.json"});
  EXPECT_EQ(placeholder.exit_code, 2) << placeholder.err;
  EXPECT_TRUE(Contains(placeholder.err, "still the placeholder")) << placeholder.err;
  EXPECT_EQ(Text("bench.toml"), kSuite);

  // Accepted from the saved report: the suite gains the entry and nothing else.
  LaunchResult accept = Run({"accept", "--suite", "bench.toml", "--workload", "work", "--reason",
                             "-O3 unrolls the loop on purpose", "--report", "first.json"});
  ASSERT_EQ(accept.exit_code, 0) << accept.out << accept.err;
  EXPECT_TRUE(Contains(accept.out, "accepted work: +1000000 instructions")) << accept.out;
  const std::string suite = Text("bench.toml");
  ASSERT_EQ(suite.rfind(std::string(kSuite) + "\n[workload.accepted]\n", 0), 0u) << suite;
  EXPECT_TRUE(Contains(suite, "reason = '-O3 unrolls the loop on purpose'\ndelta = 1000000\n"))
      << suite;

  // The same pair again: accepted, exit 0, the reason in every report.
  LaunchResult second = Compare(kKnownWorkA, kKnownWorkB, "second");
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  nlohmann::json report = ReadJson("second.json");
  EXPECT_EQ(report["verdict"], "accepted");
  EXPECT_EQ(report["exit_code"], 0);
  const nlohmann::json& w = report["workloads"][0];
  EXPECT_EQ(w["verdict"], "accepted");
  EXPECT_EQ(w["accepted"]["status"], "applied");
  EXPECT_EQ(w["accepted"]["delta"], 1000000);
  EXPECT_EQ(w["accepted"]["reason"], "-O3 unrolls the loop on purpose");
  EXPECT_TRUE(Contains(w["reason"].get<std::string>(),
                       "work added, accepted: -O3 unrolls the loop on purpose"))
      << w["reason"];
  EXPECT_TRUE(Contains(Text("second.md"), "work added, accepted: `-O3 unrolls the loop on purpose`"))
      << Text("second.md");
  EXPECT_TRUE(Contains(second.out, "work: work added, accepted: -O3 unrolls the loop on purpose"))
      << second.out;
  EXPECT_FALSE(Contains(Text("second.md"), "workgate accept")) << Text("second.md");

  // A candidate that adds more than was accepted: blocked again, saying both.
  LaunchResult more = Compare(kKnownWorkA, kKnownWorkD, "more");
  EXPECT_EQ(more.exit_code, 1) << more.out << more.err;
  const nlohmann::json more_json = ReadJson("more.json");
  const nlohmann::json& grown = more_json["workloads"][0];
  EXPECT_EQ(grown["verdict"], "work-added");
  EXPECT_EQ(grown["accepted"]["status"], "exceeded");
  EXPECT_TRUE(Contains(grown["reason"].get<std::string>(), "(+1000000 instructions), now +"))
      << grown["reason"];
  EXPECT_TRUE(Contains(Text("more.md"), "more work than was accepted")) << Text("more.md");

  // After the merge, the next pull request's baseline does the accepted
  // work: the entry is stale, says so, and changes no verdict.
  LaunchResult next = Compare(kKnownWorkB, kKnownWorkD, "next");
  EXPECT_EQ(next.exit_code, 1) << next.out << next.err;
  const nlohmann::json next_json = ReadJson("next.json");
  const nlohmann::json& stale = next_json["workloads"][0];
  EXPECT_EQ(stale["verdict"], "work-added");
  EXPECT_EQ(stale["accepted"]["status"], "stale");
  EXPECT_TRUE(Contains(stale["accepted"]["problem"].get<std::string>(),
                       "it was accepted against a baseline of"))
      << stale["accepted"];
  EXPECT_TRUE(Contains(next.out, "work: its accepted entry is stale and changes no verdict"))
      << next.out;
  EXPECT_TRUE(Contains(Text("next.md"), "delete the workload's [workload.accepted] table in "
                                        "bench.toml"))
      << Text("next.md");

  // Each report with an entry, applied, exceeded or stale, is one the schema admits.
  testing::SchemaCheck schemas(dir_.path());
  WORKGATE_REQUIRE_TOOL(schemas.Available(), "python3 with jsonschema (ci/setup installs it)");
  LaunchResult valid = schemas.Validate(true, "compare-report.schema.json",
                                        {"second.json", "more.json", "next.json"});
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
}

TEST_F(AcceptCliTest, AcceptCountsTheBuildsAsCompareDoes) {
  LaunchResult accept =
      Run({"accept", "--suite", "bench.toml", "--all", "--reason", "more rounds on purpose",
           "--baseline", kKnownWorkA, "--candidate", kKnownWorkB, "--backend", kExactBackend,
           "--no-store"});
  ASSERT_EQ(accept.exit_code, 0) << accept.out << accept.err;
  EXPECT_TRUE(Contains(Text("bench.toml"), "delta = 1000000\n")) << Text("bench.toml");
  LaunchResult after = Compare(kKnownWorkA, kKnownWorkB, "after");
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
  EXPECT_EQ(ReadJson("after.json")["workloads"][0]["accepted"]["status"], "applied");
}

TEST_F(AcceptCliTest, RefusesWhatItCannotAccept) {
  // Nothing added: the gate passes it already.
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkA, "same").exit_code, 0);
  LaunchResult ok = Run({"accept", "--suite", "bench.toml", "--workload", "work", "--reason",
                         "why", "--report", "same.json"});
  EXPECT_EQ(ok.exit_code, 2);
  EXPECT_TRUE(Contains(ok.err, "workload 'work' is ok")) << ok.err;
  EXPECT_TRUE(Contains(ok.err, "there is no work added to accept")) << ok.err;
  // A report counted for another definition of the workload.
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkB, "added").exit_code, 1);
  std::string changed = kSuite;
  changed.replace(changed.find("timeout = 60"), 12, "timeout = 61");
  Write(changed);
  LaunchResult other = Run({"accept", "--suite", "bench.toml", "--workload", "work", "--reason",
                            "why", "--report", "added.json"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(Contains(other.err, "another definition of the workload")) << other.err;
  EXPECT_EQ(Text("bench.toml"), changed);
  // Counting options go with the builds, and a blank reason is none.
  EXPECT_EQ(Run({"accept", "--suite", "bench.toml", "--all", "--reason", "why", "--report",
                 "added.json", "--backend", "vgcount"})
                .exit_code,
            2);
  EXPECT_EQ(Run({"accept", "--suite", "bench.toml", "--all", "--reason", " ", "--report",
                 "added.json"})
                .exit_code,
            2);
}

}  // namespace
}  // namespace workgate
