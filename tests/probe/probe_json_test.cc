// The shape of `workgate probe --json`, on a probe built here by hand.

#include "probe/probe_json.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

using nlohmann::json;

ProbeReport NoPmuMachine() {
  ProbeReport p;
  p.system.architecture.value = "x86_64";
  p.system.kernel_release.value = "6.1.0-13-amd64";
  p.events = "instructions:u";
  p.perf.reason = "this hypervisor exposes no PMU";
  p.perf.open_errno = 2;
  p.valgrind = {"/usr/bin/valgrind", "valgrind-3.19.0", ""};
  p.vgcount = {true, "/usr/lib/workgate/valgrind-lib", ""};
  p.pid_namespace = true;
  p.resolutions = {
      ResolutionFromCounts("callgrind", {200'020, 200'020, 200'020}, {400'020, 400'020, 400'020}),
      ResolutionFromCounts("vgcount", {200'021, 200'020, 200'020}, {400'020, 400'020, 400'020})};
  Resolution failed;
  failed.backend = "perf";
  failed.error = "could not start";
  p.resolutions.push_back(failed);
  p.auto_choice = {"vgcount", "perf cannot count instructions:u: no PMU"};
  return p;
}

TEST(ProbeJsonTest, HasEveryPartAndASchemaVersion) {
  json j = ProbeToJson(NoPmuMachine());
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["system"]["architecture"], "x86_64");
  EXPECT_EQ(j["system"]["kernel_release"], "6.1.0-13-amd64");
  EXPECT_TRUE(j["system"]["cpu_model"].is_null());  // not probed: null, never ""
  EXPECT_EQ(j["perf"], json({{"event", "instructions:u"},
                             {"ok", false},
                             {"reason", "this hypervisor exposes no PMU"},
                             {"errno", 2}}));
  EXPECT_EQ(j["valgrind"],
            json({{"found", true}, {"path", "/usr/bin/valgrind"}, {"version", "valgrind-3.19.0"}}));
  EXPECT_EQ(j["vgcount"],
            json({{"built", true}, {"usable", true}, {"reason", nullptr}, {"fallback", nullptr}}));
  EXPECT_EQ(j["pid_namespace"], true);
  EXPECT_EQ(j["auto"]["backend"], "vgcount");
  EXPECT_EQ(j["auto"]["reason"], "perf cannot count instructions:u: no PMU");
}

TEST(ProbeJsonTest, ResolutionsSayWhetherTheyAreExact) {
  json res = ProbeToJson(NoPmuMachine())["resolution"];
  ASSERT_EQ(res.size(), 3u);
  const json& exact = res[0];
  EXPECT_EQ(exact["backend"], "callgrind");
  EXPECT_EQ(exact["ok"], true);
  EXPECT_EQ(exact["sizes"], json::array({100'000, 200'000}));
  EXPECT_EQ(exact["repeats"], 3);
  EXPECT_EQ(exact["counts_small"], json::array({200'020, 200'020, 200'020}));
  EXPECT_EQ(exact["counts_large"], json::array({400'020, 400'020, 400'020}));
  EXPECT_EQ(exact["instructions_per_iteration"], 2.0);
  EXPECT_EQ(exact["expected_per_iteration"], 2);
  EXPECT_EQ(exact["exact"], true);
  EXPECT_EQ(exact["spread"], 0);
  EXPECT_EQ(res[1]["exact"], false);  // one count off: spread 1
  EXPECT_EQ(res[1]["spread"], 1);
  EXPECT_EQ(res[2], json({{"backend", "perf"}, {"ok", false}, {"error", "could not start"}}));
}

TEST(ProbeJsonTest, NoBackendIsNullAndExitFive) {
  ProbeReport p = NoPmuMachine();
  p.auto_choice = {"", "perf cannot count; valgrind not found"};
  p.exit_code = kExitEnvironment;
  p.perf.ok = true;
  json j = ProbeToJson(p);
  EXPECT_TRUE(j["auto"]["backend"].is_null());
  EXPECT_EQ(j["exit_code"], 5);
  EXPECT_TRUE(j["perf"]["reason"].is_null());  // counted: no reason
}

// Where vgcount cannot count, the probe says why, what counting with
// Valgrind falls back to, and what that costs.
TEST(ProbeJsonTest, VgcountThatCannotCountSaysWhatTakesItsPlaceAndTheCost) {
  ProbeReport p = NoPmuMachine();
  p.vgcount = {false, "", "the vgcount Valgrind tool is not built"};
  p.vgcount_fallback = VgcountFallback(p.vgcount, p.valgrind);
  json j = ProbeToJson(p)["vgcount"];
  EXPECT_EQ(j["built"], false);
  EXPECT_EQ(j["usable"], false);
  EXPECT_EQ(j["reason"], "the vgcount Valgrind tool is not built");
  ASSERT_TRUE(j["fallback"].is_string());
  const std::string fallback = j["fallback"];
  EXPECT_EQ(fallback.rfind("counting with Valgrind falls back to callgrind, ", 0), 0u) << fallback;
  // What it costs: time, and a count the candidate can reach.
  EXPECT_NE(fallback.find("4.3x to 4.6x slower"), std::string::npos) << fallback;
  EXPECT_NE(fallback.find("in the candidate's reach"), std::string::npos) << fallback;
  EXPECT_NE(fallback.find("client requests"), std::string::npos) << fallback;

  // Built against another Valgrind: built, not usable, the same fallback.
  p.vgcount = {true, "/opt/wg/lib/workgate/valgrind-lib", "built against valgrind-3.22.0"};
  j = ProbeToJson(p)["vgcount"];
  EXPECT_EQ(j["built"], true);
  EXPECT_EQ(j["usable"], false);
  EXPECT_EQ(j["fallback"], fallback);

  // Without Valgrind nothing takes vgcount's place.
  p.valgrind = {"", "", "valgrind is not on PATH"};
  EXPECT_EQ(VgcountFallback(p.vgcount, p.valgrind),
            "without Valgrind, callgrind cannot count either: only perf can");
  // Where vgcount counts there is no fallback to speak of.
  EXPECT_EQ(VgcountFallback({true, "/usr/lib/workgate/valgrind-lib", ""}, p.valgrind), "");
}

}  // namespace
}  // namespace workgate
