/* vgcount_account.c: from the raw instruction counter to the collected total.
 *
 * Generated code bumps one raw counter whatever happens. Which instructions
 * are "collected" is decided here, at the only moments the answer can
 * change, all of which fall between superblocks: a thread switch, a client
 * request, signal delivery and return, fork. At each one the running
 * interval [interval_start, raw) is credited to the total if the thread that
 * ran it was collecting.
 *
 * The collect state follows callgrind 3.19 (callgrind/threads.c), which keeps
 * it per thread, not per process: every thread starts with
 * --collect-atstart, CALLGRIND_TOGGLE_COLLECT flips only the calling thread's
 * state, and a signal handler runs with a fresh state equal to
 * --collect-atstart, the interrupted one coming back when it returns.
 *
 * Region boundaries: callgrind adds a block's cost when the *next* block of
 * the same thread starts, under the collect state of that moment. The block
 * that ends in the toggle request is therefore counted under the state the
 * toggle sets: it is inside the region when the toggle switches collection on
 * and outside it when the toggle switches it off. We do the same, using the
 * length of that block which its generated code stored just before the
 * request (vgc_clreq_block_instructions), so region counts agree exactly.
 */
#include "vgcount.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

// Nested signal handlers a thread can be in before deeper ones share the
// innermost state; callgrind itself stops at 10.
#define VGC_MAX_SIGNAL_DEPTH 32

typedef struct {
  // collect[0] is the thread's own state, collect[k] that of the k-th nested
  // signal handler.
  Bool collect[VGC_MAX_SIGNAL_DEPTH + 1];
  Int depth;  // signal handlers entered and not yet returned from
} ThreadCollect;

static ThreadCollect* threads = NULL;  // VG_N_THREADS entries, by ThreadId
static Bool collect_atstart = True;
static ThreadId current_tid = VG_INVALID_THREADID;  // last thread to run client code
static ULong interval_start = 0;
static ULong collected = 0;
static ULong threads_seen = 0;  // the core announces the main thread too

static void ResetThread(ThreadId tid) {
  threads[tid].collect[0] = collect_atstart;
  threads[tid].depth = 0;
}

static Bool* CollectSlot(ThreadId tid) {
  ThreadCollect* t = &threads[tid];
  Int level = t->depth < VGC_MAX_SIGNAL_DEPTH ? t->depth : VGC_MAX_SIGNAL_DEPTH;
  return &t->collect[level];
}

// Credits the running interval to the thread that ran it, up to `boundary`.
static void CloseIntervalAt(ULong boundary) {
  if (boundary < interval_start) boundary = interval_start;
  if (current_tid != VG_INVALID_THREADID && *CollectSlot(current_tid)) {
    collected += boundary - interval_start;
  }
  interval_start = boundary;
}

static void SwitchTo(ThreadId tid) {
  if (tid == current_tid) return;
  CloseIntervalAt(vgc_raw_instructions);
  current_tid = tid;
}

static void OnStartClientCode(ThreadId tid, ULong blocks_dispatched) {
  (void)blocks_dispatched;
  SwitchTo(tid);
}

static void OnThreadCreate(ThreadId parent, ThreadId child) {
  (void)parent;
  ResetThread(child);
  threads_seen++;
}

static void OnPreDeliverSignal(ThreadId tid, Int signal_number, Bool alt_stack) {
  (void)signal_number;
  (void)alt_stack;
  SwitchTo(tid);
  CloseIntervalAt(vgc_raw_instructions);
  threads[tid].depth++;
  *CollectSlot(tid) = collect_atstart;
}

static void OnPostDeliverSignal(ThreadId tid, Int signal_number) {
  (void)signal_number;
  SwitchTo(tid);
  CloseIntervalAt(vgc_raw_instructions);
  if (threads[tid].depth > 0) threads[tid].depth--;
}

// In a forked child only the forking thread lives on, and the parent's
// instructions are the parent's: the child's figure starts from zero, so the
// figures of a process tree add up to its total. (Callgrind instead lets the
// child inherit the parent's costs so far.)
static void OnForkChild(ThreadId tid) {
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    if (t != tid) ResetThread(t);
  }
  interval_start = vgc_raw_instructions;
  collected = 0;
  current_tid = tid;
  threads_seen = 1;
}

void vgc_account_init(Bool atstart) {
  collect_atstart = atstart;
  threads = VG_(malloc)("vgcount.threads", VG_N_THREADS * sizeof(ThreadCollect));
  for (ThreadId t = 0; t < VG_N_THREADS; t++) ResetThread(t);
}

void vgc_account_track_events(void) {
  VG_(track_start_client_code)(OnStartClientCode);
  VG_(track_pre_thread_ll_create)(OnThreadCreate);
  VG_(track_pre_deliver_signal)(OnPreDeliverSignal);
  VG_(track_post_deliver_signal)(OnPostDeliverSignal);
  VG_(atfork)(NULL, NULL, OnForkChild);
}

void vgc_account_toggle_collect(ThreadId tid) {
  SwitchTo(tid);
  // The request's own block goes with the new state (see the top comment).
  CloseIntervalAt(vgc_raw_instructions - vgc_clreq_block_instructions);
  Bool* slot = CollectSlot(tid);
  *slot = !*slot;
}

void vgc_account_zero(ThreadId tid) {
  SwitchTo(tid);
  // Callgrind adds the request's block after zeroing, like any block after
  // the request: so it stays in the new figure when collecting.
  CloseIntervalAt(vgc_raw_instructions - vgc_clreq_block_instructions);
  collected = 0;
}

ULong vgc_account_finish(void) {
  CloseIntervalAt(vgc_raw_instructions);
  return collected;
}

ULong vgc_account_threads(void) { return threads_seen; }
