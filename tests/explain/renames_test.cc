// Explanations that claim only what happened: a renamed function is one
// row said as a rename, and a call edge that one build has and the other
// lacks is a move only where the code went with the calls (profiles made
// by hand, shaped like the real cases that were misread).

#include "explain/renames.h"

#include <gtest/gtest.h>

#include "explain/explain.h"
#include "explain/inline_moves.h"

namespace workgate {
namespace {

const FunctionId kMalloc{"luaM_malloc_", "{exe}"};
const FunctionId kOld{"l_alloc", "{exe}"};
const FunctionId kNew{"luaL_alloc", "{exe}"};
const FunctionId kLuaMain{"main", "{exe}"};

// Lua's allocator called by luaM_malloc_ 100,322 times, named `alloc` and
// costing `cost`, its code on lauxlib.c's lines `first` to `first` + 9
// (none with `lines` false).
Profile Allocating(const FunctionId& alloc, uint64_t cost, uint64_t first = 1010,
                   bool lines = true) {
  Profile p;
  p.self[kLuaMain] = 5000;
  p.self[kMalloc] = 400'000;
  p.self[alloc] = cost;
  p.calls[{kLuaMain, kMalloc}] = {100'322, 400'000 + cost};
  p.calls[{kMalloc, alloc}] = {100'322, cost};
  if (lines) {
    for (uint64_t l = first; l < first + 10; ++l) {
      p.lines[alloc][{"/src/lua/lauxlib.c", l}] = cost / 10;
    }
    p.lines[kMalloc][{"/src/lua/lmem.c", 50}] = 400'000;
  }
  for (const auto& [f, c] : p.self) p.total += c;
  return p;
}

const FunctionDelta* RowOf(const Explanation& e, const std::string& function) {
  for (const FunctionDelta& r : e.rows) {
    if (r.function == function) return &r;
  }
  return nullptr;
}

TEST(RenamesTest, ARenameIsOneRowSaidAsARenameAndNoMove) {
  // Lua's l_alloc renamed luaL_alloc, its code where it was.
  const Profile base = Allocating(kOld, 1'000'000), cand = Allocating(kNew, 1'000'400);
  const Renames renames = FindRenames(base, cand);
  ASSERT_EQ(renames.size(), 1u);
  EXPECT_EQ(renames.at(kOld), kNew);
  const Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_EQ(e.rows.size(), 1u);
  const FunctionDelta& row = e.rows[0];
  EXPECT_EQ(row.function, "luaL_alloc");
  EXPECT_EQ(row.renamed_from, "l_alloc");
  EXPECT_EQ(row.delta(), 400);
  EXPECT_TRUE(row.clones.empty());
  EXPECT_TRUE(row.moves.empty());
  // Its lines are the two functions' lines, matched.
  EXPECT_TRUE(row.lines.empty() || row.lines[0].delta() == 40);
  // At one cost it is no change at all: no row.
  EXPECT_TRUE(DiffProfiles(base, Allocating(kNew, 1'000'000), 10).rows.empty());
}

TEST(RenamesTest, WithoutLinesTheSameCallersAsOftenSayItIsOneFunction) {
  const Profile base = Allocating(kOld, 1'000'000, 1010, false);
  EXPECT_EQ(FindRenames(base, Allocating(kNew, 1'000'400, 1010, false)).size(), 1u);
  // Called as often by another caller: another function.
  Profile other = Allocating(kNew, 1'000'400, 1010, false);
  other.calls.erase({kMalloc, kNew});
  other.calls[{kLuaMain, kNew}] = {100'322, 1'000'400};
  EXPECT_TRUE(FindRenames(base, other).empty());
  // A profile that lost its call edges to the bounds says nothing.
  Profile cut = Allocating(kNew, 1'000'400, 1010, false);
  cut.calls_cut.functions.insert(kNew);
  EXPECT_TRUE(FindRenames(base, cut).empty());
}

TEST(RenamesTest, OtherLinesOrAnotherCostAreTwoFunctions) {
  const Profile base = Allocating(kOld, 1'000'000);
  // Code elsewhere in the file: a new function beside a removed one.
  EXPECT_TRUE(FindRenames(base, Allocating(kNew, 1'000'400, 2000)).empty());
  // More than a tenth dearer.
  EXPECT_TRUE(FindRenames(base, Allocating(kNew, 1'120'000)).empty());
  // Lines on one side only: no evidence either way.
  EXPECT_TRUE(FindRenames(base, Allocating(kNew, 1'000'400, 1010, false)).empty());
  // In another object.
  Profile elsewhere = Allocating(kNew, 1'000'400);
  elsewhere.self[{"luaL_alloc", "liblua.so"}] = elsewhere.self[kNew];
  elsewhere.self.erase(kNew);
  elsewhere.lines[{"luaL_alloc", "liblua.so"}] = elsewhere.lines[kNew];
  elsewhere.lines.erase(kNew);
  EXPECT_TRUE(FindRenames(base, elsewhere).empty());
  // Two rows then, and neither is a move: luaM_malloc_'s own cost did not
  // take the allocator's code in.
  const Explanation e = DiffProfiles(base, Allocating(kNew, 1'000'400, 2000), 10);
  ASSERT_NE(RowOf(e, "l_alloc"), nullptr);
  ASSERT_NE(RowOf(e, "luaL_alloc"), nullptr);
  EXPECT_TRUE(RowOf(e, "l_alloc")->renamed_from.empty());
  EXPECT_TRUE(RowOf(e, "l_alloc")->moves.empty());
  EXPECT_TRUE(RowOf(e, "luaL_alloc")->moves.empty());
}

TEST(RenamesTest, ANewFunctionIsNotAMove) {
  // The candidate calls a new function from luaM_malloc_, whose own code
  // did not shrink: new work, not code moved out of line.
  const Profile base = Allocating(kOld, 1'000'000);
  Profile cand = base;
  const FunctionId added{"luaM_track", "{exe}"};
  cand.self[added] = 300'000;
  cand.calls[{kMalloc, added}] = {100'322, 300'000};
  cand.total += 300'000;
  const Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(e, "luaM_track"), nullptr);
  EXPECT_TRUE(RowOf(e, "luaM_track")->moves.empty());
}

TEST(RenamesTest, ACalleeAndCallerAbsentFromOneSideAreNoMove) {
  // python3.11 -> python3.11-dbg: the debug build's checks, called from a
  // function the release build does not have either.
  const FunctionId free_fn{"_PyMem_DebugRawFree", "{exe}"};
  const FunctionId check{"_PyMem_DebugCheckAddress", "{exe}"};
  const FunctionId raw_free{"_PyMem_RawFree", "{exe}"};
  Profile base;
  base.self[kLuaMain] = 1000;
  base.self[raw_free] = 500'000;
  base.calls[{kLuaMain, raw_free}] = {357'540, 500'000};
  base.total = 501'000;
  Profile cand = base;
  cand.self[free_fn] = 700'000;
  cand.self[check] = 2'000'000;
  cand.calls[{kLuaMain, free_fn}] = {357'540, 2'700'000};
  cand.calls[{free_fn, check}] = {357'540, 2'000'000};
  cand.total += 2'700'000;
  const Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(e, "_PyMem_DebugCheckAddress"), nullptr);
  EXPECT_TRUE(RowOf(e, "_PyMem_DebugCheckAddress")->moves.empty());
  // The caller on both sides, the callee on one, the caller's own cost the
  // same: the callee's code was never in it.
  base.self[free_fn] = 700'000;
  base.calls[{kLuaMain, free_fn}] = {357'540, 700'000};
  base.total += 700'000;
  const Explanation same = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(same, "_PyMem_DebugCheckAddress"), nullptr);
  EXPECT_TRUE(RowOf(same, "_PyMem_DebugCheckAddress")->moves.empty());
  // Its cost was: then it did move out of line.
  base.self[free_fn] = 2'600'000;
  const Explanation moved = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(moved, "_PyMem_DebugCheckAddress"), nullptr);
  ASSERT_EQ(RowOf(moved, "_PyMem_DebugCheckAddress")->moves.size(), 1u);
  EXPECT_EQ(RowOf(moved, "_PyMem_DebugCheckAddress")->moves[0].caller, "_PyMem_DebugRawFree");
}

TEST(RenamesTest, CallsThatWentToAnotherFunctionAreNoMoveInline) {
  // The calls of one build went to another function in the other, even
  // where the caller's own cost happens to have grown by as much.
  const FunctionId replaced{"lua_alloc_v2", "{exe}"};
  const Profile base = Allocating(kOld, 1'000'000);
  Profile cand = Allocating(replaced, 2'000'000, 3000);
  cand.self[kMalloc] += 1'000'000;
  const Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(e, "l_alloc"), nullptr);
  EXPECT_TRUE(RowOf(e, "l_alloc")->moves.empty());
  // Without the other calls it is a move inline.
  cand.calls.erase({kMalloc, replaced});
  const Explanation inlined = DiffProfiles(base, cand, 10);
  ASSERT_NE(RowOf(inlined, "l_alloc"), nullptr);
  ASSERT_EQ(RowOf(inlined, "l_alloc")->moves.size(), 1u);
  EXPECT_FALSE(RowOf(inlined, "l_alloc")->moves[0].out_of_line());
}

TEST(RenamesTest, CodeInNoObjectIsGeneratedCodeNotAStrippedObject) {
  // LuaJIT's traces: code in an anonymous mapping, which callgrind puts in
  // the object "???".
  EXPECT_EQ(ShownFunction({"0x0000000004a2b000", "???"}).name, kGeneratedCode);
  EXPECT_EQ(ShownFunction({"0x0000000000001370", "libc.so.6"}).name, kUnnamedCode);
  Profile base, cand;
  base.self[{"0x0000000004a2b000", "???"}] = 100;
  cand.self[{"0x0000000004a2c000", "???"}] = 300;
  base.total = 100;
  cand.total = 300;
  const Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_EQ(e.rows.size(), 1u);
  EXPECT_EQ(e.rows[0].function, "(code generated at run time: JIT or anonymous mapping)");
  EXPECT_EQ(e.rows[0].object, "???");
  EXPECT_EQ(e.rows[0].delta(), 200);
  // Never paired as a rename.
  EXPECT_TRUE(FindRenames(base, cand).empty());
}

}  // namespace
}  // namespace workgate
