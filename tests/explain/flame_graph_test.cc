// The call stacks of the flame graph, reconstructed from call edges of
// profiles made by hand: each frame's cost scaled by its caller frame's
// share, recursion cut, both sides in one tree, and every bound holding
// against a profile that claims too much.

#include "explain/flame_graph.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

FunctionId Fn(const std::string& name) { return {name, "prog"}; }

// Sets the self cost of each of `self` and the total.
void SetSelf(Profile* p, const std::vector<std::pair<std::string, uint64_t>>& self) {
  p->total = 0;
  for (const auto& [name, cost] : self) {
    p->self[Fn(name)] = cost;
    p->total += cost;
  }
}

void Call(Profile* p, const std::string& from, const std::string& to, uint64_t inclusive) {
  p->calls[{Fn(from), Fn(to)}] = {1, inclusive};
}

// main calls A and B, which both call C, which calls D.
Profile SharedCallee() {
  Profile p;
  SetSelf(&p, {{"main", 10}, {"A", 20}, {"B", 30}, {"C", 20}, {"D", 20}});
  Call(&p, "main", "A", 50);
  Call(&p, "main", "B", 40);
  Call(&p, "A", "C", 30);
  Call(&p, "B", "C", 10);
  Call(&p, "C", "D", 20);
  return p;
}

// "name:baseline/candidate@depth" per frame, in the graph's order.
std::vector<std::string> Frames(const FlameGraph& g) {
  std::vector<std::string> out;
  for (const FlameFrame& f : g.frames) {
    out.push_back((f.function.empty() ? "*" : f.function) + ":" + std::to_string(f.baseline) +
                  "/" + std::to_string(f.candidate) + "@" + std::to_string(f.depth));
  }
  return out;
}

TEST(FlameGraphTest, ACalleeOfSeveralCallersIsSharedByEachStacksCostOfIt) {
  const FlameGraph g = BuildFlameGraph(SharedCallee(), SharedCallee());
  EXPECT_TRUE(g.call_edges);
  EXPECT_FALSE(g.cut);
  // C's 40 is 30 under A and 10 under B; D, all of C's callees, follows
  // those shares: 20 * 30/40 and 20 * 10/40.
  EXPECT_EQ(Frames(g), (std::vector<std::string>{"*:100/100@0", "main:100/100@1", "A:50/50@2",
                                                 "C:30/30@3", "D:15/15@4", "B:40/40@2",
                                                 "C:10/10@3", "D:5/5@4"}));
  ASSERT_EQ(g.frames.size(), 8u);
  EXPECT_EQ(g.frames[4].parent, 3u);
  EXPECT_EQ(g.frames[5].parent, 1u);
  EXPECT_EQ(g.frames[7].parent, 6u);
}

TEST(FlameGraphTest, AFunctionAlreadyOnTheStackAddsNoFrame) {
  Profile p;
  SetSelf(&p, {{"main", 10}, {"fib", 70}, {"helper", 20}});
  Call(&p, "main", "fib", 90);
  Call(&p, "fib", "fib", 80);  // callgrind's fib'2: inside fib's cost already
  Call(&p, "fib", "helper", 20);
  Call(&p, "helper", "fib", 5);  // back into fib: cut, its cost stays in helper
  const FlameGraph g = BuildFlameGraph(p, p);
  EXPECT_EQ(Frames(g), (std::vector<std::string>{"*:100/100@0", "main:100/100@1", "fib:90/90@2",
                                                 "helper:20/20@3"}));
}

TEST(FlameGraphTest, BothSidesShareOneTreeAndAnOutOfLineCalleeIsNewInTheCandidate) {
  // The candidate stops inlining insert_key into new_key.
  Profile base, cand;
  SetSelf(&base, {{"main", 100}, {"new_key", 9000}});
  Call(&base, "main", "new_key", 9000);
  SetSelf(&cand, {{"main", 100}, {"new_key", 2000}, {"insert_key", 7500}});
  Call(&cand, "main", "new_key", 9500);
  Call(&cand, "new_key", "insert_key", 7500);
  const FlameGraph g = BuildFlameGraph(base, cand);
  EXPECT_EQ(Frames(g), (std::vector<std::string>{"*:9100/9600@0", "main:9100/9600@1",
                                                 "new_key:9000/9500@2", "insert_key:0/7500@3"}));
  EXPECT_EQ(g.frames[3].width(), 7500u);
  EXPECT_EQ(g.frames[3].object, "prog");
}

TEST(FlameGraphTest, WithoutCallEdgesEachFunctionIsOneFrameWithItsSelfCost) {
  Profile with_edges = SharedCallee();
  Profile without = SharedCallee();
  without.calls.clear();
  without.self[Fn("C")] = 60;
  without.total += 40;
  // One side without edges is enough: both are drawn alike.
  const FlameGraph g = BuildFlameGraph(with_edges, without);
  EXPECT_FALSE(g.call_edges);
  EXPECT_EQ(Frames(g),
            (std::vector<std::string>{"*:100/140@0", "C:20/60@1", "B:30/30@1", "A:20/20@1",
                                      "D:20/20@1", "main:10/10@1"}));
}

TEST(FlameGraphTest, FramesUnderTheLeastShareAreLeftOutWithoutCuttingTheGraph) {
  Profile p;
  SetSelf(&p, {{"main", 9990}, {"tiny", 4}, {"small", 6}});
  Call(&p, "main", "tiny", 4);
  Call(&p, "main", "small", 6);
  FlameBounds bounds;
  bounds.min_share = 1.0 / 2000;  // 5 of 10,000
  const FlameGraph g = BuildFlameGraph(p, p, bounds);
  EXPECT_EQ(Frames(g), (std::vector<std::string>{"*:10000/10000@0", "main:10000/10000@1",
                                                 "small:6/6@2"}));
  EXPECT_FALSE(g.cut);
}

// f0 calls f1, which calls f2, ... up to f(n-1); each costs 10 of its own.
Profile Chain(int n) {
  Profile p;
  for (int i = 0; i < n; ++i) {
    p.self[Fn("f" + std::to_string(i))] = 10;
    if (i + 1 < n) Call(&p, "f" + std::to_string(i), "f" + std::to_string(i + 1), 10 * (n - 1 - i));
  }
  p.total = 10 * static_cast<uint64_t>(n);
  return p;
}

// main calls g1 ... gn, gi costing i.
Profile Fan(int n) {
  Profile p;
  SetSelf(&p, {{"main", 1}});
  for (int i = 1; i <= n; ++i) {
    const std::string name = "g" + std::to_string(i);
    p.self[Fn(name)] = static_cast<uint64_t>(i);
    p.total += static_cast<uint64_t>(i);
    Call(&p, "main", name, static_cast<uint64_t>(i));
  }
  return p;
}

// No least share, so that only the bound under test leaves frames out.
FlameBounds OnlyBound(uint32_t depth, size_t frames, size_t edges) {
  FlameBounds bounds;
  bounds.min_share = 0;
  bounds.max_depth = depth;
  bounds.max_frames = frames;
  bounds.max_edge_visits = edges;
  return bounds;
}

TEST(FlameGraphTest, ADeepChainStopsAtTheDeepestFrameAndSaysItWasCut) {
  const FlameGraph g = BuildFlameGraph(Chain(300), Chain(300), OnlyBound(40, 10000, 1 << 20));
  EXPECT_TRUE(g.cut);
  ASSERT_EQ(g.frames.size(), 41u);
  EXPECT_EQ(g.frames.back().depth, 40u);
  EXPECT_EQ(g.frames.back().function, "f39");
  EXPECT_FALSE(BuildFlameGraph(Chain(30), Chain(30), OnlyBound(40, 10000, 1 << 20)).cut);
}

TEST(FlameGraphTest, TheMostFramesAreTheWidestOnes) {
  const FlameGraph g = BuildFlameGraph(Fan(1000), Fan(1000), OnlyBound(96, 12, 1 << 20));
  EXPECT_TRUE(g.cut);
  ASSERT_EQ(g.frames.size(), 12u);
  // The root, main, and main's ten widest callees, widest first.
  EXPECT_EQ(g.frames[2].function, "g1000");
  EXPECT_EQ(g.frames[11].function, "g991");
}

TEST(FlameGraphTest, AFunctionWithThousandsOfCalleesCostsOnlyTheEdgeBound) {
  const FlameGraph g = BuildFlameGraph(Fan(5000), Fan(5000), OnlyBound(96, 10000, 100));
  EXPECT_TRUE(g.cut);
  EXPECT_LE(g.frames.size(), 102u);
  EXPECT_EQ(BuildFlameGraph(Fan(50), Fan(50), OnlyBound(96, 10000, 100)).frames.size(), 52u);
}

TEST(FlameGraphTest, ClaimedCostsBeyondTheTotalNeverWidenAFrameBeyondItsCaller) {
  Profile p;
  SetSelf(&p, {{"main", 10}, {"x", 5}, {"y", 5}});
  Call(&p, "main", "x", UINT64_MAX);
  Call(&p, "x", "y", UINT64_MAX);
  Call(&p, "main", "y", UINT64_MAX / 2);
  const FlameGraph g = BuildFlameGraph(p, p);
  ASSERT_GE(g.frames.size(), 3u);
  EXPECT_EQ(g.frames[0].width(), 20u);
  for (size_t i = 1; i < g.frames.size(); ++i) {
    EXPECT_LE(g.frames[i].width(), g.frames[g.frames[i].parent].width()) << i;
    EXPECT_LT(g.frames[i].parent, i);
  }
}

TEST(FlameGraphTest, EmptyProfilesGiveOnlyTheRoot) {
  const FlameGraph g = BuildFlameGraph(Profile{}, Profile{});
  EXPECT_EQ(Frames(g), (std::vector<std::string>{"*:0/0@0"}));
}

}  // namespace
}  // namespace workgate
