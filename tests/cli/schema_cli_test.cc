// Every JSON document workgate writes, validated against its schema in
// schemas/ (tests/schemas/validate.py, Debian's python3-jsonschema): real
// outputs of the built binary, of every shape a run can give them, and
// documents broken on purpose, which the schemas must refuse.

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "schemas/schema_check.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

const std::string kSuite = SourcePath("tests/cli/testdata/known_work.toml");

class SchemaCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    WORKGATE_REQUIRE_TOOL(schemas_.Available(), "python3 with python3-jsonschema is not installed");
  }

  // validate.py on `files` (in the test's directory) against schemas/`schema`.
  void Expect(bool valid, const std::string& schema, const std::vector<std::string>& files) {
    std::vector<std::string> paths;
    for (const std::string& f : files) paths.push_back(Path(f));
    LaunchResult r = schemas_.Validate(valid, schema, paths);
    EXPECT_EQ(r.exit_code, 0) << schema << ":\n" << r.out << r.err;
  }

  // `doc` broken as `edit` says, written to `name`, must fail `schema`.
  void ExpectRefused(const std::string& schema, nlohmann::json doc, const std::string& name,
                     const std::function<void(nlohmann::json*)>& edit) {
    edit(&doc);
    std::ofstream(Path(name)) << doc.dump();
    Expect(false, schema, {name});
  }

  // A compare run that must exit `code`, its JSON report in `json`.
  void Compare(std::vector<std::string> args, const std::string& json, int code) {
    std::vector<std::string> all = {"compare", "--backend", kExactBackend, "--json", json};
    all.insert(all.end(), args.begin(), args.end());
    LaunchResult r = Run(all);
    ASSERT_EQ(r.exit_code, code) << json << ": " << r.out << r.err;
  }

  testing::SchemaCheck schemas_{dir_.path()};
};

TEST_F(SchemaCliTest, CompareReportsOfEveryShapeMatchTheirSchema) {
  const std::vector<std::string> a_to_b = {"--baseline", kKnownWorkA, "--candidate",
                                           kKnownWorkB,  "--timed",   "0"};
  auto with = [](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  Compare({"--baseline", kKnownWorkA, "--candidate", kKnownWorkA, "--timed", "0", "--note",
           "baseline: rebuilt", "--", "100000"},
          "ok.json", 0);
  // Work added and invalid in one report, every workload explained.
  Compare(with(a_to_b,
               {"--suite", kSuite, "--workload", "work", "--workload", "wrong-score", "--explain", "always"}),
          "added.json", 3);
  Compare({"--baseline", kKnownWorkA, "--candidate", kKnownWorkA, "--timed", "5", "--", "100000"},
          "timed.json", 0);
  // Enough pairs for the A/A control, on two workloads: one Holm family.
  Compare({"--baseline", kKnownWorkA, "--candidate", kKnownWorkB, "--timed", "10", "--suite",
           kSuite, "--workload", "work", "--workload", "work-other-size"},
          "controlled.json", 1);
  // A count that follows the real clock: unstable, its functions named.
  LaunchResult r =
      Run({"compare", "--backend", "callgrind", "--baseline", kJitter, "--candidate", kJitter,
           "--clock", "none", "--timed", "0", "--json", "unstable.json", "--no-store", "--",
           "{exe}", "200000"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4) << r.out << r.err;
  // A stored baseline: saved, used, missing, incompatible; and shards, merged.
  r = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--suite", kSuite,
           "--workload", "work", "--save-baseline", "base.json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<std::string> stored = {"--candidate", kKnownWorkB, "--timed",    "0",
                                           "--suite",     kSuite,      "--workload", "work"};
  Compare(with(stored, {"--baseline-results", "base.json"}), "used.json", 1);
  Compare(with(stored, {"--baseline-results", "none.json"}), "missing.json", 3);
  Compare({"--baseline-results", "base.json", "--candidate", kKnownWorkA, "--timed", "0", "--suite",
           SourcePath("tests/cli/testdata/known_work_changed.toml")},
          "incompatible.json", 3);
  Compare(with(a_to_b, {"--suite", kSuite, "--shard", "1/2"}), "part1.json", 3);
  Compare(with(a_to_b, {"--suite", kSuite, "--shard", "2/2"}), "part2.json", 1);
  r = Run({"merge", "part1.json", "part2.json", "--json", "merged.json"});
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;

  // The shapes above are really there.
  EXPECT_TRUE(ReadJson("unstable.json")["workloads"][0]["stability"]["unstable"]);
  EXPECT_TRUE(ReadJson("timed.json")["workloads"][0]["timed"].is_object());
  const nlohmann::json controlled = ReadJson("controlled.json")["workloads"][1]["timed"];
  ASSERT_TRUE(controlled.is_object());
  EXPECT_EQ(controlled["family"], 2);
  // A machine that stalled a run may leave fewer than ten baseline runs.
  EXPECT_TRUE(controlled["aa_control"].is_object() || !controlled["dropped"].empty())
      << controlled.dump();
  EXPECT_TRUE(ReadJson("added.json")["workloads"][1]["explanation"].is_null());  // invalid
  EXPECT_TRUE(ReadJson("added.json")["workloads"][0]["explanation"].is_object());
  EXPECT_EQ(ReadJson("used.json")["stored_baseline"]["status"], "used");
  EXPECT_EQ(ReadJson("missing.json")["stored_baseline"]["status"], "missing");
  EXPECT_EQ(ReadJson("incompatible.json")["stored_baseline"]["status"], "incompatible");
  EXPECT_TRUE(ReadJson("part2.json")["shard"].is_object());
  EXPECT_TRUE(ReadJson("merged.json")["merged"].is_object());
  EXPECT_EQ(ReadJson("added.json")["workloads"][0]["command"],
            nlohmann::json::array({"{exe}", "1000"}));
  Expect(true, "compare-report.schema.json",
         {"ok.json", "added.json", "timed.json", "controlled.json", "unstable.json", "used.json",
          "missing.json", "incompatible.json", "part1.json", "part2.json", "merged.json"});
  Expect(true, "baseline.schema.json", {"base.json"});

  // A schema that accepts anything would pass all of the above: these must fail.
  const std::string schema = "compare-report.schema.json";
  const nlohmann::json added = ReadJson("added.json");
  ExpectRefused(schema, added, "bad1.json", [](auto* j) { (*j)["verdict"] = "passed"; });
  ExpectRefused(schema, added, "bad2.json",
                [](auto* j) { (*j)["workloads"][0]["verdict"] = "fine"; });
  ExpectRefused(schema, added, "bad3.json", [](auto* j) { j->erase("exit_code"); });
  ExpectRefused(schema, added, "bad4.json",
                [](auto* j) { (*j)["workloads"][0]["baseline"].erase("counts"); });
  ExpectRefused(schema, added, "bad5.json", [](auto* j) { (*j)["surprise"] = 1; });
  ExpectRefused(schema, added, "bad6.json", [](auto* j) { (*j)["exit_code"] = 0; });
  ExpectRefused(schema, added, "bad7.json",
                [](auto* j) { (*j)["workloads"][0]["baseline"]["counts"][0] = -1; });
  ExpectRefused(schema, ReadJson("used.json"), "bad8.json",
                [](auto* j) { (*j)["stored_baseline"]["status"] = "fine"; });
  const nlohmann::json timed = ReadJson("controlled.json");
  ExpectRefused(schema, timed, "bad11.json",
                [](auto* j) { (*j)["workloads"][0]["timed"]["label"] = "quicker"; });
  ExpectRefused(schema, timed, "bad12.json",
                [](auto* j) { (*j)["workloads"][0]["baseline"]["timed"][0]["slot"] = -1; });
  ExpectRefused(schema, timed, "bad13.json", [](auto* j) {
    (*j)["workloads"][0]["timed"]["comparison"]["method"] = "guessed";
  });
  ExpectRefused(schema, timed, "bad14.json",
                [](auto* j) { (*j)["workloads"][0]["timed"].erase("noise_floor"); });
  // Each workload's command: there, and strings.
  ExpectRefused(schema, added, "bad15.json",
                [](auto* j) { (*j)["workloads"][0].erase("command"); });
  ExpectRefused(schema, added, "bad16.json", [](auto* j) {
    (*j)["workloads"][0]["command"] = nlohmann::json::array({"{exe}", 1});
  });
  ExpectRefused("baseline.schema.json", ReadJson("base.json"), "bad9.json",
                [](auto* j) { (*j)["workloads"][0]["counts"] = nlohmann::json::array(); });
  ExpectRefused("baseline.schema.json", ReadJson("base.json"), "bad10.json",
                [](auto* j) { (*j)["workloads"][0].erase("fingerprint"); });
}

TEST_F(SchemaCliTest, CountProbeAndExplainMatchTheirSchemas) {
  LaunchResult r = Run({"count", "--backend", kExactBackend, "--repeat", "2", "--json",
                        "command.json", "--", testing::KnownLoop(), "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"count", "--backend", kExactBackend, "--suite", kSuite, "--exe", kKnownWorkA, "--json",
           "suite.json"});
  ASSERT_EQ(r.exit_code, 3) << r.err;  // wrong-score
  r = Run({"count", "--backend", kExactBackend, "--json", "failed.json", "--", "/bin/false"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  r = Run({"explain", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB, "--suite", kSuite,
           "--workload", "work", "--json", "explain.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"probe", "--label", "here", "--json", "probe.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // With the timed self-test: its result, whatever this machine resolves.
  r = Run({"probe", "--label", "here", "--selftest-timed", "--json", "selftest.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json selftest = ReadJson("selftest.json")["timed_selftest"];
  ASSERT_TRUE(selftest.is_object());
  EXPECT_NE(selftest["outcome"], "failed") << selftest.dump();
  EXPECT_TRUE(selftest["aa"].is_object()) << selftest.dump();
  EXPECT_TRUE(selftest["delayed"].is_object()) << selftest.dump();
  EXPECT_GT(selftest["delay_seconds"].get<double>(), 0);
  EXPECT_TRUE(ReadJson("probe.json")["timed_selftest"].is_null());
  r = Run({"probe", "--merge", "probe.json", "probe.json", "--json", "probes.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Expect(true, "count.schema.json", {"command.json", "suite.json", "failed.json"});
  Expect(true, "explain.schema.json", {"explain.json"});
  Expect(true, "probe.schema.json", {"probe.json", "selftest.json"});
  Expect(true, "probe-merge.schema.json", {"probes.json"});

  ExpectRefused("count.schema.json", ReadJson("command.json"), "bad1.json",
                [](auto* j) { j->erase("runs"); });
  ExpectRefused("count.schema.json", ReadJson("suite.json"), "bad2.json",
                [](auto* j) { (*j)["workloads"][0].erase("name"); });
  // A figure of the other shape: a command's count with a suite's "exe".
  ExpectRefused("count.schema.json", ReadJson("command.json"), "bad3.json",
                [](auto* j) { (*j)["exe"] = "/bin/true"; });
  ExpectRefused("explain.schema.json", ReadJson("explain.json"), "bad4.json", [](auto* j) {
    (*j)["workloads"][0]["explanation"]["rows"][0]["delta"] = "1000000";
  });
  ExpectRefused("probe.schema.json", ReadJson("probe.json"), "bad5.json",
                [](auto* j) { (*j)["auto"]["backend"] = "fastest"; });
  ExpectRefused("probe.schema.json", ReadJson("probe.json"), "bad6.json",
                [](auto* j) { j->erase("label"); });
  ExpectRefused("probe.schema.json", ReadJson("selftest.json"), "bad8.json",
                [](auto* j) { (*j)["timed_selftest"]["outcome"] = "passed"; });
  ExpectRefused("probe.schema.json", ReadJson("selftest.json"), "bad9.json",
                [](auto* j) { (*j)["timed_selftest"]["aa"]["label"] = "quicker"; });
  ExpectRefused("probe.schema.json", ReadJson("probe.json"), "bad10.json",
                [](auto* j) { j->erase("timed_selftest"); });
  ExpectRefused("probe-merge.schema.json", ReadJson("probes.json"), "bad7.json",
                [](auto* j) { (*j)["runners"][0].erase("pmu"); });
}

}  // namespace
}  // namespace workgate
