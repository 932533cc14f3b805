/* pin_clock: a self-calibrating loop on the time system calls made
 * directly (syscall(2)), around glibc and so around the clock shim: rounds
 * of work until clock_gettime(CLOCK_MONOTONIC) says PIN_CLOCK_NS have
 * passed, then extra work from the bits of gettimeofday(2) and time(2). */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pin_work.h"

/* Under vgcount about 50 rounds (each round's system call costs Valgrind a
 * few microseconds); natively the cap. */
#define PIN_CLOCK_NS 500000LL

static int64_t PinMonotonicNs(void) {
  struct timespec ts = {0, 0};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
  const int64_t start = PinMonotonicNs();
  unsigned long rounds = 0;
  while (rounds < PIN_MAX_TIMED_ROUNDS && PinMonotonicNs() - start < PIN_CLOCK_NS) {
    PinWork(PIN_ROUND_ITERATIONS);
    rounds++;
  }
  struct timeval tv = {0, 0};
  syscall(SYS_gettimeofday, &tv, NULL);
  uint64_t value = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
#ifdef SYS_time /* x86-64 has time(2); arm64 has only the other two */
  value ^= PinMix((uint64_t)syscall(SYS_time, NULL));
#endif
  const unsigned long extra = PIN_BASE_ITERATIONS + PinExtra(value);
  PinWork(extra);
  return PinReport(rounds * PIN_ROUND_ITERATIONS + extra);
}
