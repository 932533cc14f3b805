// A program whose .text ends in a call to a function that does not return,
// so that the object's _fini (its .fini section, code Valgrind places in no
// object, since it lies outside .text) starts right where that call ends:
// by its code, _fini's first block looks like the return site of that
// call. glibc 2.41's ld.so tail-jumps into _fini at exit; this program
// also jumps there itself from main, so the case is met on every release.
// Callgrind takes a jump between objects for a call and charges _fini's
// three instructions to _fini's own address; vgcount must do the same
// (tests/vgcount/vgcount_test.cc).
//
// Exit 0; 2 when the link did not give that layout, which the test reports
// as a broken precondition rather than passing on another layout.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void _fini(void);
extern const char text_end[];

// The last code of .text: in a section of its own, which the linker puts
// after this object's .text (the compiler's functions, whatever their
// order), and this object comes after the C library's start files, while
// crtend and crtn add no .text. .fini is 4-aligned, so the 5-byte call is
// padded to end on a multiple of 4.
__asm__(
    ".pushsection .text.fini_after_call, \"ax\", @progbits\n"
    ".globl never_returns_here\n"
    ".type never_returns_here, @function\n"
    "never_returns_here:\n"
    "  .p2align 2\n"
    "  .byte 0x0f, 0x1f, 0x00\n"  // a 3-byte nop
    "  call abort\n"
    "text_end:\n"
    ".size never_returns_here, . - never_returns_here\n"
    ".popsection\n");

// A tail jump into _fini from main's object: noinline, and the jump through
// a volatile pointer, so that the compiler keeps it a jump to an address.
__attribute__((noinline)) static void jump_to_fini(void) {
  void (*volatile fini)(void) = _fini;
  fini();
}

int main(void) {
  // Compared as numbers the compiler cannot see through: it may take two
  // distinct symbols for distinct addresses and fold the comparison.
  uintptr_t end = (uintptr_t)text_end, fini = (uintptr_t)_fini;
  __asm__("" : "+r"(end), "+r"(fini));
  if (end != fini) {
    fprintf(stderr, "fini_after_call: _fini at %#lx, not right after .text's last call (%#lx)\n",
            (unsigned long)fini, (unsigned long)end);
    return 2;
  }
  jump_to_fini();
  return 0;
}
