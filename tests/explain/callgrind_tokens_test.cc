// The lexical rules of the callgrind format.

#include "explain/callgrind_tokens.h"

#include <gtest/gtest.h>

namespace workgate::callgrind {
namespace {

TEST(CallgrindTokens, Numbers) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseNumber("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ParseNumber("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ParseNumber("18446744073709551616", &v));
  EXPECT_TRUE(ParseNumber("0x1aF", &v));
  EXPECT_EQ(v, 0x1afu);
  EXPECT_TRUE(ParseNumber("0xffffffffffffffff", &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_TRUE(ParseNumber("0x00000000000000000001", &v));
  EXPECT_EQ(v, 1u);
  EXPECT_FALSE(ParseNumber("0x10000000000000000", &v));
  for (const char* bad : {"", "0x", "-1", "+1", "1a", "0xg", " 1", "1 "}) {
    EXPECT_FALSE(ParseNumber(bad, &v)) << bad;
  }
}

TEST(CallgrindTokens, Subpositions) {
  for (const char* good : {"*", "+3", "-4", "12", "0x401000"}) {
    EXPECT_TRUE(IsSubposition(good)) << good;
  }
  for (const char* bad : {"", "+", "-", "**", "+-1", "x"}) {
    EXPECT_FALSE(IsSubposition(bad)) << bad;
  }
}

TEST(CallgrindTokens, NameSpecs) {
  NameSpec spec;
  std::string err;
  ASSERT_TRUE(ParseNameSpec("(12) std::foo(int)", &spec, &err));
  EXPECT_TRUE(spec.has_id);
  EXPECT_EQ(spec.id, 12u);
  EXPECT_EQ(spec.name, "std::foo(int)");
  ASSERT_TRUE(ParseNameSpec("(12)", &spec, &err));
  EXPECT_TRUE(spec.has_id);
  EXPECT_TRUE(spec.name.empty());
  ASSERT_TRUE(ParseNameSpec("(below main)", &spec, &err));
  EXPECT_FALSE(spec.has_id);
  EXPECT_EQ(spec.name, "(below main)");
  ASSERT_TRUE(ParseNameSpec(" plain\r", &spec, &err));
  EXPECT_EQ(spec.name, "plain");
  EXPECT_FALSE(ParseNameSpec("(12)x", &spec, &err));
  EXPECT_EQ(err, "compressed name '(12)x' needs a space after ')'");
}

TEST(CallgrindTokens, TokensAndExcerpts) {
  std::string_view rest = " a\tbb  c ";
  std::string_view token;
  ASSERT_TRUE(NextToken(&rest, &token));
  EXPECT_EQ(token, "a");
  ASSERT_TRUE(NextToken(&rest, &token));
  EXPECT_EQ(token, "bb");
  ASSERT_TRUE(NextToken(&rest, &token));
  EXPECT_EQ(token, "c");
  EXPECT_FALSE(NextToken(&rest, &token));
  EXPECT_EQ(Excerpt(std::string(70, 'x')), std::string(60, 'x') + "...");
  EXPECT_EQ(Excerpt("a\x7f\n"), "a??");
}

}  // namespace
}  // namespace workgate::callgrind
