/* region_probe SETUP REGION: a known amount of work outside and inside the
 * workgate region markers, for the tests of <workgate/region.h>.
 *
 * SETUP units of work run before the region and REGION units inside it; a
 * unit is 100 rounds of a mixing loop plus a write to one fresh page (one
 * page fault, which a software perf event can count). A stray END and a
 * doubled BEGIN check that misuse cannot invert the region. Prints
 * "result: N" so the work cannot be optimised away. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "workgate/region.h"

static uint64_t work(long units) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  if (units <= 0) return x;
  size_t size = (size_t)units * 4096;
  volatile char* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("region_probe: mmap");
    exit(1);
  }
  for (long u = 0; u < units; ++u) {
    for (int i = 0; i < 100; ++i) {
      x ^= x << 7;
      x ^= x >> 9;
    }
    p[u * 4096] = (char)x;
  }
  munmap((void*)p, size);
  return x;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: region_probe SETUP REGION\n");
    return 2;
  }
  long setup = atol(argv[1]);
  long region = atol(argv[2]);
  if (setup < 0 || region < 0 || setup > 1000000 || region > 1000000) {
    fprintf(stderr, "region_probe: SETUP and REGION are 0..1000000\n");
    return 2;
  }
  WORKGATE_REGION_END();  // not inside: must do nothing
  uint64_t r = work(setup);
  WORKGATE_REGION_BEGIN();
  WORKGATE_REGION_BEGIN();  // already inside: must do nothing
  r = r * 3 + work(region);
  WORKGATE_REGION_END();
  WORKGATE_REGION_END();  // already outside: must do nothing
  printf("result: %llu\n", (unsigned long long)r);
  return 0;
}
