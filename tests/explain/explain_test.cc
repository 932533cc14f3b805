// DiffProfiles: ranking, matching across builds, ties and the total.

#include "explain/explain.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

Profile Make(std::initializer_list<std::pair<FunctionId, uint64_t>> entries) {
  Profile p;
  for (const auto& [id, cost] : entries) {
    p.self[id] = cost;
    p.total += cost;
  }
  return p;
}

TEST(Explain, RanksByAbsoluteDeltaAndMatchesByNameAndObject) {
  Profile base = Make({{{"parse", "app"}, 1000},
                       {{"memcpy", "libc.so.6"}, 500},
                       {{"parse", "libother.so"}, 70},
                       {{"gone", "app"}, 40},
                       {{"same", "app"}, 9}});
  Profile cand = Make({{{"parse", "app"}, 1100},
                       {{"memcpy", "libc.so.6"}, 200},
                       {{"parse", "libother.so"}, 70},
                       {{"added", "app"}, 60},
                       {{"same", "app"}, 9}});
  Explanation e = DiffProfiles(base, cand, 10);
  EXPECT_TRUE(e.error.empty());
  EXPECT_EQ(e.total_delta, static_cast<int64_t>(cand.total) - static_cast<int64_t>(base.total));
  EXPECT_EQ(e.total_delta, -180);
  ASSERT_EQ(e.rows.size(), 4u);  // unchanged functions are left out
  EXPECT_EQ(e.rows[0].function, "memcpy");
  EXPECT_EQ(e.rows[0].delta(), -300);
  EXPECT_EQ(e.rows[1].function, "parse");
  EXPECT_EQ(e.rows[1].object, "app");
  EXPECT_EQ(e.rows[1].baseline, 1000);
  EXPECT_EQ(e.rows[1].candidate, 1100);
  EXPECT_EQ(e.rows[2].function, "added");
  EXPECT_EQ(e.rows[2].baseline, 0);
  EXPECT_EQ(e.rows[2].candidate, 60);
  EXPECT_EQ(e.rows[3].function, "gone");
  EXPECT_EQ(e.rows[3].candidate, 0);
  EXPECT_EQ(e.rows[3].delta(), -40);
}

TEST(Explain, TiesAreOrderedByNameThenObject) {
  Profile base;
  Profile cand = Make({{{"b", "x"}, 5}, {{"a", "y"}, 5}, {{"a", "x"}, 5}});
  Explanation grow = DiffProfiles(base, cand, 10);
  Explanation shrink = DiffProfiles(cand, base, 10);
  for (const Explanation* e : {&grow, &shrink}) {
    ASSERT_EQ(e->rows.size(), 3u);
    EXPECT_EQ(e->rows[0].function + "/" + e->rows[0].object, "a/x");
    EXPECT_EQ(e->rows[1].function + "/" + e->rows[1].object, "a/y");
    EXPECT_EQ(e->rows[2].function + "/" + e->rows[2].object, "b/x");
  }
  EXPECT_EQ(grow.total_delta, 15);
  EXPECT_EQ(shrink.total_delta, -15);
}

TEST(Explain, CodeWithoutASymbolIsOneRowPerObject) {
  // A PLT stub that moved from 0x1370 to 0x2370 between the builds is no
  // change; a stub in another object that grew is one row for that object.
  Profile base = Make({{{"0x0000000000001370", "app"}, 5},
                       {{"0x00000000000013a0", "app"}, 7},
                       {{"0x0000000000004000", "libx.so"}, 3},
                       {{"0xnothex", "app"}, 1},
                       {{"main", "app"}, 100}});
  Profile cand = Make({{{"0x0000000000002370", "app"}, 5},
                       {{"0x00000000000023a0", "app"}, 7},
                       {{"0x0000000000004010", "libx.so"}, 9},
                       {{"0xnothex", "app"}, 1},
                       {{"main", "app"}, 100}});
  Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_EQ(e.rows.size(), 1u);
  EXPECT_EQ(e.rows[0].function, kUnnamedCode);
  EXPECT_EQ(e.rows[0].object, "libx.so");
  EXPECT_EQ(e.rows[0].baseline, 3);
  EXPECT_EQ(e.rows[0].candidate, 9);
  EXPECT_EQ(e.total_delta, 6);
}

TEST(Explain, TopNLimitsTheRowsNotTheTotal) {
  Profile base;
  Profile cand = Make({{{"f1", ""}, 1}, {{"f2", ""}, 2}, {{"f3", ""}, 3}});
  Explanation e = DiffProfiles(base, cand, 2);
  ASSERT_EQ(e.rows.size(), 2u);
  EXPECT_EQ(e.rows[0].function, "f3");
  EXPECT_EQ(e.rows[1].function, "f2");
  EXPECT_EQ(e.total_delta, 6);
  EXPECT_TRUE(DiffProfiles(base, cand, 0).rows.empty());
  EXPECT_TRUE(DiffProfiles(base, cand, -1).rows.empty());
}

TEST(Explain, CountsBeyondInt64AreAnError) {
  Profile base;
  Profile cand = Make({{{"f", ""}, uint64_t{1} << 63}});
  Explanation e = DiffProfiles(base, cand, 5);
  EXPECT_FALSE(e.error.empty());
  EXPECT_TRUE(e.rows.empty());
}

TEST(Explain, ClonesAreSummedIntoTheFunctionTheyWereMadeFrom) {
  // GCC cloned and split in one build and not in the other: one row per
  // function and object, its clones named.
  Profile base = Make({{{"sqlite3BtreeNext", "{exe}"}, 6000},
                       {{"releaseMemArray.part.0", "{exe}"}, 3000},
                       {{"releaseMemArray", "{exe}"}, 40},
                       {{"foo(int) [clone .isra.0] [clone .cold]", "{exe}"}, 7},
                       {{"sqlite3BtreeNext", "libsqlite3.so.0"}, 10},
                       {{"main", "{exe}"}, 100}});
  Profile cand = Make({{{"sqlite3BtreeNext.constprop.0", "{exe}"}, 5000},
                       {{"sqlite3BtreeNext.cold", "{exe}"}, 200},
                       {{"releaseMemArray", "{exe}"}, 2800},
                       {{"foo(int)", "{exe}"}, 10},
                       {{"sqlite3BtreeNext", "libsqlite3.so.0"}, 10},
                       {{"main", "{exe}"}, 101}});
  Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_EQ(e.rows.size(), 4u);
  EXPECT_EQ(e.rows[0].function, "sqlite3BtreeNext");
  EXPECT_EQ(e.rows[0].object, "{exe}");
  EXPECT_EQ(e.rows[0].baseline, 6000);
  EXPECT_EQ(e.rows[0].candidate, 5200);
  EXPECT_EQ(e.rows[0].clones, (std::vector<std::string>{"sqlite3BtreeNext", "sqlite3BtreeNext.cold",
                                                        "sqlite3BtreeNext.constprop.0"}));
  EXPECT_EQ(e.rows[1].function, "releaseMemArray");
  EXPECT_EQ(e.rows[1].delta(), -240);
  EXPECT_EQ(e.rows[1].clones,
            (std::vector<std::string>{"releaseMemArray", "releaseMemArray.part.0"}));
  EXPECT_EQ(e.rows[2].function, "foo(int)");
  EXPECT_EQ(e.rows[2].delta(), 3);
  EXPECT_EQ(e.rows[2].clones,
            (std::vector<std::string>{"foo(int)", "foo(int) [clone .isra.0] [clone .cold]"}));
  // A row that saw only its own name lists no clones; the same name in
  // another object is another row (unchanged here, so left out).
  EXPECT_EQ(e.rows[3].function, "main");
  EXPECT_TRUE(e.rows[3].clones.empty());
  int64_t listed = 0;
  for (const FunctionDelta& row : e.rows) listed += row.delta();
  EXPECT_EQ(listed, e.total_delta);
}

TEST(Explain, CloneOnlyRowsListTheirNamesAndUnnamedCodeListsNone) {
  Profile base = Make({{{"f.part.0", "a"}, 5}, {{"0x0000000000001370", "a"}, 5}});
  Profile cand = Make({{{"f.part.1", "a"}, 9}, {{"0x0000000000002370", "a"}, 6}});
  Explanation e = DiffProfiles(base, cand, 10);
  ASSERT_EQ(e.rows.size(), 2u);
  EXPECT_EQ(e.rows[0].function, "f");
  EXPECT_EQ(e.rows[0].clones, (std::vector<std::string>{"f.part.0", "f.part.1"}));
  EXPECT_EQ(e.rows[1].function, kUnnamedCode);
  EXPECT_TRUE(e.rows[1].clones.empty());
}

TEST(Explain, LoadErrorsNameTheSide) {
  const std::string good =
      std::string(WORKGATE_SOURCE_DIR) + "/tests/explain/testdata/inlined.callgrind";
  Explanation e = ExplainCallgrindOutputs({good}, {"/nonexistent/cg.out"}, 5);
  EXPECT_EQ(e.error.rfind("candidate profile: /nonexistent/cg.out: cannot open", 0), 0u) << e.error;
  e = ExplainCallgrindOutputs({good}, {good}, 5);
  EXPECT_TRUE(e.error.empty()) << e.error;
  EXPECT_TRUE(e.rows.empty());
  EXPECT_EQ(e.total_delta, 0);
}

}  // namespace
}  // namespace workgate
