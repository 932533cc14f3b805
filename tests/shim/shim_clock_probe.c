/* shim_clock_probe: prints what the clock and entropy functions return, so
 * the shim tests can run it with and without libworkgate-clock.so preloaded.
 *
 *   shim_clock_probe sequence        one call of each clock function, in a
 *                                    fixed order, one line each
 *   shim_clock_probe repeat CLOCK N  N readings of clock_gettime(CLOCK),
 *                                    CLOCK one of realtime, monotonic, cputime
 *   shim_clock_probe spin CLOCK N    N readings, printing only the last one
 *                                    (to measure the cost of one reading)
 *   shim_clock_probe threads N K     N threads read CLOCK_MONOTONIC K times
 *                                    each; prints all N*K readings sorted,
 *                                    then whether each thread's own readings
 *                                    strictly increased
 *   shim_clock_probe random N        N bytes of getrandom, 16 of getentropy,
 *                                    arc4random and arc4random_uniform(1000)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long to_ns(const struct timespec *ts) {
  return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void print_clock(const char *name, clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    printf("clock_gettime(%s) error %s\n", name, errno == EINVAL ? "EINVAL" : "other");
    return;
  }
  printf("clock_gettime(%s) %lld.%09ld\n", name, (long long)ts.tv_sec, ts.tv_nsec);
}

static int run_sequence(void) {
  print_clock("CLOCK_REALTIME", CLOCK_REALTIME);
  print_clock("CLOCK_MONOTONIC", CLOCK_MONOTONIC);
  print_clock("CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID);
  print_clock("CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID);
  print_clock("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW);
  print_clock("CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE);
  print_clock("CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE);
  print_clock("CLOCK_BOOTTIME", CLOCK_BOOTTIME);
  print_clock("CLOCK_TAI", CLOCK_TAI);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  printf("gettimeofday %lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);
  time_t stored = 0;
  time_t returned = time(&stored);
  printf("time %lld %s\n", (long long)returned, returned == stored ? "stored" : "differs");
  printf("clock %ld\n", (long)clock());
  struct timespec ts;
  int base = timespec_get(&ts, TIME_UTC);
  printf("timespec_get %d %lld.%09ld\n", base, (long long)ts.tv_sec, ts.tv_nsec);
  print_clock("10", (clockid_t)10);
  print_clock("CLOCK_MONOTONIC", CLOCK_MONOTONIC);
  return 0;
}

static clockid_t parse_clock(const char *name) {
  if (strcmp(name, "realtime") == 0) return CLOCK_REALTIME;
  if (strcmp(name, "monotonic") == 0) return CLOCK_MONOTONIC;
  if (strcmp(name, "cputime") == 0) return CLOCK_PROCESS_CPUTIME_ID;
  fprintf(stderr, "shim_clock_probe: unknown clock %s\n", name);
  exit(2);
}

static int run_repeat(clockid_t id, long n) {
  for (long i = 0; i < n; ++i) {
    struct timespec ts;
    clock_gettime(id, &ts);
    printf("%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  }
  return 0;
}

static int run_spin(clockid_t id, long n) {
  struct timespec ts = {0, 0};
  for (long i = 0; i < n; ++i) clock_gettime(id, &ts);
  printf("%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}

struct thread_job {
  pthread_barrier_t *start;
  long count;
  long long *readings;
  int increasing;
};

static void *read_clock(void *arg) {
  struct thread_job *job = arg;
  // Start together, so the threads contend for the counter.
  pthread_barrier_wait(job->start);
  for (long i = 0; i < job->count; ++i) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    job->readings[i] = to_ns(&ts);
  }
  job->increasing = 1;
  for (long i = 1; i < job->count; ++i) {
    if (job->readings[i] <= job->readings[i - 1]) job->increasing = 0;
  }
  return NULL;
}

static int compare_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static int run_threads(long threads, long count) {
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  long long *all = calloc((size_t)(threads * count), sizeof(long long));
  struct thread_job *jobs = calloc((size_t)threads, sizeof(struct thread_job));
  pthread_t *ids = calloc((size_t)threads, sizeof(pthread_t));
  if (!all || !jobs || !ids) return 1;
  for (long t = 0; t < threads; ++t) {
    jobs[t] = (struct thread_job){&start, count, all + t * count, 0};
    if (pthread_create(&ids[t], NULL, read_clock, &jobs[t]) != 0) return 1;
  }
  int increasing = 1;
  for (long t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    increasing &= jobs[t].increasing;
  }
  qsort(all, (size_t)(threads * count), sizeof(long long), compare_ll);
  for (long i = 0; i < threads * count; ++i) printf("%lld\n", all[i]);
  printf("per-thread increasing: %s\n", increasing ? "yes" : "no");
  return 0;
}

static void print_hex(const char *label, const unsigned char *bytes, size_t n) {
  printf("%s ", label);
  for (size_t i = 0; i < n; ++i) printf("%02x", bytes[i]);
  printf("\n");
}

static int run_random(size_t n) {
  unsigned char *buf = malloc(n + 1);
  if (!buf) return 1;
  ssize_t got = getrandom(buf, n, GRND_NONBLOCK);
  if (got != (ssize_t)n) return 1;
  print_hex("getrandom", buf, n);
  unsigned char small[16];
  if (getentropy(small, sizeof(small)) != 0) return 1;
  print_hex("getentropy", small, sizeof(small));
  printf("arc4random %u\n", arc4random());
  printf("arc4random_uniform %u\n", arc4random_uniform(1000));
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "sequence") == 0) return run_sequence();
  if (argc == 4 && strcmp(argv[1], "repeat") == 0) {
    return run_repeat(parse_clock(argv[2]), atol(argv[3]));
  }
  if (argc == 4 && strcmp(argv[1], "spin") == 0)
    return run_spin(parse_clock(argv[2]), atol(argv[3]));
  if (argc == 4 && strcmp(argv[1], "threads") == 0)
    return run_threads(atol(argv[2]), atol(argv[3]));
  if (argc == 3 && strcmp(argv[1], "random") == 0) return run_random((size_t)atol(argv[2]));
  fprintf(stderr,
          "usage: shim_clock_probe sequence | repeat CLOCK N | spin CLOCK N | threads N K | "
          "random N\n");
  return 2;
}
