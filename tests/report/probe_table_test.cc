#include "report/probe_table.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "report/probe_row.h"
#include "test_paths.h"

namespace workgate {
namespace {

using nlohmann::json;

// A probe document as `probe --json` writes it, reduced to what a row reads
// and a little more.
json Probe(const std::string& label) {
  return json::parse(R"({
    "schema_version": 1, "exit_code": 0, "label": ")" +
                     label + R"(",
    "system": {"perf_event_paranoid": 2, "hypervisor_present": true,
               "hypervisor_vendor": "KVMKVMKVM", "hypervisor_name": "KVM",
               "architecture": "x86_64"},
    "perf": {"event": "instructions:u", "ok": false, "errno": 2,
             "reason": "the hypervisor (KVM) does not expose a PMU to this VM, so hardware events such as instructions:u cannot be counted; count with Valgrind instead"},
    "valgrind": {"found": true, "path": "/usr/bin/valgrind", "version": "valgrind-3.19.0"},
    "resolution": [
      {"backend": "callgrind", "ok": true, "exact": true, "spread": 0,
       "instructions_per_iteration": 2.0},
      {"backend": "perf", "ok": true, "exact": false, "spread": 1234,
       "instructions_per_iteration": 2.001},
      {"backend": "vgcount", "ok": false, "error": "not built"}],
    "auto": {"backend": "callgrind", "reason": "..."}})");
}

ProbeRow Row(const json& doc, const std::string& source = "p.json") {
  ProbeRow row;
  std::string err;
  EXPECT_TRUE(ProbeRowFromJson(doc, source, &row, &err)) << err;
  return row;
}

TEST(ProbeTableTest, ShortensThePerfReasonToItsFirstClause) {
  EXPECT_EQ(ShortReason("the hypervisor (KVM) does not expose a PMU to this VM, so hardware events "
                        "such as instructions:u cannot be counted; count with Valgrind instead"),
            "the hypervisor (KVM) does not expose a PMU to this VM");
  EXPECT_EQ(ShortReason("perf_event_paranoid=3 refuses unprivileged counting; as root: sysctl"),
            "perf_event_paranoid=3 refuses unprivileged counting");
  EXPECT_EQ(ShortReason("perf_event_open was refused even as root: a seccomp filter blocks it"),
            "perf_event_open was refused even as root");
  EXPECT_EQ(ShortReason(""), "");
  const std::string longest(200, 'x');
  EXPECT_EQ(ShortReason(longest), std::string(80, 'x') + "...");
  // Cut between characters, never inside one.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\u00e9";
  const std::string cut = ShortReason(accents);
  EXPECT_EQ(cut.size(), 80 * 2 + 3);
}

TEST(ProbeTableTest, OneRowPerRunnerInEveryForm) {
  json other = Probe("arm-runner");
  other["perf"] = {{"event", "instructions:u"}, {"ok", true}, {"reason", nullptr}, {"errno", 0}};
  other["system"]["hypervisor_present"] = false;
  other["auto"]["backend"] = "perf";
  const std::vector<ProbeRow> rows = {Row(Probe("x86-runner")), Row(other, "b.json")};
  const std::string md = ProbeTableMarkdown(rows);
  EXPECT_EQ(md,
            "| runner | PMU | perf_event_paranoid | backend | resolution | hypervisor |\n"
            "|---|---|---:|---|---|---|\n"
            "| `x86-runner` | no: `the hypervisor (KVM) does not expose a PMU to this VM` | 2 | "
            "callgrind | callgrind exact, perf spread 1,234, vgcount failed | `KVM` |\n"
            "| `arm-runner` | yes | 2 | perf | callgrind exact, perf spread 1,234, vgcount failed "
            "| `none` |\n");
  const std::string text = ProbeTableText(rows);
  EXPECT_NE(text.find("runner      PMU"), std::string::npos) << text;
  EXPECT_NE(text.find("arm-runner  yes"), std::string::npos) << text;
  const json j = ProbeTableToJson(rows);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["runners"].size(), 2u);
  EXPECT_EQ(j["runners"][0]["file"], "p.json");
  EXPECT_EQ(j["runners"][1]["pmu"]["counts"], true);
  EXPECT_EQ(j["runners"][0]["resolution"][2]["error"], "not built");
  EXPECT_TRUE(j["runners"][0]["resolution"][2]["exact"].is_null());
}

TEST(ProbeTableTest, ARunnersWordsAreTextInEveryForm) {
  const std::string hostile = "[x](http://evil) <b>|</b> `\x1b]0;t\x07\x1b[2J";
  json doc = Probe("label");
  doc["label"] = hostile;
  doc["perf"]["reason"] = hostile;
  doc["system"]["hypervisor_name"] = hostile;
  const std::vector<ProbeRow> rows = {Row(doc)};
  const std::string md = ProbeTableMarkdown(rows);
  // Each is one code span (backticks around, '|' escaped), nothing else.
  EXPECT_NE(md.find("| `` [x](http://evil) <b>\\|</b> ` `` |"), std::string::npos) << md;
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(ProbeTableText(rows).find('\x1b'), std::string::npos);
}

TEST(ProbeTableTest, RefusesWhatIsNoProbeNamingTheFile) {
  std::string err;
  EXPECT_FALSE(ParseProbeRow(R"({"schema_version": 1, "verdict": "ok", "workloads": []})",
                             "report.json", &err));
  EXPECT_EQ(err,
            "report.json is not a workgate probe (it has no \"perf\"; probe --json FILE writes "
            "one)");
  EXPECT_FALSE(ParseProbeRow("nope", "x.json", &err));
  EXPECT_EQ(err.rfind("x.json is corrupt: not valid JSON", 0), 0u) << err;
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"x.json is corrupt: auto.backend is not a workgate backend",
       [](json* j) { (*j)["auto"]["backend"] = "fastest"; }},
      {"x.json is corrupt: label is missing", [](json* j) { j->erase("label"); }},
      {"x.json is corrupt: schema_version must be an integer in [1, 1]",
       [](json* j) { (*j)["schema_version"] = 2; }},
      {"x.json is corrupt: resolution has 4 items, more than the 3 workgate writes",
       [](json* j) { (*j)["resolution"].push_back((*j)["resolution"][0]); }},
      {"x.json is corrupt: system.perf_event_paranoid must be in [-1, 4]",
       [](json* j) { (*j)["system"]["perf_event_paranoid"] = 99; }},
      {"x.json is corrupt: resolution[0].spread must be a non-negative integer",
       [](json* j) { (*j)["resolution"][0]["spread"] = "0"; }},
      {"x.json is corrupt: perf.ok must be true or false", [](json* j) { (*j)["perf"]["ok"] = 1; }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = Probe("r");
    edit(&doc);
    EXPECT_FALSE(ParseProbeRow(doc.dump(), "x.json", &err));
    EXPECT_EQ(err, message);
  }
  EXPECT_FALSE(LoadProbeRow("/nonexistent/p.json", &err));
  EXPECT_EQ(err, "the probe /nonexistent/p.json does not exist");
}

TEST(ProbeTableTest, ReadsAProbeWorkgateWrote) {
  // probe --label runner-1 --json on a KVM guest without a PMU (also a seed
  // of probe_row_fuzz).
  std::string err;
  std::optional<ProbeRow> row =
      LoadProbeRow(testing::SourcePath("tests/report/testdata/probe_runner.json"), &err);
  ASSERT_TRUE(row) << err;
  EXPECT_EQ(row->label, "runner-1");
  EXPECT_FALSE(row->pmu_counts);
  EXPECT_EQ(ShortReason(row->pmu_reason), "the hypervisor (KVM) does not expose a PMU to this VM");
  EXPECT_EQ(row->backend, "vgcount");
  EXPECT_EQ(row->paranoid, 2);
  EXPECT_EQ(row->hypervisor, "KVM");
  ASSERT_EQ(row->resolutions.size(), 2u);
  EXPECT_TRUE(row->resolutions[0].exact);
}

}  // namespace
}  // namespace workgate
