/* known_work: two "builds" of one program that differ by a known amount of
 * work, for the gate's end-to-end tests. Built twice: known_work_a with
 * EXTRA_ITERATIONS=100 and known_work_b with EXTRA_ITERATIONS=500100, so for
 * the same argument b retires exactly 2 * 500000 more user-space
 * instructions than a (the loop is two instructions per iteration, and the
 * builds differ only in the value of one initialised variable; both values
 * are non-zero so the variable sits in .data in both builds, keeping the
 * loader's work the same). known_work_c is b built with SCORE_ADDED=200: the
 * same loop, and it prints "score: N+200", a build whose score changed on
 * purpose (docs/suites.md, score.previous).
 *
 *   known_work N      run the loop N + EXTRA_ITERATIONS times, print
 *                     "score: N + SCORE_ADDED" (SCORE_ADDED is 0 but in c)
 */
#include <stdio.h>
#include <stdlib.h>
#include "two_instruction_loop.h"

#ifndef EXTRA_ITERATIONS
#define EXTRA_ITERATIONS 100
#endif
#ifndef SCORE_ADDED
#define SCORE_ADDED 0
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
  printf("score: %lu\n", n + SCORE_ADDED);
  return 0;
}
