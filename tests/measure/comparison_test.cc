// RunComparison's own checks: what goes into each side's fingerprint, and
// what a fingerprint that cannot be taken does to the comparison. The
// workloads are real processes; a counter that reads a fixed figure stands in
// for the backends, whose counts are tested elsewhere.

#include "measure/comparison.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <map>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>

#include "../identity/elf_builder.h"
#include "decision/decision.h"
#include "identity/fingerprint.h"
#include "measure/stability_runs.h"
#include "model/backend.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {
namespace {

// The build the workload's exe link points at, by its file name.
std::string LinkedBuild(const LaunchSpec& spec) {
  std::error_code ec;
  // Where this machine has the run's directory (it may be bound elsewhere).
  return std::filesystem::read_symlink(HostPath(spec, spec.cwd) + "/exe", ec).filename().string();
}

// Every run of the workload (run for real) reads `value` instructions;
// `after_run` is called after each with its launch.
class FixedCounter : public Counter {
 public:
  explicit FixedCounter(uint64_t value, int throw_code = 0)
      : value_(value), throw_code_(throw_code) {}
  Backend backend() const override { return Backend::kPerf; }
  std::string event() const override { return "instructions:u"; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions&) override {
    if (throw_code_ != 0) throw Error(throw_code_, "the counter gave up");
    CountedRun run;
    run.launch = Launch(spec);
    MarkFailedLaunch(&run, spec.timeout_seconds);
    run.events = {EventCount{"instructions:u", value_, 1, 1}};
    if (after_run) after_run(spec);
    return run;
  }
  std::function<void(const LaunchSpec&)> after_run;

 private:
  uint64_t value_;
  int throw_code_;
};

class ComparisonTest : public ::testing::Test {
 protected:
  // A workload that runs /bin/true with the build and `extra` as arguments:
  // it succeeds whatever the build is, so only the fingerprint can fail.
  ComparisonPlan Plan(const std::string& baseline, const std::string& candidate,
                      std::vector<std::string> extra = {}) {
    Workload w;
    w.name = "fingerprinted";
    w.command = {"/bin/true", "{exe}"};
    w.command.insert(w.command.end(), extra.begin(), extra.end());
    w.timeout_seconds = 60;
    ComparisonPlan plan;
    plan.workloads = {w};
    plan.suite_dir = dir_.path();
    plan.baseline_exe = baseline;
    plan.candidate_exe = candidate;
    plan.stability = StabilityMode::kNever;
    plan.timed = 0;
    return plan;
  }
  WorkloadResult Compare(const ComparisonPlan& plan,
                         std::function<void(const LaunchSpec&)> after_run = {}) {
    FixedCounter counter(1000);
    counter.after_run = std::move(after_run);
    CompareReport report;
    RunComparison(plan, counter, &report, {});
    EXPECT_EQ(report.workloads.size(), 1u);
    return report.workloads.empty() ? WorkloadResult{} : report.workloads[0];
  }
  TempDir dir_;
};

TEST_F(ComparisonTest, ABuildWhoseLibrariesCannotBeListedIsInvalid) {
  // An ELF file whose one PT_LOAD does not cover its dynamic string table:
  // /bin/true runs with it as an argument, the loader walk cannot read it.
  testing::ElfSpec spec;
  spec.needed = {"libc.so.6"};
  std::string bytes = testing::BuildElf(spec).bytes;
  testing::Poke<uint64_t>(&bytes, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_vaddr), 1ull << 44);
  const std::string bad = dir_.path() + "/bad-build";
  testing::WriteFile(bad, bytes);

  WorkloadResult r = Compare(Plan("/bin/true", bad));
  EXPECT_TRUE(r.baseline.error.empty()) << r.baseline.error;
  EXPECT_FALSE(r.baseline.fingerprint.libraries.empty());
  EXPECT_EQ(r.candidate.error.rfind("cannot fingerprint what was measured: ", 0), 0u)
      << r.candidate.error;
  EXPECT_EQ(r.verdict, Verdict::kInvalid);
}

TEST_F(ComparisonTest, TheWorkloadDigestFollowsTheScriptItRuns) {
  const std::string script = dir_.path() + "/script.txt";
  std::ofstream(script) << "print 1\n";
  const ComparisonPlan plan = Plan("/bin/true", "/bin/true", {"{suite_dir}/script.txt"});
  WorkloadResult before = Compare(plan);
  ASSERT_EQ(before.verdict, Verdict::kOk) << before.reason;
  std::string digest, err;
  ASSERT_TRUE(WorkloadDigest(plan.workloads[0], plan.suite_dir, &digest, &err)) << err;
  EXPECT_EQ(before.baseline.fingerprint.suite_sha256, digest);
  EXPECT_EQ(before.candidate.fingerprint.suite_sha256, digest);

  // A stored baseline of the old script is another workload's.
  std::ofstream(script) << "print 2\n";
  WorkloadResult after = Compare(plan);
  auto problem = CompatibilityProblem(before.baseline.fingerprint, after.candidate.fingerprint);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("the workload's definition differs"), std::string::npos) << *problem;
}

// A build directory holding `name` with `text`, executable.
std::string BuildDirWith(const std::string& dir, const std::string& name, const std::string& text) {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return dir;
}

TEST_F(ComparisonTest, ARelativeProgramIsFoundFromTheRunsDirectory) {
  // The launch runs "exe/prog" from the workload's private directory, where
  // exe is the build; found from workgate's own directory instead it was no
  // file at all, and the side had no binary or libraries in its fingerprint.
  const std::string build = dir_.path() + "/build";
  std::filesystem::create_directories(build);
  std::filesystem::copy_file("/bin/true", build + "/prog");
  ComparisonPlan plan = Plan(build, build);
  plan.workloads[0].command = {"exe/prog"};
  WorkloadResult r = Compare(plan);
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.reason << r.baseline.error;
  std::string err;
  std::optional<std::string> sha = Sha256OfFile(build + "/prog", &err);
  ASSERT_TRUE(sha) << err;
  EXPECT_EQ(r.candidate.fingerprint.binary_sha256, *sha);
  EXPECT_FALSE(r.candidate.fingerprint.libraries.empty());
}

TEST_F(ComparisonTest, AProgramThatIsGoneAfterItsRunIsInvalid) {
  // Nothing left to hash: the side cannot say what was measured. (Removed
  // after its run: its own file system is read-only to the program itself.)
  const std::string kept = BuildDirWith(dir_.path() + "/kept", "prog", "#!/bin/sh\nexit 0\n");
  const std::string gone = BuildDirWith(dir_.path() + "/gone", "prog", "#!/bin/sh\nexit 0\n");
  ComparisonPlan plan = Plan(kept, gone);
  plan.workloads[0].command = {"{exe}/prog"};
  WorkloadResult r = Compare(plan, [&gone](const LaunchSpec& spec) {
    if (LinkedBuild(spec) == "gone") std::filesystem::remove(gone + "/prog");
  });
  EXPECT_TRUE(r.baseline.error.empty()) << r.baseline.error;
  EXPECT_FALSE(r.baseline.fingerprint.binary_sha256.empty());
  EXPECT_EQ(r.candidate.error.rfind("cannot fingerprint what was measured: cannot find the "
                                    "program that ran (",
                                    0),
            0u)
      << r.candidate.error;
  EXPECT_EQ(r.verdict, Verdict::kInvalid);
}

TEST_F(ComparisonTest, ACountersErrorKeepsItsExitCode) {
  FixedCounter counter(1000, kExitUsage);
  CompareReport report;
  try {
    RunComparison(Plan("/bin/true", "/bin/true"), counter, &report, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_STREQ(e.what(), "the counter gave up");
  }
}

// Records which build each counted run ran (the target of the workload's
// exe link at the time), as a backend named `backend`.
class RecordingCounter : public Counter {
 public:
  explicit RecordingCounter(std::string backend) : backend_(std::move(backend)) {}
  Backend backend() const override { return *ParseBackend(backend_); }
  std::string event() const override { return backend_ == "perf" ? "instructions:u" : "Ir"; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions&) override {
    CountedRun run;
    builds.push_back(LinkedBuild(spec));
    run.launch = Launch(spec);
    MarkFailedLaunch(&run, spec.timeout_seconds);
    // Varying: each run of a build counts one more than its last.
    const uint64_t value = varying ? 1000 + runs_of[builds.back()]++ : 1000;
    run.events = {EventCount{event(), value, 1, 1}};
    if (after_run) after_run(builds.back());
    return run;
  }
  std::vector<std::string> builds;
  std::function<void(const std::string& build)> after_run;  // called after each run
  bool varying = false;
  std::map<std::string, uint64_t> runs_of;

 private:
  std::string backend_;
};

TEST_F(ComparisonTest, PerfRepeatsAlternateBetweenTheBuilds) {
  // On perf a drifting load must weigh on both builds alike: AB BA AB BA.
  const std::string a = BuildDirWith(dir_.path() + "/a", "prog", "#!/bin/sh\nexit 0\n");
  const std::string b = BuildDirWith(dir_.path() + "/b", "prog", "#!/bin/sh\nexit 0\n");
  ComparisonPlan plan = Plan(a, b);
  plan.repeat = 4;
  RecordingCounter perf("perf");
  CompareReport report;
  RunComparison(plan, perf, &report, {});
  EXPECT_EQ(perf.builds, (std::vector<std::string>{"a", "b", "b", "a", "a", "b", "b", "a"}));
  ASSERT_EQ(report.workloads.size(), 1u);
  EXPECT_EQ(report.workloads[0].baseline.counts.size(), 4u);
  EXPECT_EQ(report.workloads[0].candidate.counts.size(), 4u);

  // A Valgrind count does not move with the load: each build's repeats in a row.
  RecordingCounter vgcount("vgcount");
  RunComparison(plan, vgcount, &report, {});
  EXPECT_EQ(vgcount.builds, (std::vector<std::string>{"a", "a", "a", "a", "b", "b", "b", "b"}));
}

TEST_F(ComparisonTest, AnUnstableWorkloadsRepeatsAlternateBetweenTheBuilds) {
  // Counts that vary from run to run: the counts an interval needs come one
  // a side in turn, so that a load that changes meanwhile weighs on both.
  const std::string a = BuildDirWith(dir_.path() + "/a", "prog", "#!/bin/sh\nexit 0\n");
  const std::string b = BuildDirWith(dir_.path() + "/b", "prog", "#!/bin/sh\nexit 0\n");
  ComparisonPlan plan = Plan(a, b);
  plan.stability = StabilityMode::kAlways;
  RecordingCounter vgcount("vgcount");
  vgcount.varying = true;
  CompareReport report;
  RunComparison(plan, vgcount, &report, {});
  ASSERT_EQ(report.workloads.size(), 1u);
  EXPECT_TRUE(report.workloads[0].stability.unstable);
  ASSERT_GE(vgcount.builds.size(), 6u);
  for (size_t i = 0; i < vgcount.builds.size(); ++i) {
    EXPECT_EQ(vgcount.builds[i], i % 2 == 0 ? "a" : "b") << "run " << i;
  }
}

TEST_F(ComparisonTest, SettleNeedsRunsSaysExactlyWhenTheCheckCounts) {
  // A comparison queues a workload's settling as a task of its own, so
  // that its runs spread over the jobs, exactly where SettleNeedsRuns says
  // the check will count: it must agree with what SettleStability does.
  const std::string a = BuildDirWith(dir_.path() + "/a", "prog", "#!/bin/sh\nexit 0\n");
  const std::string b = BuildDirWith(dir_.path() + "/b", "prog", "#!/bin/sh\nexit 0\n");
  Workload w;
  w.name = "settled";
  w.command = {"{exe}/prog"};
  w.timeout_seconds = 60;
  struct Case {
    const char* what;
    StabilityMode mode;
    std::vector<uint64_t> baseline, candidate;
    bool deterministic;  // both sides' counts, by construction
    bool recorded;       // --record: the candidate twice
    bool counts;         // what the check does
  };
  const Case cases[] = {
      {"within 4 margins: the baseline again", StabilityMode::kAuto, {1000}, {1001}, true, false,
       true},
      {"far apart, deterministic", StabilityMode::kAuto, {1000}, {2000}, true, false, false},
      {"a work verdict on counts not deterministic: confirmed", StabilityMode::kAuto, {1000},
       {2000}, false, false, true},
      {"counts that already differ: the unstable repeats", StabilityMode::kAuto, {1000, 1010},
       {2000}, true, false, true},
      {"counts that already repeat", StabilityMode::kAuto, {1000, 1000}, {1001}, true, false,
       false},
      {"recorded: the candidate twice", StabilityMode::kAuto, {1000}, {2000}, true, true, true},
      {"--stability never", StabilityMode::kNever, {1000}, {1001}, false, false, false},
      {"--stability always", StabilityMode::kAlways, {1000}, {2000}, true, false, true},
  };
  for (const Case& c : cases) {
    StabilityPlan plan;
    plan.mode = c.mode;
    plan.suite_dir = dir_.path();
    plan.baseline_exe = a;
    plan.candidate_exe = b;
    plan.candidate_twice = c.recorded;
    WorkloadResult r;
    r.name = w.name;
    r.baseline.counts = c.baseline;
    r.candidate.counts = c.candidate;
    r.baseline.deterministic = r.candidate.deterministic = c.deterministic;
    Decide(&r);
    const bool needs = SettleNeedsRuns(plan, "vgcount", r);
    RecordingCounter vgcount("vgcount");
    WorkDir dir(w, dir_.path());
    SettleStability(plan, vgcount, w, dir, FirstProfiles{}, "", &r);
    EXPECT_EQ(!vgcount.builds.empty(), c.counts) << c.what;
    EXPECT_EQ(needs, c.counts) << c.what;
  }
}

TEST_F(ComparisonTest, AFailedRepeatEndsItsBuildsRounds) {
  // The candidate fails its second run (its program fails from its first
  // run on): it is not run again, its error stands, and the baseline's
  // rounds go on.
  const std::string a = BuildDirWith(dir_.path() + "/a", "prog", "#!/bin/sh\nexit 0\n");
  const std::string b = BuildDirWith(dir_.path() + "/b", "prog", "#!/bin/sh\nexit 0\n");
  ComparisonPlan plan = Plan(a, b);
  plan.workloads[0].command = {"{exe}/prog"};
  plan.repeat = 4;
  RecordingCounter perf("perf");
  perf.after_run = [&b](const std::string& build) {
    if (build == "b") std::ofstream(b + "/prog") << "#!/bin/sh\nexit 1\n";
  };
  CompareReport report;
  RunComparison(plan, perf, &report, {});
  EXPECT_EQ(perf.builds, (std::vector<std::string>{"a", "b", "b", "a", "a", "a"}));
  const WorkloadResult& r = report.workloads.at(0);
  EXPECT_EQ(r.baseline.counts.size(), 4u);
  EXPECT_NE(r.candidate.error.find("exit"), std::string::npos) << r.candidate.error;
  EXPECT_EQ(r.verdict, Verdict::kInvalid);
}

TEST_F(ComparisonTest, EveryRunStartsInAFreshDirectory) {
  // A program that leaves a file in its directory (its HOME too) and fails
  // when it finds one there: every repeat of either build starts clean, so
  // none fails.
  ComparisonPlan plan = Plan("/bin/true", "/bin/true");
  plan.workloads[0].command = {"/bin/sh", "-c",
                               "test ! -e left-over && touch left-over && mkdir locked && "
                               "chmod 000 locked"};
  plan.repeat = 3;
  WorkloadResult r = Compare(plan);
  EXPECT_TRUE(r.baseline.error.empty()) << r.baseline.error;
  EXPECT_TRUE(r.candidate.error.empty()) << r.candidate.error;
  EXPECT_EQ(r.baseline.counts.size(), 3u);
  EXPECT_EQ(r.candidate.counts.size(), 3u);
}

}  // namespace
}  // namespace workgate
