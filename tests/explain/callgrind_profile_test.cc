// The callgrind parser on hand-written fixtures, one per format feature
// (tests/explain/testdata/*.callgrind), and on malformed input.

#include "explain/callgrind_profile.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace workgate {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(WORKGATE_SOURCE_DIR) + "/tests/explain/testdata/" + name;
}

Profile Load(const std::string& name) {
  Profile p;
  std::string err;
  EXPECT_TRUE(LoadCallgrindFile(Fixture(name), &p, &err)) << err;
  return p;
}

uint64_t Self(const Profile& p, const std::string& fn, const std::string& obj) {
  auto it = p.self.find(FunctionId{fn, obj});
  return it == p.self.end() ? 0 : it->second;
}

TEST(CallgrindProfile, PicksTheIrColumnAmongSeveralEvents) {
  Profile p = Load("spec_simple.callgrind");
  EXPECT_EQ(Self(p, "main", ""), 26u);
  EXPECT_EQ(p.total, 26u);
  EXPECT_EQ(p.self.size(), 1u);
  EXPECT_EQ(p.parts, 1);
}

TEST(CallgrindProfile, CallCostIsNotSelfCost) {
  Profile p = Load("calls_compressed.callgrind");
  EXPECT_EQ(Self(p, "main", "prog"), 20u);
  EXPECT_EQ(Self(p, "func1", "prog"), 100u);
  EXPECT_EQ(Self(p, "func2", "prog"), 700u);
  EXPECT_EQ(p.total, 820u);
}

// The self cost of `fn` in `obj` per source line, as "file:line" -> cost.
std::map<std::string, uint64_t> Lines(const Profile& p, const std::string& fn,
                                      const std::string& obj) {
  std::map<std::string, uint64_t> out;
  auto it = p.lines.find(FunctionId{fn, obj});
  if (it == p.lines.end()) return out;
  for (const auto& [where, cost] : it->second) {
    out[where.file + ":" + std::to_string(where.line)] += cost;
  }
  return out;
}

// Every function's lines add up to its self cost.
void ExpectLinesAddUp(const Profile& p) {
  EXPECT_EQ(p.lines.size(), p.self.size());
  for (const auto& [id, self] : p.self) {
    uint64_t sum = 0;
    auto it = p.lines.find(id);
    if (it != p.lines.end()) {
      for (const auto& [where, cost] : it->second) sum += cost;
    }
    EXPECT_EQ(sum, self) << id.name << " in " << id.object;
  }
}

CallCost Call(const Profile& p, const std::string& caller, const std::string& callee,
              const std::string& obj) {
  auto it = p.calls.find(CallEdge{FunctionId{caller, obj}, FunctionId{callee, obj}});
  return it == p.calls.end() ? CallCost{} : it->second;
}

TEST(CallgrindProfile, CallEdgesKeepTheirCountAndInclusiveCost) {
  // The format specification's example: main's inclusive cost is 820, its
  // self cost 20 and its calls' 400 + 400.
  Profile p = Load("calls_compressed.callgrind");
  ASSERT_EQ(p.calls.size(), 3u);
  EXPECT_EQ(Call(p, "main", "func1", "prog").calls, 1u);
  EXPECT_EQ(Call(p, "main", "func1", "prog").inclusive, 400u);
  EXPECT_EQ(Call(p, "main", "func2", "prog").calls, 3u);
  EXPECT_EQ(Call(p, "main", "func2", "prog").inclusive, 400u);
  EXPECT_EQ(Call(p, "func1", "func2", "prog").calls, 2u);
  EXPECT_EQ(Call(p, "func1", "func2", "prog").inclusive, 300u);
  // The callee's file (cfi=) is not the caller's: func1's line stays in file1.c.
  EXPECT_EQ(Lines(p, "main", "prog"), (std::map<std::string, uint64_t>{{"file1.c:16", 20}}));
  EXPECT_EQ(Lines(p, "func1", "prog"), (std::map<std::string, uint64_t>{{"file1.c:51", 100}}));
  EXPECT_EQ(Lines(p, "func2", "prog"), (std::map<std::string, uint64_t>{{"file2.c:20", 700}}));
  ExpectLinesAddUp(p);
}

TEST(CallgrindProfile, ACallIntoAnotherObjectNamesItsObject) {
  Profile p;
  std::string err;
  ASSERT_TRUE(
      ParseCallgrind("events: Ir\nob=/bin/app\nfn=main\n1 2\ncob=/lib/libm.so.6\n"
                     "cfn=sqrt\ncalls=4 9\n1 40\ncfn=helper\ncalls=1 3\n2 7\n"
                     "ob=/lib/libm.so.6\nfn=sqrt\n9 40\nob=/bin/app\nfn=helper\n3 7\n",
                     "mem", &p, &err))
      << err;
  const CallEdge to_sqrt{FunctionId{"main", "app"}, FunctionId{"sqrt", "libm.so.6"}};
  ASSERT_EQ(p.calls.count(to_sqrt), 1u);
  EXPECT_EQ(p.calls[to_sqrt].calls, 4u);
  EXPECT_EQ(p.calls[to_sqrt].inclusive, 40u);
  // cob= is used up by its call: the next callee is in the caller's object.
  EXPECT_EQ(Call(p, "main", "helper", "app").inclusive, 7u);
  EXPECT_EQ(p.total, 49u);
}

TEST(CallgrindProfile, SubpositionCompressionNamesTheLines) {
  // positions: instr line; "+3 *" keeps line 10, "-4 -1" comes back to it.
  Profile p = Load("subpositions.callgrind");
  EXPECT_EQ(Lines(p, "foo", "libfoo.so.1"),
            (std::map<std::string, uint64_t>{
                {"foo.c:10", 3 + 5 + 2 + 1}, {"foo.c:11", 6}, {"foo.c:12", 0x10}}));
  ExpectLinesAddUp(p);
}

TEST(CallgrindProfile, InlinedCodeIsOnTheLinesOfItsOwnFile) {
  Profile p = Load("inlined.callgrind");
  EXPECT_EQ(Lines(p, "main", ""), (std::map<std::string, uint64_t>{
                                      {"main.c:3", 10},
                                      {"main.c:4", 5},
                                      {"/usr/include/x86_64-linux-gnu/bits/stdio2.h:105", 7},
                                      {"/usr/include/x86_64-linux-gnu/bits/stdio2.h:106", 1}}));
  EXPECT_EQ(Lines(p, "helper", ""), (std::map<std::string, uint64_t>{{"main.c:9", 4}}));
  ExpectLinesAddUp(p);
}

TEST(CallgrindProfile, WithoutALinePositionEveryCostIsOnLineZero) {
  Profile p;
  std::string err;
  ASSERT_TRUE(
      ParseCallgrind("positions: instr\nevents: Ir\nfl=a.c\nfn=f\n0x10 3\n+4 2\n", "mem", &p, &err))
      << err;
  EXPECT_EQ(Lines(p, "f", ""), (std::map<std::string, uint64_t>{{"a.c:0", 5}}));
}

TEST(CallgrindProfile, SubpositionCompression) {
  Profile p = Load("subpositions.callgrind");
  EXPECT_EQ(Self(p, "foo", "libfoo.so.1"), 3u + 5 + 6 + 2 + 1 + 0x10);
}

TEST(CallgrindProfile, InlinedFileSwitchesKeepTheFunction) {
  Profile p = Load("inlined.callgrind");
  EXPECT_EQ(Self(p, "main", ""), 10u + 7 + 5 + 1);
  EXPECT_EQ(Self(p, "helper", ""), 4u);
}

TEST(CallgrindProfile, FunctionsAreKeyedByObjectBasename) {
  Profile p = Load("objects.callgrind");
  EXPECT_EQ(Self(p, "compute", "app"), 107u);
  EXPECT_EQ(Self(p, "compute", "libm.so.6"), 50u);
  EXPECT_EQ(p.self.size(), 2u);
}

TEST(CallgrindProfile, PartsShareCompressedNames) {
  Profile p = Load("multipart.callgrind");
  EXPECT_EQ(p.parts, 2);
  EXPECT_EQ(Self(p, "main", "prog"), 32u);
  EXPECT_EQ(Self(p, "worker", "prog"), 10u);
  EXPECT_EQ(p.total, 42u);
}

TEST(CallgrindProfile, NamesAreDemangledAndSuffixesMerged) {
  Profile p = Load("names.callgrind");
  EXPECT_EQ(Self(p, "ns::foo(int)", "libx.so"), 5u);
  EXPECT_EQ(Self(p, "fib", "libx.so"), 10u + 4 + 3);
  EXPECT_EQ(Self(p, "(below main)", "libx.so"), 1u);
  EXPECT_EQ(Self(p, "helper", "libx.so"), 2u);
  EXPECT_EQ(Self(p, "_Zbogus", "libx.so"), 1u);
  EXPECT_EQ(p.self.size(), 5u);
}

TEST(CallgrindProfile, JumpsThreadsAndLongEventNames) {
  Profile p = Load("jumps_thread.callgrind");
  EXPECT_EQ(Self(p, "loop", "prog"), 7u);
  EXPECT_EQ(Self(p, "other", "prog"), 14u);
}

TEST(CallgrindProfile, DisplayFunctionName) {
  EXPECT_EQ(DisplayFunctionName("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector<int, std::allocator<int> >::push_back(int const&)");
  EXPECT_EQ(DisplayFunctionName("_ZN2ns3fooEi'2"), "ns::foo(int)");
  EXPECT_EQ(DisplayFunctionName("main'(below main)"), "main");
  EXPECT_EQ(DisplayFunctionName("0x0000000000001040"), "0x0000000000001040");
  EXPECT_EQ(DisplayFunctionName("_Z"), "_Z");
}

TEST(CallgrindProfile, StreamAndStringAgreeAndAccumulate) {
  const std::string text = "events: Ir\nfn=f\n1 5\n";
  Profile p;
  std::string err;
  std::istringstream in(text);
  ASSERT_TRUE(ParseCallgrindStream(in, "a", &p, &err)) << err;
  ASSERT_TRUE(ParseCallgrind(text, "b", &p, &err)) << err;
  EXPECT_EQ(Self(p, "f", ""), 10u);
  EXPECT_EQ(p.total, 10u);
}

TEST(CallgrindProfile, OtherEventsCanBeChosen) {
  Profile p;
  std::string err;
  ASSERT_TRUE(ParseCallgrind("events: Ir Dr\nfn=f\n1 5 7\n2 1\n", "t", &p, &err, "Dr")) << err;
  EXPECT_EQ(Self(p, "f", ""), 7u);
}

TEST(CallgrindProfile, CarriageReturnsAndBlankLines) {
  Profile p;
  std::string err;
  ASSERT_TRUE(ParseCallgrind("events: Ir\r\n\r\n  \nfn=f\r\n1 5\r\n", "t", &p, &err)) << err;
  EXPECT_EQ(Self(p, "f", ""), 5u);
}

TEST(CallgrindProfile, CachegrindStyleTrailingSummaryIsChecked) {
  Profile p;
  std::string err;
  EXPECT_TRUE(ParseCallgrind("events: Ir\nfn=f\n1 5\nsummary: 5\n", "t", &p, &err)) << err;
  EXPECT_FALSE(ParseCallgrind("events: Ir\nfn=f\n1 5\nsummary: 6\n", "t", &p, &err));
  EXPECT_EQ(err, "t:4: summary: 6 Ir disagrees with the sum of the part's cost lines, 5");
}

TEST(CallgrindProfile, ErrorLeavesTheProfileUnchanged) {
  Profile p;
  std::string err;
  ASSERT_TRUE(ParseCallgrind("events: Ir\nfn=f\n1 5\n", "t", &p, &err));
  EXPECT_FALSE(ParseCallgrind("events: Ir\nfn=f\n1 5\nfn=(3)\n", "t", &p, &err));
  EXPECT_EQ(p.total, 5u);
  EXPECT_EQ(Self(p, "f", ""), 5u);
}

TEST(CallgrindProfile, MissingFileNamesThePath) {
  Profile p;
  std::string err;
  EXPECT_FALSE(LoadCallgrindFile("/nonexistent/callgrind.out.1", &p, &err));
  EXPECT_NE(err.find("/nonexistent/callgrind.out.1: cannot open"), std::string::npos) << err;
}

// With --separate-threads=yes callgrind leaves callgrind.out.PID empty and
// writes callgrind.out.PID-01, -02, ...; an empty file alone is an error
// (a process that died before writing its profile).
TEST(CallgrindProfile, EmptyBaseFileIsSkippedOnlyBesideThreadFiles) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "workgate-cgprofile-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string base = tmpl + "/callgrind.out.5";
  std::ofstream(base).close();
  std::ofstream(base + "-01") << "events: Ir\nfn=f\n1 5\n";
  Profile p;
  std::string err;
  EXPECT_TRUE(LoadProfiles({base, base + "-01"}, &p, &err)) << err;
  EXPECT_EQ(p.total, 5u);
  EXPECT_FALSE(LoadProfiles({base}, &p, &err));
  EXPECT_EQ(err, base + ":1: empty input, not a callgrind output file");
  EXPECT_EQ(p.total, 5u);  // unchanged by the failed load
  fs::remove_all(tmpl);
}

}  // namespace
}  // namespace workgate
