#include "report/format.h"

#include <gtest/gtest.h>

#include <limits>

namespace workgate {
namespace {

TEST(FormatTest, Counts) {
  EXPECT_EQ(FormatCount(uint64_t{0}), "0");
  EXPECT_EQ(FormatCount(uint64_t{999}), "999");
  EXPECT_EQ(FormatCount(uint64_t{1000}), "1,000");
  EXPECT_EQ(FormatCount(uint64_t{1'204'331'907}), "1,204,331,907");
  EXPECT_EQ(FormatCount(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
  EXPECT_EQ(FormatCount(int64_t{-1'437'098}, Minus::kUnicode), "\u22121,437,098");
  EXPECT_EQ(FormatCount(int64_t{-1'437'098}, Minus::kAscii), "-1,437,098");
  EXPECT_EQ(FormatCount(std::numeric_limits<int64_t>::min(), Minus::kAscii),
            "-9,223,372,036,854,775,808");
}

TEST(FormatTest, SignedCounts) {
  EXPECT_EQ(FormatSignedCount(37'358'308, Minus::kUnicode), "+37,358,308");
  EXPECT_EQ(FormatSignedCount(-1'437'098, Minus::kUnicode), "\u22121,437,098");
  EXPECT_EQ(FormatSignedCount(-5, Minus::kAscii), "-5");
  EXPECT_EQ(FormatSignedCount(0, Minus::kUnicode), "0");
}

TEST(FormatTest, Percents) {
  EXPECT_EQ(FormatPercent(0.031, Minus::kUnicode), "+3.10%");
  EXPECT_EQ(FormatPercent(-0.0016, Minus::kUnicode), "\u22120.16%");
  EXPECT_EQ(FormatPercent(-0.0016, Minus::kAscii), "-0.16%");
  EXPECT_EQ(FormatPercent(0, Minus::kUnicode), "0.00%");
  // Too small for two decimals: two significant digits, never "0.00%".
  EXPECT_EQ(FormatPercent(0.000012, Minus::kAscii), "+0.0012%");
  EXPECT_EQ(FormatPercent(-0.00000049, Minus::kAscii), "-0.000049%");
  EXPECT_EQ(FormatPercent(0.00004999, Minus::kAscii), "+0.0050%");
  EXPECT_EQ(FormatMargin(0.01), "1.00%");
  EXPECT_EQ(FormatMargin(0.025), "2.50%");
  EXPECT_EQ(FormatShare(0.835, Minus::kUnicode), "83.5%");
  EXPECT_EQ(FormatShare(-0.052, Minus::kAscii), "-5.2%");
  EXPECT_EQ(FormatShare(-0.0001, Minus::kAscii), "0.0%");
}

TEST(FormatTest, ShortCounts) {
  EXPECT_EQ(FormatShortCount(950), "950");
  EXPECT_EQ(FormatShortCount(812'345), "812 k");
  EXPECT_EQ(FormatShortCount(37'358'308), "37.4 M");
  EXPECT_EQ(FormatShortCount(-1'437'098), "1.44 M");
  EXPECT_EQ(FormatShortCount(1'200'000'000), "1.20 G");
}

TEST(FormatTest, TimesScoresRatios) {
  EXPECT_EQ(FormatSeconds(1.844), "1.84 s");
  EXPECT_EQ(FormatSeconds(0.0123), "12.3 ms");
  EXPECT_EQ(FormatScore(10), "10");
  EXPECT_EQ(FormatScore(1843.25), "1843.25");
  EXPECT_EQ(FormatRatio(1.03849), "1.038");
}

TEST(FormatTest, WidthAndPadding) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("\u0394 %"), 3u);
  EXPECT_EQ(DisplayWidth("\u22121,000"), 6u);
  EXPECT_EQ(PadRight("\u0394", 3), "\u0394  ");
  EXPECT_EQ(PadLeft("ab", 4), "  ab");
  EXPECT_EQ(PadLeft("abcdef", 4), "abcdef");
}

}  // namespace
}  // namespace workgate
