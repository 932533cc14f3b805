/* A helper that the baseline build inlines into its one caller and the
 * candidate (-DCANDIDATE) calls out of line, as GCC stopped inlining Lua's
 * insertkey into luaH_newkey once it had a second caller: the helper's self
 * cost rises from 0 by about what the caller's falls, and only the call
 * edge says why (tests/explain/inline_moves_test.cc). */
#include <stdio.h>
#include <stdlib.h>

#ifdef CANDIDATE
#define HELPER static __attribute__((noinline))
#else
#define HELPER static inline __attribute__((always_inline))
#endif

static unsigned table[1024];

HELPER unsigned insert_key(unsigned key) {
  unsigned slot = (key * 2654435761u) >> 22;
  for (int probe = 0; probe < 8; probe++) {
    if (table[slot] == 0 || table[slot] == key) {
      table[slot] = key;
      return slot;
    }
    slot = (slot + 1) & 1023;
  }
  return slot;
}

__attribute__((noinline)) unsigned new_key(unsigned key) { return insert_key(key) + 1; }

int main(int argc, char** argv) {
  const unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
  unsigned sum = 0;
  for (unsigned i = 1; i <= n; i++) sum += new_key(i % 3000 + 1);
  printf("%u\n", sum);
  return 0;
}
