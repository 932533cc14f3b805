/* vgcount_thread_probe: known work in threads and in marked regions, for the
 * vgcount tests.
 *
 *   vgcount_thread_probe THREADS N          THREADS threads each run the loop N times
 *   vgcount_thread_probe --region N         main thread: loop, then the loop N times
 *                                           between two CALLGRIND_TOGGLE_COLLECT, then loop
 *   vgcount_thread_probe --region THREADS N each of THREADS threads marks its own region
 *   vgcount_thread_probe --signal N         3 times, raises a signal whose handler runs
 *                                           the loop N times
 *   vgcount_thread_probe --signal-in-region N  a region (as --region) that also raises
 *                                           the signal once, inside it
 *
 * The loop is two instructions per iteration, in assembly, as in
 * probes/known_loop.c. Work outside the regions is fixed (1000 iterations)
 * so a region count moves only with N.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "two_instruction_loop.h"

enum { kOutsideIterations = 1000 };

static void run_loop(unsigned long n) { two_instruction_loop(n); }

static void run_region(unsigned long n) {
  run_loop(kOutsideIterations);
  // Five instructions in the block that ends in the first request and none
  // in the second: the tests see on which side of the region a request's
  // own block falls.
  __asm__ volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop\n");
  CALLGRIND_TOGGLE_COLLECT;
  run_loop(n);
  CALLGRIND_TOGGLE_COLLECT;
  run_loop(kOutsideIterations);
}

static unsigned long iterations;

enum { kSignalsRaised = 3 };

static void loop_handler(int signal_number) {
  (void)signal_number;
  run_loop(iterations);
}

static int run_signals(unsigned long n, int in_region) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = loop_handler;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGUSR1, &action, NULL) != 0) return 1;
  iterations = n;
  run_loop(kOutsideIterations);
  if (in_region) {
    CALLGRIND_TOGGLE_COLLECT;
    run_loop(n);
    raise(SIGUSR1);
    run_loop(n);
    CALLGRIND_TOGGLE_COLLECT;
  } else {
    for (int i = 0; i < kSignalsRaised; i++) raise(SIGUSR1);
  }
  run_loop(kOutsideIterations);
  return 0;
}

static void* plain_worker(void* arg) {
  (void)arg;
  run_loop(iterations);
  return NULL;
}

static void* region_worker(void* arg) {
  (void)arg;
  run_region(iterations);
  return NULL;
}

static unsigned long parse_count(const char* text) {
  char* end = NULL;
  unsigned long n = strtoul(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "vgcount_thread_probe: not a count: %s\n", text);
    exit(2);
  }
  return n;
}

static int run_threads(unsigned long count, void* (*worker)(void*)) {
  pthread_t threads[64];
  if (count == 0 || count > 64) {
    fprintf(stderr, "vgcount_thread_probe: 1 to 64 threads\n");
    return 2;
  }
  for (unsigned long i = 0; i < count; i++) {
    if (pthread_create(&threads[i], NULL, worker, NULL) != 0) return 1;
  }
  for (unsigned long i = 0; i < count; i++) pthread_join(threads[i], NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--region") == 0) {
    run_region(parse_count(argv[2]));
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--signal") == 0) return run_signals(parse_count(argv[2]), 0);
  if (argc == 3 && strcmp(argv[1], "--signal-in-region") == 0) {
    return run_signals(parse_count(argv[2]), 1);
  }
  if (argc == 4 && strcmp(argv[1], "--region") == 0) {
    iterations = parse_count(argv[3]);
    return run_threads(parse_count(argv[2]), region_worker);
  }
  if (argc == 3) {
    iterations = parse_count(argv[2]);
    return run_threads(parse_count(argv[1]), plain_worker);
  }
  fprintf(stderr,
          "usage: vgcount_thread_probe THREADS N | --region N | --region THREADS N |\n"
          "       --signal N | --signal-in-region N\n");
  return 2;
}
