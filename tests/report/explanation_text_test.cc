// The sentences an explanation carries beside its table.

#include "report/explanation_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(ProfileCutSentencesTest, SayWhatEachSidesBoundsLeftOut) {
  Explanation e;
  EXPECT_TRUE(ProfileCutSentences(e).empty());
  e.profile_cuts = {{"baseline", "source_lines", 300000, false, 200000},
                    {"candidate", "call_edges", 1440000, false, 100000},
                    {"candidate", "source_lines", 500000, true, 0}};
  EXPECT_EQ(ProfileCutSentences(e),
            (std::vector<std::string>{
                "The baseline's profile named 300,000 source lines; the explanation keeps the "
                "200,000 costliest (a row whose function lost one lists no lines).",
                "The candidate's profile named 1,440,000 call edges; the explanation keeps the "
                "100,000 costliest (a row whose function lost one lists no moves).",
                "The candidate's profile named more than 500,000 source lines; the explanation "
                "keeps none of them (no row lists its lines).",
            }));
  e.profile_cuts = {{"candidate", "call_edges", 500000, true, 0}};
  EXPECT_EQ(ProfileCutSentences(e),
            std::vector<std::string>{"The candidate's profile named more than 500,000 call "
                                     "edges; the explanation keeps none of them (no row lists "
                                     "moves in or out of line)."});
}

}  // namespace
}  // namespace workgate
