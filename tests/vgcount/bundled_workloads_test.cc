// vgcount against callgrind on every bundled workload, both counted the way
// workgate counts them (its Valgrind backends, pinned launch): the delta
// between two builds must be the same to the instruction, and the totals
// may differ only as documented in tools/vgcount/README.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "measure/measure.h"
#include "test_paths.h"
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
    WorkDir dir("bundled-" + counter.name());
    CountedWorkload c =
        CountWorkload(counter, *workload_, suite_.dir, dir, BuildPath(build), 1, LaunchOptions{});
    EXPECT_TRUE(c.valid()) << counter.name() << " on " << build << ": " << c.error;
    return c.valid() ? static_cast<int64_t>(c.counts().at(0)) : -1;
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
