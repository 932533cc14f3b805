// Malformed and truncated callgrind input: every case fails with the line
// number and a message that says what is wrong.

#include <gtest/gtest.h>

#include <string>

#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

struct Case {
  const char* name;
  const char* text;
  const char* error;  // the whole message ParseCallgrind gives
};

const Case kCases[] = {
    {"empty", "", "in:1: empty input, not a callgrind output file"},
    {"only comments", "# callgrind format\n\n",
     "in:2: no events: header line, not a callgrind output file (or it is truncated)"},
    {"cost before events", "fn=f\n1 2\n", "in:2: cost line before the events: header"},
    {"cost before fn", "events: Ir\nob=x\n1 2\n", "in:3: cost line before any fn= line"},
    {"unknown function id", "events: Ir\nfn=(1) a\nfn=(2)\n",
     "in:3: fn=: function id (2) is used before it is defined"},
    {"unknown called id", "events: Ir\nfn=a\ncfn=(9)\n",
     "in:3: cfn=: function id (9) is used before it is defined"},
    {"unknown object id", "events: Ir\nob=(4)\n",
     "in:2: ob=: object id (4) is used before it is defined"},
    {"unknown file id", "events: Ir\nfn=a\nfi=(3)\n",
     "in:3: fi=: file id (3) is used before it is defined"},
    {"id redefined", "events: Ir\nfn=(1) a\nfn=(1) b\n",
     "in:3: fn=: function id (1) is defined again as 'b', it was 'a'"},
    {"unclosed id", "events: Ir\nfn=(1 a\n",
     "in:2: fn=: compressed name '(1 a' has no closing ')'"},
    {"id overflow", "events: Ir\nfn=(99999999999999999999) a\n",
     "in:2: fn=: compressed name id '(99999999999999999999)' is not a number below 2^64"},
    {"empty name", "events: Ir\nfn=\n", "in:2: fn=: empty name"},
    {"context of unknown id", "events: Ir\nfn=(1) (7)'2\n",
     "in:2: function context '(7)'2' refers to the undefined id (7)"},
    {"non-numeric cost", "events: Ir\nfn=f\n16 abc\n",
     "in:3: cost 'abc' is not a number below 2^64"},
    {"cost overflow", "events: Ir\nfn=f\n1 18446744073709551616\n",
     "in:3: cost '18446744073709551616' is not a number below 2^64"},
    {"sum overflow", "events: Ir\nfn=f\n1 18446744073709551615\n2 1\n",
     "in:4: cost sum exceeds 2^64-1"},
    {"too many costs", "events: Ir\nfn=f\n1 2 3\n",
     "in:3: more costs than the 1 event(s) the events: header lists"},
    {"bad position", "positions: instr line\nevents: Ir\nfn=f\n0x10 x 3\n",
     "in:4: cost line needs 2 position(s) first (number, +N, -N or *): '0x10 x 3'"},
    {"no event Ir", "events: Dr Dw\n", "in:1: events: does not list the event Ir"},
    {"no events listed", "events:\n", "in:1: events: lists no event"},
    {"header only", "events: Ir\nsummary: 0\n",
     "in:2: the part whose summary: is on line 2 ends without a totals: line (truncated file?)"},
    {"no body", "events: Ir\n",
     "in:1: input ends before any cost line or totals: line (truncated file?)"},
    {"bad positions", "positions: line instr\n",
     "in:1: positions: 'instr' is not instr, bb or line (in that order, each once)"},
    {"totals disagree", "events: Ir\nfn=f\n1 5\n2 6\ntotals: 12\n",
     "in:5: totals: 12 Ir disagrees with the sum of the part's cost lines, 11"},
    {"truncated after summary", "events: Ir\nsummary: 5\nfn=f\n1 5\n",
     "in:4: the part whose summary: is on line 2 ends without a totals: line (truncated file?)"},
    {"truncated after calls", "events: Ir\nfn=f\ncfn=g\ncalls=1 4\n",
     "in:4: input ends after the calls= line 4 without its cost line (truncated file?)"},
    {"calls without cost line", "events: Ir\nfn=f\ncalls=1 4\nfn=g\n",
     "in:4: the calls= line 3 must be followed by its cost line, not 'fn=g'"},
    {"calls without count", "events: Ir\nfn=f\ncalls=x 4\n",
     "in:3: calls= needs a call count, then the target position"},
    {"calls with extra positions", "events: Ir\nfn=f\ncalls=1 4 5\n",
     "in:3: calls= target position '5' is not one of 1 subposition(s)"},
    {"cost after totals", "events: Ir\nfn=f\n1 5\ntotals: 5\n2 3\n",
     "in:5: cost line after totals: (a new part starts with a header line)"},
    {"totals before events", "totals: 5\n", "in:1: totals: before the events: header"},
    {"bad part number", "part: one\n", "in:1: part: needs a number, not 'one'"},
    {"unrecognized line", "events: Ir\n!!\n",
     "in:2: unrecognized line '!!' (expected a cost line, key=value or key: value)"},
    {"binary junk", "events: Ir\n\x01\x02\n",
     "in:2: unrecognized line '?"
     "?' (expected a cost line, key=value or key: value)"},
};

TEST(CallgrindParser, ClearErrorWithLineNumber) {
  for (const Case& c : kCases) {
    Profile p;
    std::string err;
    EXPECT_FALSE(ParseCallgrind(c.text, "in", &p, &err)) << c.name;
    EXPECT_EQ(err, c.error) << c.name;
    EXPECT_EQ(p.total, 0u) << c.name;
  }
}

// Every proper prefix of a callgrind-written file that cuts a line or
// drops the totals: line is an error, never a smaller profile.
TEST(CallgrindParser, EveryTruncationOfAFixtureFails) {
  const std::string text =
      "# callgrind format\nversion: 1\npart: 1\npositions: line\nevents: Ir\nsummary: 820\n"
      "ob=(1) /build/a/prog\nfl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n"
      "16 400\nfn=(2)\n51 100\ncfn=(3) func2\ncalls=2 20\n51 300\nfn=(3)\n20 700\n\n"
      "totals: 820\n";
  Profile whole;
  std::string err;
  ASSERT_TRUE(ParseCallgrind(text, "in", &whole, &err)) << err;
  // The last two bytes are the totals' final digit and newline: dropping
  // the newline alone leaves a complete file.
  for (size_t len = 0; len + 1 < text.size(); ++len) {
    Profile p;
    EXPECT_FALSE(ParseCallgrind(text.substr(0, len), "in", &p, &err)) << "prefix " << len;
    EXPECT_EQ(err.rfind("in:", 0), 0u) << err;
  }
  Profile p;
  EXPECT_TRUE(ParseCallgrind(text.substr(0, text.size() - 1), "in", &p, &err)) << err;
}

TEST(CallgrindParser, LoadProfilesRejectsAFileListedTwice) {
  Profile p;
  std::string err;
  EXPECT_FALSE(LoadProfiles({}, &p, &err));
  EXPECT_EQ(err, "no callgrind output files to load");
  const std::string f =
      std::string(WORKGATE_SOURCE_DIR) + "/tests/explain/testdata/inlined.callgrind";
  EXPECT_FALSE(LoadProfiles({f, f}, &p, &err));
  EXPECT_EQ(err, f + ": listed twice; its costs would be counted twice");
}

}  // namespace
}  // namespace workgate
