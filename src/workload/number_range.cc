#include "workload/number_range.h"

#include <fmt/format.h>

#include <cmath>

namespace workgate {

bool NumberRange::Contains(double v) const {
  if (!std::isfinite(v)) return false;
  if (min_exclusive ? !(v > min) : !(v >= min)) return false;
  if (!(v <= max)) return false;
  return !integer || std::trunc(v) == v;
}

std::string NumberRange::Interval() const {
  return fmt::format("{}{}, {}]", min_exclusive ? "(" : "[", min, max);
}

std::string NumberRange::Describe() const {
  return fmt::format("{} in {}", integer ? "an integer" : "a number", Interval());
}

}  // namespace workgate
