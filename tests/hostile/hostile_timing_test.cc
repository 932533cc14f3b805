// The real workgate against a candidate that behaves only when it is
// counted: hostile.c's valgrind-aware mode does twenty times the work when
// RUNNING_ON_VALGRIND says it is not under Valgrind. The count passes it, as
// it must (exit 0); the timed runs, which are native, show it, and the
// summary of every report says that timing and count disagree. `merge`
// decides the timed context again from the part's samples and says the same.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "hostile/hostile_paths.h"
#include "schemas/schema_check.h"

namespace workgate {
namespace {

using nlohmann::json;
using testing::BenignWorkload;
using testing::HostileWorkload;

// Iterations under Valgrind: about 8 ms natively for the benign build, and
// 20 times that for the hostile one, so that the work rather than the launch
// (some 30 ms here) decides the wall-time ratio.
constexpr const char* kIterations = "10000000";

class HostileTimingCliTest : public CountingCliTest {
 protected:
  std::string WriteSuite() {
    const std::string path = Path("suite.toml");
    std::ofstream(path) << "[[workload]]\nname = \"aware\"\ncommand = [\"{exe}\", "
                           "\"valgrind-aware\", \""
                        << kIterations
                        << "\"]\nclock = \"env\"\ntimeout = 120\n[workload.score]\n"
                           "pattern = 'score: ([0-9]+)'\nexpect = \"1\"\n";
    return path;
  }

  // compare --shard 1/1 of the suite with twelve timed pairs (ten give the
  // A/A control, which a claim needs), its reports under `name`.
  LaunchResult CompareTimed(const std::string& candidate, const std::string& name) {
    return Run({"compare", "--backend", kExactBackend, "--baseline", BenignWorkload(),
                "--candidate", candidate, "--suite", WriteSuite(), "--timed", "12", "--no-store",
                "--shard", "1/1", "--json", name + ".json", "--markdown", name + ".md"});
  }

  // Runs CompareTimed until the timed context could be held against the
  // count (a runner whose A/A control shows an effect, or whose stalls leave
  // too few pairs, makes no claim, and then the run proved nothing of the
  // rule), three runs at most. Each run must pass on its counts and claim
  // nothing it cannot. The last run's workload from its JSON.
  json TrustedRun(const std::string& candidate, const std::string& name, LaunchResult* last) {
    json w;
    for (int attempt = 0; attempt < 3; ++attempt) {
      *last = CompareTimed(candidate, name);
      EXPECT_EQ(last->exit_code, 0) << last->out << last->err;
      const json report = ReadJson(name + ".json");
      EXPECT_EQ(report["exit_code"], 0);
      w = report["workloads"][0];
      // Under Valgrind both builds do the same work, but for the hostile
      // build's choice of its mode.
      EXPECT_EQ(w["verdict"], "ok");
      if (!w["timing_vs_count"].is_null()) break;
      EXPECT_EQ(last->out.find("timing and count disagree"), std::string::npos) << last->out;
    }
    return w;
  }
};

TEST_F(HostileTimingCliTest, ACandidateThatBehavesOnlyWhenCountedIsNamedInTheSummary) {
  LaunchResult r;
  const json w = TrustedRun(HostileWorkload(), "part", &r);
  ASSERT_TRUE(w["timing_vs_count"].is_object())
      << "three runs without a timed context to trust: " << w["timed"].dump();
  EXPECT_EQ(w["timing_vs_count"]["disagreement"], "slower") << w["timed"].dump();
  EXPECT_EQ(w["timing_vs_count"]["bound"], 2 * w["timing_vs_count"]["count_high"].get<double>());
  // The terminal: a line under the table and the verdict's line.
  EXPECT_NE(r.out.find("\naware: timing and count disagree: the wall-time ratio, "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("a program can tell that it runs under Valgrind"), std::string::npos);
  EXPECT_NE(r.out.find("workgate: ok (0 of 1 workload over the 1.00% margin, timing and count "
                       "disagree on 1)"),
            std::string::npos)
      << r.out;
  // The comment: the headline, and the sentence before anything folded.
  const std::string md = ReadFile(Path("part.md")).value_or("");
  EXPECT_NE(md.find("timing and count disagree on 1\n"), std::string::npos) << md;
  const size_t said = md.find("`aware`: timing and count disagree: ");
  ASSERT_NE(said, std::string::npos) << md;
  EXPECT_LT(said, md.find("<details>")) << md;

  // merge decides the timed context again, from the samples: the same.
  LaunchResult merged = Run({"merge", "part.json", "--json", "merged.json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  EXPECT_EQ(ReadJson("merged.json")["workloads"][0]["timing_vs_count"], w["timing_vs_count"]);
  EXPECT_NE(merged.out.find("aware: timing and count disagree: "), std::string::npos) << merged.out;
  // Both reports, a disagreement in each, fit the schema (SchemaCliTest
  // requires the validator; here it checks where it is installed).
  const testing::SchemaCheck schemas(dir_.path());
  if (schemas.Available()) {
    const LaunchResult valid = schemas.Validate(true, "compare-report.schema.json",
                                                {Path("part.json"), Path("merged.json")});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  }
}

TEST_F(HostileTimingCliTest, TwoBuildsThatDoTheSameWorkEverywhereAgree) {
  // The control: the benign build against itself, the same work counted or not.
  LaunchResult r;
  const json w = TrustedRun(BenignWorkload(), "same", &r);
  ASSERT_TRUE(w["timing_vs_count"].is_object())
      << "three runs without a timed context to trust: " << w["timed"].dump();
  EXPECT_EQ(w["timing_vs_count"]["disagreement"], "none") << w["timed"].dump();
  EXPECT_EQ(r.out.find("timing and count disagree"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace workgate
