// vgcount against callgrind on every bundled workload, both counted the way
// workgate counts them (its Valgrind backends, pinned launch): the delta
// between two builds must be the same to the instruction, and the totals
// may differ only as documented in tools/vgcount/README.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "measure/measure.h"
#include "explain/callgrind_profile.h"
#include "test_paths.h"
#include "util/paths.h"
#include "vgcount/profile_match.h"
#include "test_requirements.h"
#include "workload/workload.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

// Outside a marked region the two tools' totals differ by the last block of
// each thread (callgrind never counts it) and by what the program sees of
// vgcount's VALGRIND_LIB setting, its only difference in the environment:
// measured 684 to 698 instructions on the interpreter workloads.
constexpr int64_t kMaxWholeProgramDifference = 2000;

struct BundledCase {
  std::string suite;      // relative to the source tree
  std::string workload;   // its name in the suite
  std::string baseline;   // builds, relative to the build tree
  std::string candidate;  // (the same for a workload with one build)
  std::optional<int64_t> expected_delta = std::nullopt;  // where the builds' difference is known
};

std::ostream& operator<<(std::ostream& out, const BundledCase& c) {
  return out << c.workload << " (" << c.baseline << " -> " << c.candidate << ")";
}

class BundledWorkloadTest : public ::testing::TestWithParam<BundledCase> {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    // workgate finds valgrind-lib beside its own binary; this test binary
    // lives one level down, so it names the build's copy.
    const std::string lib = BuildPath("valgrind-lib");
#ifdef WORKGATE_VGCOUNT_BUILT
    ASSERT_TRUE(HoldsVgcountTool(lib))
        << "CMake built vgcount, but " << lib << " holds no vgcount tool: the build is broken";
#else
    WORKGATE_REQUIRE_TOOL(false,
                          "CMake did not build vgcount (it needs the Debian valgrind "
                          "package's tool headers and archives)");
#endif
    setenv("WORKGATE_VGCOUNT_LIB", lib.c_str(), 1);
    for (const std::string& build : {GetParam().baseline, GetParam().candidate}) {
      WORKGATE_ASSERT_BUILT(BuildPath(build));
    }
    std::string err;
    ASSERT_TRUE(LoadSuite(SourcePath(GetParam().suite), &suite_, &err)) << err;
    for (const Workload& w : suite_.workloads) {
      if (w.name == GetParam().workload) workload_ = w;
    }
    ASSERT_TRUE(workload_.has_value()) << GetParam().workload << " is not in " << GetParam().suite;
  }

  // One count of the workload on `build` by `tool`.
  int64_t Count(ValgrindCounter::Tool tool, const std::string& build) {
    ValgrindCounter counter(tool);
    WorkDir dir(*workload_, suite_.dir);
    CountedWorkload c =
        CountWorkload(counter, {*workload_, suite_.dir, dir, BuildPath(build), LaunchOptions{}},
                      {.score_side = ScoreSide::kCandidate});
    EXPECT_TRUE(c.valid()) << counter.name() << " on " << build << ": " << c.error;
    return c.valid() ? static_cast<int64_t>(c.counts().at(0)) : -1;
  }

  // The per-function profile of one run of `build` under `tool`, the run
  // environment the same for both tools: the same private directory, and
  // vgcount's VALGRIND_LIB given to callgrind's run too. `*total` is the
  // count the run gave.
  Profile Profiled(ValgrindCounter::Tool tool, const std::string& build, int64_t* total) {
    ValgrindCounter counter(tool);
    Workload w = *workload_;
    w.env["VALGRIND_LIB"] = BuildPath("valgrind-lib");
    WorkDir dir(w, suite_.dir);
    TempDir keep("bundled-profile-" + counter.name());
    CountedWorkload c = CountWorkload(
        counter, {w, suite_.dir, dir, BuildPath(build), LaunchOptions{}},
        {.score_side = ScoreSide::kCandidate, .keep_profiles_dir = keep.path() + "/kept"});
    EXPECT_TRUE(c.valid()) << counter.name() << " on " << build << ": " << c.error;
    *total = c.valid() ? static_cast<int64_t>(c.counts().at(0)) : -1;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(keep.path() + "/kept", ec)) {
      files.push_back(entry.path());
    }
    Profile profile;
    std::string err;
    EXPECT_TRUE(LoadProfiles(files, &profile, &err)) << err;
    return profile;
  }

  Suite suite_;
  std::optional<Workload> workload_;
};

TEST_P(BundledWorkloadTest, VgcountDeltaEqualsCallgrindsAndTotalsAgree) {
  const BundledCase& c = GetParam();
  const int64_t ours_base = Count(ValgrindCounter::Tool::kVgcount, c.baseline);
  const int64_t theirs_base = Count(ValgrindCounter::Tool::kCallgrind, c.baseline);
  int64_t ours_cand = ours_base, theirs_cand = theirs_base;
  if (c.candidate != c.baseline) {
    ours_cand = Count(ValgrindCounter::Tool::kVgcount, c.candidate);
    theirs_cand = Count(ValgrindCounter::Tool::kCallgrind, c.candidate);
    EXPECT_NE(ours_cand, ours_base) << "the two builds should differ in work";
  }
  EXPECT_EQ(ours_cand - ours_base, theirs_cand - theirs_base);
  if (c.expected_delta) {
    EXPECT_EQ(ours_cand - ours_base, *c.expected_delta);
  }
  if (workload_->region) {
    // Inside a region both tools count exactly the same blocks.
    EXPECT_EQ(ours_base, theirs_base);
  } else {
    EXPECT_GE(ours_base, theirs_base);
    EXPECT_LE(ours_base - theirs_base, kMaxWholeProgramDifference) << ours_base << " vs "
                                                                   << theirs_base;
  }
}

// vgcount's profile from its counting run, function by function and line
// by line against callgrind's of the same run environment: equal but for the process's last
// block, which callgrind never counts (tests/vgcount/profile_match.h), and
// adding up to vgcount's count.
TEST_P(BundledWorkloadTest, VgcountProfileEqualsCallgrindsByFunctionLineAndCall) {
  for (const std::string& build : {GetParam().baseline, GetParam().candidate}) {
    int64_t ours = 0, theirs = 0;
    const Profile vgcount = Profiled(ValgrindCounter::Tool::kVgcount, build, &ours);
    const Profile callgrind = Profiled(ValgrindCounter::Tool::kCallgrind, build, &theirs);
    EXPECT_EQ(static_cast<int64_t>(vgcount.total), ours) << build;
    EXPECT_EQ(static_cast<int64_t>(callgrind.total), theirs) << build;
    // Real profiles: several functions (a region holds few), the program's
    // own among them.
    EXPECT_GT(vgcount.self.size(), workload_->region ? 5u : 20u) << build;
    const std::string program = std::filesystem::path(BuildPath(build)).filename();
    EXPECT_TRUE(std::any_of(vgcount.self.begin(), vgcount.self.end(),
                            [&](const auto& f) { return f.first.object == program && f.second > 0; }))
        << build << ": no function of " << program;
    for (const testing::ProfileGap& gap : testing::UnexplainedGaps(vgcount, callgrind, 1)) {
      ADD_FAILURE() << build << ": " << gap.function.name << " in " << gap.function.object
                    << ": vgcount " << gap.vgcount << ", callgrind " << gap.callgrind;
    }
    for (const testing::LineGap& gap : testing::UnexplainedLineGaps(vgcount, callgrind, 1)) {
      ADD_FAILURE() << build << ": " << gap.function.name << ", " << gap.line.file << ":"
                    << gap.line.line << ": vgcount " << gap.vgcount << ", callgrind "
                    << gap.callgrind;
    }
    // And call edge by call edge: counts and inclusive costs.
    EXPECT_FALSE(vgcount.calls.empty()) << build;
    for (const testing::CallGap& gap : testing::UnexplainedCallGaps(vgcount, callgrind, 1)) {
      ADD_FAILURE() << build << ": " << gap.edge.first.name << " -> " << gap.edge.second.name
                    << ": vgcount " << gap.vgcount.calls << " calls, " << gap.vgcount.inclusive
                    << " inclusive; callgrind " << gap.callgrind.calls << ", "
                    << gap.callgrind.inclusive;
    }
    if (workload_->region) {
      // Inside a region neither tool sees the last block: equal everywhere.
      EXPECT_TRUE(testing::ProfileGaps(vgcount, callgrind).empty()) << build;
      EXPECT_TRUE(testing::LineGaps(vgcount, callgrind).empty()) << build;
      EXPECT_TRUE(testing::CallGaps(vgcount, callgrind).empty()) << build;
    } else {
      // Outside one, exactly the last block's function differs.
      EXPECT_EQ(testing::ProfileGaps(vgcount, callgrind).size(), 1u) << build;
    }
  }
}

std::vector<BundledCase> Cases() {
  std::vector<BundledCase> cases;
  for (const char* name : {"interp/fib", "interp/loop", "interp/strings", "interp/sort",
                           "interp/objects"}) {
    cases.push_back({"workloads/interp.toml", name, "workloads/wgi-baseline",
                     "workloads/wgi-candidate"});
  }
  cases.push_back({"workloads/wgmark.toml", "wgmark", "workloads/wgmark", "workloads/wgmark"});
  cases.push_back({"tests/cli/testdata/known_work.toml", "work", "probes/known_work_a",
                   "probes/known_work_b", 1000000});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryBundledWorkload, BundledWorkloadTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<BundledCase>& info) {
                           std::string name;
                           for (char ch : info.param.workload) {
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace workgate
