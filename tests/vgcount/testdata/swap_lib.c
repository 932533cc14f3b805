// Two shared libraries from one source (tests/CMakeLists.txt builds it with
// SWAP_LIB_B and without): each has one function of its own, under a name
// of the same length, first in its code, and the same size, so that
// tests/vgcount/testdata/swap_main.c finds B's function where it found A's
// once it has unloaded A and loaded B. The function is placed first in the
// library's code (.text.sorted.*, which the linker puts before the rest of
// .text): a compiler may emit the static helper before it, which would move
// it by the helper's size.
#define SWAP_ENTRY __attribute__((section(".text.sorted.0")))
#if defined(SWAP_LIB_B)
static int bravo_step(int acc, int i);

SWAP_ENTRY int bravo_work(int n) {
  int acc = 1;
  for (int i = 0; i < n; i++) acc = bravo_step(acc, i);
  return acc;
}

static __attribute__((noinline)) int bravo_step(int acc, int i) {
  return (acc ^ (i * 7)) + (acc >> 2);
}
#else
SWAP_ENTRY int alpha_work(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += i * 3 + (acc >> 3);
  return acc;
}
#endif
