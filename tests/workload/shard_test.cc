#include "workload/shard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace workgate {
namespace {

TEST(ShardTest, ParsesIOfN) {
  ShardSpec s;
  std::string err;
  ASSERT_TRUE(ParseShard("2/3", &s, &err)) << err;
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  ASSERT_TRUE(ParseShard("1000/1000", &s, &err)) << err;
  EXPECT_EQ(s.index, 1000);
  ASSERT_TRUE(ParseShard("1/1", &s, &err)) << err;
  EXPECT_EQ(s.count, 1);
}

TEST(ShardTest, RefusesAnythingElseNamingTheRange) {
  for (const char* text : {"0/3",
                           "4/3",
                           "1/1001",
                           "1001/1001",
                           "1/0",
                           "-1/3",
                           "+1/3",
                           "01/3",
                           "1/03",
                           "1",
                           "1/",
                           "/3",
                           "1/3/3",
                           " 1/3",
                           "1/3 ",
                           "1.0/3",
                           "a/b",
                           "",
                           "99999999999999999999/3",
                           "0x1/3"}) {
    ShardSpec s{7, 9};
    std::string err;
    EXPECT_FALSE(ParseShard(text, &s, &err)) << text;
    EXPECT_EQ(err, std::string("must be I/N with 1 <= I <= N <= 1000, not ") + text);
    EXPECT_EQ(s.index, 7) << "left alone on failure";
  }
}

TEST(ShardTest, EveryWorkloadIsInExactlyOneShardAndSharesDifferByAtMostOne) {
  std::vector<std::string> all;
  for (int i = 0; i < 11; ++i) all.push_back("w" + std::to_string(i));
  for (int n = 1; n <= 13; ++n) {
    std::vector<int> owners(all.size(), 0);
    size_t smallest = all.size(), largest = 0;
    for (int i = 1; i <= n; ++i) {
      const std::vector<std::string> share = ShardNames(all, {i, n});
      smallest = std::min(smallest, share.size());
      largest = std::max(largest, share.size());
      for (size_t p = 0; p < all.size(); ++p) owners[p] += InShard(p, {i, n}) ? 1 : 0;
    }
    for (int owner_count : owners) EXPECT_EQ(owner_count, 1) << n;
    EXPECT_LE(largest - smallest, 1u) << n;
  }
  // Positions, in order: shard 2 of 3 holds the second, fifth, eighth...
  EXPECT_EQ(ShardNames(all, {2, 3}), (std::vector<std::string>{"w1", "w4", "w7", "w10"}));
  // More shards than workloads: the last ones are empty.
  EXPECT_TRUE(ShardNames({"a", "b"}, {3, 3}).empty());
}

}  // namespace
}  // namespace workgate
