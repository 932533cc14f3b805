#include "report/json_report.h"

#include <gtest/gtest.h>

#include <fstream>

#include "report/sample_report.h"

namespace workgate {
namespace {

using nlohmann::json;
using testing_report::CallgrindReport;
using testing_report::PerfReport;

TEST(JsonReportTest, AnUnstableThreadedWorkloadHasItsThreadHint) {
  const json j = ToJson(testing_report::ThreadedReport());
  const json& hint = j["workloads"][0]["thread_hint"];
  EXPECT_EQ(hint["threads"], 5);
  EXPECT_EQ(hint["program"], "zstd");
  EXPECT_NE(hint["advice"].get<std::string>().find("--single-thread"), std::string::npos) << hint;
  EXPECT_TRUE(j["workloads"][1]["thread_hint"].is_null());
}

TEST(JsonReportTest, TopLevelFields) {
  json j = ToJson(CallgrindReport());
  EXPECT_EQ(j["schema_version"], 10);
  EXPECT_EQ(j["workgate_version"], "0.1.0");
  EXPECT_EQ(j["verdict"], "invalid");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["backend"], "callgrind");
  EXPECT_NE(j["backend_reason"].get<std::string>().find("PMU"), std::string::npos);
  EXPECT_EQ(j["event"], "Ir");
  EXPECT_DOUBLE_EQ(j["max_work_added"].get<double>(), 1.0);  // percent
  EXPECT_EQ(j["workloads"].size(), 5u);
}

TEST(JsonReportTest, WorkloadFields) {
  json fib = ToJson(CallgrindReport())["workloads"][0];
  EXPECT_EQ(fib["name"], "interp/fib");
  // As the suite gives it: the placeholders as written.
  EXPECT_EQ(fib["command"], json::array({"{exe}", "{suite_dir}/scripts/fib.wg", "30"}));
  EXPECT_EQ(fib["verdict"], "work-added");
  EXPECT_EQ(fib["reason"], "+3.10% >= 1.00% margin");
  EXPECT_EQ(fib["baseline"]["instructions"], 1'204'331'907u);
  EXPECT_EQ(fib["candidate"]["instructions"], 1'241'690'215u);
  EXPECT_EQ(fib["baseline"]["counts"], json::array({1'204'331'907u}));
  EXPECT_EQ(fib["delta"], 37'358'308);
  EXPECT_NEAR(fib["relative"].get<double>(), 37358308.0 / 1204331907, 1e-15);  // a fraction
  EXPECT_TRUE(fib["baseline"]["score"].is_null());
  EXPECT_TRUE(fib["timed"].is_null());
  EXPECT_EQ(fib["baseline"]["timed"][0]["wall_seconds"], 1.84);
  EXPECT_EQ(fib["baseline"]["timed"][0]["slot"], 0);
  EXPECT_EQ(fib["explanation"]["total_delta"], 37'358'308);
  EXPECT_EQ(fib["explanation"]["rows"][0]["function"], "vm_dispatch");
  EXPECT_EQ(fib["explanation"]["rows"][0]["delta"], 31'200'218);
  EXPECT_EQ(fib["explanation"]["rows"][0]["clones"], json::array());
  EXPECT_EQ(fib["explanation"]["rows"][1]["clones"],
            json::array({"value_add", "value_add.constprop.0", "value_add.part.0.cold"}));
  EXPECT_EQ(fib["explanation"]["missing_symbols"], json::array());

  const json& fp = fib["candidate"]["fingerprint"];
  for (const char* key : {"workgate_version", "backend", "event", "cpu_model", "kernel",
                          "valgrind_version", "valgrind_path", "binary_sha256", "libraries",
                          "ld_so_cache_sha256", "argv", "env", "suite_sha256"}) {
    EXPECT_TRUE(fp.contains(key)) << key;
  }
  EXPECT_EQ(fp["argv"], json::array({"./exe", "--workload", "interp/fib"}));
  EXPECT_EQ(fp["env"]["WORKGATE_FIXED_CLOCK"], "1");

  json kernels = ToJson(CallgrindReport())["workloads"][3];
  EXPECT_EQ(kernels["baseline"]["score"], "10.000");
  EXPECT_EQ(kernels["candidate"]["score"], "10.000");
  EXPECT_EQ(kernels["expected_score"], "10.000");
  EXPECT_TRUE(kernels["previous_score"].is_null());
  EXPECT_EQ(kernels["score_changed"], false);
}

TEST(JsonReportTest, AScoreChangedOnPurposeHasBothScoresAndWhatWasExpectedOfEach) {
  const json j = ToJson(testing_report::ScoreChangeReport());
  const json& wgmark = j["workloads"][0];
  EXPECT_EQ(wgmark["verdict"], "ok");
  EXPECT_EQ(wgmark["score_changed"], true);
  EXPECT_EQ(wgmark["expected_score"], "12.500");
  EXPECT_EQ(wgmark["previous_score"], "10.000");
  EXPECT_EQ(wgmark["baseline"]["score"], "10.000");
  EXPECT_EQ(wgmark["candidate"]["score"], "12.500");
  EXPECT_EQ(wgmark["delta"], 150'448);
  EXPECT_EQ(j["workloads"][1]["verdict"], "work-added");
  EXPECT_EQ(j["workloads"][1]["score_changed"], true);
  // A previous score that neither side printed changes nothing.
  EXPECT_EQ(j["workloads"][2]["previous_score"], "8.000");
  EXPECT_EQ(j["workloads"][2]["score_changed"], false);
  EXPECT_EQ(j["exit_code"], 1);
}

TEST(JsonReportTest, MissingSymbols) {
  json e = ToJson(testing_report::StrippedReport())["workloads"][0]["explanation"];
  ASSERT_EQ(e["missing_symbols"].size(), 1u);
  const json& m = e["missing_symbols"][0];
  EXPECT_EQ(m["object"], "lua5.4");
  EXPECT_EQ(m["delta"], 48'360'000);
  ASSERT_EQ(m["files"].size(), 1u);
  EXPECT_EQ(m["files"][0]["path"], "/usr/bin/lua5.4");
  EXPECT_EQ(m["files"][0]["side"], "both");
  EXPECT_EQ(m["files"][0]["build_id"], "1061f95d5cf9242924aac24fb75ecdcab7eac0e6");
  EXPECT_EQ(m["files"][0]["debug_file"],
            "/usr/lib/debug/.build-id/10/61f95d5cf9242924aac24fb75ecdcab7eac0e6.debug");
  EXPECT_EQ(m["files"][0]["debug_file_exists"], false);
  // A file without a build ID has no debug file to look for.
  CompareReport r = testing_report::StrippedReport();
  StrippedFile& f = r.workloads[0].explanation->missing_symbols[0].files[0];
  f.build_id.clear();
  f.debug_file.clear();
  json g = ToJson(r)["workloads"][0]["explanation"]["missing_symbols"][0]["files"][0];
  EXPECT_TRUE(g["build_id"].is_null());
  EXPECT_TRUE(g["debug_file"].is_null());
}

TEST(JsonReportTest, ARenameFoldedLinesAndMarksAreInTheExplanation) {
  const json e = ToJson(testing_report::ExplainedLinesReport())["workloads"][0]["explanation"];
  const json& vm = e["rows"][0];
  EXPECT_TRUE(vm["renamed_from"].is_null());
  ASSERT_EQ(vm["lines"].size(), 3u);
  EXPECT_EQ(vm["lines"][0]["changed"], true);
  EXPECT_EQ(vm["lines"][0]["numbering"], "candidate");
  // The removed line: the baseline's numbering and text.
  EXPECT_EQ(vm["lines"][1]["numbering"], "baseline");
  EXPECT_EQ(vm["lines"][1]["text"], "updatetrap(ci);");
  // The two vmbreak lines, one row of +5 with the other line in `folded`.
  const json& folded = vm["lines"][2];
  EXPECT_EQ(folded["delta"], 5);
  EXPECT_EQ(folded["changed"], false);
  ASSERT_EQ(folded["folded"].size(), 1u);
  EXPECT_EQ(folded["folded"][0]["line"], 1854);
  EXPECT_EQ(folded["folded"][0]["delta"], -10'000'007);
  EXPECT_TRUE(folded["folded"][0]["folded"].empty());
  EXPECT_EQ(e["rows"][1]["function"], "luaL_alloc");
  EXPECT_EQ(e["rows"][1]["renamed_from"], "l_alloc");
  // Without a diff, no line is said to be changed or unchanged.
  CompareReport r = testing_report::CallgrindReport();
  EXPECT_TRUE(ToJson(r)["workloads"][0]["explanation"]["rows"][0]["lines"][0]["changed"].is_null());
}

TEST(JsonReportTest, MissingFiguresAreNull) {
  json gc = ToJson(CallgrindReport())["workloads"][4];
  EXPECT_EQ(gc["verdict"], "invalid");
  EXPECT_NE(gc["reason"].get<std::string>().find("exited with status 1"), std::string::npos);
  EXPECT_TRUE(gc["candidate"]["instructions"].is_null());
  EXPECT_EQ(gc["candidate"]["error"], "exited with status 1 | stderr: out of memory");
  EXPECT_TRUE(gc["baseline"]["error"].is_null());
  EXPECT_TRUE(gc["delta"].is_null());
  EXPECT_TRUE(gc["relative"].is_null());
  EXPECT_TRUE(gc["explanation"].is_null());
}

TEST(JsonReportTest, SpreadsAndTimedStats) {
  json j = ToJson(PerfReport());
  EXPECT_EQ(j["verdict"], "inconclusive");
  EXPECT_EQ(j["exit_code"], 4);
  EXPECT_EQ(j["repeat"], 3);
  json w = j["workloads"][0];
  EXPECT_EQ(w["baseline"]["min"], 1'000'000u);
  EXPECT_EQ(w["baseline"]["max"], 1'000'050u);
  EXPECT_LT(w["relative_low"].get<double>(), 0.01);
  EXPECT_GT(w["relative_high"].get<double>(), 0.01);
  ASSERT_TRUE(w["timed"].is_object());
  const json& timed = w["timed"];
  EXPECT_EQ(timed["basis"], "wall time");
  EXPECT_EQ(timed["label"], "slower");
  EXPECT_EQ(timed["family"], 2);
  const json& c = timed["comparison"];
  EXPECT_EQ(c["pairs"], 11);  // one of twelve dropped as a stall
  EXPECT_DOUBLE_EQ(c["confidence"].get<double>(), 0.975);  // two workloads
  EXPECT_EQ(c["confidence"], c["nominal_confidence"]);
  EXPECT_TRUE(c["excludes_one"].get<bool>());
  EXPECT_GT(c["ci_low"].get<double>(), 1.0);
  EXPECT_EQ(c["method"], "exact");
  EXPECT_EQ(c["draws"], 2048);
  EXPECT_GE(c["p_adjusted"].get<double>(), c["p_value"].get<double>());
  EXPECT_GT(timed["hl_shift"].get<double>(), 0.1);  // seconds, the candidate slower
  EXPECT_TRUE(timed["noise_floor"].is_number());
  EXPECT_TRUE(timed["aa_control"].is_object());
  ASSERT_EQ(timed["dropped"].size(), 1u);
  EXPECT_EQ(timed["dropped"][0],
            json({{"side", "candidate"}, {"sample", 7}, {"value", 5.9}, {"sibling_median", 2.21}}));
  // Each sample's place in the run's order: pairs alternate across the run.
  EXPECT_EQ(w["baseline"]["timed"][0]["slot"], 2);
  EXPECT_EQ(w["candidate"]["timed"][0]["slot"], 3);
  EXPECT_EQ(w["candidate"]["timed"][1]["slot"], 4);
  EXPECT_EQ(j["workloads"][1]["baseline"]["timed"][0]["slot"], 28);
}

TEST(JsonReportTest, ATimingHeldAgainstItsCountHasItsFigures) {
  const json j = ToJson(testing_report::TimingVsCountReport());
  EXPECT_EQ(j["exit_code"], 0);  // the counts' verdict, whatever the timing says
  const json& fib = j["workloads"][0]["timing_vs_count"];
  ASSERT_TRUE(fib.is_object());
  EXPECT_EQ(fib["disagreement"], "slower");
  EXPECT_EQ(fib["count_low"], 1.0);
  EXPECT_EQ(fib["count_high"], 1.0);
  EXPECT_EQ(fib["factor"], 2.0);
  EXPECT_EQ(fib["bound"], 2.0);
  EXPECT_EQ(fib["family"], 2);
  EXPECT_GE(fib["p_adjusted"].get<double>(), fib["p_value"].get<double>());
  EXPECT_LT(fib["p_adjusted"].get<double>(), 0.05);
  EXPECT_GT(j["workloads"][0]["timed"]["comparison"]["ci_low"].get<double>(), 2.0);
  EXPECT_EQ(j["workloads"][1]["timing_vs_count"]["disagreement"], "none");
  // Without an A/A control (one timed run a side here) nothing is held.
  EXPECT_TRUE(ToJson(CallgrindReport())["workloads"][0]["timing_vs_count"].is_null());
}

TEST(JsonReportTest, WritesParseableJsonAtomically) {
  std::string path = ::testing::TempDir() + "/wg_json_report.json";
  std::string err;
  ASSERT_TRUE(WriteJsonReport(path, CallgrindReport(), &err)) << err;
  json back = json::parse(std::ifstream(path));
  EXPECT_EQ(back, ToJson(CallgrindReport()));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace workgate
