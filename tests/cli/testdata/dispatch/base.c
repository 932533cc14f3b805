/* A dispatch loop whose two cases have the same source text: the baseline
   of tests/cli/explained_lines_cli_test.cc. The candidate (cand.c) sends
   the hot share of the work to the other case, which moves cost between
   lines of one text, and adds one line of real work: the change. */
#include <stdlib.h>

#define HOT(i) ((i) % 4 == 0)

static long run(long n) {
  long acc = 0;
  for (long i = 0; i < n; ++i) {
    int op = HOT(i);
    switch (op) {
      case 0:
        acc += (i * 31 + 7) % 13;
        break;
      default:
        acc += (i * 31 + 7) % 13;
        break;
    }
  }
  return acc;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  volatile long sink = run(n);
  (void)sink;
  return 0;
}
