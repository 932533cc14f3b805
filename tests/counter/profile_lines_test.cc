// A vgcount profile whose lines were kept by address, named after the run
// (counter/profile_lines.h): each marker becomes the file and line the
// lookup gives, or callgrind's no-line rule, and the result reads as the
// profile vgcount would have written with the lines in hand.
#include "counter/profile_lines.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

// Two objects: libc's lines are known at 0x100 (a.c:10), 0x104 (a.c:10),
// 0x108 (b.h:3) and 0x200 (c.c:7); the program's none.
bool FakeLineLookup(const std::string& object, uint64_t address, std::string* file, uint32_t* line) {
  if (object != "/lib/libc.so.6") return false;
  switch (address) {
    case 0x100:
    case 0x104: *file = "./x/a.c"; *line = 10; return true;
    case 0x108: *file = "./x/b.h"; *line = 3; return true;
    case 0x200: *file = "./x/c.c"; *line = 7; return true;
    default: return false;
  }
}

std::string NamedProfile(const std::string& text, std::string* err) {
  std::istringstream in(text);
  std::ostringstream out;
  if (!NameProfileLines(in, FakeLineLookup, out, err)) return "";
  return out.str();
}

Profile ParsedNamedProfile(const std::string& text) {
  Profile profile;
  std::string err;
  EXPECT_TRUE(ParseCallgrind(text, "named", &profile, &err)) << err << "\n" << text;
  return profile;
}

const std::string kAddressProfileHeader =
    "# callgrind format\nversion: 1\ncreator: vgcount\npid: 1\ncmd: prog\npositions: line\n"
    "events: Ir\nsummary: 40\n\n";

TEST(ProfileLinesTest, EachAddressBecomesItsLineOrTheNoLineRule) {
  const std::string text = kAddressProfileHeader +
      "ob=(1) /lib/libc.so.6\n"
      "fl=(1) \x01" "F100\x01/lib/libc.so.6\n"
      "fn=(1) memcpy\n"
      "fi=(2) \x01L/lib/libc.so.6\n"
      "256 5\n"    // 0x100: a.c:10
      "260 6\n"    // 0x104: a.c:10 again
      "264 7\n"    // 0x108: b.h:3
      "999 2\n"    // no line: the function's own file, line 0
      "ob=(2) /bin/prog\n"
      "fl=(3) \x01" "F10\x01/bin/prog\n"
      "fn=(2) main\n"
      "fi=(4) \x01L/bin/prog\n"
      "16 3\n"     // the program: no lines named here
      "fi=(5) \x01U/lib/libc.so.6\n"
      "cob=(1)\n"
      "cfi=(1)\n"
      "cfn=(1)\n"
      "calls=2 0\n"
      "512 20\n"   // the call site 0x200: c.c:7
      "fi=(6) ./main.c\n"
      "12 17\n"    // a line Valgrind named itself stays
      "totals: 40\n";
  std::string err;
  const std::string named = NamedProfile(text, &err);
  ASSERT_FALSE(named.empty()) << err;
  EXPECT_EQ(named.find('\x01'), std::string::npos) << named;
  const Profile p = ParsedNamedProfile(named);
  const FunctionId memcpy{"memcpy", "libc.so.6"};
  const FunctionId main{"main", "prog"};
  EXPECT_EQ(p.self.at(memcpy), 20u);
  EXPECT_EQ(p.self.at(main), 20u);
  const auto& lines = p.lines.at(memcpy);
  EXPECT_EQ(lines.at(SourceLine{"./x/a.c", 10}), 11u);
  EXPECT_EQ(lines.at(SourceLine{"./x/b.h", 3}), 7u);
  // memcpy's own file is the file of its first instruction, 0x100.
  EXPECT_EQ(lines.at(SourceLine{"./x/a.c", 0}), 2u);
  EXPECT_EQ(lines.size(), 3u);
  const auto& main_lines = p.lines.at(main);
  EXPECT_EQ(main_lines.at(SourceLine{"???", 0}), 3u);
  EXPECT_EQ(main_lines.at(SourceLine{"./main.c", 12}), 17u);
  EXPECT_EQ(p.calls.at(CallEdge{main, memcpy}).calls, 2u);
  EXPECT_EQ(p.calls.at(CallEdge{main, memcpy}).inclusive, 20u);
  // The call's file switch comes before its specification, never between
  // calls= and its cost line.
  const size_t calls = named.find("calls=2 0\n");
  ASSERT_NE(calls, std::string::npos);
  EXPECT_EQ(named.substr(calls + 10, 3), "7 2");
  EXPECT_LT(named.find("fi=(", named.find("fn=(2)")), named.find("cob=(1)"));
}

TEST(ProfileLinesTest, ASiteWithoutALineIsUnknownAndSimulatedEventsStay) {
  const std::string text =
      "# callgrind format\nversion: 1\npositions: line\nevents: Ir Dr\nsummary: 9 4\n\n"
      "ob=(1) /lib/libc.so.6\n"
      "fl=(1) \x01" "F300\x01/lib/libc.so.6\n"
      "fn=(1) f\n"
      "fi=(2) \x01U/lib/libc.so.6\n"
      "768 5 1\n"  // 0x300: no line, a site: "???" 0
      "fi=(3) \x01L/lib/libc.so.6\n"
      "512 4 3\n"  // 0x200: c.c:7
      "totals: 9 4\n";
  std::string err;
  const std::string named = NamedProfile(text, &err);
  ASSERT_FALSE(named.empty()) << err;
  EXPECT_NE(named.find("fl=(1) ???\n"), std::string::npos) << named;
  EXPECT_NE(named.find("\n0 5 1\n"), std::string::npos) << named;
  EXPECT_NE(named.find("fi=(2) ./x/c.c\n7 4 3\n"), std::string::npos) << named;
}

TEST(ProfileLinesTest, WhatItCannotReadIsRefused) {
  std::string err;
  EXPECT_EQ(NamedProfile(kAddressProfileHeader + "fl=(1) \x01L/x\nfn=(1) f\n+3 1\n", &err), "");
  EXPECT_NE(err.find("line 12: a position vgcount does not write"), std::string::npos) << err;
  EXPECT_EQ(NamedProfile(kAddressProfileHeader + "fl=(7)\nfn=(1) f\n", &err), "");
  EXPECT_NE(err.find("file number 7 used before it is named"), std::string::npos) << err;
  EXPECT_EQ(NamedProfile(kAddressProfileHeader + "fl=(1) \x01L/x\nfn=(1) f\ncfn=(1)\ncalls=1 0\n", &err), "");
  EXPECT_NE(err.find("a call without its cost line"), std::string::npos) << err;
}

TEST(ProfileLinesTest, OnlyAProfileWithMarkersNeedsARewrite) {
  std::istringstream plain(kAddressProfileHeader + "fl=(1) a.c\nfn=(1) f\n3 40\ntotals: 40\n");
  EXPECT_FALSE(HasAddressLines(plain));
  std::istringstream marked(kAddressProfileHeader + "fl=(1) \x01L/x\nfn=(1) f\n3 40\n");
  EXPECT_TRUE(HasAddressLines(marked));
}

}  // namespace
}  // namespace workgate
