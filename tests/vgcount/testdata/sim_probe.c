/* sim_probe: work whose simulated events vgcount's model predicts
 * (tests/vgcount/vgcount_sim_test.cc).
 *
 *   sim_probe branchy N      N iterations of a branch on a bit of a
 *                            fixed-seed xorshift: taken half the time, at
 *                            random (data-dependent, the same every run)
 *   sim_probe branchless N   the same sums without that branch: more
 *                            instructions per iteration, no branch on data
 *   sim_probe indirect N     N calls through a table of four functions, the
 *                            entry chosen by the xorshift
 *   sim_probe monomorphic N  N calls through the same table, always entry 0
 *   sim_probe walk KIB P     P passes over an array of KIB KiB, reading one
 *                            byte of each 64-byte line, in address order
 *   sim_probe lru R          R rounds, each reading a hot line then the next
 *                            of eight other lines, all nine 4 KiB apart: one
 *                            set of a 64-set cache, one line more than its
 *                            eight ways
 *
 * Everything outside the loops is the same for every N (and P): the
 * difference between two runs is the loops' alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 88172645463325252ull;

static uint64_t next_random(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

__attribute__((noinline)) static uint64_t branchy(unsigned long n) {
  uint64_t sum = 0;
  for (unsigned long i = 0; i < n; i++) {
    const uint64_t x = next_random();
    if (x & 1) {
      // An empty asm keeps the branch a branch (no conditional move).
      __asm__ volatile("");
      sum += x;
    } else {
      sum += x >> 3;
    }
  }
  return sum;
}

__attribute__((noinline)) static uint64_t branchless(unsigned long n) {
  uint64_t sum = 0;
  for (unsigned long i = 0; i < n; i++) {
    const uint64_t x = next_random();
    const uint64_t take = -(x & 1);  // all ones when the bit is set
    sum += (x & take) | ((x >> 3) & ~take);
  }
  return sum;
}

static uint64_t f0(uint64_t x) { return x + 1; }
static uint64_t f1(uint64_t x) { return x ^ 0x55; }
static uint64_t f2(uint64_t x) { return x * 3; }
static uint64_t f3(uint64_t x) { return x >> 1; }
static uint64_t (*const volatile table[4])(uint64_t) = {f0, f1, f2, f3};

__attribute__((noinline)) static uint64_t indirect(unsigned long n, int random) {
  uint64_t sum = 0;
  for (unsigned long i = 0; i < n; i++) {
    const uint64_t x = next_random();
    sum += table[random ? (x >> 11) & 3 : 0](x);
  }
  return sum;
}

__attribute__((noinline)) static uint64_t walk(unsigned long kib, unsigned long passes) {
  // Never written: every page reads as zero, and only reads are simulated
  // here.
  static unsigned char array[32 << 20];
  const unsigned long bytes = kib << 10;
  if (bytes > sizeof(array)) return 0;
  uint64_t sum = 0;
  for (unsigned long p = 0; p < passes; p++) {
    for (unsigned long at = 0; at < bytes; at += 64) sum += ((volatile unsigned char*)array)[at];
  }
  return sum;
}

__attribute__((noinline)) static uint64_t lru(unsigned long rounds) {
  static unsigned char lines[9 * 4096];
  const volatile unsigned char* at = lines;
  uint64_t sum = 0;
  for (unsigned long r = 0; r < rounds; r++) sum += at[0] + at[4096 * (1 + r % 8)];
  return sum;
}

static unsigned long count(const char* text) {
  char* end = NULL;
  const unsigned long n = strtoul(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "sim_probe: not a count: %s\n", text);
    exit(2);
  }
  return n;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "branchy") == 0) {
    printf("%llu\n", (unsigned long long)branchy(count(argv[2])));
  } else if (argc == 3 && strcmp(argv[1], "branchless") == 0) {
    printf("%llu\n", (unsigned long long)branchless(count(argv[2])));
  } else if (argc == 3 && strcmp(argv[1], "indirect") == 0) {
    printf("%llu\n", (unsigned long long)indirect(count(argv[2]), 1));
  } else if (argc == 3 && strcmp(argv[1], "monomorphic") == 0) {
    printf("%llu\n", (unsigned long long)indirect(count(argv[2]), 0));
  } else if (argc == 3 && strcmp(argv[1], "lru") == 0) {
    printf("%llu\n", (unsigned long long)lru(count(argv[2])));
  } else if (argc == 4 && strcmp(argv[1], "walk") == 0) {
    printf("%llu\n", (unsigned long long)walk(count(argv[2]), count(argv[3])));
  } else {
    fprintf(stderr,
            "usage: sim_probe branchy|branchless|indirect|monomorphic|lru N | walk KIB P\n");
    return 2;
  }
  return 0;
}
