/* The pinned clock and entropy sequences, shared by the two places that pin
 * them: the LD_PRELOAD shim (src/shim, for programs that ask glibc) and the
 * vgcount Valgrind tool (tools/vgcount/vgcount_pin.c, for everything the
 * tool sees: the TSC, RDRAND, raw system calls, static programs). Both read
 * the same WORKGATE_CLOCK_* and WORKGATE_RANDOM_SEED settings and hand out
 * the same values, so a program sees the same timeline and the same bytes
 * whichever of them pins it.
 *
 * Header-only and free of the C library (vgcount has none): integer
 * arithmetic on the caller's buffers only.
 *
 *   clock reading n of clock c   = origin(c) + offset(n)
 *   offset(n)                    = table[n] while the table lasts, then
 *                                  tail + n * step
 *   byte p of the entropy stream = byte (p mod 8), little-end first, of
 *                                  mix(seed + (p / 8 + 1) * gamma)
 *
 * with mix() the SplitMix64 finaliser and gamma the 64-bit golden ratio.
 */
#ifndef WORKGATE_SHIM_PINNED_SEQUENCE_H_
#define WORKGATE_SHIM_PINNED_SEQUENCE_H_

#include <stdint.h>

#define WG_NS_PER_SEC 1000000000LL

/* 2020-01-01T00:00:00Z: a fixed, unremarkable date. */
#define WG_DEFAULT_START_NS (1577836800LL * WG_NS_PER_SEC)
/* One second per reading: at least the target of the common
 * self-calibrating loops (Python timeit 0.2 s, Google Benchmark 0.5 s,
 * CoreMark's 1 s calibration round), so each of them stops after its first,
 * smallest round. See src/shim/README.md for the measurements. */
#define WG_DEFAULT_STEP_NS WG_NS_PER_SEC

/* Where CLOCK_MONOTONIC and its relatives start: a small uptime, so programs
 * that subtract two readings see the same differences as on the realtime
 * clock, and programs that print uptime see a plausible one. The pinned
 * time-stamp counter (RDTSC, one tick per nanosecond) starts there too. */
#define WG_MONOTONIC_ORIGIN_NS (1000LL * WG_NS_PER_SEC)

/* Clock ids 0..11 (CLOCK_REALTIME .. CLOCK_TAI) are the kernel's static
 * ones; negative ids are dynamic (a process, thread or device clock). */
#define WG_STATIC_CLOCKS 12
/* Dynamic ids whose low bits are 3 are posix clocks opened from a device
 * file (linux/posix-timers.h). */
#define WG_CLOCKFD 3
#define WG_CLOCKFD_MASK 7

/* The 64-bit golden ratio: the entropy stream's increment. */
#define WG_GAMMA 0x9e3779b97f4a7c15ULL

/* The origin (nanoseconds) of clock `id` for a realtime start of
 * `start_ns`, or -1 for an id the kernel rejects with EINVAL. The ids are
 * Linux's numbers, written out so that this needs no <time.h>. */
static inline int64_t wg_origin_of_clock(int id, int64_t start_ns) {
  switch (id) {
    case 0:  /* CLOCK_REALTIME */
    case 5:  /* CLOCK_REALTIME_COARSE */
    case 8:  /* CLOCK_REALTIME_ALARM */
    case 11: /* CLOCK_TAI: the kernel's TAI offset is 0 unless NTP sets it */
      return start_ns;
    case 1: /* CLOCK_MONOTONIC */
    case 4: /* CLOCK_MONOTONIC_RAW */
    case 6: /* CLOCK_MONOTONIC_COARSE */
    case 7: /* CLOCK_BOOTTIME */
    case 9: /* CLOCK_BOOTTIME_ALARM */
      return WG_MONOTONIC_ORIGIN_NS;
    case 2: /* CLOCK_PROCESS_CPUTIME_ID */
    case 3: /* CLOCK_THREAD_CPUTIME_ID */
      return 0;
    default:
      if (id >= 0) return -1;
      /* A device clock (PTP) keeps wall time; a CPU clock of another
       * process or thread starts at 0 like ours. */
      return (id & WG_CLOCKFD_MASK) == WG_CLOCKFD ? start_ns : 0;
  }
}

/* Parses "S[.F]" (digits only, at most nanosecond resolution; further
 * fraction digits are truncated; blanks around it ignored) from
 * [text, end) into nanoseconds. Returns 0 on success, -1 otherwise.
 * By hand: strtod would depend on the program's locale (a decimal comma),
 * and floating point would make 0.1 s a rounded value. */
static inline int wg_parse_seconds(const char *text, const char *end, int64_t *out) {
  while (text < end && *text == ' ') ++text;
  while (end > text && end[-1] == ' ') --end;
  if (text == end) return -1;
  int64_t seconds = 0;
  int digits = 0;
  /* Keeps seconds * 1e9 + fraction within int64_t (about 292 years). */
  const int64_t max_seconds = INT64_MAX / WG_NS_PER_SEC - 1;
  for (; text < end && *text >= '0' && *text <= '9'; ++text, ++digits) {
    int64_t digit = *text - '0';
    if (seconds > (max_seconds - digit) / 10) return -1;
    seconds = seconds * 10 + digit;
  }
  int64_t fraction = 0;
  int64_t scale = WG_NS_PER_SEC;
  if (text < end && *text == '.') {
    for (++text; text < end && *text >= '0' && *text <= '9'; ++text, ++digits) {
      if (scale > 1) {
        scale /= 10;
        fraction += (*text - '0') * scale;
      }
    }
  }
  if (text != end || digits == 0) return -1;
  *out = seconds * WG_NS_PER_SEC + fraction;
  return 0;
}

/* Parses an unsigned decimal below 2^64 (WORKGATE_RANDOM_SEED). Returns 0
 * on success, -1 otherwise; "" is 0. */
static inline int wg_parse_seed(const char *text, uint64_t *out) {
  uint64_t seed = 0;
  for (const char *p = text; *p; ++p) {
    if (*p < '0' || *p > '9' || seed > (UINT64_MAX - 9) / 10) return -1;
    seed = seed * 10 + (uint64_t)(*p - '0');
  }
  *out = seed;
  return 0;
}

/* Word `index` of the entropy stream of seed `key`. */
static inline uint64_t wg_stream_word(uint64_t key, uint64_t index) {
  uint64_t z = key + (index + 1) * WG_GAMMA;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Byte `pos` of the entropy stream of seed `key`. */
static inline unsigned char wg_stream_byte(uint64_t key, uint64_t pos) {
  return (unsigned char)(wg_stream_word(key, pos / 8) >> (8 * (pos % 8)));
}

#endif /* WORKGATE_SHIM_PINNED_SEQUENCE_H_ */
