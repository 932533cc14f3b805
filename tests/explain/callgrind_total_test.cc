// The gate's reading of a callgrind file: the explain parser in its
// total-only mode (callgrind_profile.h, ParseCallgrindTotal).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "explain/callgrind_parser.h"
#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

std::string FixtureText(const std::string& name) {
  std::ifstream in(std::string(WORKGATE_SOURCE_DIR) + "/tests/explain/testdata/" + name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Total(const std::string& text, uint64_t* total, std::string* err) {
  std::istringstream in(text);
  return ParseCallgrindTotal(in, "in", total, err);
}

TEST(CallgrindTotal, IsTheSumOfTheCostLinesOfTheChosenColumn) {
  uint64_t ir = 0;
  std::string err;
  ASSERT_TRUE(Total("events: Ir Dr\nfn=main\n0 129820 44\n1 8\ntotals: 129828 44\n", &ir, &err))
      << err;
  EXPECT_EQ(ir, 129828u);
}

TEST(CallgrindTotal, SumsEveryPartNotTheLastTotals) {
  // A file of two dumps: the count is both parts' work. Taking the last
  // totals: line, as the gate once did, gave 12.
  uint64_t ir = 0;
  std::string err;
  ASSERT_TRUE(Total(FixtureText("multipart.callgrind"), &ir, &err)) << err;
  EXPECT_EQ(ir, 42u);
}

TEST(CallgrindTotal, AgreesWithTheSelfCostProfile) {
  // The fixtures in callgrind's own form (the others have no totals: line).
  for (const char* name :
       {"calls_compressed.callgrind", "multipart.callgrind", "jumps_thread.callgrind"}) {
    const std::string text = FixtureText(name);
    Profile p;
    std::string err;
    ASSERT_TRUE(ParseCallgrind(text, name, &p, &err)) << err;
    uint64_t total = 0;
    ASSERT_TRUE(Total(text, &total, &err)) << name << ": " << err;
    EXPECT_EQ(total, p.total) << name;
  }
}

TEST(CallgrindTotal, ATotalsLineIsCheckedAgainstTheCostLines) {
  uint64_t ir = 0;
  std::string err;
  // Once read unchecked: a totals: line the cost lines do not add up to.
  EXPECT_FALSE(Total("events: Ir\nfn=main\n0 5\ntotals: 999\n", &ir, &err));
  EXPECT_EQ(err, "in:4: totals: 999 Ir disagrees with the sum of the part's cost lines, 5");
  EXPECT_FALSE(Total("events: Ir\ntotals: 12x\n", &ir, &err));
  EXPECT_FALSE(Total("events: Ir\ntotals: 99999999999999999999999\n", &ir, &err));
}

TEST(CallgrindTotal, RejectsTruncatedAndForeignFiles) {
  uint64_t ir = 0;
  std::string err;
  EXPECT_FALSE(Total("", &ir, &err));
  EXPECT_EQ(err, "in:1: empty input, not a callgrind output file");
  EXPECT_FALSE(Total("events: Dr\ntotals: 5\n", &ir, &err));
  EXPECT_EQ(err, "in:1: events: does not list the event Ir");
  // Explain takes a part without totals:; a count does not.
  EXPECT_FALSE(Total("events: Ir\nfn=main\n0 5\n", &ir, &err));
  EXPECT_EQ(err, "in:3: a part ends without its totals: line (truncated file?)");
  EXPECT_FALSE(
      Total("events: Ir\nfn=main\n0 5\ntotals: 5\npart: 2\nevents: Ir\nfn=f\n1 3\n", &ir, &err));
  EXPECT_EQ(err, "in:8: a part ends without its totals: line (truncated file?)");
}

TEST(CallgrindTotal, AHeaderSummaryBelowTheTotalsIsCallgrinds) {
  // Callgrind's dump of a process that execs can say less in its header
  // than its cost lines and totals: hold (see Parser::SummaryOrTotals).
  uint64_t ir = 0;
  std::string err;
  ASSERT_TRUE(Total("events: Ir\nsummary: 3\nfn=f\n1 5\ntotals: 5\n", &ir, &err)) << err;
  EXPECT_EQ(ir, 5u);
}

TEST(CallgrindTotal, EveryTruncationOfAPartFails) {
  // One part, as the gate's files are (one file per process and dump). A
  // file of several parts cut just after one part's totals: line is whole
  // as far as any reader can tell.
  const std::string text = FixtureText("calls_compressed.callgrind");
  for (size_t len = 0; len + 1 < text.size(); ++len) {
    uint64_t ir = 0;
    std::string err;
    EXPECT_FALSE(Total(text.substr(0, len), &ir, &err)) << "prefix " << len << " gave " << ir;
  }
}

// The parser takes a file in chunks of any size; a line may span chunks.
TEST(CallgrindParserChunks, AnySplitGivesTheWholeFilesResult) {
  const std::string text = FixtureText("calls_compressed.callgrind");
  Profile whole;
  std::string err;
  ASSERT_TRUE(ParseCallgrind(text, "in", &whole, &err)) << err;
  for (size_t piece : {1, 2, 3, 7, 64}) {
    callgrind::Parser parser("Ir");
    for (size_t at = 0; at < text.size(); at += piece) {
      ASSERT_TRUE(parser.Feed(std::string_view(text).substr(at, piece))) << piece;
    }
    ASSERT_TRUE(parser.Finish()) << piece;
    Profile p;
    ASSERT_TRUE(parser.AddTo(&p, &err)) << err;
    EXPECT_EQ(p.self, whole.self) << piece;
    EXPECT_EQ(p.total, whole.total) << piece;
  }
}

TEST(CallgrindParserChunks, ALineLongerThanTheBoundIsAnError) {
  callgrind::Parser parser("Ir");
  ASSERT_TRUE(parser.Feed("events: Ir\nfn="));
  const std::string chunk(1 << 20, 'x');
  bool ok = true;
  for (size_t fed = 0; ok && fed <= callgrind::kMaxLineBytes; fed += chunk.size()) {
    ok = parser.Feed(chunk);
  }
  EXPECT_FALSE(ok);
  EXPECT_FALSE(parser.Finish());
  size_t line = 0;
  std::string err;
  parser.Error(&line, &err);
  EXPECT_EQ(line, 2u);
  EXPECT_EQ(err, "line longer than " + std::to_string(callgrind::kMaxLineBytes) + " bytes");
}

TEST(CallgrindProfile, LoadCallgrindFileReadsLargeFilesInChunks) {
  // Larger than one read: lines cross the chunk boundary.
  std::string text = "events: Ir\nfn=f\n";
  uint64_t sum = 0;
  for (int i = 0; i < 300000; ++i) {
    text += std::to_string(i) + " " + std::to_string(i % 7 + 1) + "\n";
    sum += i % 7 + 1;
  }
  text += "totals: " + std::to_string(sum) + "\n";
  ASSERT_GT(text.size(), 2u << 20);
  std::istringstream in(text);
  Profile p;
  std::string err;
  ASSERT_TRUE(ParseCallgrindStream(in, "big", &p, &err)) << err;
  EXPECT_EQ(p.total, sum);
  std::istringstream again(text);
  uint64_t total = 0;
  ASSERT_TRUE(ParseCallgrindTotal(again, "big", &total, &err)) << err;
  EXPECT_EQ(total, sum);
}

}  // namespace
}  // namespace workgate
