/* The pinned clock: replacements for the C library's clock functions.
 *
 * Preloaded (LD_PRELOAD), these definitions come before libc's in symbol
 * lookup, so every call a program or its shared libraries make through the
 * PLT lands here. None of them calls the real clock: each reading is
 *
 *   origin(clock) + offset(n),   n = the global call counter, then n += 1
 *
 * where offset(n) is WORKGATE_CLOCK_TABLE[n] while the table lasts and then
 * goes on by WORKGATE_CLOCK_STEP per call (shim_config.h). The origins are
 * WORKGATE_CLOCK_START for the wall clocks, WG_MONOTONIC_ORIGIN_NS for the
 * monotonic ones and 0 for CPU time. One counter serves every function and
 * every clock, so a program that mixes time(), clock() and
 * clock_gettime(CLOCK_MONOTONIC) sees one consistent timeline.
 *
 * Threads: the counter is a single atomic, so all readings in a process are
 * distinct and strictly increasing in the order the increments happen;
 * which thread receives which reading depends on scheduling. A threaded
 * program whose work depends on the clock is therefore deterministic only
 * if its work does not depend on which thread saw which value (see
 * README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
/* struct timeval without <sys/time.h>, whose gettimeofday prototype marks
 * tv as non-null and would let the compiler drop the NULL check below. */
#include <sys/select.h>
#include <time.h>

#include "shim_config.h"

#define WG_EXPORT __attribute__((visibility("default")))

WG_EXPORT int clock_gettime(clockid_t id, struct timespec *tp) {
  if (!wg_ready()) {
    wg_init_slow();
    return clock_gettime(id, tp);
  }
  /* The static ids come from a table (a load instead of a switch): this is
   * the call programs make most, and its cost is in every pinned count. */
  int64_t origin = (unsigned int)id < WG_STATIC_CLOCKS ? wg_config.origin_ns[id]
                                                       : wg_origin_of_clock(id, wg_config.start_ns);
  if (origin < 0) {
    errno = EINVAL;
    return -1;
  }
  /* Never negative (the configuration admits no negative values), so the
   * division is unsigned: a multiply and shifts, no sign fix-up. */
  uint64_t ns = (uint64_t)(origin + wg_next_offset_ns());
  tp->tv_sec = (time_t)(ns / WG_NS_PER_SEC);
  tp->tv_nsec = (long)(ns % WG_NS_PER_SEC);
  return 0;
}

/* The timezone argument is obsolete; like glibc, report UTC with no DST. */
WG_EXPORT int gettimeofday(struct timeval *tv, void *tz) {
  if (!wg_ready()) {
    wg_init_slow();
    return gettimeofday(tv, tz);
  }
  if (tz != NULL) {
    int *fields = tz; /* struct timezone: minuteswest, dsttime */
    fields[0] = 0;
    fields[1] = 0;
  }
  if (tv == NULL) return 0; /* no reading taken, no tick used */
  uint64_t ns = (uint64_t)(wg_config.start_ns + wg_next_offset_ns());
  tv->tv_sec = (time_t)(ns / WG_NS_PER_SEC);
  tv->tv_usec = (suseconds_t)(ns % WG_NS_PER_SEC / 1000);
  return 0;
}

WG_EXPORT time_t time(time_t *out) {
  if (!wg_ready()) {
    wg_init_slow();
    return time(out);
  }
  uint64_t ns = (uint64_t)(wg_config.start_ns + wg_next_offset_ns());
  time_t seconds = (time_t)(ns / WG_NS_PER_SEC);
  if (out != NULL) *out = seconds;
  return seconds;
}

/* Processor time, in CLOCKS_PER_SEC units (10^6 on Linux): the offset from
 * 0, as for CLOCK_PROCESS_CPUTIME_ID, so clock() and the CPU-time clocks
 * agree. */
WG_EXPORT clock_t clock(void) {
  if (!wg_ready()) {
    wg_init_slow();
    return clock();
  }
  uint64_t ns = (uint64_t)wg_next_offset_ns();
  return (clock_t)(ns / (WG_NS_PER_SEC / CLOCKS_PER_SEC));
}

/* C11: only TIME_UTC is a valid base in glibc 2.36; others return 0 and
 * leave *ts alone, without using a tick. */
WG_EXPORT int timespec_get(struct timespec *ts, int base) {
  if (!wg_ready()) {
    wg_init_slow();
    return timespec_get(ts, base);
  }
  if (base != TIME_UTC) return 0;
  uint64_t ns = (uint64_t)(wg_config.start_ns + wg_next_offset_ns());
  ts->tv_sec = (time_t)(ns / WG_NS_PER_SEC);
  ts->tv_nsec = (long)(ns % WG_NS_PER_SEC);
  return base;
}
