// The result store end to end: the real workgate, a real store file, real
// Valgrind runs. A wrapper in front of Valgrind logs every run it is asked
// for, so a test can say how many counts a command really took.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

class StoreCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped()) return;
    // Every run but `--version` is one count (or a profile rerun), logged in
    // the workloads' TMPDIR: a directory that exists, which every run shares
    // (their /tmp is each run's own).
    wrapper_ = Path("valgrind-logging");
    std::ofstream(wrapper_) << "#!/bin/sh\n"
                            << "[ \"$1\" = --version ] || echo run >> \"$TMPDIR/valgrind.log\""
                            << "\nexec " << FindValgrind().path << " \"$@\"\n";
    chmod(wrapper_.c_str(), 0755);
    std::filesystem::create_directory(Path("runs"));
  }

  // workgate with the logging Valgrind and the store at `store` (one per
  // test; HOME is the test's directory, so the default store is its own too).
  LaunchResult Workgate(std::vector<std::string> args) {
    std::map<std::string, std::string> env = MinimalEnvironment(dir_.path());
    env["WORKGATE_VALGRIND"] = wrapper_;
    args.insert(args.begin() + 1, {"--env", "TMPDIR=" + Path("runs")});
    return Run(args, env);
  }

  // How many Valgrind runs the commands so far asked for.
  int Runs() {
    std::ifstream in(Path("runs/valgrind.log"));
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  LaunchResult Compare(const std::string& baseline, const std::string& candidate,
                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare",  "--backend",  kExactBackend, "--baseline",
                                     baseline,   "--candidate", candidate,    "--suite",
                                     suite_,     "--workload", "work",        "--timed",
                                     "0",        "--store",    store_};
    // The store keeps counts, not the simulated events a work verdict
    // brings (docs/store.md): these gates leave them out, so that what they
    // run is what the store spares.
    if (std::find(extra.begin(), extra.end(), "--events") == extra.end()) {
      args.insert(args.end(), {"--events", "never"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return Workgate(args);
  }

  std::string wrapper_;
  const std::string suite_ = testing::SourcePath("tests/cli/testdata/known_work.toml");
  std::string store_ = Path("store/results.sqlite3");
};

TEST_F(StoreCliTest, ASecondGateOfTheSameBuildsRunsNothing) {
  LaunchResult cold = Compare(kKnownWorkA, kKnownWorkB, {"--json", "cold.json"});
  ASSERT_EQ(cold.exit_code, 1) << cold.out << cold.err;
  const int cold_runs = Runs();
  EXPECT_GE(cold_runs, 2);
  nlohmann::json j = ReadJson("cold.json");
  EXPECT_EQ(j["store"]["path"], store_);
  EXPECT_TRUE(j["workloads"][0]["baseline"]["from_store"].is_null());

  LaunchResult warm = Compare(kKnownWorkA, kKnownWorkB, {"--json", "warm.json"});
  ASSERT_EQ(warm.exit_code, 1) << warm.out << warm.err;
  EXPECT_EQ(Runs(), cold_runs) << "the warm gate ran Valgrind";
  nlohmann::json w = ReadJson("warm.json");
  EXPECT_EQ(w["workloads"][0]["delta"], 1000000);
  EXPECT_EQ(w["workloads"][0]["delta"], j["workloads"][0]["delta"]);
  const nlohmann::json& from = w["workloads"][0]["baseline"]["from_store"];
  ASSERT_TRUE(from.is_object()) << w.dump(2);
  EXPECT_EQ(from["label"], kKnownWorkA);
  EXPECT_TRUE(from["ref"].is_null());
  EXPECT_TRUE(w["workloads"][0]["candidate"]["from_store"].is_object());
  EXPECT_NE(warm.out.find("Baseline from the store for 1 of 1 workload, counted on "),
            std::string::npos)
      << warm.out;
  EXPECT_NE(warm.out.find("Candidate from the store for 1 of 1 workload"), std::string::npos)
      << warm.out;
  // The explanation's profiles came from the store too.
  ASSERT_TRUE(w["workloads"][0]["explanation"].is_object());
  EXPECT_TRUE(w["workloads"][0]["explanation"]["error"].is_null())
      << w["workloads"][0]["explanation"].dump();
  EXPECT_EQ(w["workloads"][0]["explanation"]["total_delta"], 1000000);
  EXPECT_TRUE(w["workloads"][0]["explanation"]["rerun"].empty());
}

TEST_F(StoreCliTest, AnIdenticalCandidateIsTakenFromItsBaselinesCount) {
  // A pull request that changes nothing the count depends on: its build is
  // the merge base's, bit for bit, and is not counted again.
  LaunchResult aa = Compare(kKnownWorkA, kKnownWorkA, {"--json", "aa.json"});
  ASSERT_EQ(aa.exit_code, 0) << aa.out << aa.err;
  EXPECT_EQ(Runs(), 1);
  nlohmann::json j = ReadJson("aa.json");
  EXPECT_TRUE(j["workloads"][0]["baseline"]["from_store"].is_null());
  EXPECT_EQ(j["workloads"][0]["candidate"]["from_store"]["label"], kKnownWorkA);
  EXPECT_EQ(j["workloads"][0]["delta"], 0);
  // Which says nothing of whether the workload repeats: the report says so,
  // and how to check it.
  const std::string note =
      "the baseline and the candidate are one build, and the candidate's counts came from the "
      "store (the baseline's, or an earlier run's): this run does not show whether the "
      "workloads repeat; to check that, run compare --aa";
  EXPECT_NE(std::find(j["store"]["notes"].begin(), j["store"]["notes"].end(), note),
            j["store"]["notes"].end())
      << j["store"].dump();
  EXPECT_NE(aa.out.find("Store: " + note), std::string::npos) << aa.out;
  // Two builds: no such note.
  LaunchResult ab = Compare(kKnownWorkA, kKnownWorkB, {"--json", "ab.json"});
  ASSERT_EQ(ab.exit_code, 1) << ab.out << ab.err;
  EXPECT_EQ(ab.out.find("this run does not show whether"), std::string::npos) << ab.out;
}

// compare --aa is the A/A check done properly: the one build on both sides,
// every count made now (a store that holds its counts is not read) and made
// again, and the answer under the verdict: deterministic, or which workload
// is not, with exit 4.
TEST_F(StoreCliTest, TheAaCheckCountsFromScratchAndSaysWhetherEachWorkloadRepeats) {
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkA).exit_code, 0);
  const int before = Runs();
  LaunchResult aa = Workgate({"compare", "--aa", "--backend", kExactBackend, "--baseline",
                              kKnownWorkA, "--suite", suite_, "--workload", "work", "--timed",
                              "0", "--json", "aa.json"});
  ASSERT_EQ(aa.exit_code, 0) << aa.out << aa.err;
  EXPECT_EQ(Runs() - before, 4) << "two counts a side, none from the store";
  const nlohmann::json j = ReadJson("aa.json");
  EXPECT_TRUE(j["workloads"][0]["candidate"]["from_store"].is_null()) << j.dump();
  const std::string repeats =
      "A/A check: one build on both sides, every count from scratch: the workload did the same "
      "work in every count (4 counts each): it is deterministic on this machine";
  EXPECT_EQ(j["notes"], nlohmann::json::array({repeats})) << j.dump();
  EXPECT_NE(aa.out.find(repeats), std::string::npos) << aa.out;

  // A program that does more work each run: named, with its spread, exit 4.
  // Its state is in the runs' shared TMPDIR: each run's /tmp is its own.
  std::ofstream(Path("runs/state")) << "1\n";
  const std::string state = "$TMPDIR/state";
  LaunchResult grows = Workgate(
      {"compare", "--aa", "--backend", kExactBackend, "--baseline", "/bin/sh", "--timed", "0",
       "--max-repeat", "3", "--json", "grows.json", "--name", "grows", "--", "{exe}", "-c",
       "read n < " + state + "; echo $((n * 2)) > " + state +
           "; i=0; while [ $i -lt $n ]; do i=$((i+1)); done"});
  EXPECT_EQ(grows.exit_code, 4) << grows.out << grows.err;
  const nlohmann::json g = ReadJson("grows.json");
  EXPECT_EQ(g["verdict"], "inconclusive") << g.dump();
  ASSERT_EQ(g["notes"].size(), 1u) << g.dump();
  EXPECT_EQ(g["notes"][0].get<std::string>().rfind(
                "A/A check: one build on both sides, every count from scratch: grows (", 0),
            0u)
      << g.dump();
  EXPECT_NE(g["notes"][0].get<std::string>().find(" counts differ by up to "), std::string::npos)
      << g.dump();

  // What an A/A check cannot take.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--candidate", kKnownWorkB}, {"--store", store_},
        {"--stability", "never"}, {"--record", "HEAD"}}) {
    std::vector<std::string> args = {"compare", "--aa", "--backend", kExactBackend, "--baseline",
                                     kKnownWorkA, "--suite", suite_};
    args.insert(args.end(), extra.begin(), extra.end());
    LaunchResult refused = Workgate(args);
    EXPECT_EQ(refused.exit_code, 2) << extra[0] << ": " << refused.err;
    EXPECT_NE(refused.err.find("--aa"), std::string::npos) << refused.err;
  }
}

TEST_F(StoreCliTest, AChangedPartMissesTheCache) {
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkA).exit_code, 0);
  ASSERT_EQ(Runs(), 1);
  // Another environment: both sides run again (the candidate then from the
  // baseline's new count).
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkA, {"--env", "EXTRA=1"}).exit_code, 0);
  EXPECT_EQ(Runs(), 2);
  // Another binary with the same code (one byte more at its end): only that
  // side is counted.
  const std::string copy = Path("known_work_a_copy");
  std::filesystem::copy_file(kKnownWorkA, copy);
  std::ofstream(copy, std::ios::app) << '\0';
  chmod(copy.c_str(), 0755);
  LaunchResult other = Compare(kKnownWorkA, copy, {"--json", "other.json"});
  ASSERT_EQ(other.exit_code, 0) << other.out << other.err;
  EXPECT_EQ(Runs(), 3);
  nlohmann::json j = ReadJson("other.json");
  EXPECT_TRUE(j["workloads"][0]["baseline"]["from_store"].is_object());
  EXPECT_TRUE(j["workloads"][0]["candidate"]["from_store"].is_null());
  EXPECT_EQ(j["workloads"][0]["delta"], 0);
  // --no-store counts everything and keeps nothing.
  LaunchResult none = Workgate({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                                "--candidate", kKnownWorkA, "--suite", suite_, "--workload", "work",
                                "--timed", "0", "--no-store", "--json", "none.json"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(Runs(), 5);
  EXPECT_TRUE(ReadJson("none.json")["store"].is_null());
}

TEST_F(StoreCliTest, ARecordedBaselineIsNamedByItsRefAndNeedsNoStabilityCheck) {
  // The default branch records its commit: counted twice on Valgrind.
  LaunchResult record = Workgate({"count", "--backend", kExactBackend, "--suite", suite_,
                                  "--workload", "work", "--exe", kKnownWorkA, "--store", store_,
                                  "--record", "abc1234", "--json", "count.json"});
  ASSERT_EQ(record.exit_code, 0) << record.out << record.err;
  EXPECT_EQ(Runs(), 2);
  EXPECT_NE(record.out.find("recorded in the store's history as abc1234"), std::string::npos)
      << record.out;
  EXPECT_EQ(ReadJson("count.json")["store"]["recorded_as"], "abc1234");

  // A pull request on it: the baseline is the recorded count, and its two
  // equal counts already show that it repeats, although the delta (+904%)
  // is under four margins (which would otherwise count the baseline again).
  LaunchResult gate = Compare(kKnownWorkA, kKnownWorkB,
                              {"--max-work-added", "1000", "--json", "gate.json"});
  ASSERT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_EQ(Runs(), 3);  // the candidate's one count
  nlohmann::json j = ReadJson("gate.json");
  const nlohmann::json& w = j["workloads"][0];
  EXPECT_EQ(w["baseline"]["from_store"]["ref"], "abc1234");
  EXPECT_EQ(w["baseline"]["counts"].size(), 2u);
  EXPECT_TRUE(w["stability"]["checked"]);
  EXPECT_FALSE(w["stability"]["unstable"]);
  EXPECT_NE(gate.out.find("Baseline from the store for 1 of 1 workload, counted at abc1234 on "),
            std::string::npos)
      << gate.out;
  // The recorded count kept its profile: explaining needs no run of the baseline.
  LaunchResult explained = Compare(kKnownWorkA, kKnownWorkB, {"--explain", "always", "--json",
                                                              "explained.json"});
  ASSERT_EQ(explained.exit_code, 1) << explained.err;
  EXPECT_EQ(Runs(), 3);
  const nlohmann::json doc = ReadJson("explained.json");
  const nlohmann::json& e = doc["workloads"][0]["explanation"];
  EXPECT_TRUE(e["rerun"].empty()) << e.dump();
  EXPECT_EQ(e["total_delta"], 1000000) << e.dump();
}

TEST_F(StoreCliTest, ADamagedStoreIsMovedAsideAndTheGateCountsAnyway) {
  std::filesystem::create_directories(Path("store"));
  // SQLite's header with workgate's application_id, then garbage: a store of
  // workgate's that was damaged.
  std::string damaged(8192, 'x');
  damaged.replace(0, 16, std::string("SQLite format 3\0", 16));
  damaged.replace(68, 4, "wgat");
  std::ofstream(store_) << damaged;
  LaunchResult gate = Compare(kKnownWorkA, kKnownWorkB, {"--json", "gate.json"});
  ASSERT_EQ(gate.exit_code, 1) << gate.out << gate.err;
  nlohmann::json j = ReadJson("gate.json");
  const std::string notes = j["store"]["notes"].dump();
  EXPECT_NE(notes.find(store_ + ".corrupt-"), std::string::npos) << notes;
  EXPECT_EQ(j["workloads"][0]["delta"], 1000000);
  bool moved = false;
  for (const auto& entry : std::filesystem::directory_iterator(Path("store"))) {
    moved = moved || entry.path().filename().string().rfind("results.sqlite3.corrupt-", 0) == 0;
  }
  EXPECT_TRUE(moved);
  // The fresh store in its place keeps this gate's counts.
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkB).exit_code, 1);
  EXPECT_EQ(Runs(), 2);
}

TEST_F(StoreCliTest, TwoGatesAtOnceShareOneStore) {
  // Two CI jobs on one runner: both count, both keep their counts, neither
  // fails on the other's lock.
  LaunchResult results[2];
  std::thread other([&] { results[1] = Compare(kKnownWorkA, kKnownWorkB, {"--json", "b.json"}); });
  results[0] = Compare(kKnownWorkB, kKnownWorkA, {"--json", "a.json"});
  other.join();
  EXPECT_EQ(results[0].exit_code, 0) << results[0].err;
  EXPECT_EQ(results[1].exit_code, 1) << results[1].err;
  EXPECT_TRUE(ReadJson("a.json")["store"]["notes"].empty()) << ReadJson("a.json")["store"];
  EXPECT_TRUE(ReadJson("b.json")["store"]["notes"].empty()) << ReadJson("b.json")["store"];
  const int runs = Runs();
  ASSERT_EQ(Compare(kKnownWorkA, kKnownWorkB).exit_code, 1);
  ASSERT_EQ(Compare(kKnownWorkB, kKnownWorkA).exit_code, 0);
  EXPECT_EQ(Runs(), runs);
}

TEST_F(StoreCliTest, RecordNeedsTheStore) {
  LaunchResult r = Compare(kKnownWorkA, kKnownWorkB, {"--record", "x", "--no-store"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = Workgate({"count", "--record", "x", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // A store that cannot be opened stops a recording run before it counts.
  std::ofstream(Path("file")) << "a file, not a directory\n";
  r = Workgate({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
                kKnownWorkB, "--suite", suite_, "--workload", "work", "--timed", "0", "--store",
                Path("file") + "/results.sqlite3", "--record", "x"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("--record x needs the result store"), std::string::npos) << r.err;
  EXPECT_EQ(Runs(), 0);
}

}  // namespace
}  // namespace workgate
