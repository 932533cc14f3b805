// What an explanation keeps of a profile the build under test wrote
// (ProfileBounds): the costliest call edges and lines with their whole
// costs, what was left out, and never a self cost or a total changed.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "explain/callgrind_profile.h"
#include "explain/explain.h"
#include "explain/generated_profile.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::GeneratedProfile;

FunctionId Fn(size_t f) { return FunctionId{GeneratedProfile::Name(f), "generated"}; }

// 50 functions of 3 lines each, each calling 4 others: 200 edges, 150 lines.
const GeneratedProfile kFifty{50, 4, 3};

// The default bounds but for `field`, which is `value`.
ProfileBounds Bound(size_t ProfileBounds::*field, size_t value) {
  ProfileBounds bounds;
  bounds.*field = value;
  return bounds;
}

Profile Parsed(const GeneratedProfile& g, const ProfileBounds& bounds = {}) {
  Profile p;
  std::string err;
  EXPECT_TRUE(ParseCallgrind(g.Text(), "gen", &p, &err, "Ir", bounds)) << err;
  return p;
}

// Every call edge of `g` with its inclusive cost, the costliest first.
std::vector<std::pair<uint64_t, CallEdge>> EdgesByCost(const GeneratedProfile& g) {
  std::vector<std::pair<uint64_t, CallEdge>> edges;
  for (size_t f = 0; f < g.functions; ++f) {
    for (size_t k = 0; k < g.callees; ++k) {
      edges.push_back({g.CallCost(f, k), {Fn(f), Fn((f + k + 1) % g.functions)}});
    }
  }
  std::sort(edges.begin(), edges.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  return edges;
}

TEST(ProfileBoundsTest, AProfileWithinTheBoundsIsKeptWhole) {
  const Profile p = Parsed(kFifty);
  EXPECT_EQ(p.self.size(), 50u);
  EXPECT_EQ(p.calls.size(), 200u);
  EXPECT_EQ(p.lines.at(Fn(7)).size(), 3u);
  for (const TableCut* cut : {&p.calls_cut, &p.lines_cut}) {
    EXPECT_FALSE(cut->any());
    EXPECT_TRUE(cut->functions.empty());
  }
  EXPECT_EQ(p.calls_cut.named, 200u);
  EXPECT_EQ(p.lines_cut.kept, 150u);
}

TEST(ProfileBoundsTest, TheCostliestCallEdgesAreKeptWithTheirWholeCost) {
  const GeneratedProfile& g = kFifty;
  const Profile whole = Parsed(g);
  const Profile p = Parsed(g, Bound(&ProfileBounds::calls_kept, 10));
  const auto edges = EdgesByCost(g);
  ASSERT_EQ(p.calls.size(), 10u);
  std::set<FunctionId> lost;
  for (size_t i = 0; i < edges.size(); ++i) {
    const auto& [cost, edge] = edges[i];
    if (i < 10) {
      ASSERT_EQ(p.calls.count(edge), 1u) << edge.first.name << " -> " << edge.second.name;
      EXPECT_EQ(p.calls.at(edge).inclusive, cost);
      EXPECT_EQ(p.calls.at(edge).calls, 1u);
    } else {
      lost.insert(edge.first);
      lost.insert(edge.second);
    }
  }
  EXPECT_EQ(p.calls_cut.named, 200u);
  EXPECT_EQ(p.calls_cut.kept, 10u);
  EXPECT_FALSE(p.calls_cut.dropped);
  EXPECT_EQ(p.calls_cut.functions, lost);
  // g49 calls g0..g2 at its top cost, and g0..g2 lost other callers.
  EXPECT_FALSE(p.calls_cut.Complete(Fn(0)));
  // No self cost, line or total moves.
  EXPECT_EQ(p.self, whole.self);
  EXPECT_EQ(p.lines, whole.lines);
  EXPECT_EQ(p.total, whole.total);
  EXPECT_FALSE(p.lines_cut.any());
}

TEST(ProfileBoundsTest, BeyondTheReadBoundNoCallEdgeIsKept) {
  const GeneratedProfile& g = kFifty;
  const Profile whole = Parsed(g);
  const Profile p = Parsed(g, Bound(&ProfileBounds::calls_read, 150));
  EXPECT_TRUE(p.calls.empty());
  EXPECT_TRUE(p.calls_cut.dropped);
  EXPECT_EQ(p.calls_cut.named, 150u);
  EXPECT_EQ(p.calls_cut.kept, 0u);
  EXPECT_FALSE(p.calls_cut.Complete(Fn(3)));
  EXPECT_EQ(p.self, whole.self);
  EXPECT_EQ(p.lines, whole.lines);
  EXPECT_EQ(p.total, whole.total);
}

TEST(ProfileBoundsTest, TheCostliestLinesAreKeptAndNoSelfCostMoves) {
  const GeneratedProfile& g = kFifty;
  const Profile whole = Parsed(g);
  const Profile p = Parsed(g, Bound(&ProfileBounds::lines_kept, 7));
  // The 7 costliest lines: g49's three, g48's three and g47's last.
  size_t lines = 0;
  for (const auto& [f, costs] : p.lines) lines += costs.size();
  EXPECT_EQ(lines, 7u);
  for (size_t f : {48, 49}) EXPECT_EQ(p.lines.at(Fn(f)), whole.lines.at(Fn(f)));
  ASSERT_EQ(p.lines.at(Fn(47)).size(), 1u);
  const SourceLine last{"generated.c", GeneratedProfile::LineNumber(47, 2)};
  EXPECT_EQ(p.lines.at(Fn(47)).at(last), g.LineCost(47, 2));
  EXPECT_EQ(p.lines_cut.named, 150u);
  EXPECT_EQ(p.lines_cut.kept, 7u);
  EXPECT_TRUE(p.lines_cut.Complete(Fn(49)));
  EXPECT_FALSE(p.lines_cut.Complete(Fn(47)));
  EXPECT_FALSE(p.lines_cut.Complete(Fn(0)));
  EXPECT_EQ(p.lines_cut.functions.size(), 48u);
  EXPECT_EQ(p.self, whole.self);
  EXPECT_EQ(p.calls, whole.calls);
  EXPECT_EQ(p.total, whole.total);

  ProfileBounds bounds = Bound(&ProfileBounds::lines_kept, 7);
  bounds.lines_read = 100;
  const Profile none = Parsed(g, bounds);
  EXPECT_TRUE(none.lines.empty());
  EXPECT_TRUE(none.lines_cut.dropped);
  EXPECT_EQ(none.lines_cut.named, 100u);
  EXPECT_EQ(none.self, whole.self);
}

TEST(ProfileBoundsTest, TooManyFunctionsOrTooMuchNameMemoryRefusesTheProfile) {
  const GeneratedProfile g{50, 0, 1};
  ProfileBounds bounds;
  bounds.functions = 49;
  Profile p;
  std::string err;
  EXPECT_FALSE(ParseCallgrind(g.Text(), "gen", &p, &err, "Ir", bounds));
  EXPECT_NE(err.find("gen:"), std::string::npos) << err;
  EXPECT_NE(err.find("the profile has more than 49 functions, the most an explanation reads"),
            std::string::npos)
      << err;
  EXPECT_TRUE(p.self.empty());
  bounds.functions = 50;
  EXPECT_TRUE(ParseCallgrind(g.Text(), "gen", &p, &err, "Ir", bounds)) << err;

  // One name in three objects is three functions.
  const std::string objects =
      "events: Ir\nob=/a/x\nfn=g\n1 1\nob=/b/y\nfn=g\n1 1\nob=/c/z\nfn=g\n1 1\n";
  bounds.functions = 2;
  EXPECT_FALSE(ParseCallgrind(objects, "gen", &p, &err, "Ir", bounds));
  EXPECT_NE(err.find("gen:10: the profile has more than 2 functions"), std::string::npos) << err;
  bounds.functions = 3;
  EXPECT_TRUE(ParseCallgrind(objects, "gen", &p, &err, "Ir", bounds)) << err;

  // Each name is charged its bytes and kNameEntryBytes per table it is in.
  bounds = ProfileBounds{};
  bounds.name_bytes = 4096;
  Profile q;
  EXPECT_FALSE(ParseCallgrind(g.Text(), "gen", &q, &err, "Ir", bounds));
  EXPECT_NE(err.find("the profile's names take more than 4096 bytes, the most an explanation "
                     "reads"),
            std::string::npos)
      << err;
  EXPECT_TRUE(q.self.empty());
}

// Two files of one profile, each naming its functions with ids of its own:
// the edge g0 -> g1 is the costliest only as their sum.
constexpr const char* kFileOne =
    "events: Ir\nfn=(1) g0\n1 5\ncfn=(2) g1\ncalls=1 1\n1 6\ncfn=(3) g2\ncalls=1 1\n1 10\n";
constexpr const char* kFileTwo =
    "events: Ir\nfn=(1) g1\n1 7\ncfn=(2) g2\ncalls=1 1\n1 8\nfn=(3) g0\n1 1\ncfn=(1)\n"
    "calls=1 1\n1 6\n";

TEST(ProfileBoundsTest, TheBoundsHoldForAProfilesFilesTogether) {
  TempDir dir("wg-bounds");
  const std::string one = dir.path() + "/callgrind.out.1", two = dir.path() + "/callgrind.out.2";
  std::ofstream(one) << kFileOne;
  std::ofstream(two) << kFileTwo;
  ProfileBounds bounds;
  bounds.calls_kept = 1;
  Profile p;
  std::string err;
  ASSERT_TRUE(LoadProfiles({one, two}, &p, &err, "Ir", bounds)) << err;
  const FunctionId g0{"g0", ""}, g1{"g1", ""}, g2{"g2", ""};
  ASSERT_EQ(p.calls.size(), 1u);
  ASSERT_EQ(p.calls.count({g0, g1}), 1u);
  EXPECT_EQ(p.calls.at({g0, g1}).inclusive, 12u);
  EXPECT_EQ(p.calls.at({g0, g1}).calls, 2u);
  EXPECT_EQ(p.calls_cut.named, 3u);
  EXPECT_EQ(p.calls_cut.functions, (std::set<FunctionId>{g0, g1, g2}));
  EXPECT_EQ(p.self.at(g0), 6u);
  EXPECT_EQ(p.self.at(g1), 7u);
  EXPECT_EQ(p.total, 13u);
  EXPECT_EQ(p.parts, 2);
}

TEST(ProfileBoundsTest, AFilesOwnNameIdsAreNotChargedToTheNextFile) {
  // One file per process: each names the same functions by ids of its own,
  // which are gone when the next file starts.
  TempDir dir("wg-bounds");
  const GeneratedProfile g{50, 0, 1};
  std::vector<std::string> files;
  for (int i = 0; i < 20; ++i) {
    files.push_back(dir.path() + "/callgrind.out." + std::to_string(i + 1));
    std::ofstream(files.back()) << g.Text();
  }
  ProfileBounds bounds;
  bounds.name_bytes = 16 << 10;
  Profile p;
  std::string err;
  ASSERT_TRUE(LoadProfiles(files, &p, &err, "Ir", bounds)) << err;
  EXPECT_EQ(p.self.at(Fn(49)), 20 * g.SelfCost(49));
  EXPECT_EQ(p.parts, 20);
}

TEST(ProfileBoundsTest, TheExplanationsRowsStayAndSayWhatWasCut) {
  const GeneratedProfile base{30, 3, 3};
  GeneratedProfile cand = base;
  cand.scale = 2;
  ProfileBounds bounds;
  bounds.lines_kept = 5;  // g29's three lines and g28's last two
  bounds.calls_kept = 6;
  const Explanation whole = DiffProfiles(Parsed(base), Parsed(cand), 10);
  const Explanation e = DiffProfiles(Parsed(base), Parsed(cand, bounds), 10);
  ASSERT_TRUE(e.error.empty()) << e.error;
  ASSERT_EQ(e.rows.size(), 10u);
  for (size_t i = 0; i < e.rows.size(); ++i) {
    EXPECT_EQ(e.rows[i].function, whole.rows[i].function);
    EXPECT_EQ(e.rows[i].delta(), whole.rows[i].delta());
  }
  EXPECT_EQ(e.rows[0].function, "g29");
  // g29 kept every line on both sides; g28 and g27 lost some in the candidate.
  ASSERT_EQ(e.rows[0].lines.size(), whole.rows[0].lines.size());
  ASSERT_FALSE(e.rows[0].lines.empty());
  for (size_t i = 0; i < e.rows[0].lines.size(); ++i) {
    EXPECT_EQ(e.rows[0].lines[i].line, whole.rows[0].lines[i].line);
    EXPECT_EQ(e.rows[0].lines[i].delta(), whole.rows[0].lines[i].delta());
  }
  EXPECT_FALSE(whole.rows[1].lines.empty());
  EXPECT_TRUE(e.rows[1].lines.empty());
  EXPECT_TRUE(e.rows[2].lines.empty());
  ASSERT_EQ(e.profile_cuts.size(), 2u);
  const ProfileCut& calls = e.profile_cuts[0];
  EXPECT_EQ(calls.side, "candidate");
  EXPECT_EQ(calls.table, "call_edges");
  EXPECT_EQ(calls.named, 90u);
  EXPECT_EQ(calls.kept, 6u);
  EXPECT_FALSE(calls.more_than_named);
  const ProfileCut& lines = e.profile_cuts[1];
  EXPECT_EQ(lines.table, "source_lines");
  EXPECT_EQ(lines.named, 90u);
  EXPECT_EQ(lines.kept, 5u);
  EXPECT_TRUE(whole.profile_cuts.empty());
}

}  // namespace
}  // namespace workgate
