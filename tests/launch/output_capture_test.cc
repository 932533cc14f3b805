#include "launch/output_capture.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace workgate {
namespace {

TEST(OutputCaptureTest, ShortOutputIsKeptWhole) {
  OutputCapture c;
  c.Feed("hello ");
  c.Feed("world\n");
  c.Finish();
  EXPECT_EQ(c.Text(), "hello world\n");
  EXPECT_EQ(c.total_bytes(), 12u);
}

TEST(OutputCaptureTest, LongOutputKeepsItsHeadAndTailAndSaysHowMuchWentMissing) {
  OutputCapture c;
  const std::string head(kCaptureHeadBytes, 'h');
  const std::string middle(1000000, 'm');
  const std::string tail(kCaptureTailBytes, 't');
  // Uneven chunks, so the tail's ring wraps at an odd place.
  for (const std::string* part : {&head, &middle, &tail}) {
    for (size_t at = 0; at < part->size(); at += 7777) c.Feed(part->substr(at, 7777));
  }
  EXPECT_EQ(c.total_bytes(), head.size() + middle.size() + tail.size());
  EXPECT_EQ(c.Text(), head + "\n[... 1000000 bytes of output not kept ...]\n" + tail);
}

TEST(OutputCaptureTest, OneHugeChunkKeepsItsEnds) {
  OutputCapture c;
  std::string all = std::string(kCaptureHeadBytes, 'a') + std::string(500000, 'b') +
                    std::string(kCaptureTailBytes - 1, 'c') + "z";
  c.Feed(all);
  const std::string text = c.Text();
  EXPECT_EQ(text.substr(0, kCaptureHeadBytes), std::string(kCaptureHeadBytes, 'a'));
  EXPECT_EQ(text.back(), 'z');
  EXPECT_NE(text.find("[... 500000 bytes of output not kept ...]"), std::string::npos);
}

TEST(OutputCaptureTest, LinesArriveWholeAcrossChunksAndTheLastOneAtTheEnd) {
  std::vector<std::string> lines;
  OutputCapture c([&lines](std::string_view line) { lines.emplace_back(line); });
  c.Feed("one\ntw");
  c.Feed("o\n\nthr");
  c.Feed("ee");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", ""}));
  c.Finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "", "three"}));
}

TEST(OutputCaptureTest, AnOverlongLineIsCutToItsStart) {
  std::vector<std::string> lines;
  OutputCapture c([&lines](std::string_view line) { lines.emplace_back(line); });
  c.Feed("score: ");
  for (int i = 0; i < 50; ++i) c.Feed(std::string(100000, '1'));
  c.Feed("\nnext\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), kMaxLineBytes);
  EXPECT_EQ(lines[0].substr(0, 8), "score: 1");
  EXPECT_EQ(lines[1], "next");
}

}  // namespace
}  // namespace workgate
