// An inlining move named by the call edges: FindInlineMoves on profiles
// made by hand, then on real callgrind runs of a program whose candidate
// stops inlining a helper (tests/explain/testdata/inline_move.c).

#include "explain/inline_moves.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "explain/callgrind_run.h"
#include "explain/explain.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

const FunctionId kHelper{"insert_key", "prog"};
const FunctionId kCaller{"new_key", "prog"};
const FunctionId kMain{"main", "prog"};

// main -> new_key (-> insert_key when `outlined`), with the work split
// between new_key and insert_key accordingly.
Profile Side(bool outlined, uint64_t calls = 1000) {
  Profile p;
  p.self[kMain] = 100;
  p.self[kCaller] = outlined ? 2000 : 9000;
  if (outlined) p.self[kHelper] = 7500;
  p.calls[{kMain, kCaller}] = {calls, outlined ? 9500u : 9000u};
  if (outlined) p.calls[{kCaller, kHelper}] = {calls, 7500};
  for (const auto& [f, c] : p.self) p.total += c;
  return p;
}

TEST(InlineMoves, AFunctionCalledOnlyByTheCandidateMovedOutOfLineFromItsCaller) {
  const CallGraph base = ShownCallGraph(Side(false)), cand = ShownCallGraph(Side(true));
  EXPECT_EQ(InclusiveCost(base, kCaller), 9000);
  EXPECT_EQ(InclusiveCost(cand, kCaller), 9500);
  const FunctionDelta helper{"insert_key", "prog", 0, 7500};
  const std::vector<CallerMove> moves = FindInlineMoves(base, cand, helper, 3);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].caller, "new_key");
  EXPECT_TRUE(moves[0].out_of_line());
  EXPECT_EQ(moves[0].baseline_calls, 0u);
  EXPECT_EQ(moves[0].candidate_calls, 1000u);
  EXPECT_EQ(moves[0].inclusive_delta(), 500);
  // The other way round it moved inline into the caller.
  const FunctionDelta back{"insert_key", "prog", 7500, 0};
  const std::vector<CallerMove> into = FindInlineMoves(cand, base, back, 3);
  ASSERT_EQ(into.size(), 1u);
  EXPECT_FALSE(into[0].out_of_line());
  EXPECT_EQ(into[0].inclusive_delta(), -500);
}

TEST(InlineMoves, NoMoveWithoutANewEdgeOrAgainstTheDelta) {
  // Both sides call it: no move, however its cost changed.
  Profile base = Side(true), cand = Side(true, 2000);
  cand.self[kHelper] = 9000;
  EXPECT_TRUE(FindInlineMoves(ShownCallGraph(base), ShownCallGraph(cand),
                              FunctionDelta{"insert_key", "prog", 7500, 9000}, 3)
                  .empty());
  // A new call edge while the function's cost fell is no move out of line.
  EXPECT_TRUE(FindInlineMoves(ShownCallGraph(Side(false)), ShownCallGraph(Side(true)),
                              FunctionDelta{"insert_key", "prog", 8000, 7500}, 3)
                  .empty());
  // A recursive call is no caller of its own.
  Profile rec = Side(true);
  rec.calls[{kHelper, kHelper}] = {10, 700};
  EXPECT_EQ(FindInlineMoves(ShownCallGraph(Side(false)), ShownCallGraph(rec),
                            FunctionDelta{"insert_key", "prog", 0, 7500}, 3)
                .size(),
            1u);
  EXPECT_EQ(InclusiveCost(ShownCallGraph(rec), kHelper), 7500);
}

TEST(InlineMoves, NoMoveIsClaimedFromAnEdgeTheBoundsMayHaveLeftOut) {
  const FunctionDelta helper{"insert_key", "prog", 0, 7500};
  // The baseline lost a call edge into the helper: it may have called it.
  Profile base = Side(false);
  base.calls_cut.functions.insert(kHelper);
  EXPECT_TRUE(FindInlineMoves(ShownCallGraph(base), ShownCallGraph(Side(true)), helper, 3).empty());
  // The candidate lost one of the caller's: its inclusive cost is unknown.
  Profile cand = Side(true);
  cand.calls_cut.functions.insert(kCaller);
  EXPECT_TRUE(
      FindInlineMoves(ShownCallGraph(Side(false)), ShownCallGraph(cand), helper, 3).empty());
  // A profile that kept no edge at all.
  cand = Side(true);
  cand.calls_cut.dropped = true;
  EXPECT_TRUE(
      FindInlineMoves(ShownCallGraph(Side(false)), ShownCallGraph(cand), helper, 3).empty());
  // Edges of other functions lost change nothing.
  cand = Side(true);
  cand.calls_cut.functions.insert(FunctionId{"elsewhere", "prog"});
  EXPECT_EQ(FindInlineMoves(ShownCallGraph(Side(false)), ShownCallGraph(cand), helper, 3).size(),
            1u);
}

TEST(InlineMoves, DiffProfilesNamesTheMoveBesideTheRow) {
  const Explanation e = DiffProfiles(Side(false), Side(true), 10);
  ASSERT_FALSE(e.rows.empty());
  const FunctionDelta* helper = nullptr;
  for (const FunctionDelta& r : e.rows) {
    if (r.function == "insert_key") helper = &r;
  }
  ASSERT_NE(helper, nullptr);
  ASSERT_EQ(helper->moves.size(), 1u);
  EXPECT_EQ(helper->moves[0].caller, "new_key");
}

TEST(InlineMoves, ARealCandidateThatStopsInliningAHelper) {
  const std::string missing = testing::MissingCallgrindTool();
  WORKGATE_REQUIRE_TOOL(missing.empty(), missing);
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  TempDir dir("wg-inline-move");
  const std::string source = WORKGATE_SOURCE_DIR "/tests/explain/testdata/inline_move.c";
  std::vector<std::string> files[2];
  for (int side = 0; side < 2; ++side) {
    const std::string exe = dir.path() + (side == 0 ? "/base/prog" : "/cand/prog");
    const std::string cc = "mkdir -p " + dir.path() + (side == 0 ? "/base" : "/cand") +
                           " && cc -O2 -g " + (side == 0 ? "" : "-DCANDIDATE ") + "-o " + exe +
                           " " + source;
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
    files[side] = testing::RunUnderCallgrind(dir.path(), exe, dir.path() + (side ? "/c" : "/b"));
  }
  const Explanation e = ExplainCallgrindOutputs(files[0], files[1], 10, {}, {});
  ASSERT_TRUE(e.error.empty()) << e.error;
  ASSERT_FALSE(e.rows.empty());
  // The helper is the row that rose most: from nothing in the baseline.
  const FunctionDelta& top = e.rows[0].delta() > 0 ? e.rows[0] : e.rows[1];
  EXPECT_EQ(top.function, "insert_key");
  EXPECT_EQ(top.baseline, 0);
  ASSERT_EQ(top.moves.size(), 1u);
  const CallerMove& m = top.moves[0];
  EXPECT_EQ(m.caller, "new_key");
  EXPECT_TRUE(m.out_of_line());
  EXPECT_EQ(m.candidate_calls, 20000u);
  // What the move cost in all is the caller's inclusive change: a call and
  // a return a key, far less than the helper's own cost.
  EXPECT_GT(m.inclusive_delta(), 0);
  EXPECT_LT(m.inclusive_delta(), top.delta() / 4) << top.delta();
}

}  // namespace
}  // namespace workgate
