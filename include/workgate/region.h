/* workgate/region.h: mark the region of interest that workgate counts.
 *
 *   #include <workgate/region.h>
 *   setup();                   // not counted
 *   WORKGATE_REGION_BEGIN();
 *   work();                    // counted
 *   WORKGATE_REGION_END();
 *   report();                  // not counted
 *
 * A workload that uses these markers sets `region = true` in its suite entry.
 * C (C99 and later) and C++ alike; Linux; no allocation; no library to link.
 *
 * Protocol (workgate's launcher implements the other side):
 *
 * 1. Valgrind (callgrind, and workgate's own counting tool, which recognises
 *    the same client request). The launcher runs the program with
 *    --collect-atstart=no. BEGIN issues CALLGRIND_TOGGLE_COLLECT only when the
 *    program is not already inside the region, END only when it is, so a
 *    doubled BEGIN or a stray END cannot invert the region. Natively the
 *    client request is a few instructions that do nothing. A thread enters
 *    its region once: under workgate's tool, collection turned on again after
 *    the region ended makes the run invalid, as any other callgrind request
 *    does (the work between two regions would not be counted).
 *
 * 2. perf. The launcher sets WORKGATE_PERF_FDS to a comma-separated list of
 *    file descriptor numbers ("3" or "3,4,5"): perf_event counters, opened
 *    disabled, that the process inherits. BEGIN does
 *    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) on each, END does
 *    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0). The variable is read once, on the
 *    first marker; at most WORKGATE_REGION_MAX_FDS descriptors are used and
 *    anything that is not a decimal number ends the list.
 *
 * 3. Outside workgate (no variable, not under Valgrind) the markers do nothing
 *    beyond one getenv on first use and a flag test afterwards.
 *
 * BEGIN enables counting as its last step and END disables it as its first,
 * so the markers add only a handful of instructions to the count.
 *
 * State (the inside flag, the parsed descriptors) is one copy per program:
 * with GCC and Clang it is a weak definition that the linker merges, so BEGIN
 * and END may sit in different source files. Elsewhere it is per source file.
 * The markers are not thread-safe: call them from one thread.
 */
#ifndef WORKGATE_REGION_H_
#define WORKGATE_REGION_H_

#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/ioctl.h>

/* Without Valgrind's headers the callgrind half compiles to nothing; the
 * perf half still works. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define WORKGATE_REGION_HAVE_CALLGRIND_ 1
#endif
#endif

#define WORKGATE_REGION_MAX_FDS 16

#if defined(__GNUC__)
#define WORKGATE_REGION_SHARED_ __attribute__((weak))
#define WORKGATE_REGION_UNUSED_ __attribute__((unused))
#else
#define WORKGATE_REGION_SHARED_ static
#define WORKGATE_REGION_UNUSED_
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One copy per program (see above). fd_count is -1 until the variable has
 * been read. */
struct workgate_region_state_ {
  int inside;
  int fd_count;
  int fds[WORKGATE_REGION_MAX_FDS];
};
WORKGATE_REGION_SHARED_ struct workgate_region_state_ workgate_region_state_ = {0, -1, {0}};

/* Reads WORKGATE_PERF_FDS into the state, once. */
static inline WORKGATE_REGION_UNUSED_ void workgate_region_load_fds_(void) {
  struct workgate_region_state_* s = &workgate_region_state_;
  const char* p = getenv("WORKGATE_PERF_FDS");
  s->fd_count = 0;
  while (p != NULL && *p >= '0' && *p <= '9' && s->fd_count < WORKGATE_REGION_MAX_FDS) {
    int fd = 0;
    while (*p >= '0' && *p <= '9' && fd < 100000000) fd = fd * 10 + (*p++ - '0');
    s->fds[s->fd_count++] = fd;
    if (*p != ',') break;
    ++p;
  }
}

static inline WORKGATE_REGION_UNUSED_ void workgate_region_begin_(void) {
  struct workgate_region_state_* s = &workgate_region_state_;
  int i;
  if (s->inside) return;
  s->inside = 1;
  if (s->fd_count < 0) workgate_region_load_fds_();
#ifdef WORKGATE_REGION_HAVE_CALLGRIND_
  CALLGRIND_TOGGLE_COLLECT;
#endif
  for (i = 0; i < s->fd_count; ++i) ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

static inline WORKGATE_REGION_UNUSED_ void workgate_region_end_(void) {
  struct workgate_region_state_* s = &workgate_region_state_;
  int i;
  if (!s->inside) return;
  for (i = 0; i < s->fd_count; ++i) ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
#ifdef WORKGATE_REGION_HAVE_CALLGRIND_
  CALLGRIND_TOGGLE_COLLECT;
#endif
  s->inside = 0;
}

#ifdef __cplusplus
}
#endif

/* Starts counting; does nothing when already inside the region. */
#define WORKGATE_REGION_BEGIN() workgate_region_begin_()
/* Stops counting; does nothing when not inside the region. */
#define WORKGATE_REGION_END() workgate_region_end_()

#endif /* WORKGATE_REGION_H_ */
