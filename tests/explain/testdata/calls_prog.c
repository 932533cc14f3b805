/* A caller whose loop calls a helper a known number of times, so that the
 * call edge's count and inclusive cost and the helper's hottest line are
 * known before callgrind runs (tests/explain/callgrind_calls_test.cc).
 * The marker comments name the lines the test looks for. */
static volatile long sink;

static __attribute__((noinline)) void helper(long x) {
  for (long i = 0; i < x; ++i) sink += i; /* HOT */
}

static __attribute__((noinline)) void caller(long n) {
  for (long k = 0; k < n; ++k) helper(k % 50); /* CALL */
}

int main(void) {
  caller(CALLS);
  return 0;
}
