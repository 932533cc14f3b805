/* unrecognised_instruction: prints a line to stderr, then executes an
 * instruction that does not exist. Valgrind reports that in its log
 * ("valgrind: Unrecognised instruction at address ...") and the program dies
 * of SIGILL; the Valgrind backends' tests check that workgate quotes that
 * line, labelled as Valgrind's, beside the program's own stderr. */
#include <stdio.h>

int main(void) {
  fputs("about to execute an undefined instruction\n", stderr);
  fflush(stderr);
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("ud2");
#elif defined(__aarch64__)
  __asm__ volatile(".inst 0x00000000");
#else
  __builtin_trap();
#endif
  return 0;
}
