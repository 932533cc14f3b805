// Explanations against a stored baseline: `--save-baseline` keeps each
// workload's profile in the file, so that `--baseline-results` explains a
// delta as a comparison against the baseline build does, with no build of
// the baseline at hand; what cannot be explained says what to do, and a
// profile changed in the file fails the explanation, never the verdict.

#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "util/compression.h"

namespace workgate {
namespace {

using nlohmann::json;
using testing::SourcePath;

class StoredExplainCliTest : public CountingCliTest {
 protected:
  /// Saves known_work_a's counts of the workload "work" with `backend`
  /// (and `extra`) in `file`.
  void Save(const std::string& file, const std::string& backend,
            std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare",  "--backend",    backend,       "--baseline",
                                     kKnownWorkA, "--suite",     suite_,        "--workload",
                                     "work",      "--save-baseline", file,      "--no-store"};
    args.insert(args.end(), extra.begin(), extra.end());
    LaunchResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  /// known_work_b (1,000,000 instructions more) against `baseline_args`,
  /// with `backend`: the run, whose JSON report is in `json_file`.
  LaunchResult Gate(const std::string& backend, std::vector<std::string> baseline_args,
                    const std::string& json_file, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare", "--backend", backend,    "--candidate",
                                     kKnownWorkB, "--suite", suite_,     "--workload",
                                     "work",      "--timed", "0",        "--no-store",
                                     "--json",    json_file, "--markdown", json_file + ".md"};
    args.insert(args.end(), baseline_args.begin(), baseline_args.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }

  const std::string suite_ = SourcePath("tests/cli/testdata/known_work.toml");
};

TEST_F(StoredExplainCliTest, AStoredBaselineExplainsAsTheBuildDoes) {
  for (const std::string& backend : {kExactBackend, std::string("callgrind")}) {
    SCOPED_TRACE(backend);
    Save("base-" + backend + ".json", backend);
    const json saved = ReadJson("base-" + backend + ".json")["workloads"][0];
    ASSERT_TRUE(saved["profile"].is_object()) << saved;
    EXPECT_EQ(saved["profile"]["profiler"], backend);
    EXPECT_EQ(saved["profile"]["total"], saved["counts"][0]);
    EXPECT_FALSE(saved.contains("no_profile"));

    // Against a stored baseline nothing is simulated: the build's gate
    // leaves its simulation out too, so that the rows compare as they are.
    LaunchResult built =
        Gate(backend, {"--baseline", kKnownWorkA, "--events", "never"}, "built.json");
    ASSERT_EQ(built.exit_code, 1) << built.out << built.err;
    LaunchResult stored =
        Gate(backend, {"--baseline-results", "base-" + backend + ".json"}, "stored.json");
    ASSERT_EQ(stored.exit_code, 1) << stored.out << stored.err;

    const json b = ReadJson("built.json")["workloads"][0]["explanation"];
    const json s = ReadJson("stored.json")["workloads"][0]["explanation"];
    EXPECT_TRUE(s["error"].is_null()) << s;
    // The same rows, to the instruction: main in the build's own code, +1,000,000.
    EXPECT_EQ(s["rows"], b["rows"]);
    EXPECT_EQ(s["total_delta"], 1000000);
    ASSERT_FALSE(s["rows"].empty());
    EXPECT_EQ(s["rows"][0]["function"], "main");
    EXPECT_EQ(s["rows"][0]["object"], "{exe}");
    EXPECT_EQ(s["rows"][0]["delta"], 1000000);
    EXPECT_EQ(s["profiler"], backend);
    EXPECT_EQ(s["rerun"], json::array());  // the candidate's from the run that counted it
    EXPECT_EQ(s["stored_baseline"], true);
    EXPECT_EQ(b["stored_baseline"], false);
    const std::string said =
        "Profiles: " + backend +
        ", the baseline profile kept in the stored baseline, the candidate profile from the run that counted "
        "it.";
    EXPECT_NE(stored.out.find(said), std::string::npos) << stored.out;
    EXPECT_NE(ReadFile(Path("stored.json.md")).value_or("").find(said), std::string::npos);
    EXPECT_EQ(stored.out.find("no per-function explanation"), std::string::npos) << stored.out;
  }
}

TEST_F(StoredExplainCliTest, AProfileFromAnotherToolIsMatchedByTheSameTool) {
  // Saved with callgrind, compared on perf's stand-in here (vgcount): the
  // candidate is profiled by callgrind too, so that the two compare.
  if (kExactBackend != "vgcount") GTEST_SKIP() << "vgcount is not built: only one Valgrind tool";
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_TASK_CLOCK);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  Save("base.json", "callgrind");
  json base = ReadJson("base.json");
  // The fingerprint is the counting backend's: make it perf's, as a file
  // saved on perf with a callgrind-made profile would be.
  Save("perf.json", "perf", {"--event", "perf::task-clock", "--repeat", "3"});
  json perf = ReadJson("perf.json");
  perf["workloads"][0]["profile"] = base["workloads"][0]["profile"];
  std::ofstream(Path("mixed.json")) << perf.dump();
  LaunchResult r = Gate("perf", {"--baseline-results", "mixed.json"}, "mixed-report.json",
                        {"--event", "perf::task-clock", "--repeat", "3", "--explain", "always"});
  const json e = ReadJson("mixed-report.json")["workloads"][0]["explanation"];
  EXPECT_TRUE(e["error"].is_null()) << e << r.out << r.err;
  EXPECT_EQ(e["profiler"], "callgrind");
  EXPECT_EQ(e["rerun"], json::array({"candidate"}));
  EXPECT_EQ(e["total_delta"], 1000000);
}

TEST_F(StoredExplainCliTest, OnPerfTheSavedBaselineIsProfiledOnceToExplainLater) {
  // The perf backend's plumbing with a software event: perf keeps no
  // profile, so saving runs the baseline once under vgcount (or callgrind),
  // and a later gate explains against that profile.
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_TASK_CLOCK);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  Save("perf.json", "perf", {"--event", "perf::task-clock", "--repeat", "3"});
  const json saved = ReadJson("perf.json")["workloads"][0];
  ASSERT_TRUE(saved["profile"].is_object()) << saved;
  EXPECT_EQ(saved["profile"]["profiler"], kExactBackend);
  EXPECT_EQ(saved["fingerprint"]["backend"], "perf");
  LaunchResult r = Gate("perf", {"--baseline-results", "perf.json"}, "report.json",
                        {"--event", "perf::task-clock", "--repeat", "3", "--explain", "always"});
  const json e = ReadJson("report.json")["workloads"][0]["explanation"];
  EXPECT_TRUE(e["error"].is_null()) << e << r.out << r.err;
  EXPECT_EQ(e["stored_baseline"], true);
  EXPECT_EQ(e["rerun"], json::array({"candidate"}));
  EXPECT_EQ(e["total_delta"], 1000000);
  EXPECT_NE(r.out.find("the baseline profile kept in the stored baseline, the candidate profile from a run "
                       "made for this explanation."),
            std::string::npos)
      << r.out;
}

TEST_F(StoredExplainCliTest, ABaselineSavedWithoutProfilesSaysWhatToDo) {
  Save("bare.json", kExactBackend, {"--explain", "never"});
  const json saved = ReadJson("bare.json")["workloads"][0];
  EXPECT_TRUE(saved["profile"].is_null());
  EXPECT_EQ(saved["no_profile"], "it was saved with --explain never");
  LaunchResult r = Gate(kExactBackend, {"--baseline-results", "bare.json"}, "report.json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the verdict stands on the counts
  EXPECT_EQ(ReadJson("report.json")["workloads"][0]["explanation"]["error"],
            "the stored baseline bare.json keeps no profile of work (it was saved with --explain "
            "never); save it again without --explain never, or compare against the baseline "
            "build (--baseline EXE)");
  EXPECT_NE(r.out.find("save it again without --explain never"), std::string::npos) << r.out;
}

TEST_F(StoredExplainCliTest, AProfileChangedInTheFileFailsTheExplanationNotTheVerdict) {
  Save("base.json", kExactBackend);
  const json base = ReadJson("base.json");
  struct Case {
    const char* name;
    void (*edit)(json*);
    const char* error;  // after "the stored baseline FILE has a profile of work that cannot be used: "
  };
  const Case cases[] = {
      {"total",
       [](json* p) { (*p)["total"] = (*p)["total"].get<uint64_t>() + 1; },
       "the stored profile adds up to"},
      {"not-gzip",
       [](json* p) { (*p)["files"][0]["gzip_base64"] = Base64Encode("plain"); },
       "its file "},
      {"not-callgrind",
       [](json* p) {
         (*p)["files"][0]["gzip_base64"] = Base64Encode(GzipCompress("events: Ir\nnonsense\n"));
       },
       ""},
      {"bomb",
       [](json* p) {
         (*p)["files"][0]["gzip_base64"] =
             Base64Encode(GzipCompress(std::string(33 << 20, '#')));
       },
       "not a whole gzip stream: it expands to more than 33554432 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json changed = base;
    c.edit(&changed["workloads"][0]["profile"]);
    const std::string file = std::string(c.name) + ".json";
    std::ofstream(Path(file)) << changed.dump();
    LaunchResult r = Gate(kExactBackend, {"--baseline-results", file}, "report.json");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const json w = ReadJson("report.json")["workloads"][0];
    EXPECT_EQ(w["verdict"], "work-added");
    EXPECT_EQ(w["delta"], 1000000);
    const std::string error = w["explanation"]["error"].get<std::string>();
    const std::string lead =
        "the stored baseline " + file + " has a profile of work that cannot be used: ";
    EXPECT_EQ(error.rfind(lead, 0), 0u) << error;
    EXPECT_NE(error.find(c.error, lead.size()), std::string::npos) << error;
  }
  // A form the reader refuses outright makes the whole file unusable.
  json escape = base;
  escape["workloads"][0]["profile"]["files"][0]["name"] = "../../outside";
  std::ofstream(Path("escape.json")) << escape.dump();
  LaunchResult r = Gate(kExactBackend, {"--baseline-results", "escape.json"}, "report.json");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(ReadJson("report.json")["stored_baseline"]["status"], "unreadable");
}

}  // namespace
}  // namespace workgate
