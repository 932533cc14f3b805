// The JSON of the history: every figure of every series, and a document that
// schemas/history.schema.json accepts, while the schema refuses one broken
// on purpose (tests/schemas/schema_check.h).

#include "report/history_json.h"

#include <gtest/gtest.h>

#include <fstream>

#include "decision/history.h"
#include "report/history_sample.h"
#include "schemas/schema_check.h"
#include "test_requirements.h"

namespace workgate {
namespace {

using nlohmann::json;
using testing::SampleHistoryRecords;

json SampleJson() { return HistoryToJson(AnalyzeHistory(SampleHistoryRecords(), 10)); }

TEST(HistoryJsonTest, EverySeriesHasItsPointsAndFigures) {
  const json j = SampleJson();
  EXPECT_EQ(j["format"], "workgate-history");
  EXPECT_EQ(j["schema_version"], 3);
  ASSERT_EQ(j["series"].size(), 3u);
  const json& fib = j["series"][0];
  EXPECT_EQ(fib["workload"], "interp/fib");
  EXPECT_EQ(fib["backend"], "vgcount");
  EXPECT_EQ(fib["event"], "Ir");
  EXPECT_EQ(fib["margin"], 0.01);
  EXPECT_EQ(fib["recorded"], 8);
  EXPECT_EQ(fib["drift"], true);
  EXPECT_EQ(fib["step_crossed"], false);
  EXPECT_NEAR(fib["cumulative"].get<double>(), 852'996'341.0 / 812'345'678 - 1, 1e-15);
  EXPECT_TRUE(fib["noise_floor"].is_null());
  EXPECT_EQ(fib["noise_differences"], 0);
  EXPECT_EQ(fib["verdict"],
            "+5.00% over the last 8 commits; drift: no step crossed the 1.00% margin");
  EXPECT_EQ(fib["direction"], "added");
  EXPECT_EQ(fib["steps"], json::array());
  EXPECT_EQ(fib["rise"], (json{{"from", 0},
                               {"to", 7},
                               {"from_ref", "3f9c2a1"},
                               {"to_ref", "d4e2b95"},
                               {"change", fib["cumulative"]},
                               {"beyond_noise", true}}));
  EXPECT_TRUE(fib["fall"].is_null());
  ASSERT_EQ(fib["points"].size(), 8u);
  const json& first = fib["points"][0];
  EXPECT_EQ(first["ref"], "3f9c2a1");
  EXPECT_EQ(first["recorded_at"], "2026-12-01T09:30:00Z");
  // Recorded by a workgate that kept no commit dates; the next one's is kept.
  EXPECT_TRUE(first["committed_at"].is_null());
  EXPECT_EQ(fib["points"][1]["committed_at"], "2026-12-02T08:15:00Z");
  EXPECT_EQ(first["counts"], json::array({812'345'678}));
  EXPECT_EQ(first["value"], 812'345'678.0);
  EXPECT_TRUE(first["step"].is_null());
  EXPECT_TRUE(first["cumulative"].is_null());
  EXPECT_TRUE(first["score"].is_null());
  EXPECT_TRUE(first["subject"].is_null());
  EXPECT_EQ(first["condition_parts"]["workgate"], "0.1.0-240-gabc1234");

  const json& loop = j["series"][1];
  EXPECT_EQ(loop["backend"], "perf");
  EXPECT_NEAR(loop["noise_floor"].get<double>(), 0.000350459, 1e-9);
  EXPECT_EQ(loop["noise_differences"], 7);
  EXPECT_EQ(loop["points"][0]["counts"].size(), 5u);
  EXPECT_EQ(loop["points"][0]["value"], 45'678'912.0);

  const json& sort = j["series"][2];
  EXPECT_EQ(sort["step_crossed"], true);
  EXPECT_EQ(sort["direction"], "added");
  ASSERT_EQ(sort["steps"].size(), 1u);
  EXPECT_EQ(sort["steps"][0]["point"], 5);
  EXPECT_EQ(sort["steps"][0]["ref"], "e77f018");
  EXPECT_EQ(sort["steps"][0]["step"], sort["points"][5]["step"]);
  EXPECT_TRUE(sort["rise"].is_null());
  EXPECT_EQ(j["series"][1]["direction"], "unchanged");
  const json& broken = sort["points"][2];
  EXPECT_EQ(broken["break_before"], true);
  EXPECT_EQ(broken["changed"], json::array({"valgrind"}));
  EXPECT_TRUE(broken["step"].is_null());
  EXPECT_NEAR(sort["points"][5]["step"].get<double>(), 0.024, 1e-9);
}

class HistorySchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(schemas_.Available(), "python3 with python3-jsonschema is not installed");
  }

  // `doc`, written to `name`, is valid (`valid`) or invalid (!`valid`).
  void Expect(bool valid, const json& doc, const std::string& name) {
    std::ofstream(dir_.path() + "/" + name) << doc.dump();
    LaunchResult r = schemas_.Validate(valid, "history.schema.json", {name});
    EXPECT_EQ(r.exit_code, 0) << name << ":\n" << r.out << r.err;
  }

  TempDir dir_;
  testing::SchemaCheck schemas_{dir_.path()};
};

TEST_F(HistorySchemaTest, TheRenderersOutputMatchesTheSchema) {
  const json sample = SampleJson();
  Expect(true, sample, "sample.json");
  Expect(true, HistoryToJson({}), "empty.json");
  std::vector<HistoryRecord> records = SampleHistoryRecords();
  records[0].score = "fib(30) = 832040";
  records[0].subject = "Make fib(30) faster";
  records[1].ref = testing::kHostileRef;
  Expect(true, HistoryToJson(AnalyzeHistory(records, 3)), "window.json");

  // A schema that accepts anything would pass the above: these must fail.
  auto refused = [&](const std::string& name, auto edit) {
    json doc = sample;
    edit(&doc);
    Expect(false, doc, name);
  };
  refused("bad1.json", [](json* j) { (*j)["format"] = "workgate-report"; });
  refused("bad2.json", [](json* j) { (*j)["series"][0].erase("drift"); });
  refused("bad3.json", [](json* j) { (*j)["series"][0]["points"][0]["counts"][0] = -1; });
  refused("bad4.json", [](json* j) { (*j)["series"][0]["points"][0]["surprise"] = 1; });
  refused("bad5.json", [](json* j) { (*j)["series"][1]["noise_floor"] = "small"; });
  refused("bad6.json", [](json* j) { (*j)["series"][2]["backend"] = "fastest"; });
  refused("bad7.json", [](json* j) { (*j)["series"][0]["points"][0]["recorded_at"] = "today"; });
  refused("bad8.json", [](json* j) { (*j)["series"][0]["direction"] = "sideways"; });
  refused("bad11.json", [](json* j) { (*j)["series"][0]["points"][0].erase("subject"); });
  refused("bad12.json", [](json* j) { (*j)["series"][0]["points"][0]["subject"] = 1; });
  refused("bad9.json", [](json* j) { (*j)["series"][0]["rise"].erase("to_ref"); });
  refused("bad10.json", [](json* j) { (*j)["series"][2]["steps"][0]["point"] = 0; });
  refused("bad13.json", [](json* j) { (*j)["series"][0]["points"][1].erase("committed_at"); });
  refused("bad14.json",
          [](json* j) { (*j)["series"][0]["points"][1]["committed_at"] = "yesterday"; });
}

}  // namespace
}  // namespace workgate
