/* The benchmark's clock. Under WORKGATE_FIXED_CLOCK=1 it returns timestamps
 * from a fixed table, indexed by how often it has been read, so that the
 * calibration always settles on the same iteration count (the CoreMark
 * COREMARK_FIXED_CLOCK approach). */
#include <time.h>

#include "wgmark.h"

#define NS_PER_S 1000000000ull

static int clock_fixed;
static uint64_t clock_scale = 1;
static uint64_t clock_count;

/* Time that passes between one fixed read and the next. Reads 0 and 1
 * bracket the first calibration run (10 x work iterations): 0.05 s, too
 * short, so the count grows tenfold. Reads 2 and 3 bracket the second
 * (100 x work iterations): 10 x work seconds, long enough, score 10.000.
 * Any further read is another 10 x work seconds on, so no run is ever too
 * short. */
static const struct {
  uint64_t ns;
  int scaled;  // multiplied by the work multiplier
} kFixedSteps[] = {{0, 0}, {NS_PER_S / 20, 0}, {0, 0}, {10 * NS_PER_S, 1}};
#define FIXED_STEPS (sizeof kFixedSteps / sizeof kFixedSteps[0])

static uint64_t fixed_now;

void clock_setup(int fixed, uint64_t scale) {
  clock_fixed = fixed;
  clock_scale = scale;
  clock_count = 0;
  fixed_now = 0;
}

uint64_t clock_now_ns(void) {
  uint64_t i = clock_count++;
  if (clock_fixed) {
    if (i < FIXED_STEPS) {
      fixed_now += kFixedSteps[i].ns * (kFixedSteps[i].scaled ? clock_scale : 1);
    } else {
      fixed_now += 10 * NS_PER_S * clock_scale;
    }
    return fixed_now;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t clock_calls(void) { return clock_count; }
