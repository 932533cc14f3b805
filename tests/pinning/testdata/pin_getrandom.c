/* pin_getrandom: work sized from 8 bytes of getrandom(2), asked of the
 * kernel directly (syscall(2)), not through glibc's getrandom(), which the
 * clock shim replaces: only the counter can pin this one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pin_work.h"

int main(void) {
  uint64_t value = 0;
  if (syscall(SYS_getrandom, &value, sizeof value, 0) != (long)sizeof value) {
    perror("getrandom");
    return 1;
  }
  const unsigned long n = PIN_BASE_ITERATIONS + PinExtra(value);
  PinWork(n);
  return PinReport(n);
}
