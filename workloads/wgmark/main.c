/* wgmark: sizes its work from the clock, runs it, checks it, prints a score.
 *
 * Usage: wgmark [--work K] [--print-crcs]
 *   --work K (or WGMARK_WORK=K)  multiply the work by K (an integer, 1..100000);
 *                                pinned, it runs 110 x K iterations.
 *   --print-crcs                 print the table of expected CRCs and exit
 *                                (for updating kExpected after changing a kernel).
 * Environment:
 *   WORKGATE_FIXED_CLOCK=1  read time from a fixed table: a fixed iteration
 *                           count and the score 10.000.
 *   WGMARK_FLIP_BIT=1       corrupt one result bit (tests the validation).
 * Output (stdout), one `key: value` per line, ending with `score: N.NNN`
 * (iterations per second of the final, measured run). Exit status 1 when a
 * CRC does not match, 2 on a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgmark.h"
#include "workgate/region.h"

#define SEED 0x57474d4bu /* "WGMK" */

/* CRCs of list, matrix and state kernels for each input variant (seed SEED). */
static const uint16_t kExpected[WGMARK_VARIANTS][3] = {
#include "expected_crcs.inc"
};

static uint64_t iterations_done;
static uint16_t run_crc;
static int flip_bit;

static void fail_validation(const char* kernel, uint16_t got, uint16_t want) {
  fprintf(stderr, "wgmark: validation failed in iteration %llu: %s crc 0x%04x, expected 0x%04x\n",
          (unsigned long long)iterations_done, kernel, got, want);
  exit(1);
}

static void run_iterations(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    int variant = (int)(iterations_done % WGMARK_VARIANTS);
    uint16_t l = list_bench(variant);
    uint16_t m = matrix_bench(variant);
    uint16_t s = state_bench(variant);
    if (flip_bit && iterations_done == 0) m ^= 0x10;
    if (l != kExpected[variant][0]) fail_validation("list", l, kExpected[variant][0]);
    if (m != kExpected[variant][1]) fail_validation("matrix", m, kExpected[variant][1]);
    if (s != kExpected[variant][2]) fail_validation("state", s, kExpected[variant][2]);
    run_crc = crc16_u16(s, crc16_u16(m, crc16_u16(l, run_crc)));
    ++iterations_done;
  }
}

static int parse_work(const char* text, uint64_t* work) {
  char* end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100000) return 0;
  *work = v;
  return 1;
}

int main(int argc, char** argv) {
  uint64_t work = 1;
  const char* env_work = getenv("WGMARK_WORK");
  if (env_work != NULL && *env_work != '\0' && !parse_work(env_work, &work)) {
    fprintf(stderr, "wgmark: WGMARK_WORK must be an integer from 1 to 100000\n");
    return 2;
  }
  int print_crcs = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) {
      if (!parse_work(argv[++i], &work)) {
        fprintf(stderr, "wgmark: --work must be an integer from 1 to 100000\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--print-crcs") == 0) {
      print_crcs = 1;
    } else {
      fprintf(stderr, "usage: wgmark [--work K] [--print-crcs]\n");
      return 2;
    }
  }
  const char* fixed_env = getenv("WORKGATE_FIXED_CLOCK");
  int fixed = fixed_env != NULL && strcmp(fixed_env, "1") == 0;
  const char* flip_env = getenv("WGMARK_FLIP_BIT");
  flip_bit = flip_env != NULL && strcmp(flip_env, "1") == 0;

  list_init(SEED);
  matrix_init(SEED);
  state_init(SEED);
  if (print_crcs) {
    for (int v = 0; v < WGMARK_VARIANTS; ++v) {
      uint16_t l = list_bench(v);
      uint16_t m = matrix_bench(v);
      uint16_t s = state_bench(v);
      printf("    {0x%04x, 0x%04x, 0x%04x},\n", l, m, s);
    }
    return 0;
  }
  clock_setup(fixed, work);

  // Calibrate like CoreMark: start small, grow until one run lasts at least
  // a second; that last run is the measured one.
  WORKGATE_REGION_BEGIN();
  uint64_t n = 10 * work;
  uint64_t elapsed;
  for (;;) {
    uint64_t start = clock_now_ns();
    run_iterations(n);
    elapsed = clock_now_ns() - start;
    if (elapsed >= 1000000000ull) break;
    if (elapsed < 100000000ull) {
      n *= 10;
    } else {
      n = n * 1250000000ull / elapsed + 1;
    }
  }
  WORKGATE_REGION_END();

  double seconds = (double)elapsed / 1e9;
  printf("fixed clock: %s\n", fixed ? "yes" : "no");
  printf("work: %llu\n", (unsigned long long)work);
  printf("iterations: %llu\n", (unsigned long long)n);
  printf("total iterations: %llu\n", (unsigned long long)iterations_done);
  printf("clock reads: %llu\n", (unsigned long long)clock_calls());
  printf("seconds: %.3f\n", seconds);
  printf("crc: 0x%04x\n", run_crc);
  printf("score: %.3f\n", (double)n / seconds);
  return 0;
}
