/* Reads the pinned clock's configuration from the environment.
 *
 *   WORKGATE_CLOCK_START  realtime of the first call, seconds since the epoch
 *                         (decimal, default 1577836800 = 2020-01-01T00:00:00Z)
 *   WORKGATE_CLOCK_STEP   seconds added per call (decimal, default 1)
 *   WORKGATE_CLOCK_TABLE  comma-separated offsets in seconds returned by the
 *                         first calls; afterwards the clock goes on from the
 *                         last entry by the step
 *   WORKGATE_RANDOM_SEED  unsigned decimal seed of the entropy stream
 *                         (default 0)
 *
 * Values are parsed by hand into integer nanoseconds (pinned_sequence.h,
 * shared with vgcount, which reads the same variables).
 */
#define _GNU_SOURCE
#include "shim_config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wg_config wg_config;
_Atomic int wg_init_state;
_Atomic uint64_t wg_clock_calls;
_Atomic uint64_t wg_random_bytes;

/* Exits with a message naming the variable; used before main, so it writes
 * with write(2) and leaves no stdio state behind. */
static void wg_fail(const char *name, const char *value, const char *why) {
  const char *parts[] = {"workgate-clock: cannot use ", name, "=", value, ": ", why, "\n"};
  for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); ++i) {
    ssize_t ignored = write(2, parts[i], strlen(parts[i]));
    (void)ignored;
  }
  _exit(125);
}

static void wg_read_seconds(const char *name, int64_t fallback, int64_t *out) {
  const char *value = getenv(name);
  *out = fallback;
  if (value == NULL || *value == '\0') return;
  if (wg_parse_seconds(value, value + strlen(value), out) != 0) {
    wg_fail(name, value, "expected seconds as a non-negative decimal, like 1 or 0.25");
  }
}

static void wg_read_table(void) {
  const char *name = "WORKGATE_CLOCK_TABLE";
  const char *value = getenv(name);
  wg_config.table_len = 0;
  if (value == NULL || *value == '\0') return;
  for (const char *p = value;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    if (wg_config.table_len == WG_TABLE_MAX) wg_fail(name, value, "more than 1024 entries");
    if (wg_parse_seconds(p, end, &wg_config.table_ns[wg_config.table_len]) != 0) {
      wg_fail(name, value, "expected comma-separated non-negative decimals");
    }
    ++wg_config.table_len;
    if (!comma) break;
    p = comma + 1;
  }
}

static void wg_read_seed(void) {
  const char *name = "WORKGATE_RANDOM_SEED";
  const char *value = getenv(name);
  uint64_t seed = 0;
  if (value != NULL && wg_parse_seed(value, &seed) != 0) {
    wg_fail(name, value, "expected an unsigned decimal integer below 2^64");
  }
  /* The key is the seed itself; shim_entropy.c mixes it per word, so seeds
   * that differ in one bit still give unrelated streams. */
  wg_config.random_key = seed;
}

void wg_init_slow(void) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&wg_init_state, &expected, 1)) {
    wg_read_seconds("WORKGATE_CLOCK_START", WG_DEFAULT_START_NS, &wg_config.start_ns);
    wg_read_seconds("WORKGATE_CLOCK_STEP", WG_DEFAULT_STEP_NS, &wg_config.step_ns);
    wg_read_table();
    wg_read_seed();
    /* Call n >= table_len continues from the table's last entry by the step:
     * offset(n) = last + (n - table_len + 1) * step. */
    wg_config.tail_ns = 0;
    if (wg_config.table_len > 0) {
      wg_config.tail_ns = wg_config.table_ns[wg_config.table_len - 1] -
                          (int64_t)(wg_config.table_len - 1) * wg_config.step_ns;
    }
    for (int id = 0; id < WG_STATIC_CLOCKS; ++id)
      wg_config.origin_ns[id] = wg_origin_of_clock(id, wg_config.start_ns);
    atomic_store_explicit(&wg_init_state, 2, memory_order_release);
    return;
  }
  /* Another thread is reading the environment; it takes microseconds. */
  while (atomic_load_explicit(&wg_init_state, memory_order_acquire) != 2) sched_yield();
}

/* Read the configuration at load time, so that a bad setting fails the
 * program before it starts rather than at its first clock call. */
__attribute__((constructor)) static void wg_init_at_load(void) {
  if (!wg_ready()) wg_init_slow();
}
