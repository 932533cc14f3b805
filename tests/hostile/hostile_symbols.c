/* A candidate build whose hottest function is named in markup, terminal
 * escape sequences and bytes that are not UTF-8: its symbol comes from the
 * binary into the per-function explanation, and from there into the PR
 * comment, the terminal and the JSON report. Built twice: the candidate does
 * twice the work of the baseline in that function.
 *
 *   hostile_symbols_{baseline,candidate}   prints "score: 1"
 */
#include <stdio.h>

#ifndef HOT_ITERATIONS
#error "HOT_ITERATIONS must be defined"
#endif

/* GNU as takes any byte but NUL in a quoted symbol name. */
#define HOSTILE_NAME                                                              \
  "q` <img src=x onerror=alert(1)> [link](https://evil.example) ``z &amp; "     \
  "\x1b]0;pwned\x07\x1b[2J\x1b[31m|cell|\xff\xfe www.evil.example a@b.example"

__attribute__((noinline)) unsigned long hot(unsigned long n) __asm__("\"" HOSTILE_NAME "\"");

unsigned long hot(unsigned long n) {
  volatile unsigned long sum = 0;
  for (unsigned long i = 0; i < n; ++i) sum += i;
  return sum;
}

int main(void) {
  if (hot(HOT_ITERATIONS) == 0) return 1;
  printf("score: 1\n");
  return 0;
}
