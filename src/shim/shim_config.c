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
 * Values are parsed by hand into integer nanoseconds: strtod would depend on
 * the program's locale (a decimal comma) if the first clock call came after
 * setlocale(), and floating point would make 0.1 s a rounded value.
 */
#define _GNU_SOURCE
#include "shim_config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 2020-01-01T00:00:00Z: a fixed, unremarkable date. */
#define WG_DEFAULT_START_NS (1577836800LL * WG_NS_PER_SEC)
/* One second per call: at least the target of the common self-calibrating
 * loops (Python timeit 0.2 s, Google Benchmark 0.5 s, CoreMark's 1 s
 * calibration round), so each of them stops after its first, smallest round.
 * See README.md for the measurements. */
#define WG_DEFAULT_STEP_NS WG_NS_PER_SEC

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

/* Parses "S[.F]" (digits only, at most nanosecond resolution; further
 * fraction digits are truncated) from [text, end) into nanoseconds.
 * Returns 0 on success. */
static int wg_parse_seconds(const char *text, const char *end, int64_t *out) {
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
  if (value != NULL && *value != '\0') {
    for (const char *p = value; *p; ++p) {
      if (*p < '0' || *p > '9' || seed > (UINT64_MAX - 9) / 10) {
        wg_fail(name, value, "expected an unsigned decimal integer below 2^64");
      }
      seed = seed * 10 + (uint64_t)(*p - '0');
    }
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
    for (int id = 0; id < WG_STATIC_CLOCKS; ++id) wg_config.origin_ns[id] = wg_clock_origin_ns(id);
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
