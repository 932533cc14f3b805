/* pin_tsc: work sized from the time stamp counter (RDTSC), the way a
 * self-calibrating benchmark sizes it: rounds of work until PIN_TSC_CYCLES
 * ticks have passed, then extra work from the last reading's bits. Under
 * Valgrind RDTSC reads the host's counter (VEX calls out to it), so two
 * unpinned runs do different work; vgcount pins what it returns. x86-64
 * only. */
#include <x86intrin.h>

#include "pin_work.h"

/* Half a millisecond at 2 GHz: under vgcount about 100 rounds, under
 * callgrind about 10, natively the cap. */
#define PIN_TSC_CYCLES 1000000ULL

int main(void) {
  const uint64_t start = __rdtsc();
  uint64_t now = start;
  unsigned long rounds = 0;
  while (rounds < PIN_MAX_TIMED_ROUNDS && now - start < PIN_TSC_CYCLES) {
    PinWork(PIN_ROUND_ITERATIONS);
    rounds++;
    now = __rdtsc();
  }
  const unsigned long extra = PIN_BASE_ITERATIONS + PinExtra(now);
  PinWork(extra);
  return PinReport(rounds * PIN_ROUND_ITERATIONS + extra);
}
