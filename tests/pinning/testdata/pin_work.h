/* What the pinning subjects (tests/pinning/testdata/pin_*.c) share: work
 * whose amount is a function of a value the program read from a source of
 * time or entropy, and the one line that reports it.
 *
 * A subject's work is PinWork(n) for an n it derives from what it read:
 * PIN_BASE_ITERATIONS plus PinExtra(value), up to PIN_EXTRA_RANGE more
 * (about 2.5 M instructions), where every bit of the value moves the extra
 * (splitmix64's finaliser). Two reads that differ therefore give counts
 * that differ by about a third on average, and are equal one time in
 * PIN_EXTRA_RANGE; pinned, the same read gives the same count. The clock
 * subjects also time themselves (PinTimedRounds): rounds until the clock
 * says PIN_* has passed, at most PIN_MAX_TIMED_ROUNDS, so a pinned clock that
 * never advances, or one that advances fast, still ends in a bounded count. */
#ifndef PIN_WORK_H
#define PIN_WORK_H

#include <stdint.h>
#include <stdio.h>

/* One round of timed work: 2,000 iterations of the loop below, about 10,000
 * instructions. */
#define PIN_ROUND_ITERATIONS 2000UL
#define PIN_MAX_TIMED_ROUNDS 256UL
#define PIN_BASE_ITERATIONS 100000UL
#define PIN_EXTRA_RANGE 500000UL

static volatile uint64_t pin_sink;

/* splitmix64's finaliser: every input bit moves every output bit. */
static inline uint64_t PinMix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/* How many iterations past the base a read of `value` asks for. */
static inline unsigned long PinExtra(uint64_t value) {
  return (unsigned long)(PinMix(value) % PIN_EXTRA_RANGE);
}

/* n iterations of a linear congruential step: a fixed handful of
 * instructions each, whatever the state (the loop bound is all that moves
 * the count). The state goes to a volatile, so the loop is kept. */
static inline void PinWork(unsigned long n) {
  uint64_t x = pin_sink;
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  pin_sink = x;
}

/* The subject's one line: the iterations it did. */
static inline int PinReport(unsigned long iterations) {
  printf("iterations: %lu\n", iterations);
  return 0;
}

#endif
