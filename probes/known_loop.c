/* known_loop: a program whose loop retires a known number of user-space
 * instructions per iteration, used by `workgate probe` and by the tests.
 *
 *   known_loop N            run the loop N times
 *   known_loop --fork N...  for each N in turn, run the loop N times in a
 *                           child process and wait for it (one child per N)
 *   known_loop --region-fork N...
 *                           the same, with each child's loop inside the
 *                           workgate region markers (count with region on):
 *                           each child then counts its loop and nothing
 *                           else, which gives several exact samples from
 *                           one Valgrind start
 *   known_loop --spin-ns D N
 *                           busy-wait until D nanoseconds have passed on
 *                           CLOCK_MONOTONIC, then run the loop N times: a
 *                           delay of known length for the timed self-test
 *                           (workgate selftest --timed), which can overrun
 *                           its deadline but never end before it
 *   known_loop --crash      die by SIGSEGV, from a real invalid access (a
 *                           signal a process raises itself would be ignored
 *                           when it runs as pid 1 of a PID namespace)
 *   known_loop --exit CODE  exit with CODE
 *
 * The loop is two instructions per iteration on every supported
 * architecture (two_instruction_loop.h). Everything else the program does is
 * the same for every N, so the count difference between two sizes is exactly
 * 2 * (N2 - N1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workgate/region.h"
#include "two_instruction_loop.h"

static void run_loop(unsigned long n) { two_instruction_loop(n); }

static unsigned long parse_count(const char *text) {
  char *end = NULL;
  unsigned long n = strtoul(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "known_loop: not a count: %s\n", text);
    exit(2);
  }
  return n;
}

static long long monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin(unsigned long ns) {
  const long long deadline = monotonic_ns() + (long long)ns;
  while (monotonic_ns() < deadline) {
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--crash") == 0) {
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
    return 1;
  }
  if (argc == 3 && strcmp(argv[1], "--exit") == 0) return (int)parse_count(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--spin-ns") == 0) {
    spin(parse_count(argv[2]));
    run_loop(parse_count(argv[3]));
    return 0;
  }
  const int region = argc >= 3 && strcmp(argv[1], "--region-fork") == 0;
  if (argc >= 3 && (region || strcmp(argv[1], "--fork") == 0)) {
    for (int i = 2; i < argc; ++i) {
      unsigned long n = parse_count(argv[i]);
      pid_t pid = fork();
      if (pid < 0) return 1;
      if (pid == 0) {
        if (region) WORKGATE_REGION_BEGIN();
        run_loop(n);
        if (region) WORKGATE_REGION_END();
        _exit(0);
      }
      int status = 0;
      if (waitpid(pid, &status, 0) < 0) return 1;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    }
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr,
            "usage: known_loop N | --fork N... | --region-fork N... | --spin-ns D N | --crash | "
            "--exit CODE\n");
    return 2;
  }
  run_loop(parse_count(argv[1]));
  return 0;
}
