// The shape of `workgate count --json`, on counts built here by hand.

#include "measure/count_json.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

using nlohmann::json;

CountedRun CountedRunOf(uint64_t instructions, std::vector<uint64_t> per_process = {}) {
  CountedRun run;
  run.launch.started = true;
  run.launch.exit_code = 0;
  run.launch.wall_seconds = 0.25;
  run.events = {{"Ir", instructions, 0, 0}};
  run.per_process = std::move(per_process);
  return run;
}

CountedRun Killed() {
  CountedRun run;
  run.launch.started = true;
  run.launch.signal = 11;
  run.error = "killed by signal 11 (SIGSEGV)";
  return run;
}

CommandCount TwoRuns() {
  CommandCount c;
  c.backend = "vgcount";
  c.backend_reason = "no PMU";
  c.event = "Ir";
  c.result.argv = {"/usr/bin/prog", "--fast"};
  c.result.runs = {CountedRunOf(1'000'000, {10, 999'990}), CountedRunOf(1'000'250)};
  c.result.notes = {"the workload left 1 process running; it was killed"};
  c.valid = true;
  c.clock = "shim";
  c.unstable = true;
  return c;
}

TEST(CountJsonTest, ACommandHasEveryFieldAndASchemaVersion) {
  json j = CommandCountToJson(TwoRuns());
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["backend"], "vgcount");
  EXPECT_EQ(j["backend_reason"], "no PMU");
  EXPECT_EQ(j["event"], "Ir");
  EXPECT_EQ(j["argv"], json::array({"/usr/bin/prog", "--fast"}));
  EXPECT_EQ(j["valid"], true);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["clock"], "shim");
  EXPECT_EQ(j["unstable"], true);
  EXPECT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["min"], 1'000'000u);
  EXPECT_EQ(j["max"], 1'000'250u);
  EXPECT_EQ(j["spread"], 250u);
  EXPECT_DOUBLE_EQ(j["spread_ppm"].get<double>(), 250.0);
  ASSERT_EQ(j["runs"].size(), 2u);
  const json& run = j["runs"][0];
  EXPECT_EQ(run["instructions"], 1'000'000u);
  EXPECT_EQ(run["exit_status"], 0);
  EXPECT_TRUE(run["signal"].is_null());
  EXPECT_EQ(run["timed_out"], false);
  EXPECT_EQ(run["wall_seconds"], 0.25);
  EXPECT_TRUE(run["error"].is_null());
  ASSERT_EQ(run["events"].size(), 1u);
  for (const char* key : {"event", "value", "time_enabled_ns", "time_running_ns", "multiplexed"}) {
    EXPECT_TRUE(run["events"][0].contains(key)) << key;
  }
  EXPECT_EQ(run["per_process"], json::array({10, 999'990}));
  EXPECT_FALSE(j["runs"][1].contains("per_process"));  // only where processes were counted
}

TEST(CountJsonTest, AnInvalidCommandHasNoFigures) {
  CommandCount c = TwoRuns();
  c.result.runs = {CountedRunOf(1'000'000), Killed()};
  c.result.error = "run 2: killed by signal 11 (SIGSEGV)";
  c.valid = false;
  c.unstable = false;
  c.exit_code = kExitInvalid;
  json j = CommandCountToJson(c);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["error"], "run 2: killed by signal 11 (SIGSEGV)");
  EXPECT_TRUE(j["min"].is_null());
  EXPECT_TRUE(j["max"].is_null());
  EXPECT_FALSE(j.contains("spread"));
  const json& killed = j["runs"][1];
  EXPECT_TRUE(killed["instructions"].is_null());
  EXPECT_TRUE(killed["exit_status"].is_null());
  EXPECT_EQ(killed["signal"], 11);
}

TEST(CountJsonTest, ASuiteHasEveryWorkloadAndASchemaVersion) {
  SuiteCount s;
  s.backend = "callgrind";
  s.backend_reason = "requested";
  s.event = "Ir";
  s.exe = "build/prog";
  s.suite = "suite.toml";
  s.exit_code = kExitInvalid;
  SuiteWorkloadCount steady;
  steady.name = "steady";
  steady.expected_score = "10.000";
  steady.result.score = "10.000";
  steady.result.runs = {CountedRunOf(500), CountedRunOf(500)};
  SuiteWorkloadCount jitter;
  jitter.name = "jitter";
  jitter.result.runs = {CountedRunOf(700), CountedRunOf(707)};
  jitter.unstable = true;
  SuiteWorkloadCount broken;
  broken.name = "broken";
  broken.result.runs = {Killed()};
  broken.result.error = "killed by signal 11 (SIGSEGV)";
  s.workloads = {steady, jitter, broken};

  json j = SuiteCountToJson(s);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["backend"], "callgrind");
  EXPECT_EQ(j["backend_reason"], "requested");
  EXPECT_EQ(j["event"], "Ir");
  EXPECT_EQ(j["exe"], "build/prog");
  EXPECT_EQ(j["suite"], "suite.toml");
  ASSERT_EQ(j["workloads"].size(), 3u);
  const json& w = j["workloads"][0];
  EXPECT_EQ(w["name"], "steady");
  EXPECT_EQ(w["metric"], "instructions");
  EXPECT_EQ(w["score"], "10.000");
  EXPECT_EQ(w["expected_score"], "10.000");
  EXPECT_EQ(w["instructions"], 500u);
  EXPECT_TRUE(w["error"].is_null());
  EXPECT_EQ(w["unstable"], false);
  EXPECT_EQ(w["runs"].size(), 2u);
  EXPECT_EQ(w["spread"], 0u);
  const json& jit = j["workloads"][1];
  EXPECT_EQ(jit["unstable"], true);
  EXPECT_TRUE(jit["score"].is_null());
  EXPECT_TRUE(jit["expected_score"].is_null());
  EXPECT_EQ(jit["instructions"], 700u);  // the first run's
  EXPECT_EQ(jit["min"], 700u);
  EXPECT_EQ(jit["max"], 707u);
  EXPECT_DOUBLE_EQ(jit["spread_ppm"].get<double>(), 10'000.0);
  const json& bad = j["workloads"][2];
  EXPECT_EQ(bad["error"], "killed by signal 11 (SIGSEGV)");
  EXPECT_TRUE(bad["instructions"].is_null());
  EXPECT_TRUE(bad["min"].is_null());
  EXPECT_EQ(bad["unstable"], false);
}

TEST(CountJsonTest, SpreadPpmIsPerMillionOfTheMinimum) {
  EXPECT_DOUBLE_EQ(SpreadPpm(1'000'000, 1'000'001), 1.0);
  EXPECT_DOUBLE_EQ(SpreadPpm(4, 6), 500'000.0);
  EXPECT_DOUBLE_EQ(SpreadPpm(0, 0), 0.0);
}

}  // namespace
}  // namespace workgate
