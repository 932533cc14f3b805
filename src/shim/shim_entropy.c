/* Deterministic entropy: replacements for getrandom, getentropy and the
 * arc4random family.
 *
 * Runtimes seed their hash tables and random modules from these (CPython's
 * hash secret comes from getrandom), and a different seed is different work:
 * two python3 runs pinned in all else differed by 183,298 instructions
 * until the hash seed was fixed. So every byte comes from one stream per
 * process, fixed by WORKGATE_RANDOM_SEED:
 *
 *   byte p of the stream = byte (p mod 8) of mix(seed + (p / 8 + 1) * gamma)
 *
 * (pinned_sequence.h, shared with vgcount, which answers raw getrandom
 * calls, RDRAND and /dev/urandom reads from the same stream).
 * Calls take consecutive ranges of the stream (an atomic reservation), so
 * the bytes a process reads in total do not depend on how it splits them
 * into calls, and concurrent callers get disjoint ranges.
 *
 * This is not cryptographic randomness and must never be used as such; it
 * exists so that two runs of a program do the same work. Reads of
 * /dev/urandom are not replaced here (vgcount replaces them).
 *
 * glibc 2.36's arc4random functions fetch their bytes with an internal
 * getrandom call that a preloaded getrandom cannot see, so they are
 * replaced too and draw from the same stream.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include "shim_config.h"

#define WG_EXPORT __attribute__((visibility("default")))

/* Flags the kernel accepts; others get EINVAL, as from the kernel. */
#define WG_GRND_KNOWN (GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE)
/* getentropy's documented limit. */
#define WG_GETENTROPY_MAX 256

/* Copies stream bytes [pos, pos + len) to out, a word at a time where the
 * position is word-aligned. Bytes are taken little-end first, so the result
 * is the same on every architecture. */
static void wg_fill(unsigned char *out, size_t len, uint64_t pos) {
  while (len > 0 && pos % 8 != 0) {
    *out++ = wg_stream_byte(wg_config.random_key, pos);
    ++pos;
    --len;
  }
  for (; len >= 8; len -= 8, pos += 8, out += 8) {
    uint64_t w = htole64(wg_stream_word(wg_config.random_key, pos / 8));
    memcpy(out, &w, sizeof(w));
  }
  for (; len > 0; --len, ++pos) {
    *out++ = wg_stream_byte(wg_config.random_key, pos);
  }
}

static void wg_draw(void *buf, size_t len) {
  if (!wg_ready()) wg_init_slow();
  wg_fill(buf, len, wg_reserve_random(len));
}

WG_EXPORT ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
  if ((flags & ~(unsigned int)WG_GRND_KNOWN) != 0) {
    errno = EINVAL;
    return -1;
  }
  /* The kernel hands out at most 32 MiB - 1 per call; keep that contract. */
  if (len > 0x1ffffff) len = 0x1ffffff;
  wg_draw(buf, len);
  return (ssize_t)len;
}

WG_EXPORT int getentropy(void *buf, size_t len) {
  if (len > WG_GETENTROPY_MAX) {
    errno = EIO;
    return -1;
  }
  wg_draw(buf, len);
  return 0;
}

WG_EXPORT uint32_t arc4random(void) {
  uint32_t value;
  wg_draw(&value, sizeof(value));
  return value;
}

WG_EXPORT void arc4random_buf(void *buf, size_t len) { wg_draw(buf, len); }

/* A uniform value below upper: reject the draws below 2^32 mod upper so
 * that every remainder is equally likely. */
WG_EXPORT uint32_t arc4random_uniform(uint32_t upper) {
  if (upper < 2) return 0;
  uint32_t threshold = (uint32_t)(-upper) % upper;
  for (;;) {
    uint32_t value = arc4random();
    if (value >= threshold) return value % upper;
  }
}
