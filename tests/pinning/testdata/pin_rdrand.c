/* pin_rdrand: work sized from RDRAND. Where the CPU (as the program sees it:
 * under Valgrind, the CPUID Valgrind synthesises) has no RDRAND, it says so
 * and exits 77, which the tests report as a skip. x86-64 only. */
#include <cpuid.h>
#include <stdio.h>

#include "pin_work.h"

/* One 64-bit RDRAND; 1 with *value set when the CPU had a number ready
 * (carry set), 0 when it asks to be retried. */
static int PinRdrand(uint64_t* value) {
  unsigned char ok;
  __asm__ volatile("rdrand %0; setc %1" : "=r"(*value), "=qm"(ok) : : "cc");
  return ok;
}

int main(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_RDRND)) {
    fputs("this CPU has no RDRAND\n", stderr);
    return 77;
  }
  uint64_t value = 0;
  /* Intel's guide: a failure 10 times in a row means a broken generator. */
  int tries = 0;
  while (!PinRdrand(&value)) {
    if (++tries == 10) {
      fputs("RDRAND failed 10 times in a row\n", stderr);
      return 1;
    }
  }
  const unsigned long n = PIN_BASE_ITERATIONS + PinExtra(value);
  PinWork(n);
  return PinReport(n);
}
