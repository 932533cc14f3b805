/* jitter: a program whose work depends on when it runs, for the stability
 * tests. It reads the real-time clock and does N + (a hash of the time mod
 * 4096) iterations of a loop, so two runs of the same build retire different
 * instruction counts unless the clock is pinned (--clock shim), when every
 * run does the same. The whole time is hashed, not its low nanoseconds: on a
 * runner whose clock ticks in microseconds or milliseconds the low bits of
 * tv_nsec take a few values only, and two runs would often match by chance;
 * a hash of two different times matches one time in 4096. It prints a fixed
 * line, so a score check cannot tell the runs apart: only counting the same
 * build twice can.
 *
 *   jitter N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: jitter N\n");
    return 2;
  }
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const uint64_t when = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
  const unsigned long n = strtoul(argv[1], NULL, 10) + (unsigned long)(Mix(when) % 4096);
  volatile unsigned long sink = 0;
  for (unsigned long i = 0; i < n; ++i) sink += i;
  printf("done\n");
  return 0;
}
