// The shape of `workgate explain --json`, on explanations built here.

#include "report/explain_json.h"

#include <gtest/gtest.h>

#include "report/json_report.h"
#include "report/sample_report.h"

namespace workgate {
namespace {

using nlohmann::json;

TEST(ExplainJsonTest, EachWorkloadHasTheCompareReportsExplanation) {
  CompareReport report = testing_report::CallgrindReport();
  WorkloadResult failed;
  failed.name = "interp/gc";
  failed.explanation = Explanation{};
  failed.explanation->error = "callgrind failed";
  std::vector<WorkloadResult> explained = {report.workloads[0], failed};

  json j = ExplanationsToJson(explained, kExitInvalid);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["exit_code"], 3);
  ASSERT_EQ(j["workloads"].size(), 2u);
  EXPECT_EQ(j["workloads"][0]["name"], "interp/fib");
  // The same object as compare's report, so one reader serves both.
  EXPECT_EQ(j["workloads"][0]["explanation"], ToJson(report)["workloads"][0]["explanation"]);
  EXPECT_EQ(j["workloads"][0]["explanation"]["rows"][0]["function"], "vm_dispatch");
  EXPECT_EQ(j["workloads"][1]["explanation"]["error"], "callgrind failed");
  EXPECT_EQ(j["workloads"][1]["explanation"]["rows"], json::array());
}

TEST(ExplainJsonTest, NoWorkloadsIsAnEmptyList) {
  json j = ExplanationsToJson({}, kExitPass);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["workloads"], json::array());
}

}  // namespace
}  // namespace workgate
