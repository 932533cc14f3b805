// A program whose work is all in its own static functions, so that a
// stripped copy of it has no name for any of it: callgrind can only name
// that code by address. tests/CMakeLists.txt builds it twice with known GNU
// build IDs, the candidate with WORK iterations more than the baseline; the
// tests strip copies of both.
// Usage: unnamed_work (prints a checksum).

#include <stdio.h>

#ifndef WORK
#error "WORK (the iterations of the loop) must be defined"
#endif

static __attribute__((noinline)) unsigned long step(unsigned long x) {
  return x * 6364136223846793005ul + 1442695040888963407ul;
}

static __attribute__((noinline)) unsigned long work(unsigned long n) {
  unsigned long x = 1;
  for (unsigned long i = 0; i < n; ++i) x = step(x) ^ (x >> 29);
  return x;
}

int main(void) {
  printf("%lu\n", work(WORK));
  return 0;
}
