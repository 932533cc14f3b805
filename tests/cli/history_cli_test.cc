// `workgate history` end to end: commits recorded with `count --record`,
// each one a build that does a little more work than the one before, then
// the history read back: steps, cumulative change, drift, a break where the
// conditions changed, the JSON against its schema and the HTML page.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_fixture.h"
#include "measure/git_test_repo.h"
#include "schemas/schema_check.h"
#include "test_requirements.h"

namespace workgate {
namespace {

class HistoryCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped()) return;
    std::ofstream(suite_) << "[[workload]]\nname = \"loop\"\ncommand = [\"{exe}\"]\n"
                             "clock = \"none\"\nmax_work_added = 1.0\n";
  }

  // "Commit" `n`: a build that runs the known loop 2,000,000 + n * 9,000
  // times, each commit about +0.45% of the work of the one before.
  std::string Build(int n) {
    const std::string build = Path("build-" + std::to_string(n));
    std::ofstream(build) << "#!/bin/sh\nexec " << testing::KnownLoop() << " "
                         << 2000000 + n * 9000 << "\n";
    chmod(build.c_str(), 0755);
    return build;
  }

  LaunchResult Record(int n, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"count",   "--backend", kExactBackend, "--suite",
                                     suite_,    "--exe",     Build(n),      "--record",
                                     "commit-" + std::to_string(n)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }

  const std::string suite_ = Path("loop.toml");
  testing::SchemaCheck schemas_{dir_.path()};
};

TEST_F(HistoryCliTest, SmallStepsThatAddUpPastTheMarginAreDrift) {
  for (int n = 0; n < 6; ++n) ASSERT_EQ(Record(n).exit_code, 0) << n;
  LaunchResult h = Run({"history", "--json", "h.json", "--html", "h.html"});
  EXPECT_EQ(h.exit_code, 1) << h.out << h.err;  // drift upwards is work added
  EXPECT_NE(h.out.find("drift"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("commit-5"), std::string::npos) << h.out;

  const nlohmann::json j = ReadJson("h.json");
  ASSERT_EQ(j["series"].size(), 1u) << j.dump(1);
  const nlohmann::json& s = j["series"][0];
  EXPECT_EQ(s["workload"], "loop");
  EXPECT_EQ(s["backend"], kExactBackend);
  EXPECT_TRUE(s["drift"]);
  EXPECT_FALSE(s["step_crossed"]);
  ASSERT_EQ(s["points"].size(), 6u);
  // Each count is stored twice (--record counts a recorded build twice on
  // Valgrind), and they agree.
  EXPECT_EQ(s["points"][0]["counts"].size(), 2u);
  EXPECT_EQ(s["points"][0]["counts"][0], s["points"][0]["counts"][1]);
  for (size_t i = 1; i < 6; ++i) {
    const double step = s["points"][i]["step"].get<double>();
    EXPECT_GT(step, 0.002) << i;
    EXPECT_LT(step, 0.01) << i;
  }
  EXPECT_GT(s["cumulative"].get<double>(), 0.01);
  EXPECT_NEAR(s["cumulative"].get<double>(),
              s["points"][5]["value"].get<double>() / s["points"][0]["value"].get<double>() - 1,
              1e-12);

  if (schemas_.Available()) {
    LaunchResult v = schemas_.Validate(true, "history.schema.json", {Path("h.json")});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  }
  const std::string html = ReadFile(Path("h.html")).value_or("");
  size_t points = 0;
  for (size_t at = html.find("<circle class=\"point\""); at != std::string::npos;
       at = html.find("<circle class=\"point\"", at + 1)) {
    ++points;
  }
  EXPECT_EQ(points, 6u);

  // The window: the last 3 commits moved less than the margin.
  LaunchResult last = Run({"history", "--last", "3", "--json", "last.json"});
  EXPECT_EQ(last.exit_code, 0) << last.out << last.err;
  EXPECT_EQ(ReadJson("last.json")["series"][0]["points"].size(), 3u);
  EXPECT_FALSE(ReadJson("last.json")["series"][0]["drift"]);
  // A wider margin: no drift.
  EXPECT_EQ(Run({"history", "--max-work-added", "5"}).exit_code, 0);
}

TEST_F(HistoryCliTest, ARecordedSubjectIsShownAndNeedsRecord) {
  // What a PR's author may write: a dash first, markup, an escape, a C1
  // control (U+009B, CSI) and more than 200 characters.
  const std::string subject = "-x <i>fast</i> \033]0;t\007 \u009b2J " + std::string(300, 's');
  ASSERT_EQ(Record(0, {"--record-subject=" + subject}).exit_code, 0);
  ASSERT_EQ(Record(1).exit_code, 0);  // no subject for this one
  LaunchResult h = Run({"history", "--json", "h.json", "--html", "h.html"});
  EXPECT_EQ(h.exit_code, 0) << h.out << h.err;
  const nlohmann::json doc = ReadJson("h.json");
  const nlohmann::json& points = doc["series"][0]["points"];
  ASSERT_EQ(points.size(), 2u);
  // Control characters become spaces (U+009B's two bytes one), cut at 200
  // code points: 26 before the s's, so 174 of them and "…".
  EXPECT_EQ(points[0]["subject"], "-x <i>fast</i>  ]0;t   2J " + std::string(174, 's') + "…")
      << points[0]["subject"];
  EXPECT_TRUE(points[1]["subject"].is_null());
  EXPECT_NE(h.out.find("-x <i>fast</i>  ]0;t   2J sss"), std::string::npos) << h.out;
  EXPECT_EQ(h.out.find('\033'), std::string::npos);
  const std::string html = ReadFile(Path("h.html")).value_or("");
  EXPECT_NE(html.find("-x &lt;i&gt;fast&lt;/i&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<i>fast"), std::string::npos);
  // A subject belongs to a record.
  LaunchResult alone = Run({"count", "--backend", kExactBackend, "--suite", suite_, "--exe",
                            Build(2), "--record-subject", "no record"});
  EXPECT_EQ(alone.exit_code, 2) << alone.out << alone.err;
  EXPECT_NE(alone.err.find("--record-subject requires --record"), std::string::npos) << alone.err;
}

TEST_F(HistoryCliTest, ACommitOfTheCheckoutIsShownByItsDate) {
  // Two commits of a checkout, made on days of their own in UTC-7.
  const std::string checkout = Path("checkout");
  std::filesystem::create_directories(checkout);
  std::ofstream(checkout + "/a.c") << "int a;\n";
  const std::string on_1st = "GIT_COMMITTER_DATE='2025-12-01T09:15:00-0700' ";
  const std::string on_2nd = "GIT_COMMITTER_DATE='2025-12-02T10:30:00-0700' ";
  testing::ShellIn(checkout, "git init -q . && git add a.c && " + on_1st + testing::kGitCommit +
                                 " -m first && " + on_2nd + testing::kGitCommit +
                                 " --allow-empty -m second && git tag v2");
  const std::string first = testing::ShellOutputIn(checkout, "git rev-parse HEAD~1");
  ASSERT_EQ(first.size(), 40u);
  // count finds the checkout as a CI names it; compare by --source-root.
  std::map<std::string, std::string> env = MinimalEnvironment(dir_.path());
  env["GITHUB_WORKSPACE"] = checkout;
  LaunchResult r = Run({"count", "--backend", kExactBackend, "--suite", suite_, "--exe", Build(0),
                        "--record", first},
                       env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = Run({"compare", "--backend", kExactBackend, "--baseline", Build(0), "--candidate", Build(1),
           "--suite", suite_, "--timed", "0", "--record", "v2", "--source-root", checkout});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // A label names no commit: the time it was recorded, said as such.
  ASSERT_EQ(Record(2).exit_code, 0);
  LaunchResult h = Run({"history", "--json", "h.json"});
  EXPECT_EQ(h.exit_code, 0) << h.out << h.err;
  const nlohmann::json points = ReadJson("h.json")["series"][0]["points"];
  ASSERT_EQ(points.size(), 3u) << points.dump(1);
  EXPECT_EQ(points[0]["committed_at"], "2025-12-01T16:15:00Z");
  EXPECT_EQ(points[1]["committed_at"], "2025-12-02T17:30:00Z");
  EXPECT_TRUE(points[2]["committed_at"].is_null());
  // The terminal's table: each ref's row with its date.
  auto row = [&h](const std::string& ref) {
    const size_t at = h.out.find("\n  " + ref + " ");
    return at == std::string::npos ? "" : h.out.substr(at + 1, h.out.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(row("ref").find(" commit date "), std::string::npos) << h.out;
  EXPECT_NE(row(first).find(" 2025-12-01 16:15 UTC "), std::string::npos) << h.out;
  EXPECT_NE(row("v2").find(" 2025-12-02 17:30 UTC "), std::string::npos) << h.out;
  const std::string at = points[2]["recorded_at"].get<std::string>();
  const std::string readable = at.substr(0, 10) + " " + at.substr(11, 5) + " UTC";
  EXPECT_NE(row("commit-2").find(" recorded " + readable + " "), std::string::npos) << h.out;
}

TEST_F(HistoryCliTest, ChangedConditionsBreakTheSeries) {
  ASSERT_EQ(Record(0).exit_code, 0);
  ASSERT_EQ(Record(1).exit_code, 0);
  // Another environment from here on: counts before and after do not compare.
  ASSERT_EQ(Record(2, {"--env", "EXTRA=1"}).exit_code, 0);
  ASSERT_EQ(Record(3, {"--env", "EXTRA=1"}).exit_code, 0);
  LaunchResult h = Run({"history", "--json", "h.json"});
  EXPECT_EQ(h.exit_code, 0) << h.out << h.err;
  const nlohmann::json doc = ReadJson("h.json");
  const nlohmann::json& points = doc["series"][0]["points"];
  ASSERT_EQ(points.size(), 4u);
  EXPECT_TRUE(points[2]["break_before"]);
  EXPECT_TRUE(points[2]["step"].is_null());
  EXPECT_EQ(points[2]["changed"], nlohmann::json::array({"environment"}));
  EXPECT_FALSE(points[3]["break_before"]);
}

TEST_F(HistoryCliTest, OnPerfCountsAreKeptForHistoryOnlyAndTheNoiseFloorComesFromIt) {
  // perf's plumbing with a software event whose counts vary run to run: each
  // record is counted anew (never taken from the store), and the history
  // estimates the noise of a count from its own consecutive differences.
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_TASK_CLOCK);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  for (int n = 0; n < 5; ++n) {
    LaunchResult r =
        Run({"count", "--backend", "perf", "--event", "perf::task-clock", "--suite", suite_,
             "--exe", Build(0), "--record", "run-" + std::to_string(n), "--json", "count.json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const nlohmann::json count = ReadJson("count.json");
    EXPECT_TRUE(count["workloads"][0]["from_store"].is_null()) << n;
    EXPECT_EQ(count["workloads"][0]["runs"].size(), 1u) << n;
  }
  LaunchResult h = Run({"history", "--json", "h.json"});
  ASSERT_TRUE(h.exit_code == 0 || h.exit_code == 1) << h.out << h.err;
  const nlohmann::json doc = ReadJson("h.json");
  const nlohmann::json& s = doc["series"][0];
  EXPECT_EQ(s["backend"], "perf");
  EXPECT_EQ(s["event"], "perf::task-clock");
  EXPECT_EQ(s["points"].size(), 5u);
  EXPECT_EQ(s["noise_differences"], 4);
  ASSERT_TRUE(s["noise_floor"].is_number()) << s.dump(1);
  EXPECT_GT(s["noise_floor"].get<double>(), 0);
  EXPECT_NE(h.out.find("noise"), std::string::npos) << h.out;
}

TEST_F(HistoryCliTest, AnEmptyStoreAndAnUnknownWorkload) {
  LaunchResult empty = Run({"history"});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.out.find("nothing is recorded"), std::string::npos) << empty.out;
  ASSERT_EQ(Record(0).exit_code, 0);
  LaunchResult unknown = Run({"history", "--workload", "nosuch"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("nothing is recorded of workload 'nosuch'"), std::string::npos)
      << unknown.err;
  // compare --record records the candidate, under the same history.
  LaunchResult gate = Run({"compare", "--backend", kExactBackend, "--baseline", Build(0),
                           "--candidate", Build(1), "--suite", suite_, "--timed", "0",
                           "--record", "commit-1", "--json", "gate.json"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_EQ(ReadJson("gate.json")["store"]["recorded_as"], "commit-1");
  EXPECT_NE(gate.out.find("recorded in the store's history as commit-1"), std::string::npos)
      << gate.out;
  ASSERT_EQ(Run({"history", "--json", "h.json"}).exit_code, 0);
  EXPECT_EQ(ReadJson("h.json")["series"][0]["points"].size(), 2u);
}

}  // namespace
}  // namespace workgate
