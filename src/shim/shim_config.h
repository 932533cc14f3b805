/* The pinned clock's shared state: configuration read once from the
 * environment, the global call counter and the entropy stream position.
 *
 * Everything here is hidden (-fvisibility=hidden): only the replaced libc
 * functions in shim_clock.c and shim_entropy.c are exported, so calls between
 * the shim's own files never go through the PLT and cost what they cost in a
 * static build.
 */
#ifndef WORKGATE_SHIM_CONFIG_H_
#define WORKGATE_SHIM_CONFIG_H_

#include <stdatomic.h>
#include <stdint.h>

#include "pinned_sequence.h"

/* The most WORKGATE_CLOCK_TABLE entries accepted; a longer table is an error. */
#define WG_TABLE_MAX 1024

/* The configuration, fixed once wg_ready(). Times are integer
 * nanoseconds so that no floating point (and no locale) is involved. */
struct wg_config {
  int64_t start_ns; /* realtime at the first call (WORKGATE_CLOCK_START) */
  int64_t step_ns;  /* added per call (WORKGATE_CLOCK_STEP) */
  /* Offsets returned by the first table_len calls (WORKGATE_CLOCK_TABLE). */
  uint32_t table_len;
  int64_t table_ns[WG_TABLE_MAX];
  /* Offset of call n >= table_len is tail_ns + n * step_ns. */
  int64_t tail_ns;
  uint64_t random_key; /* WORKGATE_RANDOM_SEED */
  /* wg_clock_origin_ns() of each static clock id, -1 for invalid ones. */
  int64_t origin_ns[WG_STATIC_CLOCKS];
};

extern struct wg_config wg_config;
/* 0: not read yet, 1: being read, 2: ready. */
extern _Atomic int wg_init_state;
/* Calls to any clock function so far, in this process, over all threads. */
extern _Atomic uint64_t wg_clock_calls;
/* Bytes of the entropy stream handed out so far. */
extern _Atomic uint64_t wg_random_bytes;

/* Reads the environment (once; concurrent callers wait for the first).
 * Exits the process with status 125 and a message on stderr when a
 * WORKGATE_* variable cannot be parsed, because a misread setting would
 * silently pin a different clock than the suite asked for. */
__attribute__((cold, noinline)) void wg_init_slow(void);

/* Whether the configuration has been read. The constructor in shim_config.c
 * normally reads it before main; each replaced function still checks, for
 * clock calls made by other libraries' constructors that run before ours,
 * and on false calls wg_init_slow() and then itself again (keeping the
 * register saves for that call off the common path). */
static inline int wg_ready(void) {
  return __builtin_expect(atomic_load_explicit(&wg_init_state, memory_order_acquire) == 2, 1);
}

/* Consumes one tick of the global call counter and returns the clock offset
 * (nanoseconds since the clock's origin) for it. Call only when wg_ready().
 *
 * The tick is one relaxed atomic fetch-and-add on a single variable, so every
 * call in the process, on any thread, gets its own index, and the indices
 * follow the counter's modification order. Offsets grow with the index (when
 * the table is increasing and the step positive), so the values handed out
 * are strictly increasing in the order of the increments, and each thread
 * sees its own readings strictly increase. Which thread gets which index is up
 * to the scheduler. */
static inline int64_t wg_next_offset_ns(void) {
  uint64_t n = atomic_fetch_add_explicit(&wg_clock_calls, 1, memory_order_relaxed);
  if (n < wg_config.table_len) return wg_config.table_ns[n];
  return wg_config.tail_ns + (int64_t)n * wg_config.step_ns;
}

/* Reserves len bytes of the entropy stream and returns the position of the
 * first one; concurrent callers get disjoint ranges. Call only when
 * wg_ready(). */
static inline uint64_t wg_reserve_random(uint64_t len) {
  return atomic_fetch_add_explicit(&wg_random_bytes, len, memory_order_relaxed);
}

#endif /* WORKGATE_SHIM_CONFIG_H_ */
