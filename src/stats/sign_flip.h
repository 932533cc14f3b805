#pragma once
// The paired sign-flip permutation test of the timed context, and Holm's
// adjustment of its p-values across workloads.
//
// Why a sign flip: under "the two builds take the same time", which of a
// pair's two runs belongs to which build is arbitrary, so each paired
// difference is as likely to have either sign. Flipping the signs of every
// subset of the differences gives the statistic's exact distribution under
// that hypothesis, with nothing assumed about its shape; the test is exact
// for any number of pairs, where a percentile bootstrap is only approximate
// at the ten or twenty pairs a CI job can afford.

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace workgate {

struct SignFlipResult {
  double p_value = 1;
  bool exact = true;   // every flip enumerated; false: `draws` were sampled
  uint64_t draws = 0;  // 2^n when exact
};

/// The two-sided sign-flip test of `differences` (one per pair) against
/// "symmetric about 0", with the statistic |sum of the differences|. Up to
/// kMaxExactSignFlipPairs differences: exact, p = (flips whose |sum| is at
/// least the observed one) / 2^n, so never below 2/2^n (no flip and all
/// flips give the observed |sum|). Beyond: kSignFlipDraws flips drawn from
/// std::mt19937_64 seeded with `seed`, one raw bit per sign (no library
/// distribution, whose output the standard leaves to each library), and
/// p = (1 + draws at least as extreme) / (1 + draws), a valid p-value for a
/// sampled test. The sums are taken in integers (the differences rounded to
/// multiples of 2^-40), so which flips count as extreme depends neither on
/// the order of the additions nor on the platform. p = 1 for no differences.
SignFlipResult SignFlipTest(const std::vector<double>& differences, uint64_t seed);

/// Holm's step-down adjustment of `p` (one p-value per hypothesis of the
/// family), in the same order: with the p-values sorted ascending, the j-th
/// (from 1) is multiplied by (m - j + 1), each is raised to the largest of
/// those before it, and capped at 1. Rejecting where the adjusted p is below
/// alpha keeps the chance of any false rejection in the family at most alpha.
std::vector<double> HolmAdjust(const std::vector<double>& p);

}  // namespace workgate
