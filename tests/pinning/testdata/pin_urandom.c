/* pin_urandom: work sized from 8 bytes read(2) from /dev/urandom and 8 from
 * /dev/random (which, since Linux 5.6, blocks only until the pool is first
 * initialised). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "pin_work.h"

/* Reads 8 bytes of `path` into *value; 0 on success. */
static int PinReadDevice(const char* path, uint64_t* value) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  unsigned char* at = (unsigned char*)value;
  size_t left = sizeof *value;
  while (left > 0) {
    const ssize_t n = read(fd, at, left);
    if (n <= 0) {
      perror(path);
      close(fd);
      return 1;
    }
    at += n;
    left -= (size_t)n;
  }
  close(fd);
  return 0;
}

int main(void) {
  uint64_t u = 0, r = 0;
  if (PinReadDevice("/dev/urandom", &u) != 0 || PinReadDevice("/dev/random", &r) != 0) return 1;
  /* Each device moves half the extra, so a pinned one and an unpinned one
   * still differ. */
  const unsigned long n = PIN_BASE_ITERATIONS + PinExtra(u) / 2 + PinExtra(r) / 2;
  PinWork(n);
  return PinReport(n);
}
