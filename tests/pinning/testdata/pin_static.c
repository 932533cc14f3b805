/* pin_static: a statically linked program (glibc's libc.a) that asks glibc
 * for the clock and for random bytes. The clock shim cannot reach it (there
 * is no dynamic loader to preload it): glibc's clock_gettime reads the vDSO,
 * or makes the system call, and getrandom() makes the system call, all
 * inside the binary, so only the counter can pin them. Rounds of work until
 * CLOCK_MONOTONIC says PIN_STATIC_NS have passed, then extra work from 8
 * random bytes. */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

#include "pin_work.h"

#define PIN_STATIC_NS 1000000LL

static int64_t PinStaticNs(void) {
  struct timespec ts = {0, 0};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
  const int64_t start = PinStaticNs();
  unsigned long rounds = 0;
  while (rounds < PIN_MAX_TIMED_ROUNDS && PinStaticNs() - start < PIN_STATIC_NS) {
    PinWork(PIN_ROUND_ITERATIONS);
    rounds++;
  }
  uint64_t value = 0;
  if (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value) {
    perror("getrandom");
    return 1;
  }
  const unsigned long extra = PIN_BASE_ITERATIONS + PinExtra(value);
  PinWork(extra);
  return PinReport(rounds * PIN_ROUND_ITERATIONS + extra);
}
