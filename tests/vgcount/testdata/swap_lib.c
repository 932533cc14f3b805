// Two shared libraries from one source (tests/CMakeLists.txt builds it with
// SWAP_LIB_B and without): each has one function of its own, under a name
// of the same length, first in its code, and the same size, so that
// tests/vgcount/testdata/swap_main.c finds B's function where it found A's
// once it has unloaded A and loaded B.
#if defined(SWAP_LIB_B)
static int bravo_step(int acc, int i);

int bravo_work(int n) {
  int acc = 1;
  for (int i = 0; i < n; i++) acc = bravo_step(acc, i);
  return acc;
}

static __attribute__((noinline)) int bravo_step(int acc, int i) {
  return (acc ^ (i * 7)) + (acc >> 2);
}
#else
int alpha_work(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += i * 3 + (acc >> 3);
  return acc;
}
#endif
