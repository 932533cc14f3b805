// Ways out of nested calls other than their returns, and statistics zeroed
// in the middle of calls, for vgcount's profile against callgrind's
// (tests/vgcount/vgcount_test.cc):
//
//   unwind_probe zero N     work, then CALLGRIND_ZERO_STATS three calls deep,
//                           then the same work again: N iterations each
//   unwind_probe longjmp N  N times, longjmp out of four nested calls
//   unwind_probe signals N  a signal handler that raises the signal again
//                           from inside two calls, five handlers deep, on
//                           an alternate signal stack; N iterations each
//
// Every function is kept out of line and each does some work of its own, so
// that each frame's edge has an inclusive cost of its own.
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i;
}

// zero: three calls deep, the figures so far are dropped; the calls in
// progress go on from the zeroing (callgrind's zero_all_cost).
static __attribute__((noinline)) void zero_here(unsigned long n) {
  spin(n);
  CALLGRIND_ZERO_STATS;
  spin(n);
}

static __attribute__((noinline)) void zero_middle(unsigned long n) {
  spin(n);
  zero_here(n);
  spin(n);
}

static __attribute__((noinline)) void zero_outer(unsigned long n) {
  spin(n);
  zero_middle(n);
  spin(n);
}

// longjmp: main -> jump_a -> jump_b -> jump_c -> jump_d, which jumps back
// to main's setjmp, past the four frames.
static jmp_buf back;

static __attribute__((noinline)) void jump_d(unsigned long n) {
  spin(n);
  longjmp(back, 1);
}

static __attribute__((noinline)) void jump_c(unsigned long n) {
  spin(n);
  jump_d(n);
  spin(n);
}

static __attribute__((noinline)) void jump_b(unsigned long n) {
  spin(n);
  jump_c(n);
  spin(n);
}

static __attribute__((noinline)) void jump_a(unsigned long n) {
  spin(n);
  jump_b(n);
  spin(n);
}

static int run_longjmp(unsigned long n) {
  for (volatile int round = 0; round < 5; round++) {
    if (setjmp(back) == 0) jump_a(n);
    spin(n);
  }
  return 0;
}

// signals: the handler raises the signal again from two calls inside it
// (SA_NODEFER lets it in), until five handlers are running at once.
enum { kSignalDepth = 5 };
static volatile int depth;
static unsigned long signal_work;

static __attribute__((noinline)) void raise_again(void) {
  spin(signal_work);
  if (depth < kSignalDepth) raise(SIGUSR1);
  spin(signal_work);
}

static __attribute__((noinline)) void handler_work(void) {
  spin(signal_work);
  raise_again();
}

static void nested_handler(int signal_number) {
  (void)signal_number;
  depth++;
  handler_work();
  depth--;
}

static int run_signals(unsigned long n) {
  static char alternate[1 << 16];
  stack_t stack;
  memset(&stack, 0, sizeof(stack));
  stack.ss_sp = alternate;
  stack.ss_size = sizeof(alternate);
  if (sigaltstack(&stack, NULL) != 0) return 1;
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = nested_handler;
  action.sa_flags = SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGUSR1, &action, NULL) != 0) return 1;
  signal_work = n;
  spin(n);
  raise(SIGUSR1);
  spin(n);
  return depth != 0;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const unsigned long n = strtoul(argv[2], NULL, 10);
  if (strcmp(argv[1], "zero") == 0) {
    zero_outer(n);
    spin(n);
    return 0;
  }
  if (strcmp(argv[1], "longjmp") == 0) return run_longjmp(n);
  if (strcmp(argv[1], "signals") == 0) return run_signals(n);
  return 2;
}
