// The callgrind parser on hand-written fixtures, one per format feature
// (tests/explain/testdata/*.callgrind), and on malformed input.

#include "explain/callgrind_profile.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
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
