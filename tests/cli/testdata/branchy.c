/* A branch no predictor can learn, and the same work without it
 * (tests/cli/simulated_events_cli_test.cc): the zstd-like trade-off of a
 * conditional move that retires more instructions and mispredicts none.
 *
 *   branchy trade N   sums the odd values of N pseudo-random numbers: with a
 *                     branch on each value's low bit (the baseline build), or
 *                     with a mask (built with -DBRANCH_FREE): a few
 *                     instructions more per value, no branch on the data;
 *   branchy same N    the same loop in both builds.
 *
 * Prints "score: S", the sum, the same in both builds. The empty asm
 * statements keep the compiler from turning one form into the other. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t Next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

static uint64_t Trade(long n) {
  uint64_t state = 0x9e3779b97f4a7c15u, sum = 0;
  for (long i = 0; i < n; ++i) {
    uint64_t v = Next(&state) >> 40;
#ifdef BRANCH_FREE
    uint64_t mask = (uint64_t)0 - (v & 1);
    __asm__ volatile("" : "+r"(mask));
    sum += v & mask;
#else
    if (v & 1) {
      __asm__ volatile("");
      sum += v;
    }
#endif
  }
  return sum;
}

static uint64_t Same(long n) {
  uint64_t state = 0x2545f4914f6cdd1du, sum = 0;
  for (long i = 0; i < n; ++i) sum += Next(&state) >> 60;
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: branchy trade|same N\n");
    return 2;
  }
  const long n = strtol(argv[2], NULL, 10);
  const uint64_t sum = strcmp(argv[1], "trade") == 0 ? Trade(n) : Same(n);
  printf("score: %llu\n", (unsigned long long)sum);
  return 0;
}
