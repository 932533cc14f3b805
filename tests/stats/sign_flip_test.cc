#include "stats/sign_flip.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace workgate {
namespace {

// The p-value by brute force over every sign vector, in floating point, as
// the definition reads.
double BruteForce(const std::vector<double>& d) {
  double observed = 0;
  for (double v : d) observed += v;
  observed = std::fabs(observed);
  const uint64_t total = uint64_t{1} << d.size();
  uint64_t extreme = 0;
  for (uint64_t mask = 0; mask < total; ++mask) {
    double sum = 0;
    for (size_t i = 0; i < d.size(); ++i) sum += (mask >> i) & 1 ? -d[i] : d[i];
    if (std::fabs(sum) >= observed - 1e-9) ++extreme;
  }
  return static_cast<double>(extreme) / static_cast<double>(total);
}

TEST(SignFlipTest, AllOfOneSignGivesTheSmallestPossibleP) {
  // Only no flip and every flip are as extreme: 2 / 2^n.
  SignFlipResult five = SignFlipTest({0.1, 0.2, 0.3, 0.4, 0.5}, 1);
  EXPECT_TRUE(five.exact);
  EXPECT_EQ(five.draws, 32u);
  EXPECT_DOUBLE_EQ(five.p_value, 0.0625);  // 5 pairs can never reject at 0.05
  EXPECT_DOUBLE_EQ(SignFlipTest({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 1).p_value, 2.0 / 64);
}

TEST(SignFlipTest, ExactEnumerationMatchesTheDefinition) {
  const std::vector<std::vector<double>> cases = {
      {0.05, -0.02, 0.03, 0.01, -0.04, 0.06},
      // Ties, in binary fractions that every sum holds exactly: equal |sums|
      // count as extreme.
      {0.375, 0.125, -0.125, 0.25, 0.25, -0.25, 0.125},
      {1, -1, 1, -1, 1, -1, 1, -1},  // sum 0: every flip is as extreme
      {0.01, 0.02, 0.015, -0.001, 0.03, 0.025, 0.012, 0.018, -0.002, 0.02, 0.011},
  };
  for (const auto& d : cases) {
    EXPECT_DOUBLE_EQ(SignFlipTest(d, 1).p_value, BruteForce(d)) << d.size();
  }
  EXPECT_EQ(SignFlipTest({1, -1, 1, -1, 1, -1, 1, -1}, 1).p_value, 1.0);
}

TEST(SignFlipTest, BeyondTwentyPairsItSamplesSeededDraws) {
  std::vector<double> d;
  for (int i = 0; i < 21; ++i) d.push_back(0.01 * ((i * 7) % 5) - 0.012);
  SignFlipResult sampled = SignFlipTest(d, 5);
  EXPECT_FALSE(sampled.exact);
  EXPECT_EQ(sampled.draws, kSignFlipDraws);
  // The same seed gives the same p; another seed nearly the same.
  EXPECT_EQ(SignFlipTest(d, 5).p_value, sampled.p_value);
  EXPECT_NEAR(SignFlipTest(d, 6).p_value, sampled.p_value, 0.01);
  // And both are close to the exact p over all 2^21 flips.
  EXPECT_NEAR(sampled.p_value, BruteForce(d), 0.01);
  // A sampled p is never 0: (1 + extreme) / (1 + draws).
  std::vector<double> large(30, 0.05);
  EXPECT_DOUBLE_EQ(SignFlipTest(large, 1).p_value, 1.0 / (kSignFlipDraws + 1));
}

TEST(SignFlipTest, NoDifferencesIsNoEvidence) { EXPECT_EQ(SignFlipTest({}, 1).p_value, 1.0); }

TEST(SignFlipTest, HolmStepsDownAndKeepsTheOrder) {
  // Sorted 0.005, 0.01, 0.03, 0.04, times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04,
  // and each at least the one before it: 0.02, 0.03, 0.06, 0.06.
  const std::vector<double> adjusted = HolmAdjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_DOUBLE_EQ(adjusted[0], 0.03);
  EXPECT_DOUBLE_EQ(adjusted[1], 0.06);
  EXPECT_DOUBLE_EQ(adjusted[2], 0.06);
  EXPECT_DOUBLE_EQ(adjusted[3], 0.02);
  EXPECT_EQ(HolmAdjust({0.4, 0.6}), (std::vector<double>{0.8, 0.8}));
  EXPECT_EQ(HolmAdjust({0.3}), (std::vector<double>{0.3}));
  EXPECT_EQ(HolmAdjust({0.9, 0.8}), (std::vector<double>{1.0, 1.0}));  // capped at 1
  EXPECT_TRUE(HolmAdjust({}).empty());
}

}  // namespace
}  // namespace workgate
