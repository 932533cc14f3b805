#pragma once
// Callgrind-format profiles of any size, made for the tests of what an
// explanation keeps of a profile (explain/callgrind_profile.h:
// ProfileBounds): every cost is distinct, so which entries are the
// costliest is known in advance.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace workgate::testing {

/// `functions` functions g0, g1, ... in the object /bin/generated, each with
/// `lines` source lines of self cost in generated.c and calls to the
/// `callees` functions after it (wrapping round).
struct GeneratedProfile {
  size_t functions = 1;
  size_t callees = 0;
  size_t lines = 1;
  /// Multiplies every line's cost: profiles that differ only by it have the
  /// same names, edges and lines, and the later a function the more its
  /// self cost differs.
  uint64_t scale = 1;

  /// The self cost of g`f`'s line `l` (0-based): lines cost more the later
  /// the function and the line.
  uint64_t LineCost(size_t f, size_t l) const { return scale * (f * lines + l + 1); }
  uint64_t SelfCost(size_t f) const {
    uint64_t sum = 0;
    for (size_t l = 0; l < lines; ++l) sum += LineCost(f, l);
    return sum;
  }
  /// The inclusive cost of g`f`'s call to the `k`-th function after it.
  uint64_t CallCost(size_t f, size_t k) const { return f * callees + k + 1; }
  /// The source line g`f`'s line `l` is on.
  static uint64_t LineNumber(size_t f, size_t l) { return 1000 * f + l + 1; }
  static std::string Name(size_t f) { return "g" + std::to_string(f); }

  std::string Text() const {
    std::ostringstream out;
    out << "# callgrind format\nversion: 1\ncreator: workgate-test\npositions: line\n"
           "events: Ir\n\nob=(1) /bin/generated\nfl=(1) generated.c\n";
    uint64_t total = 0;
    // Each name is given in full the first time it appears (name compression).
    std::string named(functions, '\0');
    auto fn = [&](size_t f) {
      std::string spec = "(" + std::to_string(f + 1) + ")";
      if (!named[f]) spec += " " + Name(f);
      named[f] = 1;
      return spec;
    };
    for (size_t f = 0; f < functions; ++f) {
      out << "fn=" << fn(f) << "\n";
      for (size_t l = 0; l < lines; ++l) {
        out << LineNumber(f, l) << " " << LineCost(f, l) << "\n";
        total += LineCost(f, l);
      }
      for (size_t k = 0; k < callees; ++k) {
        out << "cfn=" << fn((f + k + 1) % functions) << "\ncalls=1 " << LineNumber(f, 0) << "\n"
            << LineNumber(f, 0) << " " << CallCost(f, k) << "\n";
      }
    }
    out << "totals: " << total << "\n";
    return out.str();
  }
};

}  // namespace workgate::testing
