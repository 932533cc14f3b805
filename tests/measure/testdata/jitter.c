/* jitter: a program whose work depends on when it runs, for the stability
 * tests. It reads the real-time clock and does N + (nanoseconds mod 4096)
 * iterations of a loop, so two runs of the same build retire different
 * instruction counts unless the clock is pinned (--clock shim), when every
 * run does the same. It prints a fixed line, so a score check cannot tell
 * the runs apart: only counting the same build twice can.
 *
 *   jitter N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: jitter N\n");
    return 2;
  }
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const unsigned long n = strtoul(argv[1], NULL, 10) + (unsigned long)(now.tv_nsec % 4096);
  volatile unsigned long sink = 0;
  for (unsigned long i = 0; i < n; ++i) sink += i;
  printf("done\n");
  return 0;
}
