/* vgcount_calls.c: call edges and their inclusive cost, as callgrind 3.19
 * records them (callgrind/bbcc.c setup_bbcc, callgrind/callstack.c).
 *
 * Callgrind keeps a call stack per thread. An entry is pushed for a call,
 * and for a jump that callgrind takes for one: a jump to the first
 * instruction of a function (a tail call), into another object or another
 * kind of section (a PLT stub), or a return that matches no call. The entry
 * holds the call edge (the caller, which is the context, and the callee),
 * the stack pointer and the thread's cost at the call; it is popped, adding
 * the cost since to the edge's inclusive cost, when the stack pointer is
 * above the entry's (the frame is gone) at a return. A call into a PLT stub
 * is pushed without an edge (callgrind skips PLT code): the call the stub
 * jumps on to is charged to the block that called the stub.
 *
 * vgcount keeps the same stack from helper calls at the few blocks that can
 * change it, where callgrind decides at every block:
 *   - a block that ends in a call (vgc_calls_on_call), which also puts the
 *     target in the thread's PUSHED_FOR word;
 *   - a block where a named function starts whose target was not just
 *     pushed by a call (vgc_calls_on_entry_jump: a tail call, or the jump a
 *     PLT stub makes into the function it resolves to); generated code
 *     compares PUSHED_FOR with the block's address and calls only when
 *     they differ;
 *   - a block that jumps into a PLT stub (vgc_calls_on_plt_jump);
 *   - a block that ends in a return (vgc_calls_on_return).
 * The call site is the line of the calling block's last instruction, as
 * callgrind writes it; for a direct jump into a function's start it is the
 * line the jumping block left in the thread's SITE word, and for an
 * indirect one (a tail call through a function pointer) line 0.
 *
 * A signal handler's calls are its own: its first block is not a call, its
 * return to the code that delivers it pops nothing, and the calls it leaves
 * open end when it does (vgc_calls_signal_enter and _leave).
 *
 * Where vgcount and callgrind part (tools/vgcount/README.md): callgrind also
 * pops frames at any block whose stack pointer is above them (longjmp, a C++
 * exception's landing pad); vgcount pops at returns and at the helpers
 * above only. Callgrind writes no edge for a call made from a block's side
 * exit (a conditional tail call); vgcount keeps such calls on its stack and
 * leaves them out of the file too, so that the two files agree.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

// Nested signal handlers whose bottoms are kept; deeper ones share the
// innermost's.
#define VGC_MAX_CALL_SIGNAL_DEPTH 32

struct VgcCallSite {
  struct VgcCallSite* chain;  // VgHashNode's layout
  UWord key;
  VgcFunction* caller;
  VgcFunction* callee;
  UInt file, line;  // the call's position in the caller
  Bool hidden;      // made from a side exit: not written (see the top)
  ULong calls;
  ULong inclusive;
  struct VgcCallSite* next;  // every site, newest first
};

// One entry of a thread's call stack. `site` is NULL for a call into
// skipped code (a PLT stub).
typedef struct {
  VgcCallSite* site;
  ULong enter;  // the thread's collected figure at the call
  Addr sp;
  Addr ret_addr;  // 0 for a jump taken for a call
  // The thread's `from_skipped` when it was pushed, given back on pop.
  VgcCallInfo* saved_from_skipped;
} CallEntry;

typedef struct {
  CallEntry* entries;
  UInt depth, capacity;
  // Set while the thread runs skipped code that a call from `from_skipped`
  // entered: the next call it makes is charged to that call's position.
  VgcCallInfo* from_skipped;
  // Signal handlers the thread is in: the depth each started at (calls
  // below it are the interrupted code's), and whether the handler's first
  // block is still to come (it is reached by no call or jump).
  UInt bottom[VGC_MAX_CALL_SIGNAL_DEPTH];
  UInt signals;
  Bool handler_starts;
} CallStack;

static VgHashTable* sites = NULL;
static VgcCallSite* site_list = NULL;
static CallStack* stacks = NULL;  // VG_N_THREADS, by ThreadId

// The position of calls made from side exits (never written).
static VgcCallInfo side_exit_info = {0, 0, 0, True, 0, NULL, NULL};

void vgc_calls_init(void) {
  sites = VG_(HT_construct)("vgcount.call_sites");
  stacks = VG_(calloc)("vgcount.call_stacks", VG_N_THREADS, sizeof(CallStack));
}

Bool vgc_calls_enabled(void) { return stacks != NULL; }

VgcCallInfo* vgc_calls_side_exit_info(void) { return &side_exit_info; }

VgcCallInfo* vgc_calls_info(Addr last_insn, Addr ret_addr) {
  VgcCallInfo* info = VG_(malloc)("vgcount.call_info", sizeof(VgcCallInfo));
  vgc_lines_source_of(last_insn, &info->file, &info->line);
  info->ret_addr = ret_addr;
  info->side_exit = False;
  info->cached_target = 0;
  info->cached_callee = NULL;
  info->cached_site = NULL;
  return info;
}

static Word SameSite(const void* a, const void* b) {
  const VgcCallSite* x = a;
  const VgcCallSite* y = b;
  return !(x->caller == y->caller && x->callee == y->callee && x->file == y->file &&
           x->line == y->line && x->hidden == y->hidden);
}

static VgcCallSite* LookUpSite(VgcFunction* caller, VgcFunction* callee, const VgcCallInfo* at) {
  VgcCallSite probe;
  probe.caller = caller;
  probe.callee = callee;
  probe.file = at->file;
  probe.line = at->line;
  probe.hidden = at->side_exit;
  probe.key =
      ((UWord)caller * 31 + (UWord)callee) * 1099511628211ULL ^ ((UWord)at->file << 20) ^ at->line;
  VgcCallSite* found = VG_(HT_gen_lookup)(sites, &probe, SameSite);
  if (found != NULL) return found;
  found = VG_(malloc)("vgcount.call_site", sizeof(VgcCallSite));
  *found = probe;
  found->calls = 0;
  found->inclusive = 0;
  found->next = site_list;
  site_list = found;
  VG_(HT_add_node)(sites, found);
  return found;
}

static VgcCallSite* SiteOf(VgcFunction* caller, VgcFunction* callee, VgcCallInfo* at) {
  VgcCallSite* cached = at->cached_site;
  if (cached != NULL && cached->caller == caller && cached->callee == callee) return cached;
  at->cached_site = LookUpSite(caller, callee, at);
  return at->cached_site;
}

static CallStack* StackOf(ThreadId tid) { return &stacks[tid]; }

// The depth below which the present signal handler's returns do not pop.
static UInt Bottom(const CallStack* s) {
  if (s->signals == 0) return 0;
  return s
      ->bottom[(s->signals < VGC_MAX_CALL_SIGNAL_DEPTH ? s->signals : VGC_MAX_CALL_SIGNAL_DEPTH) -
               1];
}

static void Pop(CallStack* s, ULong collected) {
  CallEntry* e = &s->entries[--s->depth];
  if (e->site != NULL && collected > e->enter) e->site->inclusive += collected - e->enter;
  s->from_skipped = e->saved_from_skipped;
}

// Pops the frames the stack pointer `sp` has left, and at least `min_pops`
// more at the same stack pointer (callgrind's unwind_call_stack).
static void Unwind(CallStack* s, Addr sp, Int min_pops, ULong collected) {
  while (s->depth > Bottom(s)) {
    const CallEntry* top = &s->entries[s->depth - 1];
    if (!(top->sp < sp || (top->sp == sp && min_pops > 0))) break;
    min_pops--;
    Pop(s, collected);
  }
}

// Pushes a call from `caller` at `at` to `callee` (callgrind's
// push_call_stack); `ret_addr` is 0 for a jump taken for a call.
static void Push(CallStack* s, VgcFunction* caller, VgcFunction* callee, Bool callee_skipped,
                 VgcCallInfo* at, Addr sp, Addr ret_addr, ULong collected) {
  if (s->depth == s->capacity) {
    s->capacity = s->capacity * 2 + 64;
    s->entries = VG_(realloc)("vgcount.call_stack", s->entries, s->capacity * sizeof(CallEntry));
  }
  CallEntry* e = &s->entries[s->depth++];
  e->enter = collected;
  e->sp = sp;
  e->ret_addr = ret_addr;
  e->saved_from_skipped = s->from_skipped;
  if (callee_skipped) {
    e->site = NULL;
    if (s->from_skipped == NULL) s->from_skipped = at;
    return;
  }
  // A call out of skipped code is the call into it, seen from its caller.
  if (s->from_skipped != NULL) at = s->from_skipped;
  e->site = SiteOf(caller, callee, at);
  e->site->calls++;
  s->from_skipped = NULL;
}

// A jump taken for a call (callgrind's call emulation), from `context` at
// `at` to `callee`, the stack pointer being `sp`. The call is pushed with
// the stack pointer of the frame it jumps from. A jump out of ld.so's lazy
// binding resolver (_dl_runtime_resolve*, callgrind's pop_on_jump) first
// ends the resolver's call, and the function it resolved is called from
// where the resolver was.
static void JumpCall(CallStack* s, VgcFunction* context, VgcFunction* callee, Bool callee_skipped,
                     VgcCallInfo* at, Addr sp, ULong collected) {
  VgcCallInfo resolver_site;
  if (context->pop_on_jump && s->depth > 0 && s->entries[s->depth - 1].site != NULL) {
    const VgcCallSite* popped = s->entries[s->depth - 1].site;
    resolver_site.file = popped->file;
    resolver_site.line = popped->line;
    resolver_site.ret_addr = 0;
    resolver_site.side_exit = popped->hidden;
    resolver_site.cached_target = 0;
    resolver_site.cached_callee = NULL;
    resolver_site.cached_site = NULL;
    at = &resolver_site;
    context = popped->caller;
    sp = s->entries[s->depth - 1].sp;
    Pop(s, collected);
  }
  Unwind(s, sp, 0, collected);
  if (s->depth > 0) sp = s->entries[s->depth - 1].sp;
  Push(s, context, callee, callee_skipped, at, sp, 0, collected);
}

// Callee functions of call targets, each looked up once.
typedef struct VgcCallTarget {
  struct VgcCallTarget* chain;
  UWord key;
  VgcFunction* function;
  Bool plt;
} Target;

// `target`'s Target, remembered in `at` for the next call made there.
static Target* CachedTargetOf(VgcCallInfo* at, Addr target);

static VgHashTable* targets = NULL;

static Target* TargetOf(Addr addr) {
  if (targets == NULL) targets = VG_(HT_construct)("vgcount.call_targets");
  Target* t = VG_(HT_lookup)(targets, (UWord)addr);
  if (t == NULL) {
    t = VG_(malloc)("vgcount.call_target", sizeof(Target));
    t->key = (UWord)addr;
    Bool is_entry = False;
    t->function = vgc_function_of(addr, &is_entry, &t->plt);
    VG_(HT_add_node)(targets, t);
  }
  return t;
}

static Target* CachedTargetOf(VgcCallInfo* at, Addr target) {
  if (at->cached_callee != NULL && at->cached_target == (HWord)target) return at->cached_callee;
  at->cached_callee = TargetOf(target);
  at->cached_target = (HWord)target;
  return at->cached_callee;
}

void vgc_calls_on_call(VgcCallInfo* at, ULong raw, HWord target, HWord sp, VgcFunction* context) {
  const ThreadId tid = VG_(get_running_tid)();
  CallStack* s = StackOf(tid);
  const ULong collected = vgc_account_collected(tid, raw);
  Unwind(s, (Addr)sp, 0, collected);
  Target* t = CachedTargetOf(at, (Addr)target);
  Push(s, context, t->function, t->plt, at, (Addr)sp, at->ret_addr, collected);
}

void vgc_calls_on_entry_jump(VgcFunction* callee, ULong raw, HWord sp, VgcFunction* context,
                             VgcCallInfo* at) {
  const ThreadId tid = VG_(get_running_tid)();
  CallStack* s = StackOf(tid);
  const ULong collected = vgc_account_collected(tid, raw);
  // A signal handler's first block: the signal called it, not the code it
  // interrupted (callgrind starts a handler with no block before it).
  if (s->handler_starts) {
    s->handler_starts = False;
    return;
  }
  // A jump reached from no block that left its position (falling into a
  // function from the one before it): the call is charged to line 0.
  static VgcCallInfo unknown = {0, 0, 0, False, 0, NULL, NULL};
  if (at == NULL) at = &unknown;
  JumpCall(s, context, callee, False, at, (Addr)sp, collected);
}

void vgc_calls_on_plt_jump(VgcCallInfo* at, ULong raw, HWord target, HWord sp,
                           VgcFunction* context) {
  const ThreadId tid = VG_(get_running_tid)();
  CallStack* s = StackOf(tid);
  const ULong collected = vgc_account_collected(tid, raw);
  Target* t = CachedTargetOf(at, (Addr)target);
  JumpCall(s, context, t->function, t->plt, at, (Addr)sp, collected);
}

HWord vgc_calls_on_return(VgcCallInfo* at, ULong raw, HWord target, HWord sp,
                          VgcFunction* context) {
  const ThreadId tid = VG_(get_running_tid)();
  CallStack* s = StackOf(tid);
  const ULong collected = vgc_account_collected(tid, raw);
  // Callgrind's underflow (a return with nothing to pop, or a signal
  // handler's return to the code that delivers it): no edge.
  if (s->depth == Bottom(s)) return target;
  // A real return leaves the frame of the top entry, or keeps its stack
  // pointer and goes back to where one of the entries with that stack
  // pointer was called from (callgrind's rule, for machines whose calls
  // leave the stack pointer alone).
  Int pops = 1;
  Int k = (Int)s->depth - 1;
  if ((Addr)sp < s->entries[k].sp) {
    pops = 0;
  } else if (s->entries[k].sp == (Addr)sp) {
    for (;;) {
      if (s->entries[k].ret_addr == (Addr)target) break;
      if (k > 0 && s->entries[k - 1].sp == (Addr)sp) {
        k--;
        pops++;
        continue;
      }
      pops = 0;
      break;
    }
  }
  if (pops > 0) {
    Unwind(s, (Addr)sp, pops, collected);
    return target;
  }
  // A return that matches no call is a jump taken for a call.
  Target* t = CachedTargetOf(at, (Addr)target);
  JumpCall(s, context, t->function, t->plt, at, (Addr)sp, collected);
  return target;
}

void vgc_calls_signal_enter(ThreadId tid) {
  if (stacks == NULL) return;
  CallStack* s = StackOf(tid);
  if (s->signals < VGC_MAX_CALL_SIGNAL_DEPTH) s->bottom[s->signals] = s->depth;
  s->signals++;
  s->handler_starts = True;
}

void vgc_calls_signal_leave(ThreadId tid, ULong collected) {
  if (stacks == NULL) return;
  CallStack* s = StackOf(tid);
  if (s->signals == 0) return;
  // The handler's calls still open end with it (callgrind's post_signal).
  while (s->depth > Bottom(s)) Pop(s, collected);
  s->signals--;
  s->handler_starts = False;
}

void vgc_calls_thread_done(ThreadId tid, ULong collected) {
  if (stacks == NULL) return;
  CallStack* s = StackOf(tid);
  while (s->depth > 0) Pop(s, collected);
  s->from_skipped = NULL;
  s->signals = 0;
  s->handler_starts = False;
}

void vgc_calls_restart(void) {
  if (stacks == NULL) return;
  for (VgcCallSite* site = site_list; site != NULL; site = site->next) {
    site->calls = 0;
    site->inclusive = 0;
  }
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    CallStack* s = StackOf(t);
    if (s->depth == 0) continue;
    const ULong now = vgc_account_collected_now(t);
    for (UInt i = 0; i < s->depth; i++) s->entries[i].enter = now;
  }
}

void vgc_calls_forget_other_threads(ThreadId keep) {
  if (stacks == NULL) return;
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    if (t != keep) {
      stacks[t].depth = 0;
      stacks[t].from_skipped = NULL;
      stacks[t].signals = 0;
      stacks[t].handler_starts = False;
    }
  }
}

VgcCallSite* vgc_call_sites(void) { return site_list; }
VgcCallSite* vgc_call_site_next(const VgcCallSite* site) { return site->next; }

void vgc_call_site_get(const VgcCallSite* site, VgcCallSiteCost* out) {
  out->caller = site->caller;
  out->callee = site->callee;
  out->file = site->file;
  out->line = site->line;
  out->calls = site->calls;
  out->inclusive = site->hidden ? 0 : site->inclusive;
}
