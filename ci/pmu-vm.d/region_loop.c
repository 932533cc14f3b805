/* region_loop: known work inside and outside a region of interest, for the
 * emulated-PMU tests (ci/pmu-vm-tests).
 *
 *   region_loop OUTSIDE INSIDE
 *
 * Runs the two-instruction loop OUTSIDE times, then INSIDE times between
 * WORKGATE_REGION_BEGIN and WORKGATE_REGION_END, then OUTSIDE times again.
 * Counted with `workgate count --region`, the count is 2 * INSIDE plus the
 * markers' few instructions; without --region it includes all 2 * OUTSIDE
 * iterations as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <workgate/region.h>
#include "two_instruction_loop.h"

static void run_loop(unsigned long n) { two_instruction_loop(n); }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: region_loop OUTSIDE INSIDE\n");
    return 2;
  }
  unsigned long outside = strtoul(argv[1], NULL, 10);
  unsigned long inside = strtoul(argv[2], NULL, 10);
  run_loop(outside);
  WORKGATE_REGION_BEGIN();
  run_loop(inside);
  WORKGATE_REGION_END();
  run_loop(outside);
  return 0;
}
