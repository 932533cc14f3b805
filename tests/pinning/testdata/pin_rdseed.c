/* pin_rdseed: work sized from RDSEED (CPUID.(EAX=7,ECX=0):EBX bit 18).
 * Where the CPU, as the program sees it, has none, it says so and exits 77,
 * which the tests report as a skip. x86-64 only. */
#include <cpuid.h>
#include <stdio.h>

#include "pin_work.h"

/* One 64-bit RDSEED; 1 with *value set when the CPU had a seed ready
 * (carry set), 0 when it asks to be retried. */
static int PinRdseed(uint64_t* value) {
  unsigned char ok;
  __asm__ volatile("rdseed %0; setc %1" : "=r"(*value), "=qm"(ok) : : "cc");
  return ok;
}

int main(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_RDSEED)) {
    fputs("this CPU has no RDSEED\n", stderr);
    return 77;
  }
  uint64_t value = 0;
  /* RDSEED runs dry more readily than RDRAND: Intel's guide retries with a
   * pause, without a fixed bound; this gives up after many. */
  int tries = 0;
  while (!PinRdseed(&value)) {
    if (++tries == 1000) {
      fputs("RDSEED failed 1000 times in a row\n", stderr);
      return 1;
    }
    __builtin_ia32_pause();
  }
  const unsigned long n = PIN_BASE_ITERATIONS + PinExtra(value);
  PinWork(n);
  return PinReport(n);
}
