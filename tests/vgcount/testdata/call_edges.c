// Calls of every kind callgrind records as call edges, for vgcount's
// (tests/vgcount/vgcount_test.cc): a direct call, a recursive one, tail
// calls (jumps GCC makes at -O2: to a function called before, whose return
// vgcount's generated code had already made, and to one reached by jumps
// only), a call through a function pointer, calls
// into the C library through the PLT (once, and a hundred times through
// one stub), and calls back from the C library into this program (qsort's
// comparator). Each count is known from the
// arguments: fib(n) makes fib(n + 1) * 2 - 2 recursive calls.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int leaf(int x) {
  __asm__ volatile("" : "+r"(x));
  return x * 3 + 1;
}

// The call to leaf is the last thing it does: at -O2 a jump, not a call.
__attribute__((noinline)) static int tail(int x) {
  __asm__ volatile("" : "+r"(x));
  return leaf(x + 1);
}

// Reached by a jump only: its return leaves two frames, its own and the
// one of the call to tail_only.
__attribute__((noinline)) static int tail_leaf(int x) {
  __asm__ volatile("" : "+r"(x));
  return x * 5 + 2;
}

__attribute__((noinline)) static int tail_only(int x) {
  __asm__ volatile("" : "+r"(x));
  return tail_leaf(x + 2);
}

__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static int by_value(const void* a, const void* b) {
  const int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

static int (*volatile through_pointer)(int) = leaf;
static const char* volatile digits[3] = {"7", "42", "1999"};

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += leaf(i);
  for (int i = 0; i < n; i++) sum += tail(i);
  for (int i = 0; i < n; i++) sum += tail_only(i);
  for (int i = 0; i < n; i++) sum += through_pointer(i);
  sum += fib(15);
  // The same call into the C library again and again, through one PLT
  // stub (glibc's header makes atoi a call of strtol, which jumps on to
  // ____strtol_l_internal).
  for (int i = 0; i < n; i++) sum += atoi(digits[i % 3]);
  int* values = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) values[i] = (i * 7919) % n;
  qsort(values, (size_t)n, sizeof(int), by_value);
  sum += values[n / 2];
  free(values);
  char text[32];
  snprintf(text, sizeof(text), "%d", sum);
  printf("%zu %s\n", strlen(text), text);
  (void)argv;
  return 0;
}
