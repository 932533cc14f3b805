#include "gate/baseline_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

namespace workgate {
namespace {

class BaselineFileTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "/wg_baseline_XXXXXX";
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  static WorkloadResult Workload(const std::string& name, uint64_t count) {
    WorkloadResult w;
    w.name = name;
    w.candidate.counts = {count, count + 1};
    w.candidate.score = "10.000";
    w.candidate.fingerprint.backend = "callgrind";
    w.candidate.fingerprint.event = "Ir";
    w.candidate.fingerprint.valgrind_version = "3.19.0";
    w.candidate.fingerprint.valgrind_path = "/usr/bin/valgrind";
    w.candidate.fingerprint.argv = {"./exe", "--quick"};
    w.candidate.fingerprint.env = {{"WORKGATE_FIXED_CLOCK", "1"}};
    w.candidate.fingerprint.libraries = {{"/lib/libc.so.6", std::string(64, 'b')}};
    return w;
  }

  std::string LoadError(const std::string& path) {
    std::string err;
    EXPECT_FALSE(LoadBaselineFile(path, &err));
    return err;
  }

  std::string dir_;
};

TEST_F(BaselineFileTest, RoundTrip) {
  std::vector<WorkloadResult> results = {Workload("fib", 1000), Workload("sort", 2000)};
  results[1].candidate.score.reset();
  std::string err;
  std::optional<BaselineFile> file = BaselineFromResults(results, true, "0.1.0", "build/new", &err);
  ASSERT_TRUE(file) << err;
  const std::string path = dir_ + "/baseline.json";
  ASSERT_TRUE(SaveBaselineFile(path, *file, &err)) << err;

  std::optional<BaselineFile> loaded = LoadBaselineFile(path, &err);
  ASSERT_TRUE(loaded) << err;
  EXPECT_EQ(loaded->schema_version, kBaselineSchemaVersion);
  EXPECT_EQ(loaded->workgate_version, "0.1.0");
  EXPECT_EQ(loaded->label, "build/new");
  ASSERT_EQ(loaded->workloads.size(), 2u);
  const StoredWorkload* fib = loaded->Find("fib");
  ASSERT_NE(fib, nullptr);
  EXPECT_EQ(fib->counts, (std::vector<uint64_t>{1000, 1001}));
  EXPECT_EQ(fib->score, "10.000");
  EXPECT_EQ(fib->fingerprint.backend, "callgrind");
  EXPECT_EQ(fib->fingerprint.valgrind_path, "/usr/bin/valgrind");
  EXPECT_EQ(fib->fingerprint.argv, results[0].candidate.fingerprint.argv);
  EXPECT_EQ(fib->fingerprint.env, results[0].candidate.fingerprint.env);
  EXPECT_EQ(fib->fingerprint.libraries, results[0].candidate.fingerprint.libraries);
  EXPECT_EQ(loaded->Find("sort")->score, std::nullopt);
  EXPECT_EQ(loaded->Find("nope"), nullptr);
}

TEST_F(BaselineFileTest, RefusesToSaveIncompleteEvidence) {
  std::vector<WorkloadResult> results = {Workload("fib", 1000)};
  results[0].candidate.error = "exited with status 2";
  std::string err;
  EXPECT_FALSE(BaselineFromResults(results, true, "0.1.0", "x", &err));
  EXPECT_NE(err.find("fib"), std::string::npos) << err;
  EXPECT_NE(err.find("exited with status 2"), std::string::npos) << err;
  // The baseline side of these results was never counted.
  results[0].candidate.error.clear();
  EXPECT_FALSE(BaselineFromResults(results, false, "0.1.0", "x", &err));
  EXPECT_NE(err.find("no instruction count"), std::string::npos) << err;
}

TEST_F(BaselineFileTest, LoadErrorsSayWhatIsWrong) {
  EXPECT_NE(LoadError(dir_ + "/missing.json").find("does not exist"), std::string::npos);
  EXPECT_NE(LoadError(dir_).find("is a directory"), std::string::npos);
  EXPECT_NE(LoadError(Write("bad.json", "{\"format\": ")).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(LoadError(Write("other.json", "{\"verdict\": \"ok\"}")).find("not a workgate baseline"),
            std::string::npos);
  std::string v2 = LoadError(Write(
      "v2.json", "{\"format\": \"workgate-baseline\", \"schema_version\": 2, \"workloads\": []}"));
  EXPECT_NE(v2.find("schema_version 2; this workgate reads version 1"), std::string::npos) << v2;
  EXPECT_NE(LoadError(Write("nov.json", "{\"format\": \"workgate-baseline\"}"))
                .find("no integer schema_version"),
            std::string::npos);
}

TEST_F(BaselineFileTest, MalformedWorkloadsNameTheField) {
  const std::string head = "{\"format\": \"workgate-baseline\", \"schema_version\": 1, ";
  struct Case {
    const char* body;
    const char* expected;
  };
  const Case cases[] = {
      {"\"workloads\": 3}", "workloads must be a list"},
      {"\"workloads\": [{\"counts\": [1], \"fingerprint\": {}}]}",
       "workloads[0].name must be a non-empty string"},
      {"\"workloads\": [{\"name\": \"a\", \"fingerprint\": {}}]}",
       "workloads[0].counts is missing"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [-1], \"fingerprint\": {}}]}",
       "workloads[0].counts must be a list of non-negative integers"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1.5], \"fingerprint\": {}}]}",
       "workloads[0].counts must be a list of non-negative integers"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [], \"fingerprint\": {}}]}",
       "workloads[0].counts is empty"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"score\": 3, \"fingerprint\": {}}]}",
       "workloads[0].score must be a string or null"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1]}]}",
       "workloads[0].fingerprint is missing"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {\"argv\": [1]}}]}",
       "workloads[0].fingerprint.argv must be a list of strings"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {\"env\": {\"A\": "
       "1}}}]}",
       "workloads[0].fingerprint.env.A must be a string"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}}, "
       "{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}}]}",
       "workload a appears twice"},
  };
  int i = 0;
  for (const Case& c : cases) {
    std::string err = LoadError(Write("case" + std::to_string(i++) + ".json", head + c.body));
    EXPECT_NE(err.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in '" << err << "'";
  }
}

TEST_F(BaselineFileTest, ApplyStoredBaseline) {
  std::string err;
  std::vector<WorkloadResult> saved = {Workload("fib", 1000)};
  BaselineFile file = *BaselineFromResults(saved, true, "0.1.0", "old", &err);

  WorkloadResult w = Workload("fib", 1020);
  w.candidate.fingerprint.libraries.clear();  // libraries may differ
  ApplyStoredBaseline(file, "b.json", &w);
  EXPECT_EQ(w.baseline.error, "");
  EXPECT_EQ(w.baseline.counts, (std::vector<uint64_t>{1000, 1001}));
  EXPECT_EQ(w.baseline.score, "10.000");

  WorkloadResult other = Workload("sort", 10);
  ApplyStoredBaseline(file, "b.json", &other);
  EXPECT_EQ(other.baseline.error, "the stored baseline b.json has no workload sort");

  WorkloadResult moved = Workload("fib", 1000);
  moved.candidate.fingerprint.valgrind_version = "3.22.0";
  ApplyStoredBaseline(file, "b.json", &moved);
  EXPECT_NE(moved.baseline.error.find("not comparable: Valgrind version differs"),
            std::string::npos)
      << moved.baseline.error;
}

}  // namespace
}  // namespace workgate
