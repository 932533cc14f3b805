// Simulated events beside the count (docs/gate.md, "Simulated events"):
// tests/cli/testdata/branchy.c's branch-free candidate retires more
// instructions and mispredicts far fewer branches; the reports say both, the
// explanation's rows carry the events, and a workload gated on estimated
// cycles passes the trade-off, with figures that repeat and a store that
// never gives its instruction counts for cycles. On every Valgrind backend
// built: each simulates with its own model.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "report/format.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

using nlohmann::json;

const std::string kBranch = testing::BuildPath("tests/branchy_branch");
const std::string kBranchFree = testing::BuildPath("tests/branchy_branch_free");
const std::string kBranchySuite = testing::SourcePath("tests/cli/testdata/branchy_suite.toml");

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
  LaunchResult Compare(std::vector<std::string> extra, const std::string& suite = kBranchySuite,
                       const std::string& candidate = kBranchFree) {
    std::vector<std::string> args = {"compare",   "--backend", GetParam(), "--baseline",
                                     kBranch,     "--candidate", candidate, "--suite",
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
  // A copy of the baseline: both loops are inlined into main, whose size
  // differs between the builds (by 32 bytes with GCC 14), so the same loop's
  // branches can lie at other addresses, and a simulated predictor indexed
  // by address can then miss once more or less on the same work.
  const std::string copy = Path("branchy_copy");
  std::filesystem::copy_file(kBranch, copy);
  const LaunchResult r = Compare({"--workload", "same", "--no-store", "--events", "always",
                                  "--json", "r.json"},
                                 kBranchySuite, copy);
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

TEST_P(SimulatedEventsCliTest, CountSaysWhatAWorkloadGatedOnCyclesCounts) {
  const LaunchResult r = Run({"count", "--backend", GetParam(), "--suite", kBranchySuite, "--exe", kBranch,
                              "--workload", "trade/cycles", "--workload", "trade", "--no-store",
                              "--json", "c.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = ReadJson("c.json");
  ASSERT_EQ(report["workloads"].size(), 2u);
  // In the suite's order.
  const json& instructions = report["workloads"][0];
  const json& cycles = report["workloads"][1];
  ASSERT_EQ(cycles["name"], "trade/cycles");
  EXPECT_EQ(cycles["metric"], "estimated-cycles");
  EXPECT_EQ(instructions["metric"], "instructions");
  // Its runs count the estimated cycles first, then Ir: its figures are the
  // cycles, and the text names them so.
  const json& events = cycles["runs"][0]["events"];
  ASSERT_EQ(events.size(), 2u) << cycles.dump();
  EXPECT_EQ(events[0]["event"], "estimated-cycles");
  EXPECT_EQ(cycles["instructions"], events[0]["value"]);
  EXPECT_EQ(events[1]["value"], instructions["instructions"]);
  EXPECT_NE(r.out.find(fmt::format("trade/cycles: {} estimated-cycles",
                                   FormatCount(cycles["instructions"].get<uint64_t>()))),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(fmt::format("trade: {} Ir",
                                   FormatCount(instructions["instructions"].get<uint64_t>()))),
            std::string::npos)
      << r.out;
}

TEST_P(SimulatedEventsCliTest, AWarmGateTakesItsEventsFromTheStore) {
  const std::vector<std::string> args = {"--workload", "trade", "--store", Path("s.sqlite3")};
  std::vector<json> reports;
  for (const char* name : {"cold.json", "warm.json"}) {
    std::vector<std::string> run = args;
    run.insert(run.end(), {"--json", name});
    const LaunchResult r = Compare(run);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    reports.push_back(ReadJson(name));
  }
  const json& cold = Workload(reports[0], "trade");
  const json& warm = Workload(reports[1], "trade");
  // Cold: each side ran once more, simulating, and that run explained it.
  EXPECT_TRUE(cold["baseline"]["from_store"].is_null());
  EXPECT_EQ(cold["explanation"]["rerun"], json::array({"baseline", "candidate"}));
  if (GetParam() == "callgrind") {
    // The store keeps no callgrind count (it does not show what the
    // program read), so the second gate is the first again.
    EXPECT_TRUE(warm["baseline"]["from_store"].is_null());
    EXPECT_EQ(warm["explanation"]["rerun"], json::array({"baseline", "candidate"}));
    EXPECT_EQ(warm["events"]["figures"], cold["events"]["figures"]);
    return;
  }
  // Warm: the counts, the events and the profiles that carry them all come
  // from the store, and nothing ran again.
  EXPECT_TRUE(warm["baseline"]["from_store"].is_object()) << warm["baseline"].dump();
  EXPECT_TRUE(warm["candidate"]["from_store"].is_object());
  ASSERT_TRUE(warm["events"].is_object()) << warm.dump();
  EXPECT_TRUE(warm["events"]["shown"]) << warm["events"].dump();
  EXPECT_EQ(warm["events"]["figures"], cold["events"]["figures"]);
  EXPECT_EQ(warm["baseline"]["simulated"], cold["baseline"]["simulated"]);
  EXPECT_EQ(warm["explanation"]["rerun"], json::array()) << warm["explanation"].dump();
  EXPECT_TRUE(warm["explanation"]["simulated"]) << warm["explanation"].dump();
}

// On perf, the machine's own events beside the count (--hardware-events),
// through the path branch-misses:u and cache-misses:u take: software events,
// which every Linux machine counts, where this one has no PMU.
class HardwareEventsCliTest : public CountingCliTest {
 protected:
  LaunchResult Compare(const std::string& events, const std::string& hardware) {
    return Run({"compare", "--backend", "perf", "--event", "perf::task-clock", "--repeat", "3",
                "--baseline", kBranch, "--candidate", kBranchFree, "--suite", kBranchySuite,
                "--workload", "same", "--timed", "0", "--no-store", "--events", events,
                "--hardware-events", hardware, "--json", "r.json", "--markdown", "r.md"});
  }
};

TEST_F(HardwareEventsCliTest, PerfCountsTheNamedEventsInOneMoreRunASide) {
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_PAGE_FAULTS);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  // task-clock jitters: whatever the verdict, --events always asks for the
  // events of every valid workload.
  const LaunchResult r = Compare("always", "perf::page-faults:u,perf::context-switches");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 4) << r.out << r.err;
  const json report = ReadJson("r.json");
  const json& same = report["workloads"][0];
  const json& hardware = same["hardware_events"];
  ASSERT_TRUE(hardware.is_object()) << same.dump();
  EXPECT_TRUE(hardware["note"].is_null()) << hardware.dump();
  ASSERT_EQ(hardware["events"].size(), 2u) << hardware.dump();
  EXPECT_EQ(hardware["events"][0]["event"], "perf::page-faults:u");
  EXPECT_EQ(hardware["events"][1]["event"], "perf::context-switches");
  // A program maps its pages: each side's own run faults some in.
  EXPECT_GT(hardware["events"][0]["baseline"].get<uint64_t>(), 0u);
  EXPECT_GT(hardware["events"][0]["candidate"].get<uint64_t>(), 0u);
  EXPECT_FALSE(hardware["events"][0]["baseline_multiplexed"]);
  // Never the counts: those are the three task-clock runs a side.
  EXPECT_EQ(same["baseline"]["counts"].size(), 3u);
  EXPECT_NE(r.out.find("same: hardware events (perf, one more run of each side on this machine; "
                       "context, not the verdict): perf::page-faults:u "),
            std::string::npos)
      << r.out;
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_NE(md.find("hardware events (perf, one more run of each side on this machine; context, "
                    "not the verdict): perf::page-faults:u "),
            std::string::npos)
      << md;
}

TEST_F(HardwareEventsCliTest, EventsNeverCountsNone) {
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_PAGE_FAULTS);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  const LaunchResult r = Compare("never", "perf::page-faults:u");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 4) << r.out << r.err;
  EXPECT_TRUE(ReadJson("r.json")["workloads"][0]["hardware_events"].is_null());
  EXPECT_EQ(r.out.find("hardware events"), std::string::npos) << r.out;
}

TEST_F(HardwareEventsCliTest, AnEventTheMachineCannotCountIsANoteNotAVerdict) {
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_PAGE_FAULTS);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  // The default events, hardware ones: a VM without a PMU cannot open them,
  // and the workload says so beside a verdict that stands.
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_BRANCH_MISSES;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  const bool counts = fd >= 0;
  if (fd >= 0) close(fd);
  const LaunchResult r = Compare("always", "branch-misses:u");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 4) << r.out << r.err;
  const json report = ReadJson("r.json");
  const json& hardware = report["workloads"][0]["hardware_events"];
  ASSERT_TRUE(hardware.is_object()) << report.dump();
  if (counts) {
    ASSERT_EQ(hardware["events"].size(), 1u) << hardware.dump();
    EXPECT_EQ(hardware["events"][0]["event"], "branch-misses:u");
  } else {
    EXPECT_TRUE(hardware["events"].empty()) << hardware.dump();
    // In the probe's words: why this machine cannot count it.
    EXPECT_EQ(hardware["note"].get<std::string>().rfind("perf cannot count branch-misses:u here: ",
                                                        0),
              0u)
        << hardware.dump();
    EXPECT_NE(r.out.find("same: hardware events not shown: "), std::string::npos) << r.out;
  }
}

TEST_F(HardwareEventsCliTest, OnlyPerfCountsThemAndOnlyEventsLibpfmKnows) {
  const LaunchResult other =
      Run({"compare", "--backend", kExactBackend, "--baseline", kBranch, "--candidate",
           kBranchFree, "--suite", kBranchySuite, "--workload", "same", "--hardware-events",
           "branch-misses:u"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("--hardware-events branch-misses:u needs the perf backend"),
            std::string::npos)
      << other.err;
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_TASK_CLOCK);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  const LaunchResult unknown = Compare("work", "no-such-event:u");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("--hardware-events: "), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("no-such-event"), std::string::npos) << unknown.err;
}

INSTANTIATE_TEST_SUITE_P(Backends, SimulatedEventsCliTest,
                         ::testing::ValuesIn(SimulatingBackends()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace workgate
