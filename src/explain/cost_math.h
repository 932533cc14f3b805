#pragma once
// Arithmetic on instruction costs that the explanation's parts share: sums
// that saturate instead of wrapping (a hostile profile can claim any cost),
// the int64 figures the tables show, and the size of a change.

#include <algorithm>
#include <cstdint>
#include <limits>

namespace workgate {

/// *into += more, saturated at UINT64_MAX.
inline void AddSaturating(uint64_t* into, uint64_t more) {
  if (__builtin_add_overflow(*into, more, into)) *into = UINT64_MAX;
}

/// `cost` as an int64 figure, clamped at INT64_MAX (no real profile has
/// more).
inline int64_t ClampToInt64(uint64_t cost) {
  return static_cast<int64_t>(
      std::min<uint64_t>(cost, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}

/// |a - b| without overflow.
inline uint64_t Distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

}  // namespace workgate
