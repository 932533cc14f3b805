/* A long function whose candidate build (-DCANDIDATE) adds work on two of
 * its lines only: an explanation by line must list those two first
 * (tests/explain/callgrind_calls_test.cc). The marker comments name them. */
static volatile long sink;

#ifdef CANDIDATE
#define MORE 3
#else
#define MORE 0
#endif

static __attribute__((noinline)) void work(long n) {
  for (long i = 0; i < n; ++i) {
    sink += i;
    sink ^= i << 1;
    for (long j = 0; j < 4 + MORE; ++j) sink += j; /* FIRST */
    sink -= i >> 2;
    sink |= 1;
    if (i % 3 == 0) sink += 7;
    sink += i * 5;
    for (long j = 0; j < 2 + 2 * MORE; ++j) sink -= j; /* SECOND */
    sink &= 0xffffff;
    sink += 11;
  }
}

int main(void) {
  work(200);
  return 0;
}
