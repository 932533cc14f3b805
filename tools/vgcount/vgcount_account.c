/* vgcount_account.c: from the raw per-thread counters to collected costs.
 *
 * Generated code keeps one raw counter per thread whatever happens. Which
 * instructions are "collected" is decided here, at the only moments the
 * answer can change, all of which fall between superblocks: a client
 * request, signal delivery and return, thread exit, fork, the end. At each
 * one the thread's running interval [seen, raw) is handed over to the
 * thread's context function (vgcount.h), into its collected counter if the
 * thread was collecting, and `seen` moves up to the boundary. When
 * profiling, context blocks hand over too (vgcount_context.c), always
 * under the state set here, which they read from the thread's shadow slot
 * word; without profiling the one function is the whole program. The total
 * is the sum of every function's collected counter.
 *
 * The collect state follows callgrind 3.19 (callgrind/threads.c), which keeps
 * it per thread, not per process: every thread starts with
 * --collect-atstart, CALLGRIND_TOGGLE_COLLECT flips only the calling thread's
 * state, and a signal handler runs with a state of its own, the interrupted
 * one coming back when it returns. Unlike callgrind's, which starts afresh at
 * --collect-atstart, a handler's state starts as the interrupted code's: a
 * signal that comes inside a region is counted with it.
 *
 * Region boundaries: callgrind adds a block's cost when the *next* block of
 * the same thread starts, under the collect state of that moment. The block
 * that ends in the toggle request is therefore counted under the state the
 * toggle sets: it is inside the region when the toggle switches collection on
 * and outside it when the toggle switches it off. We do the same, using the
 * length of that block which its generated code stored just before the
 * request (vgc_clreq_block_instructions), so region counts agree exactly.
 *
 * Two core behaviours move a raw counter other than by counting (see
 * vgcount.h): a new thread inherits its creator's figure, so its `seen`
 * starts from the figure it has when it first runs; and the return from a
 * signal handler restores the figure of the moment the signal came, so the
 * handler's interval is closed just before, at the sigreturn system call,
 * and `seen` follows the counter back down after it.
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vkiscnums.h"

// Nested signal handlers a thread can be in before deeper ones share the
// innermost state; callgrind itself stops at 10.
#define VGC_MAX_SIGNAL_DEPTH 32

typedef struct {
  // collect[0] is the thread's own state, collect[k] that of the k-th nested
  // signal handler.
  Bool collect[VGC_MAX_SIGNAL_DEPTH + 1];
  Int depth;     // signal handlers entered and not yet returned from
  Bool tracked;  // its shadow `seen` holds a figure of its own counter
  // For the collected figure of the call edges (vgc_account_collected):
  // the instructions run while not collecting, up to `off_since`, the raw
  // figure where collection last went off.
  ULong uncollected;
  ULong off_since;
  // Collection was turned on by a request in the thread's own code (not a
  // signal handler's): a region was entered (vgcount_requests.c).
  Bool entered;
} ThreadCollect;

static ThreadCollect* threads = NULL;  // VG_N_THREADS entries, by ThreadId
static void** stacks = NULL;           // VG_N_THREADS return stacks, by ThreadId
static Bool* live = NULL;              // VG_N_THREADS entries, by ThreadId (LiveThreads)
static Bool collect_atstart = True;
static ULong threads_seen = 0;  // the core announces the main thread too

static void ResetThread(ThreadId tid) {
  threads[tid].collect[0] = collect_atstart;
  threads[tid].depth = 0;
  threads[tid].tracked = False;
  threads[tid].uncollected = 0;
  threads[tid].off_since = 0;
  threads[tid].entered = False;
}

static ULong Raw(ThreadId tid) { return vgc_shadow_get(tid, VGC_SHADOW_RAW); }

static Bool* CollectSlot(ThreadId tid) {
  ThreadCollect* t = &threads[tid];
  Int level = t->depth < VGC_MAX_SIGNAL_DEPTH ? t->depth : VGC_MAX_SIGNAL_DEPTH;
  return &t->collect[level];
}

ULong vgc_account_collected(ThreadId tid, ULong raw) {
  const ThreadCollect* t = &threads[tid];
  ULong off = t->uncollected;
  if (!*CollectSlot(tid) && raw > t->off_since) off += raw - t->off_since;
  return raw > off ? raw - off : 0;
}

ULong vgc_account_collected_now(ThreadId tid) { return vgc_account_collected(tid, Raw(tid)); }

// Sets thread `tid`'s collect state to `on` from raw figure `boundary` on,
// keeping the figures vgc_account_collected reads.
static void SetCollect(ThreadId tid, Bool on, ULong boundary) {
  ThreadCollect* t = &threads[tid];
  Bool* slot = CollectSlot(tid);
  if (*slot && !on) t->off_since = boundary;
  if (!*slot && on && boundary > t->off_since) t->uncollected += boundary - t->off_since;
  *slot = on;
  vgc_calls_set_offset(tid, t->uncollected);
}

// Keeps the thread's KEY word equal to CONTEXT + SLOT (vgcount.h) after
// either changed.
static void ApplyKey(ThreadId tid) {
  vgc_shadow_set(tid, VGC_SHADOW_KEY,
                 vgc_shadow_get(tid, VGC_SHADOW_CONTEXT) + vgc_shadow_get(tid, VGC_SHADOW_SLOT));
}

// Makes the thread's shadow slot word say its present collect state, for
// the context blocks.
static void ApplySlot(ThreadId tid) {
  vgc_shadow_set(tid, VGC_SHADOW_SLOT,
                 offsetof(VgcFunction, ir) + (*CollectSlot(tid) ? 0 : sizeof(ULong)));
  ApplyKey(tid);
  vgc_calls_set_collecting(tid, *CollectSlot(tid));
}

// Starts following thread `tid` from its counter's present figure, if not
// yet followed. A new thread's shadow state is a copy of its creator's, so
// its `seen` is the creator's, and its context the creator's (callgrind's
// too: a new thread starts in the function that made the clone call); the
// very first thread starts with a zeroed one and gets the start function.
static void Track(ThreadId tid) {
  ThreadCollect* t = &threads[tid];
  if (t->tracked) return;
  vgc_shadow_set(tid, VGC_SHADOW_SEEN, Raw(tid));
  // A thread's return stack is its own (a new one's shadow names its
  // creator's), made when its slot is first used and kept for the next
  // thread in that slot.
  if (stacks[tid] == NULL) {
    stacks[tid] =
        VG_(calloc)("vgcount.return_stack", VGC_RETURN_STACK_ENTRIES, VGC_RETURN_ENTRY_BYTES);
  }
  vgc_shadow_set(tid, VGC_SHADOW_STACK, (ULong)(HWord)stacks[tid]);
  vgc_shadow_set(tid, VGC_SHADOW_DEPTH, 0);
  if (vgc_shadow_get(tid, VGC_SHADOW_SKIP_TO) == 0) {
    vgc_shadow_set(tid, VGC_SHADOW_SKIP_TO, (ULong)(HWord)&vgc_lines_orphan_skipped);
  }
  if (vgc_shadow_get(tid, VGC_SHADOW_CONTEXT) == 0) {
    VgcFunction* start = vgc_profile_start_function();
    vgc_shadow_set(tid, VGC_SHADOW_CONTEXT, (ULong)(HWord)start);
    vgc_shadow_set(tid, VGC_SHADOW_CONTEXT_OBJECT, start->object_id);
  }
  t->uncollected = 0;
  t->off_since = Raw(tid);
  vgc_shadow_set(tid, VGC_SHADOW_CALLS, vgc_calls_stack_of(tid));
  vgc_shadow_set(tid, VGC_SHADOW_LINE_BASE, vgc_lines_base());
  vgc_calls_set_offset(tid, 0);
  ApplySlot(tid);
  t->tracked = True;
}

// Hands thread `tid`'s running interval, up to raw figure `boundary`, to its
// context function: collected if the thread is collecting.
static void CloseIntervalAt(ThreadId tid, ULong boundary) {
  Track(tid);
  const ULong seen = vgc_shadow_get(tid, VGC_SHADOW_SEEN);
  if (boundary <= seen) return;
  VgcFunction* f = (VgcFunction*)(HWord)vgc_shadow_get(tid, VGC_SHADOW_CONTEXT);
  f->ir[*CollectSlot(tid) ? 0 : 1] += boundary - seen;
  vgc_shadow_set(tid, VGC_SHADOW_SEEN, boundary);
}

static void CloseInterval(ThreadId tid) { CloseIntervalAt(tid, Raw(tid)); }

// The counter thread `tid`'s instructions go to now: the line counters' key
// (vgcount_lines.c).
static ULong LineKey(ThreadId tid) { return vgc_shadow_get(tid, VGC_SHADOW_KEY); }

void vgc_account_switch_context(ThreadId tid, ULong raw, VgcFunction* next) {
  CloseIntervalAt(tid, raw);
  vgc_shadow_set(tid, VGC_SHADOW_CONTEXT, (ULong)(HWord)next);
  vgc_shadow_set(tid, VGC_SHADOW_CONTEXT_OBJECT, next->object_id);
  ApplyKey(tid);
}

static void OnStartClientCode(ThreadId tid, ULong blocks_dispatched) {
  (void)blocks_dispatched;
  Track(tid);
  vgc_pin_at_start(tid);
}

static void OnThreadCreate(ThreadId parent, ThreadId child) {
  (void)parent;
  ResetThread(child);
  threads_seen++;
}

static void OnThreadExit(ThreadId tid) {
  if (threads[tid].tracked) {
    CloseInterval(tid);
    vgc_calls_thread_done(tid, vgc_account_collected_now(tid));
  }
  ResetThread(tid);
}

static void OnPreDeliverSignal(ThreadId tid, Int signal_number, Bool alt_stack) {
  (void)signal_number;
  (void)alt_stack;
  vgc_pin_note_unpinned(kVgcSignals, 1);
  CloseInterval(tid);
  vgc_calls_signal_enter(tid);
  // The handler goes on in the interrupted code's state: a signal raised
  // inside a region is part of the region's work. (Callgrind gives a
  // handler a fresh --collect-atstart state, which would leave a region's
  // handlers uncounted: work a program could hide there.)
  const Bool was = *CollectSlot(tid);
  threads[tid].depth++;
  *CollectSlot(tid) = was;
  ApplySlot(tid);
}

// The handler's last interval: closed here because the sigreturn that
// follows puts the counter back (see the top comment).
// The path an exec names, copied from the program's memory with bounds
// ("" where it cannot be read).
static void ExecPath(Addr p, HChar* path, SizeT size) {
  SizeT n = 0;
  for (; p != 0 && n + 1 < size; n++) {
    if (!VG_(am_is_valid_for_client)(p + n, 1, VKI_PROT_READ)) break;
    path[n] = ((const HChar*)p)[n];
    if (path[n] == '\0') break;
  }
  path[n] = '\0';
}

static Bool IsExec(UInt syscall_number) {
  return syscall_number == __NR_execve
#if defined(__NR_execveat)
         || syscall_number == __NR_execveat
#endif
      ;
}

static void OnPreSyscall(ThreadId tid, UInt syscall_number, UWord* args, UInt arg_count) {
  vgc_channel_pre_syscall(syscall_number, args, arg_count);
  // The exec's own record goes out with the part before it.
  vgc_inputs_pre_syscall(syscall_number, args, arg_count);
  if (IsExec(syscall_number) && arg_count >= 2) {
    // Nothing of the program runs between here and the exec: Valgrind's
    // wrapper execs, or fails and returns to OnPostSyscall, with the
    // thread holding the lock that every other thread waits for.
    HChar path[256];
    ExecPath(syscall_number == __NR_execve ? args[0] : args[1], path, sizeof path);
    vgc_send_part_before_exec(path);
  }
  Bool is_sigreturn = False;
#if defined(__NR_rt_sigreturn)
  is_sigreturn = is_sigreturn || syscall_number == __NR_rt_sigreturn;
#endif
#if defined(__NR_sigreturn)
  is_sigreturn = is_sigreturn || syscall_number == __NR_sigreturn;
#endif
  if (is_sigreturn) {
    CloseInterval(tid);
    vgc_calls_signal_leave(tid, vgc_account_collected_now(tid));
  }
}

static void OnPostSyscall(ThreadId tid, UInt syscall_number, UWord* args, UInt arg_count,
                          SysRes result) {
  // An exec that returns has failed: the program goes on, counted as the
  // next part (vgcount_channel.c).
  if (IsExec(syscall_number)) vgc_channel_exec_failed();
  // Before pinning, which may put a file of its own under a descriptor the
  // program opened (/proc/uptime): what the program opened is recorded.
  vgc_inputs_post_syscall(syscall_number, args, arg_count, result);
  vgc_pin_post_syscall(tid, syscall_number, args, result);
}

static void OnPostDeliverSignal(ThreadId tid, Int signal_number) {
  (void)signal_number;
  // The counter now holds the figure saved when the signal came, which the
  // interrupted code goes on from, and the context is the interrupted one;
  // the handler's work was handed over at the sigreturn.
  vgc_shadow_set(tid, VGC_SHADOW_SEEN, Raw(tid));
  threads[tid].tracked = True;
  if (threads[tid].depth > 0) {
    const Bool handler = *CollectSlot(tid);
    threads[tid].depth--;
    const Bool resumed = *CollectSlot(tid);
    *CollectSlot(tid) = handler;
    SetCollect(tid, resumed, Raw(tid));
  }
  ApplySlot(tid);
}

// In a forked child only the forking thread lives on, and the parent's
// instructions are the parent's: the child's figure starts from zero, so the
// figures of a process tree add up to its total. (Callgrind instead lets the
// child inherit the parent's costs so far.)
static void OnForkChild(ThreadId tid) {
  // Its own token before anything else, and before its first instruction.
  vgc_channel_after_fork();
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    if (t != tid) ResetThread(t);
  }
  vgc_shadow_set(tid, VGC_SHADOW_SEEN, Raw(tid));
  threads[tid].tracked = True;
  threads[tid].uncollected = 0;
  threads[tid].off_since = Raw(tid);
  vgc_calls_set_offset(tid, 0);
  vgc_functions_zero();
  vgc_lines_zero(0);
  vgc_calls_forget_other_threads(tid);
  vgc_calls_restart(tid, 0);
  vgc_pin_forget_counts();
  vgc_inputs_forget();
  threads_seen = 1;
}

void vgc_account_init(Bool atstart) {
  collect_atstart = atstart;
  threads = VG_(malloc)("vgcount.threads", VG_N_THREADS * sizeof(ThreadCollect));
  stacks = VG_(calloc)("vgcount.stacks", VG_N_THREADS, sizeof(void*));
  live = VG_(calloc)("vgcount.live", VG_N_THREADS, sizeof(Bool));
  for (ThreadId t = 0; t < VG_N_THREADS; t++) ResetThread(t);
}

void vgc_account_track_events(void) {
  VG_(track_start_client_code)(OnStartClientCode);
  VG_(track_pre_thread_ll_create)(OnThreadCreate);
  VG_(track_pre_thread_ll_exit)(OnThreadExit);
  VG_(track_pre_deliver_signal)(OnPreDeliverSignal);
  VG_(track_post_deliver_signal)(OnPostDeliverSignal);
  VG_(needs_syscall_wrapper)(OnPreSyscall, OnPostSyscall);
  VG_(atfork)(NULL, NULL, OnForkChild);
}

VgcToggle vgc_account_toggle_collect(ThreadId tid) {
  // The request's own block goes with the new state (see the top comment).
  const ULong boundary = Raw(tid) - vgc_clreq_block_instructions;
  CloseIntervalAt(tid, boundary);
  const Bool on = !*CollectSlot(tid);
  SetCollect(tid, on, boundary);
  ApplySlot(tid);
  vgc_lines_request_block_to(LineKey(tid));
  // A handler's state is dropped when it returns: switching it hides work
  // (off, then the return switches back on) or counts the handler alone.
  if (threads[tid].depth > 0) return kVgcToggleInHandler;
  if (!on) return kVgcToggleOk;
  const Bool again = threads[tid].entered;
  threads[tid].entered = True;
  return again ? kVgcToggleAgain : kVgcToggleOk;
}

// Marks in `live` the threads the core holds now. The tool interface has no
// "is this thread id in use" call (the core's is_valid_tid is declared only in
// its private headers); its stack iterator walks exactly the thread slots that
// are not empty, which is the same question.
static void LiveThreads(void) {
  for (ThreadId t = 0; t < VG_N_THREADS; t++) live[t] = False;
  ThreadId t;
  Addr stack_min, stack_max;
  VG_(thread_stack_reset_iter)(&t);
  while (VG_(thread_stack_next)(&t, &stack_min, &stack_max)) live[t] = True;
}

void vgc_account_zero(ThreadId tid) {
  // Callgrind adds the request's block after zeroing, like any block after
  // the request: so it stays in the new figure when collecting.
  CloseIntervalAt(tid, Raw(tid) - vgc_clreq_block_instructions);
  vgc_functions_zero();
  vgc_lines_zero(LineKey(tid));
  // The calls in progress include the request's block, as the functions do.
  vgc_calls_restart(tid, vgc_account_collected_now(tid) -
                             vgc_account_collected(tid, Raw(tid) - vgc_clreq_block_instructions));
  // Other threads' work so far goes too, though their intervals are open.
  LiveThreads();
  for (ThreadId t = 1; t < VG_N_THREADS; t++) {
    if (t != tid && threads[t].tracked && live[t]) {
      vgc_shadow_set(t, VGC_SHADOW_SEEN, Raw(t));
    }
  }
}

ULong vgc_account_finish(void) {
  // Threads that ended were closed as they exited; close any still alive.
  LiveThreads();
  for (ThreadId t = 1; t < VG_N_THREADS; t++) {
    if (threads[t].tracked && live[t]) {
      CloseInterval(t);
      vgc_calls_thread_done(t, vgc_account_collected_now(t));
    }
  }
  ULong total = 0;
  for (const VgcFunction* f = vgc_functions(); f != NULL; f = f->next) total += f->ir[0];
  return total;
}

ULong vgc_account_threads(void) { return threads_seen; }

void vgc_account_restart_after_part(void) {
  // vgc_account_finish closed every live thread's interval at its present
  // figure; what was handed over now goes, as ZERO_STATS would drop it.
  vgc_functions_zero();
  vgc_lines_zero(0);
  vgc_calls_restart(VG_INVALID_THREADID, 0);
  vgc_pin_forget_counts();
  vgc_inputs_forget();
  // An exec leaves one thread (a failed one, the threads there were; the
  // next part says "threads" again only if more are made).
  threads_seen = 1;
}
