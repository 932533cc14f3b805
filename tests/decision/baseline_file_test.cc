#include "decision/baseline_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "test_paths.h"

namespace workgate {
namespace {

class BaselineFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/wg_baseline_XXXXXX";
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

TEST_F(BaselineFileTest, KeepsEachWorkloadsProfileOrWhyItHasNone) {
  std::vector<WorkloadResult> results = {Workload("fib", 1000), Workload("sort", 2000)};
  PackedProfile packed;
  packed.profiler = "vgcount";
  packed.object = "wgi-baseline";
  packed.ran = "/tmp/workgate-builds.x/0/wgi-baseline";
  packed.build = "/src/build/wgi-baseline";
  packed.total = 1000;
  // Bytes of every value, as gzip is: base64 carries them through JSON.
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += static_cast<char>(b);
  packed.gzip_files = {{"vgcount.profile.1", bytes}, {"vgcount.profile.2", "x"}};
  results[0].candidate.profile = packed;
  results[1].candidate.no_profile = std::string(5000, 'w');  // cut to a sentence
  std::string err;
  std::optional<BaselineFile> file = BaselineFromResults(results, true, "0.1.0", "b", &err);
  ASSERT_TRUE(file) << err;
  const std::string path = dir_ + "/baseline.json";
  ASSERT_TRUE(SaveBaselineFile(path, *file, &err)) << err;
  std::optional<BaselineFile> loaded = LoadBaselineFile(path, &err);
  ASSERT_TRUE(loaded) << err;
  const std::optional<PackedProfile>& fib = loaded->Find("fib")->profile;
  ASSERT_TRUE(fib);
  EXPECT_EQ(fib->profiler, "vgcount");
  EXPECT_EQ(fib->object, "wgi-baseline");
  EXPECT_EQ(fib->ran, packed.ran);
  EXPECT_EQ(fib->build, packed.build);
  EXPECT_EQ(fib->total, 1000u);
  EXPECT_EQ(fib->gzip_files, packed.gzip_files);
  EXPECT_TRUE(loaded->Find("fib")->no_profile.empty());
  const StoredWorkload* sort = loaded->Find("sort");
  EXPECT_FALSE(sort->profile);
  EXPECT_LE(sort->no_profile.size(), kMaxNoProfileBytes);
  EXPECT_EQ(sort->no_profile.substr(0, 10), "wwwwwwwwww");
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
  EXPECT_EQ(LoadError(dir_ + "/missing.json"),
            "the stored baseline " + dir_ + "/missing.json does not exist");
  EXPECT_EQ(LoadError(dir_), "the stored baseline " + dir_ + " is a directory, not a file");
  EXPECT_EQ(LoadError("/dev/zero"),
            "the stored baseline /dev/zero is a device, not a regular file");
  const std::string bad = Write("bad.json", "{\"format\": ");
  EXPECT_EQ(
      LoadError(bad).rfind("the stored baseline " + bad +
                               " is corrupt: not valid JSON: parse error at line 1, column 12:",
                           0),
      0u)
      << LoadError(bad);
  EXPECT_NE(LoadError(Write("other.json", "{\"verdict\": \"ok\"}")).find("not a workgate baseline"),
            std::string::npos);
  // Version 1 kept no profiles: saved again, the baseline explains.
  std::string v1 = LoadError(Write(
      "v1.json", "{\"format\": \"workgate-baseline\", \"schema_version\": 1, \"workloads\": []}"));
  EXPECT_NE(v1.find("v1.json has schema_version 1; this workgate reads version 2 (save the "
                    "baseline again)"),
            std::string::npos)
      << v1;
  // A version that does not fit an int is shown as written, not wrapped.
  std::string huge = LoadError(Write("vhuge.json",
                                     "{\"format\": \"workgate-baseline\", "
                                     "\"schema_version\": 18446744073709551617}"));
  EXPECT_NE(huge.find("is corrupt: it has no integer schema_version"), std::string::npos) << huge;
  huge = LoadError(Write("vbig.json",
                         "{\"format\": \"workgate-baseline\", "
                         "\"schema_version\": 4294967297}"));
  EXPECT_NE(huge.find("has schema_version 4294967297;"), std::string::npos) << huge;
  EXPECT_NE(LoadError(Write("nov.json", "{\"format\": \"workgate-baseline\"}"))
                .find("is corrupt: it has no integer schema_version"),
            std::string::npos);
}

TEST_F(BaselineFileTest, CountsAboveInt64MaxAreAnErrorOfTheFile) {
  const std::string head =
      "{\"format\": \"workgate-baseline\", \"schema_version\": 2, "
      "\"workloads\": [{\"name\": \"a\", \"fingerprint\": {}, \"counts\": ";
  std::string err;
  auto at = LoadBaselineFile(Write("at.json", head + "[9223372036854775807]}]}"), &err);
  ASSERT_TRUE(at) << err;
  EXPECT_EQ(at->workloads[0].counts[0], 9223372036854775807u);
  const std::string above = Write("above.json", head + "[5, 9223372036854775808]}]}");
  EXPECT_EQ(LoadError(above), "the stored baseline " + above +
                                  " is corrupt: workloads[0].counts[1] is 9223372036854775808, "
                                  "above the largest count workgate takes (9223372036854775807)");
  EXPECT_NE(LoadError(Write("max.json", head + "[18446744073709551615]}]}"))
                .find("counts[0] is 18446744073709551615, above the largest"),
            std::string::npos);
  // Beyond uint64_t, JSON numbers become floating point: not a count either.
  EXPECT_NE(LoadError(Write("beyond.json", head + "[18446744073709551616]}]}"))
                .find("counts must be a list of non-negative integers"),
            std::string::npos);
}

TEST_F(BaselineFileTest, AnUnusableFileMakesEveryWorkloadInvalidWithItsReason) {
  std::string err;
  const std::string path = Write("corrupt.json", "{ not json");
  ASSERT_FALSE(LoadBaselineFile(path, &err));
  BaselineFile file = UnusableBaseline(err);
  WorkloadResult w = Workload("fib", 1000);
  ApplyStoredBaseline(file, path, &w);
  EXPECT_EQ(w.baseline.error, err);
  EXPECT_EQ(w.baseline.error.find("has no workload"), std::string::npos) << w.baseline.error;
  EXPECT_TRUE(w.baseline.counts.empty());
}

TEST_F(BaselineFileTest, ReadsAFileWorkgateWrote) {
  // Written by `compare --save-baseline` (tests/cli/testdata/known_work.toml);
  // also a seed of ci/fuzz's baseline_file_fuzz.
  std::string err;
  auto file = LoadBaselineFile(
      testing::SourcePath("tests/decision/testdata/known_work_baseline.json"), &err);
  ASSERT_TRUE(file) << err;
  ASSERT_EQ(file->workloads.size(), 2u);
  EXPECT_EQ(file->Find("work")->counts, std::vector<uint64_t>{111466});
  EXPECT_EQ(file->Find("work")->score, "1000");
  EXPECT_EQ(file->Find("work-other-size")->fingerprint.backend, "callgrind");
  // Each keeps the profile of its count, still compressed.
  const std::optional<PackedProfile>& profile = file->Find("work")->profile;
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->profiler, "callgrind");
  EXPECT_EQ(profile->object, "exe");
  EXPECT_EQ(profile->total, 111466u);
  ASSERT_EQ(profile->gzip_files.size(), 1u);
  EXPECT_EQ(profile->gzip_files[0].second.substr(0, 2), "\x1f\x8b");  // gzip's magic
}

TEST_F(BaselineFileTest, ANumberTooLargeForADoubleIsCorruptNotACrash) {
  // Found by baseline_file_fuzz: nlohmann's parser throws out_of_range, not
  // parse_error, for 1e400, and it escaped as an uncaught exception.
  const std::string path =
      testing::SourcePath("tests/decision/testdata/fuzz_crash_number_overflow.json");
  EXPECT_EQ(LoadError(path),
            "the stored baseline " + path + " is corrupt: number overflow parsing '1e400'");
}

TEST_F(BaselineFileTest, ParsesFromText) {
  std::string err;
  auto file = ParseBaselineFile(
      "{\"format\": \"workgate-baseline\", \"schema_version\": 2, \"workloads\": "
      "[{\"name\": \"a\", \"counts\": [3], \"fingerprint\": {}}]}",
      "mem.json", &err);
  ASSERT_TRUE(file) << err;
  EXPECT_EQ(file->Find("a")->counts, std::vector<uint64_t>{3});
  EXPECT_FALSE(ParseBaselineFile("[]", "mem.json", &err));
  EXPECT_EQ(err,
            "the stored baseline mem.json is not a workgate baseline (no \"format\": "
            "\"workgate-baseline\")");
}

TEST_F(BaselineFileTest, MalformedWorkloadsNameTheField) {
  const std::string head = "{\"format\": \"workgate-baseline\", \"schema_version\": 2, ";
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

      // A profile is checked for form when read; its files are unpacked
      // (and checked as profiles) only where an explanation needs them.
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": []}]}",
       "workloads[0].profile must be an object or null"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"perf\", \"object\": \"x\", \"ran\": \"\", \"build\": \"\", "
       "\"total\": 1, \"files\": [{\"name\": \"p\", \"gzip_base64\": \"\"}]}}]}",
       "workloads[0].profile.profiler must be vgcount or callgrind"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"vgcount\", \"object\": \"../x\", \"ran\": \"\", "
       "\"build\": \"\", \"total\": 1, \"files\": [{\"name\": \"p\", \"gzip_base64\": \"\"}]}}]}",
       "workloads[0].profile.object must be a plain file name"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"vgcount\", \"object\": \"x\", \"ran\": \"\", "
       "\"build\": \"\", \"total\": -1, \"files\": [{\"name\": \"p\", \"gzip_base64\": \"\"}]}}]}",
       "workloads[0].profile.total must be a count"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"vgcount\", \"object\": \"x\", \"ran\": \"\", "
       "\"build\": \"\", \"total\": 1, \"files\": []}}]}",
       "workloads[0].profile.files must be a non-empty list"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"vgcount\", \"object\": \"x\", \"ran\": \"\", "
       "\"build\": \"\", \"total\": 1, \"files\": [{\"name\": \"../../etc/passwd\", "
       "\"gzip_base64\": \"\"}]}}]}",
       "workloads[0].profile.files[0] must have a plain file name and gzip_base64 text"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": {\"profiler\": \"vgcount\", \"object\": \"x\", \"ran\": \"\", "
       "\"build\": \"\", \"total\": 1, \"files\": [{\"name\": \"p\", \"gzip_base64\": \"a "
       "b=\"}]}}]}",
       "workloads[0].profile.files[0].gzip_base64 is not base64"},
      {"\"workloads\": [{\"name\": \"a\", \"counts\": [1], \"fingerprint\": {}, "
       "\"profile\": null, \"no_profile\": 7}]}",
       "workloads[0].no_profile must be a string of at most 1024 bytes"},
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
  std::optional<BaselineFile> made = BaselineFromResults(saved, true, "0.1.0", "old", &err);
  ASSERT_TRUE(made) << err;
  const BaselineFile& file = *made;

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

TEST_F(BaselineFileTest, SaysWhatBecameOfTheStoredBaseline) {
  std::string err;
  // Missing: nothing at the path.
  const std::string none = dir_ + "/none.json";
  ASSERT_FALSE(LoadBaselineFile(none, &err));
  ASSERT_TRUE(IsMissingFile(none));
  StoredBaselineUse use =
      StoredBaselineUseOf(UnusableBaseline(err, IsMissingFile(none)), none, {Workload("w", 100)});
  EXPECT_EQ(use.status, StoredBaselineStatus::kMissing);
  EXPECT_EQ(use.problem, err);
  EXPECT_EQ(use.path, none);
  // Unreadable: there, but not a baseline.
  const std::string corrupt = Write("corrupt.json", "{ not json");
  ASSERT_FALSE(LoadBaselineFile(corrupt, &err));
  EXPECT_FALSE(IsMissingFile(corrupt));
  use = StoredBaselineUseOf(UnusableBaseline(err, IsMissingFile(corrupt)), corrupt, {});
  EXPECT_EQ(use.status, StoredBaselineStatus::kUnreadable);
  EXPECT_NE(use.problem.find("is corrupt: not valid JSON"), std::string::npos) << use.problem;
  // A directory is there too: unreadable, not missing.
  EXPECT_FALSE(IsMissingFile(dir_));

  WorkloadResult a = Workload("a", 100), b = Workload("b", 200);
  std::optional<BaselineFile> file =
      BaselineFromResults({a, b}, /*candidate_side=*/true, "0.1.0", "build", &err);
  ASSERT_TRUE(file) << err;
  use = StoredBaselineUseOf(*file, "b.json", {a, b});
  EXPECT_EQ(use.status, StoredBaselineStatus::kUsed);
  EXPECT_EQ(use.problem, "");
  EXPECT_STREQ(StoredBaselineStatusName(use.status), "used");
  // A workload it lacks, or one measured differently: incompatible, first named.
  WorkloadResult c = Workload("c", 300);
  WorkloadResult moved = Workload("b", 200);
  moved.candidate.fingerprint.valgrind_version = "3.20.0";
  use = StoredBaselineUseOf(*file, "b.json", {a, c, moved});
  EXPECT_EQ(use.status, StoredBaselineStatus::kIncompatible);
  EXPECT_EQ(use.problem.rfind("c: the stored baseline b.json has no workload c", 0), 0u)
      << use.problem;
  EXPECT_NE(use.problem.find("(and 1 more workloads)"), std::string::npos) << use.problem;
  EXPECT_EQ(StoredBaselineProblem(*file, "b.json", moved)
                ->find("the stored baseline b.json is "
                       "not comparable: "),
            0u);
}

TEST(StoredBaselineStatusTest, NamesReadBack) {
  for (StoredBaselineStatus s :
       {StoredBaselineStatus::kUsed, StoredBaselineStatus::kMissing,
        StoredBaselineStatus::kUnreadable, StoredBaselineStatus::kIncompatible}) {
    StoredBaselineStatus read = StoredBaselineStatus::kUsed;
    ASSERT_TRUE(ParseStoredBaselineStatus(StoredBaselineStatusName(s), &read));
    EXPECT_EQ(read, s);
  }
  StoredBaselineStatus read;
  EXPECT_FALSE(ParseStoredBaselineStatus("fine", &read));
}

}  // namespace
}  // namespace workgate
