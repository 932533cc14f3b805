/* known_work: two "builds" of one program that differ by a known amount of
 * work, for the gate's end-to-end tests. Built twice: known_work_a with
 * EXTRA_ITERATIONS=100 and known_work_b with EXTRA_ITERATIONS=500100, so for
 * the same argument b retires exactly 2 * 500000 more user-space
 * instructions than a (the loop is two instructions per iteration, and the
 * builds differ only in the value of one initialised variable; both values
 * are non-zero so the variable sits in .data in both builds, keeping the
 * loader's work the same).
 *
 *   known_work N      run the loop N + EXTRA_ITERATIONS times, print "score: N"
 */
#include <stdio.h>
#include <stdlib.h>
#include "two_instruction_loop.h"

#ifndef EXTRA_ITERATIONS
#define EXTRA_ITERATIONS 100
#endif

static void run_loop(unsigned long n) { two_instruction_loop(n); }

/* volatile, so both builds load and add it: the instructions around the
 * loop are the same in both, whatever the constant. */
static volatile unsigned long extra_iterations = EXTRA_ITERATIONS;

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: known_work N\n");
    return 2;
  }
  unsigned long n = strtoul(argv[1], NULL, 10);
  run_loop(n + extra_iterations);
  printf("score: %lu\n", n);
  return 0;
}
