// Work in three functions that GCC at -O2 clones or splits and at -O1 leaves
// whole: mix becomes mix.constprop.0 (IPA constant propagation: every call
// passes step 3), fill becomes an inlined test plus fill.part.0 (function
// splitting), and check's unlikely branch moves to check.cold (hot/cold
// partitioning). tests/CMakeLists.txt builds it both ways, as
// explain_clones_O1 and explain_clones_O2 (both named "clones").
// Usage: clones N (the iterations of each loop).

#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long rare_paths;

static __attribute__((noinline)) unsigned long mix(unsigned long x, unsigned long n,
                                                   unsigned step) {
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005ul + step + (x >> 17);
  return x;
}

static unsigned long table[64];

static unsigned long fill(unsigned long seed, unsigned long n) {
  if (n == 0) return seed;
  for (unsigned long i = 0; i < n; ++i) {
    table[i & 63] += seed ^ i;
    seed = seed * 31 + table[(i * 7) & 63];
  }
  return seed;
}

__attribute__((cold, noinline)) static void note_rare(void) { rare_paths = rare_paths + 1; }

static __attribute__((noinline)) unsigned long check(unsigned long x, unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) {
    if (__builtin_expect((x & 0xff) == 0x17, 0)) {
      note_rare();
      x += i * 3 + (x >> 5);
      x ^= x << 7;
    }
    x = x * 2862933555777941757ul + 3037000493ul;
  }
  return x;
}

int main(int argc, char** argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
  unsigned long x = mix((unsigned long)argc, n, 3) + mix(n, n / 2, 3);
  x = fill(x, n) + fill(x, (unsigned long)argc - 1);
  x = check(x, n);
  printf("%lu\n", x);
  return 0;
}
