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
 * above only. A call made through a block's side exit (a conditional tail
 * call) is on the line of that exit's instruction, as callgrind writes it.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

static VgHashTable* sites = NULL;
static VgcCallSite* site_list = NULL;
static VgcCallStack* stacks = NULL;  // VG_N_THREADS, by ThreadId

// A site no call matches, which every position caches until its first call.
static VgcCallSite no_site;

void vgc_calls_init(void) {
  sites = VG_(HT_construct)("vgcount.call_sites");
  stacks = VG_(calloc)("vgcount.call_stacks", VG_N_THREADS, sizeof(VgcCallStack));
}

// The depth below which the present signal handler's returns do not pop.
static UInt Bottom(const VgcCallStack* s) {
  if (s->signals == 0) return 0;
  return s->signal_bottom[(s->signals < VGC_MAX_CALL_SIGNAL_DEPTH ? s->signals
                                                                  : VGC_MAX_CALL_SIGNAL_DEPTH) -
                          1];
}

// The entry below the lowest that a return may pop: the present signal
// handler's first call's caller's.
static VgcCallEntry* Floor(const VgcCallStack* s) { return s->base + Bottom(s) - 1; }

// Sets the limits of what generated code does itself: nothing while the
// thread runs skipped code (the next call is charged elsewhere, and a pop
// may give `from_skipped` back) or a signal handler's first block is to
// come, and no push that needs more room.
static void Sync(VgcCallStack* s) {
  s->closed_push_limit = s->base - 1;
  s->closed_pop_floor = s->base + s->capacity;
  s->open_push_limit = s->handler_starts ? s->closed_push_limit : s->base + s->capacity - 1;
  s->open_pop_floor = Floor(s);
  const Bool helpers_only = s->from_skipped != NULL || s->handler_starts || s->not_collecting;
  s->push_limit = helpers_only ? s->closed_push_limit : s->open_push_limit;
  s->pop_floor = helpers_only ? s->closed_pop_floor : s->open_pop_floor;
}

static UInt Depth(const VgcCallStack* s) { return (UInt)(s->top - s->base + 1); }

// Gives thread `tid`'s stack room for at least `capacity` entries, with
// sentinel entries below the first (their stack pointer above any, so
// generated code that looks up to two entries below the top, itself one
// below the first when the stack is empty, reads no memory it does not own
// and never pops them), and one spare entry above the last (generated code
// writes the entry above the top before it knows whether it pushes one).
static void Reserve(VgcCallStack* s, UInt capacity) {
  if (s->base != NULL && capacity <= s->capacity) return;
  const UInt depth = s->base != NULL ? Depth(s) : 0;
  UInt grown = s->capacity * 2 + 64;
  if (grown < capacity) grown = capacity;
  VgcCallEntry* block =
      VG_(realloc)("vgcount.call_stack", s->base != NULL ? s->base - VGC_CALL_SENTINELS : NULL,
                   (grown + VGC_CALL_SENTINELS + 1) * sizeof(VgcCallEntry));
  for (Int i = 0; i < VGC_CALL_SENTINELS; i++) {
    block[i].site = NULL;
    block[i].sp = ~(Addr)0;
    block[i].saved_from_skipped = NULL;
    block[i].enter = 0;
  }
  s->base = block + VGC_CALL_SENTINELS;
  s->capacity = grown;
  s->top = s->base + depth - 1;
  Sync(s);
}

HWord vgc_calls_stack_of(ThreadId tid) {
  if (stacks == NULL) return 0;
  Reserve(&stacks[tid], 1);
  return (HWord)&stacks[tid];
}

void vgc_calls_set_offset(ThreadId tid, ULong uncollected) {
  if (stacks != NULL) stacks[tid].offset = uncollected;
}

void vgc_calls_set_collecting(ThreadId tid, Bool collecting) {
  if (stacks == NULL) return;
  VgcCallStack* s = &stacks[tid];
  s->not_collecting = !collecting;
  if (s->base != NULL) Sync(s);
}

Bool vgc_calls_enabled(void) { return stacks != NULL; }

VgcCallInfo* vgc_calls_info(Addr last_insn, Addr ret_addr) {
  VgcCallInfo* info = VG_(malloc)("vgcount.call_info", sizeof(VgcCallInfo));
  vgc_lines_source_of(last_insn, &info->file, &info->line);
  info->ret_addr = ret_addr;
  info->cached_target = 0;
  info->cached_callee = NULL;
  info->cached_site = &no_site;
  info->site_target = 0;
  info->next_for_target = NULL;
  info->link_for_target = NULL;
  return info;
}

static Word SameSite(const void* a, const void* b) {
  const VgcCallSite* x = a;
  const VgcCallSite* y = b;
  return !(x->caller == y->caller && x->callee == y->callee && x->file == y->file &&
           x->line == y->line);
}

static VgcCallSite* LookUpSite(VgcFunction* caller, VgcFunction* callee, const VgcCallInfo* at) {
  VgcCallSite probe;
  probe.caller = caller;
  probe.callee = callee;
  probe.file = at->file;
  probe.line = at->line;
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

// Takes `at` out of the list of positions whose cached edge is for its
// site_target, and forgets that target.
static void ForgetSiteTarget(VgcCallInfo* at) {
  if (at->link_for_target != NULL) {
    *at->link_for_target = at->next_for_target;
    if (at->next_for_target != NULL) at->next_for_target->link_for_target = at->link_for_target;
    at->next_for_target = NULL;
    at->link_for_target = NULL;
  }
  at->site_target = 0;
}

static VgcCallSite* SiteOf(VgcFunction* caller, VgcFunction* callee, VgcCallInfo* at) {
  VgcCallSite* cached = at->cached_site;
  if (cached->caller == caller && cached->callee == callee) return cached;
  at->cached_site = LookUpSite(caller, callee, at);
  ForgetSiteTarget(at);  // known only to vgc_calls_on_call
  return at->cached_site;
}

static VgcCallStack* StackOf(ThreadId tid) {
  Reserve(&stacks[tid], 1);
  return &stacks[tid];
}

static void Pop(VgcCallStack* s, ULong collected) {
  VgcCallEntry* e = s->top--;
  if (e->site != NULL && collected > e->enter) e->site->inclusive += collected - e->enter;
  s->from_skipped = e->saved_from_skipped;
  Sync(s);
}

// Pops the frames the stack pointer `sp` has left, and at least `min_pops`
// more at the same stack pointer (callgrind's unwind_call_stack).
static void Unwind(VgcCallStack* s, Addr sp, Int min_pops, ULong collected) {
  while (s->top > Floor(s)) {
    const VgcCallEntry* top = s->top;
    if (!(top->sp < sp || (top->sp == sp && min_pops > 0))) break;
    min_pops--;
    Pop(s, collected);
  }
}

// Pushes a call from `caller` at `at` to `callee` (callgrind's
// push_call_stack); `ret_addr` is 0 for a jump taken for a call.
static void Push(VgcCallStack* s, VgcFunction* caller, VgcFunction* callee, Bool callee_skipped,
                 VgcCallInfo* at, Addr sp, Addr ret_addr, ULong collected) {
  Reserve(s, Depth(s) + 1);
  VgcCallEntry* e = ++s->top;
  e->enter = collected;
  e->sp = sp;
  e->ret_addr = ret_addr;
  e->saved_from_skipped = s->from_skipped;
  if (callee_skipped) {
    e->site = NULL;
    if (s->from_skipped == NULL) s->from_skipped = at;
    Sync(s);
    return;
  }
  // A call out of skipped code is the call into it, seen from its caller.
  if (s->from_skipped != NULL) at = s->from_skipped;
  e->site = SiteOf(caller, callee, at);
  e->site->calls++;
  s->from_skipped = NULL;
  Sync(s);
}

// A jump taken for a call (callgrind's call emulation), from `context` at
// `at` to `callee`, the stack pointer being `sp`. The call is pushed with
// the stack pointer of the frame it jumps from. A jump out of ld.so's lazy
// binding resolver (_dl_runtime_resolve*, callgrind's pop_on_jump) first
// ends the resolver's call, and the function it resolved is called from
// where the resolver was.
static void JumpCall(VgcCallStack* s, VgcFunction* context, VgcFunction* callee,
                     Bool callee_skipped, VgcCallInfo* at, Addr sp, ULong collected) {
  VgcCallInfo resolver_site;
  if (context->pop_on_jump && s->top > Floor(s) && s->top->site != NULL) {
    const VgcCallSite* popped = s->top->site;
    resolver_site.file = popped->file;
    resolver_site.line = popped->line;
    resolver_site.ret_addr = 0;
    resolver_site.cached_target = 0;
    resolver_site.cached_callee = NULL;
    resolver_site.cached_site = &no_site;
    resolver_site.site_target = 0;
    resolver_site.next_for_target = NULL;
    resolver_site.link_for_target = NULL;
    at = &resolver_site;
    context = popped->caller;
    sp = s->top->sp;
    Pop(s, collected);
  }
  Unwind(s, sp, 0, collected);
  if (s->top >= s->base) sp = s->top->sp;
  if (callee != NULL) callee->jump_entered = True;
  Push(s, context, callee, callee_skipped, at, sp, 0, collected);
}

// Callee functions of call targets, each looked up once, and again after
// the code there was discarded (vgc_calls_forget_code): another library may
// have been mapped at the same address since. Never freed, so that a
// position's cached_callee stays valid.
typedef struct VgcCallTarget {
  struct VgcCallTarget* chain;
  UWord key;
  VgcFunction* function;
  Bool plt;
  Bool stale;  // the code was discarded: look the function up again
  // The positions whose cached edge is a call to this target (site_target).
  VgcCallInfo* positions;
} Target;

// `target`'s Target, remembered in `at` for the next call made there.
static Target* CachedTargetOf(VgcCallInfo* at, Addr target);

static VgHashTable* targets = NULL;

// Looks the function at `t`'s address up (again).
static void LookUpTarget(Target* t) {
  Bool is_entry = False;
  t->function = vgc_function_of((Addr)t->key, &is_entry, &t->plt);
  t->stale = False;
}

static Target* TargetOf(Addr addr) {
  if (targets == NULL) targets = VG_(HT_construct)("vgcount.call_targets");
  Target* t = VG_(HT_lookup)(targets, (UWord)addr);
  if (t == NULL) {
    t = VG_(calloc)("vgcount.call_target", 1, sizeof(Target));
    t->key = (UWord)addr;
    LookUpTarget(t);
    VG_(HT_add_node)(targets, t);
  } else if (t->stale) {
    LookUpTarget(t);
  }
  return t;
}

VgcFunction* vgc_calls_function_at(HWord target) { return TargetOf((Addr)target)->function; }

static Target* CachedTargetOf(VgcCallInfo* at, Addr target) {
  if (at->cached_callee != NULL && at->cached_target == (HWord)target) {
    if (at->cached_callee->stale) LookUpTarget(at->cached_callee);
    return at->cached_callee;
  }
  at->cached_callee = TargetOf(target);
  at->cached_target = (HWord)target;
  return at->cached_callee;
}

void vgc_calls_forget_code(Addr entry) {
  if (targets == NULL) return;
  Target* t = VG_(HT_lookup)(targets, (UWord)entry);
  if (t == NULL) return;
  t->stale = True;
  // Generated code pushes a position's cached edge while the target is the
  // same address (vgcount_call_stack.c's PushCall): those edges name the
  // discarded code's function.
  while (t->positions != NULL) {
    VgcCallInfo* at = t->positions;
    ForgetSiteTarget(at);
    at->cached_site = &no_site;
  }
}

// What the helpers below take from the running thread (vgcount.h): its
// stack pointer, its context and its collected figure at its counter.
typedef struct {
  VgcCallStack* stack;
  Addr sp;
  VgcFunction* context;
  ULong collected;
} Running;

static Running RunningThread(void) {
  const ThreadId tid = VG_(get_running_tid)();
  Running r;
  r.stack = StackOf(tid);
  r.sp = VG_(get_SP)(tid);
  r.context = (VgcFunction*)(HWord)vgc_shadow_get(tid, VGC_SHADOW_CONTEXT);
  r.collected = vgc_account_collected(tid, vgc_shadow_get(tid, VGC_SHADOW_RAW));
  return r;
}

void vgc_calls_on_call(VgcCallInfo* at, HWord target) {
  const Running r = RunningThread();
  VgcCallStack* s = r.stack;
  Unwind(s, r.sp, 0, r.collected);
  Target* t = CachedTargetOf(at, (Addr)target);
  const Bool own_position = s->from_skipped == NULL && !t->plt;
  Push(s, r.context, t->function, t->plt, at, r.sp, at->ret_addr, r.collected);
  // The cached site is this target's: generated code may push the next
  // call from the same context here itself.
  if (own_position && at->site_target != target) {
    ForgetSiteTarget(at);
    at->site_target = target;
    at->next_for_target = t->positions;
    if (t->positions != NULL) t->positions->link_for_target = &at->next_for_target;
    at->link_for_target = &t->positions;
    t->positions = at;
  }
}

void vgc_calls_on_entry_jump(VgcFunction* callee, VgcCallInfo* at) {
  const Running r = RunningThread();
  VgcCallStack* s = r.stack;
  // A signal handler's first block: the signal called it, not the code it
  // interrupted (callgrind starts a handler with no block before it).
  if (s->handler_starts) {
    s->handler_starts = False;
    Sync(s);
    return;
  }
  // A jump reached from no block that left its position (falling into a
  // function from the one before it): the call is charged to line 0.
  static VgcCallInfo unknown = {0, 0, 0, 0, NULL, &no_site, 0, NULL, NULL};
  if (at == NULL) at = &unknown;
  JumpCall(s, r.context, callee, False, at, r.sp, r.collected);
}

void vgc_calls_on_plt_jump(VgcCallInfo* at, HWord target) {
  const Running r = RunningThread();
  Target* t = CachedTargetOf(at, (Addr)target);
  JumpCall(r.stack, r.context, t->function, t->plt, at, r.sp, r.collected);
}

void vgc_calls_on_return(VgcCallInfo* at, HWord target) {
  const Running r = RunningThread();
  VgcCallStack* s = r.stack;
  const Addr sp = r.sp;
  // Callgrind's underflow (a return with nothing to pop, or a signal
  // handler's return to the code that delivers it): no edge.
  if (s->top == Floor(s)) return;
  // A real return leaves the frame of the top entry, or keeps its stack
  // pointer and goes back to where one of the entries with that stack
  // pointer was called from (callgrind's rule, for machines whose calls
  // leave the stack pointer alone).
  Int pops = 1;
  const VgcCallEntry* k = s->top;
  if (sp < k->sp) {
    pops = 0;
  } else if (k->sp == sp) {
    for (;;) {
      if (k->ret_addr == (Addr)target) break;
      if (k > s->base && k[-1].sp == sp) {
        k--;
        pops++;
        continue;
      }
      pops = 0;
      break;
    }
  }
  if (pops > 0) {
    Unwind(s, sp, pops, r.collected);
    return;
  }
  // A return that matches no call is a jump taken for a call.
  Target* t = CachedTargetOf(at, (Addr)target);
  JumpCall(s, r.context, t->function, t->plt, at, sp, r.collected);
}

void vgc_calls_signal_enter(ThreadId tid) {
  if (stacks == NULL) return;
  VgcCallStack* s = StackOf(tid);
  if (s->signals < VGC_MAX_CALL_SIGNAL_DEPTH) s->signal_bottom[s->signals] = Depth(s);
  s->signals++;
  s->handler_starts = True;
  Sync(s);
}

void vgc_calls_signal_leave(ThreadId tid, ULong collected) {
  if (stacks == NULL) return;
  VgcCallStack* s = StackOf(tid);
  if (s->signals == 0) return;
  // The handler's calls still open end with it (callgrind's post_signal).
  while (s->top > Floor(s)) Pop(s, collected);
  s->signals--;
  s->handler_starts = False;
  Sync(s);
}

void vgc_calls_thread_done(ThreadId tid, ULong collected) {
  if (stacks == NULL) return;
  VgcCallStack* s = StackOf(tid);
  s->signals = 0;
  while (s->top > Floor(s)) Pop(s, collected);
  s->from_skipped = NULL;
  s->handler_starts = False;
  Sync(s);
}

void vgc_calls_restart(ThreadId tid, ULong kept) {
  if (stacks == NULL) return;
  for (VgcCallSite* site = site_list; site != NULL; site = site->next) {
    site->calls = 0;
    site->inclusive = 0;
  }
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    VgcCallStack* s = &stacks[t];
    if (s->base == NULL || s->top < s->base) continue;
    const ULong now = vgc_account_collected_now(t) - (t == tid ? kept : 0);
    for (VgcCallEntry* e = s->base; e <= s->top; e++) e->enter = now;
  }
}

void vgc_calls_forget_other_threads(ThreadId keep) {
  if (stacks == NULL) return;
  for (ThreadId t = 0; t < VG_N_THREADS; t++) {
    if (t != keep && stacks[t].base != NULL) {
      stacks[t].from_skipped = NULL;
      stacks[t].signals = 0;
      stacks[t].handler_starts = False;
      stacks[t].top = stacks[t].base - 1;
      Sync(&stacks[t]);
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
  out->inclusive = site->inclusive;
}
