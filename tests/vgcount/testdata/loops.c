// Loops whose body is one block, in the shapes vgcount repeats in one
// translation when it profiles (tools/vgcount/vgcount_unroll.c): a block
// that jumps back to its start with the loop's exit just before that jump
// (a compiled loop), one whose exit comes first (`rep stosb`, x86-64), and
// one whose last statement is the conditional jump back, the exit after it
// (`repne scasb`). Every loop runs from 0 to 19 times, so that an unrolled
// block is left from each of its copies. Built with -O2 (tests/CMakeLists.txt).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The jump back at the end, the exit before it.
__attribute__((noipa)) static unsigned long Countdown(unsigned long n) {
  unsigned long x = 1;
  while (n-- > 0) x += n ^ (x >> 3);
  return x;
}

// One instruction that repeats itself: its exit comes first.
__attribute__((noipa)) static void Fill(unsigned char* p, unsigned long n, unsigned char v) {
#if defined(__x86_64__)
  __asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(v) : "memory");
#else
  for (unsigned long i = 0; i < n; i++) ((volatile unsigned char*)p)[i] = v;
#endif
}

// The jump back is conditional and last; the exit follows it.
__attribute__((noipa)) static unsigned long Find(const unsigned char* p, unsigned long n,
                                                    unsigned char v) {
#if defined(__x86_64__)
  unsigned long left = n;
  __asm__ volatile("repne scasb" : "+D"(p), "+c"(left) : "a"(v) : "memory", "cc");
  return n - left;
#else
  const unsigned char* at = memchr(p, v, n);
  return at != NULL ? (unsigned long)(at - p) + 1 : n;
#endif
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 10;
  unsigned char bytes[32];
  unsigned long total = 0;
  for (int r = 0; r < rounds; r++) {
    for (unsigned n = 0; n < 20; n++) {
      Fill(bytes, sizeof(bytes), 1);
      Fill(bytes, n, 0);
      bytes[n] = 7;
      total += Find(bytes, sizeof(bytes), 7);
      total += Countdown(n + (unsigned)r % 3);
    }
  }
  printf("%lu\n", total);
  return 0;
}
