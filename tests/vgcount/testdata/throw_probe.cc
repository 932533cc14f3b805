// C++ exceptions thrown through several frames, for vgcount's profile
// against callgrind's (tests/vgcount/vgcount_test.cc): throw_probe N makes
// ten throws from four calls deep, each caught three frames up, after N
// iterations of work in every frame.
#include <cstdlib>
#include <stdexcept>

namespace {

volatile unsigned long sink;

__attribute__((noinline)) void Spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink = sink + i;
}

__attribute__((noinline)) void Thrower(unsigned long n) {
  Spin(n);
  throw std::runtime_error("thrown");
}

__attribute__((noinline)) void Inner(unsigned long n) {
  Spin(n);
  Thrower(n);
  Spin(n);
}

__attribute__((noinline)) void Middle(unsigned long n) {
  Spin(n);
  Inner(n);
  Spin(n);
}

__attribute__((noinline)) int Catcher(unsigned long n) {
  Spin(n);
  try {
    Middle(n);
  } catch (const std::runtime_error&) {
    Spin(n);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const unsigned long n = std::strtoul(argv[1], nullptr, 10);
  int caught = 0;
  for (int i = 0; i < 10; i++) caught += Catcher(n);
  return caught == 10 ? 0 : 1;
}
