// The sentences an explanation carries beside its table.

#include "report/explanation_text.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

Explanation ProfiledBy(const std::string& profiler, std::vector<std::string> rerun) {
  Explanation e;
  e.profiler = profiler;
  e.rerun = std::move(rerun);
  return e;
}

TEST(ProfileSourceSentenceTest, SaysWhichToolAndWhichRunsGaveTheProfiles) {
  EXPECT_EQ(ProfileSourceSentence(ProfiledBy("vgcount", {})),
            "Profiles: vgcount, from the runs that counted.");
  EXPECT_EQ(ProfileSourceSentence(ProfiledBy("callgrind", {"baseline", "candidate"})),
            "Profiles: callgrind, from a run of each side made for this explanation.");
  EXPECT_EQ(ProfileSourceSentence(ProfiledBy("vgcount", {"baseline"})),
            "Profiles: vgcount, from a run of the baseline made for this explanation (the "
            "candidate's from the run that counted it).");
  EXPECT_EQ(ProfileSourceSentence(ProfiledBy("vgcount", {"candidate"})),
            "Profiles: vgcount, from a run of the candidate made for this explanation (the "
            "baseline's from the run that counted it).");
}

TEST(ProfileSourceSentenceTest, IsEmptyWhenNoToolWasChosen) {
  Explanation failed;
  failed.error = "valgrind is not installed";
  EXPECT_EQ(ProfileSourceSentence(failed), "");
}

}  // namespace
}  // namespace workgate
