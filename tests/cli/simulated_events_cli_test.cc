// Simulated events beside the count (docs/gate.md, "Simulated events"):
// tests/cli/testdata/branchy.c's branch-free candidate retires more
// instructions and mispredicts far fewer branches; the reports say both, the
// explanation's rows carry the events, and a workload gated on estimated
// cycles passes the trade-off, with figures that repeat and a store that
// never gives its instruction counts for cycles. On every Valgrind backend
// built: each simulates with its own model.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "test_paths.h"

namespace workgate {
namespace {

using nlohmann::json;

const std::string kBranch = testing::BuildPath("tests/branchy_branch");
const std::string kBranchFree = testing::BuildPath("tests/branchy_branch_free");
const std::string kSuite = testing::SourcePath("tests/cli/testdata/branchy_suite.toml");

// The Valgrind backends this build has: each simulates.
std::vector<std::string> SimulatingBackends() {
#ifdef WORKGATE_VGCOUNT_BUILT
  return {"callgrind", "vgcount"};
#else
  return {"callgrind"};
#endif
}

class SimulatedEventsCliTest : public CountingCliTest,
                               public ::testing::WithParamInterface<std::string> {
 protected:
  LaunchResult Compare(std::vector<std::string> extra, const std::string& suite = kSuite) {
    std::vector<std::string> args = {"compare",   "--backend", GetParam(), "--baseline",
                                     kBranch,     "--candidate", kBranchFree, "--suite",
                                     suite,       "--timed",   "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
  static const json& Workload(const json& report, const std::string& name) {
    for (const json& w : report["workloads"]) {
      if (w["name"] == name) return w;
    }
    static const json none;
    ADD_FAILURE() << "no workload " << name;
    return none;
  }
  static const json& Figure(const json& w, const std::string& name) {
    for (const json& f : w["events"]["figures"]) {
      if (f["name"] == name) return f;
    }
    static const json none;
    ADD_FAILURE() << "no figure " << name << " in " << w["events"].dump();
    return none;
  }
};

TEST_P(SimulatedEventsCliTest, InstructionsRiseWhileMispredictedBranchesFall) {
  const LaunchResult r = Compare({"--workload", "trade", "--workload", "same", "--no-store",
                                  "--json", "r.json", "--markdown", "r.md"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the instructions added are work
  const json report = ReadJson("r.json");
  const json& trade = Workload(report, "trade");
  EXPECT_EQ(trade["verdict"], "work-added");
  EXPECT_EQ(trade["metric"], "instructions");
  ASSERT_TRUE(trade["events"].is_object()) << trade.dump();
  EXPECT_EQ(trade["events"]["profiler"], GetParam());
  EXPECT_TRUE(trade["events"]["shown"]) << trade["events"].dump();
  // The simulated run's instructions are the count.
  EXPECT_EQ(Figure(trade, "instructions")["baseline"], trade["baseline"]["instructions"]);
  EXPECT_EQ(Figure(trade, "instructions")["candidate"], trade["candidate"]["instructions"]);
  EXPECT_GT(Figure(trade, "instructions")["delta"].get<int64_t>(), 0);
  // A branch taken at random half the time: most of the baseline's
  // mispredictions go.
  EXPECT_LT(Figure(trade, "mispredicted_branches")["relative"].get<double>(), -0.5)
      << trade["events"].dump();
  EXPECT_LT(Figure(trade, "estimated_cycles")["delta"].get<int64_t>(), 0);
  // The workload whose work did not change costs no simulated run.
  EXPECT_TRUE(Workload(report, "same")["events"].is_null());
  // The explanation diffs the simulated runs' profiles: its rows carry the
  // events, and the row that lost the mispredictions is among them.
  const json& e = trade["explanation"];
  ASSERT_TRUE(e.is_object());
  EXPECT_TRUE(e["simulated"]) << e.dump();
  bool fewer = false;
  for (const json& row : e["rows"]) {
    ASSERT_TRUE(row["events"].is_object()) << row.dump();
    fewer = fewer || row["events"]["candidate"]["Bcm"].get<uint64_t>() <
                         row["events"]["baseline"]["Bcm"].get<uint64_t>();
  }
  EXPECT_TRUE(fewer) << e.dump();
  // The comment reads like the trade-off it is.
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_NE(md.find("instructions +"), std::string::npos) << md;
  EXPECT_NE(md.find("mispredicted branches \u2212"), std::string::npos) << md;
  EXPECT_NE(md.find("| simulated events |"), std::string::npos) << md;
  EXPECT_NE(r.out.find("mispredicted branches -"), std::string::npos) << r.out;
}

TEST_P(SimulatedEventsCliTest, EventsAlwaysSimulatesAWorkloadWhoseWorkDidNotChange) {
  const LaunchResult r = Compare({"--workload", "same", "--no-store", "--events", "always",
                                  "--json", "r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = ReadJson("r.json");
  const json& same = Workload(report, "same");
  EXPECT_EQ(same["verdict"], "ok");
  ASSERT_TRUE(same["events"].is_object()) << same.dump();
  EXPECT_TRUE(same["events"]["shown"]);
  for (const json& f : same["events"]["figures"]) EXPECT_EQ(f["delta"], 0) << f.dump();
  EXPECT_NE(r.out.find("mispredicted branches unchanged"), std::string::npos) << r.out;
}

TEST_P(SimulatedEventsCliTest, EventsNeverSimulatesNothing) {
  const LaunchResult r =
      Compare({"--workload", "trade", "--no-store", "--events", "never", "--json", "r.json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json report = ReadJson("r.json");
  EXPECT_TRUE(Workload(report, "trade")["events"].is_null());
}

TEST_P(SimulatedEventsCliTest, EstimatedCyclesPassTheTradeOffAndRepeat) {
  std::vector<json> reports;
  for (const char* name : {"a.json", "b.json"}) {
    const LaunchResult r = Compare({"--workload", "trade/cycles", "--no-store", "--json", name});
    ASSERT_EQ(r.exit_code, 0) << r.err;  // fewer estimated cycles: no work added
    EXPECT_NE(r.out.find("gated on estimated cycles"), std::string::npos) << r.out;
    reports.push_back(ReadJson(name));
  }
  const json& w = Workload(reports[0], "trade/cycles");
  EXPECT_EQ(w["metric"], "estimated-cycles");
  EXPECT_EQ(w["verdict"], "work-removed");
  // The counts are the estimated cycles of the counted runs' events, and the
  // instructions beside them went up.
  EXPECT_EQ(w["baseline"]["counts"][0], Figure(w, "estimated_cycles")["baseline"]);
  EXPECT_EQ(w["candidate"]["counts"][0], Figure(w, "estimated_cycles")["candidate"]);
  EXPECT_GT(Figure(w, "instructions")["delta"].get<int64_t>(), 0);
  // Exact, like a count.
  const json& again = Workload(reports[1], "trade/cycles");
  EXPECT_EQ(w["baseline"]["counts"], again["baseline"]["counts"]);
  EXPECT_EQ(w["candidate"]["counts"], again["candidate"]["counts"]);
  EXPECT_EQ(w["events"], again["events"]);
}

TEST_P(SimulatedEventsCliTest, TheStoreNeverGivesInstructionsForCycles) {
  // One workload, the same command, gated first on instructions, then on
  // estimated cycles, through one result store.
  const std::string body =
      "[[workload]]\nname = \"trade\"\ncommand = [\"{exe}\", \"trade\", \"200000\"]\nclock = \"none\"\n";
  std::ofstream(Path("instructions.toml")) << body;
  std::ofstream(Path("cycles.toml")) << body << "metric = \"estimated-cycles\"\n";
  ASSERT_EQ(Compare({"--json", "i.json"}, Path("instructions.toml")).exit_code, 1);
  const LaunchResult r = Compare({"--json", "c.json"}, Path("cycles.toml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json first = ReadJson("i.json");
  const json second = ReadJson("c.json");
  const json& instructions = Workload(first, "trade");
  const json& cycles = Workload(second, "trade");
  EXPECT_TRUE(cycles["baseline"]["from_store"].is_null()) << cycles["baseline"].dump();
  EXPECT_TRUE(cycles["candidate"]["from_store"].is_null());
  EXPECT_NE(cycles["baseline"]["counts"], instructions["baseline"]["counts"]);
  EXPECT_EQ(cycles["baseline"]["counts"][0], Figure(cycles, "estimated_cycles")["baseline"]);
  // And the store serves each metric its own counts the second time.
  const LaunchResult again = Compare({"--json", "c2.json"}, Path("cycles.toml"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const json third = ReadJson("c2.json");
  const json& stored = Workload(third, "trade");
  if (GetParam() == "vgcount") {
    EXPECT_TRUE(stored["baseline"]["from_store"].is_object()) << stored["baseline"].dump();
  }
  EXPECT_EQ(stored["baseline"]["counts"], cycles["baseline"]["counts"]);
}

INSTANTIATE_TEST_SUITE_P(Backends, SimulatedEventsCliTest,
                         ::testing::ValuesIn(SimulatingBackends()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace workgate
