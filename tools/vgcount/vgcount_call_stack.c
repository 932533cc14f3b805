/* vgcount_call_stack.c: the generated code of the call stack that
 * vgcount_calls.c keeps (callgrind's, for call edges and their inclusive
 * cost).
 *
 * The stack changes only at a few blocks: one that ends in a call, a return,
 * a jump into a PLT stub or to where a function starts (a tail call), a PLT
 * stub's jump to its function, and a block where a function starts (a jump
 * that reached it is taken for a call unless a call just pushed it). The
 * common cases are inline IR (PushCall, StubJump, PopReturn); the rest goes
 * to vgcount_calls.c's helpers, which move the stack's limits so that
 * generated code leaves them every case it does not handle.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "vgcount_ir.h"

// Whether a function starts at `addr`.
static Bool IsEntry(Addr addr) {
  const HChar* name = NULL;
  return VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), addr, &name);
}

// Whether `target` is a constant where a function starts: a direct jump
// taken for a call, whose position the jumping block leaves in SITE. An
// indirect jump leaves none: an interpreter's dispatch would pay a store at
// every instruction it runs for the rare indirect tail call, which is then
// charged to line 0 of its caller.
static Bool JumpsToEntry(const IRExpr* target) {
  if (target->tag != Iex_Const) return False;
  const IRConst* c = target->Iex.Const.con;
  return c->tag == Ico_U64 && IsEntry((Addr)c->Ico.U64);
}

// A call-stack helper `fn` named `name` of two words, under `guard` (NULL:
// always). It reads the thread's stack pointer, counter and context
// (vgcount.h), which the block writes before it.
static IRDirty* StackHelper(Int shadow, const HChar* name, void* fn, IRExpr** args,
                            const VexGuestLayout* layout, IRExpr* guard) {
  IRDirty* d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
  DeclareState(d, Ifx_Read, layout->offset_SP, layout->sizeof_SP);
  DeclareState(d, Ifx_Read, shadow + VGC_SHADOW_RAW, sizeof(ULong));
  DeclareState(d, Ifx_Read, shadow + VGC_SHADOW_CONTEXT, sizeof(ULong));
  if (guard != NULL) d->guard = guard;
  return d;
}

static void CallHelper(IRSB* sb, Int shadow, const HChar* name, void* fn, IRExpr* first,
                       IRExpr* second, const VexGuestLayout* layout, IRExpr* guard) {
  addStmtToIRSB(
      sb, IRStmt_Dirty(StackHelper(shadow, name, fn, mkIRExprVec_2(first, second), layout, guard)));
}

// At a block where a function starts: unless a call just pushed it, the
// jump that reached it is taken for a call. Before the block hands over, so
// the context is still the caller.
// With `from_other_object`, for code in no object Valgrind knows: only when
// the jump came from another object (the context's, as vgcount_context.c's
// HandOverIfCalled takes it).
static void EntryJump(IRSB* sb, Int shadow, VgcFunction* own, Addr addr,
                      const VexGuestLayout* layout, Bool from_other_object) {
  IRTemp pushed = Get(sb, shadow + VGC_SHADOW_PUSHED_FOR);
  IRTemp differs = newIRTemp(sb->tyenv, Ity_I1);
  IRTemp other = Binop(sb, Iop_Xor64, IRExpr_RdTmp(pushed), IRExpr_Const(IRConst_U64(addr)));
  if (from_other_object) {
    IRTemp object = Get(sb, shadow + VGC_SHADOW_CONTEXT_OBJECT);
    IRTemp other_object =
        Binop(sb, Iop_Xor64, IRExpr_RdTmp(object), IRExpr_Const(IRConst_U64(own->object_id)));
    // Both nonzero: (other != 0) & (other_object != 0).
    IRTemp a = newIRTemp(sb->tyenv, Ity_I1), b = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(sb, IRStmt_WrTmp(a, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(other),
                                                   IRExpr_Const(IRConst_U64(0)))));
    addStmtToIRSB(sb, IRStmt_WrTmp(b, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(other_object),
                                                   IRExpr_Const(IRConst_U64(0)))));
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(differs, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(a), IRExpr_RdTmp(b))));
  } else {
    addStmtToIRSB(sb, IRStmt_WrTmp(differs, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(other),
                                                         IRExpr_Const(IRConst_U64(0)))));
  }
  CallHelper(sb, shadow, "vgcount_calls_on_entry_jump", &vgc_calls_on_entry_jump, Pointer(own),
             IRExpr_RdTmp(Get(sb, shadow + VGC_SHADOW_SITE)), layout, IRExpr_RdTmp(differs));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_PUSHED_FOR, IRExpr_Const(IRConst_U64(0))));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_SITE, IRExpr_Const(IRConst_U64(0))));
}

// The conjunction of `n` tests.
static IRTemp All(IRSB* sb, const IRTemp* tests, Int n) {
  IRTemp all = tests[0];
  for (Int i = 1; i < n; i++) {
    IRTemp both = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(
        sb, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(all), IRExpr_RdTmp(tests[i]))));
    all = both;
  }
  return all;
}

// Appends `temp = !test`.
static IRTemp Not(IRSB* sb, IRTemp test) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(test))));
  return t;
}

// Appends `*address += amount` when `guard` holds (else to a scratch word),
// `address` a temp.
static void AddIf(IRSB* sb, IRTemp guard, IRTemp address, IRExpr* amount) {
  IRTemp where = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(where, IRExpr_ITE(IRExpr_RdTmp(guard), IRExpr_RdTmp(address),
                                                   HostAddress(&vgc_scratch_counter, Ity_I64))));
  IRTemp before = Load(sb, IRExpr_RdTmp(where));
  IRTemp after = Binop(sb, Iop_Add64, IRExpr_RdTmp(before), amount);
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(where), IRExpr_RdTmp(after)));
}

// Appends `*address = value` when `guard` holds.
static void StoreIf(IRSB* sb, IRTemp guard, IRExpr* address, IRExpr* value) {
  addStmtToIRSB(sb, IRStmt_StoreG(VGC_HOST_ENDNESS, address, value, IRExpr_RdTmp(guard)));
}

// Appends `temp = guard ? LOAD:I64(address) : 0`, reading nothing when
// `guard` does not hold.
static IRTemp LoadIf(IRSB* sb, IRTemp guard, IRExpr* address) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(
      sb, IRStmt_LoadG(VGC_HOST_ENDNESS, ILGop_Ident64, t, address, U64(0), IRExpr_RdTmp(guard)));
  return t;
}

static IRTemp And(IRSB* sb, IRTemp a, IRTemp b) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(a), IRExpr_RdTmp(b))));
  return t;
}

// Word `offset` of the call-stack entry `k` below `top` (two sentinels lie
// below the first entry, so k <= 2 always reads the stack's own memory).
static IRTemp EntryWord(IRSB* sb, IRTemp top, Int k, Long offset) {
  return Load(sb, At(sb, top, offset - k * (Long)sizeof(VgcCallEntry)));
}

// The collect state's SLOT word while the thread collects.
#define VGC_COLLECTING_SLOT ((ULong)offsetof(VgcFunction, ir))

// At the end of a block that calls `next`, or jumps to where a function
// starts (`callee`, a tail call callgrind takes for a call): the common
// case is pushed here, inline (vgcount_calls.c's Push, when nothing else
// happens there): the thread collects, runs no skipped code, has room on its
// stack and no frame to unwind, and the position's cached edge is this
// context's to this target. A jump's call takes the stack pointer of the
// frame it jumps from (there must be one). Anything else calls
// vgc_calls_on_call or vgc_calls_on_entry_jump, which cache the edge.
// A call into a PLT stub (`into_plt`) pushes an entry without an edge and
// leaves the thread in skipped code. `may_inline` is False for a jump out
// of ld.so's resolver (which ends the resolver's call first).
static void PushCall(IRSB* sb, Int shadow, VgcCallInfo* at, IRTemp raw, IRExpr* next,
                     const VexGuestLayout* layout, Bool may_inline, VgcFunction* jump_callee,
                     Bool into_plt) {
  IRTemp target = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(target, deepCopyIRExpr(next)));
  IRTemp sp = vgc_guest_sp(sb, layout);
  IRTemp context = Get(sb, shadow + VGC_SHADOW_CONTEXT);
  IRTemp fast = IRTemp_INVALID;
  if (may_inline) {
    IRTemp cs = Get(sb, shadow + VGC_SHADOW_CALLS);
    IRTemp top = Load(sb, At(sb, cs, offsetof(VgcCallStack, top)));
    IRTemp limit = Load(sb, At(sb, cs, offsetof(VgcCallStack, push_limit)));
    IRTemp offset = Load(sb, At(sb, cs, offsetof(VgcCallStack, offset)));
    IRTemp top_sp = EntryWord(sb, top, 0, offsetof(VgcCallEntry, sp));
    IRTemp tests[5];
    Int n = 0;
    // Below the limit, which a thread that does not collect has closed.
    tests[n++] = Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(top), IRExpr_RdTmp(limit));
    tests[n++] = Test(sb, Iop_CmpLE64U, IRExpr_RdTmp(sp), IRExpr_RdTmp(top_sp));
    // A call into a PLT stub has no edge (the call the stub jumps on to is
    // charged here); any other the position's cached edge, this context's.
    IRTemp site = IRTemp_INVALID;
    if (!into_plt) {
      site = Load(sb, HostAddress(&at->cached_site, Ity_I64));
      IRTemp site_caller = Load(sb, At(sb, site, offsetof(VgcCallSite, caller)));
      tests[n++] = Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(site_caller), IRExpr_RdTmp(context));
    }
    // Whose call the cached edge is: a direct call's always this target's
    // (only calls made here cache into this position); an indirect one's is
    // checked; a jump's is the callee's, and needs a frame below (not the
    // sentinel) for its stack pointer.
    if (jump_callee != NULL) {
      IRTemp site_callee = Load(sb, At(sb, site, offsetof(VgcCallSite, callee)));
      tests[n++] = Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(site_callee), Pointer(jump_callee));
      tests[n++] = Test(sb, Iop_CmpNE64, IRExpr_RdTmp(top_sp), U64(~0ULL));
    } else if (!into_plt && next->tag != Iex_Const) {
      IRTemp site_target = Load(sb, HostAddress(&at->site_target, Ity_I64));
      tests[n++] = Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(site_target), IRExpr_RdTmp(target));
    }
    fast = All(sb, tests, n);
    IRTemp entry = Binop(sb, Iop_Add64, IRExpr_RdTmp(top), U64(sizeof(VgcCallEntry)));
    IRTemp enter = Binop(sb, Iop_Sub64, IRExpr_RdTmp(raw), IRExpr_RdTmp(offset));
    const struct {
      Long offset;
      IRExpr* value;
    } fields[] = {
        {offsetof(VgcCallEntry, site), into_plt ? U64(0) : IRExpr_RdTmp(site)},
        {offsetof(VgcCallEntry, enter), IRExpr_RdTmp(enter)},
        {offsetof(VgcCallEntry, sp), IRExpr_RdTmp(jump_callee != NULL ? top_sp : sp)},
        {offsetof(VgcCallEntry, ret_addr), U64(jump_callee != NULL ? 0 : at->ret_addr)},
        {offsetof(VgcCallEntry, saved_from_skipped), U64(0)},
    };
    // The entry above the top is free whether or not this pushes it, and
    // there is always one (vgcount_calls.c's Reserve): written without a
    // test, the top moved only when pushed.
    for (UInt i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
      addStmtToIRSB(
          sb, IRStmt_Store(VGC_HOST_ENDNESS, At(sb, entry, fields[i].offset), fields[i].value));
    }
    StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, top)), IRExpr_RdTmp(entry));
    if (into_plt) {
      // The thread now runs skipped code entered from here: only helpers
      // change its stack until the stub's jump is pushed.
      StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, from_skipped)), Pointer(at));
      const struct {
        Long from, to;
      } closed[] = {
          {offsetof(VgcCallStack, closed_push_limit), offsetof(VgcCallStack, push_limit)},
          {offsetof(VgcCallStack, closed_pop_floor), offsetof(VgcCallStack, pop_floor)},
      };
      for (Int i = 0; i < 2; i++) {
        IRTemp value = Load(sb, At(sb, cs, closed[i].from));
        StoreIf(sb, fast, At(sb, cs, closed[i].to), IRExpr_RdTmp(value));
      }
    } else {
      IRTemp calls = Binop(sb, Iop_Add64, IRExpr_RdTmp(site), U64(offsetof(VgcCallSite, calls)));
      AddIf(sb, fast, calls, U64(1));
    }
  }
  IRExpr* slow = fast != IRTemp_INVALID ? IRExpr_RdTmp(Not(sb, fast)) : NULL;
  if (jump_callee != NULL) {
    CallHelper(sb, shadow, "vgcount_calls_on_entry_jump", &vgc_calls_on_entry_jump,
               Pointer(jump_callee), Pointer(at), layout, slow);
  } else {
    CallHelper(sb, shadow, "vgcount_calls_on_call", &vgc_calls_on_call, Pointer(at),
               IRExpr_RdTmp(target), layout, slow);
  }
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_PUSHED_FOR, IRExpr_RdTmp(target)));
}

// Where a PLT stub's block last jumped, and the function there.
typedef struct {
  HWord target;
  VgcFunction* callee;
} StubTarget;

static VG_REGPARM(2) void NoteStubTarget(StubTarget* stub, HWord target) {
  stub->target = target;
  stub->callee = vgc_calls_function_at(target);
}

// At the end of a PLT stub's block that jumps to `next`: the common case of
// the jump to the function the stub stands for, inline. The thread runs
// skipped code entered by a call into the stub, whose entry, without an
// edge, is the top; that entry becomes the function's call, from the stub's
// caller at the position of its call into the stub (callgrind pushes the
// function's call on the stub's, with its stack pointer, and pops both at
// one return: one entry serves, its edge charged from the function's first
// instruction on), and the skipped code ends. The function's first block
// then finds it pushed (PUSHED_FOR). Anything else is left to that block:
// the stub's first jump (to the lazy binding resolver), another target.
static void StubJump(IRSB* sb, Int shadow, IRTemp raw, IRExpr* next, const VexGuestLayout* layout) {
  StubTarget* stub = VG_(calloc)("vgcount.stub_target", 1, sizeof(StubTarget));
  IRTemp target = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(target, deepCopyIRExpr(next)));
  IRTemp sp = vgc_guest_sp(sb, layout);
  IRTemp context = Get(sb, shadow + VGC_SHADOW_CONTEXT);
  IRTemp pushed = Get(sb, shadow + VGC_SHADOW_PUSHED_FOR);
  IRTemp cs = Get(sb, shadow + VGC_SHADOW_CALLS);
  IRTemp from = Load(sb, At(sb, cs, offsetof(VgcCallStack, from_skipped)));
  IRTemp stubbed = Test(sb, Iop_CmpNE64, IRExpr_RdTmp(from), U64(0));
  IRTemp top = Load(sb, At(sb, cs, offsetof(VgcCallStack, top)));
  IRTemp limit = Load(sb, At(sb, cs, offsetof(VgcCallStack, open_push_limit)));
  IRTemp floor = Load(sb, At(sb, cs, offsetof(VgcCallStack, open_pop_floor)));
  IRTemp offset = Load(sb, At(sb, cs, offsetof(VgcCallStack, offset)));
  IRTemp top_site = EntryWord(sb, top, 0, offsetof(VgcCallEntry, site));
  IRTemp top_saved = EntryWord(sb, top, 0, offsetof(VgcCallEntry, saved_from_skipped));
  IRTemp top_sp = EntryWord(sb, top, 0, offsetof(VgcCallEntry, sp));
  IRTemp known = Load(sb, HostAddress(&stub->target, Ity_I64));
  IRTemp callee = Load(sb, HostAddress(&stub->callee, Ity_I64));
  IRTemp site = LoadIf(sb, stubbed, At(sb, from, offsetof(VgcCallInfo, cached_site)));
  IRTemp site_caller = LoadIf(sb, stubbed, At(sb, site, offsetof(VgcCallSite, caller)));
  IRTemp site_callee = LoadIf(sb, stubbed, At(sb, site, offsetof(VgcCallSite, callee)));
  IRTemp slot = Get(sb, shadow + VGC_SHADOW_SLOT);
  IRTemp same_target = Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(target), IRExpr_RdTmp(known));
  const IRTemp tests[] = {
      stubbed,
      same_target,
      Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(top_site), U64(0)),
      Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(top_saved), U64(0)),
      Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(top), IRExpr_RdTmp(limit)),
      Test(sb, Iop_CmpLE64U, IRExpr_RdTmp(sp), IRExpr_RdTmp(top_sp)),
      Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(slot), U64(VGC_COLLECTING_SLOT)),
      Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(site_caller), IRExpr_RdTmp(context)),
      Test(sb, Iop_CmpEQ64, IRExpr_RdTmp(site_callee), IRExpr_RdTmp(callee)),
  };
  IRTemp fast = All(sb, tests, sizeof(tests) / sizeof(tests[0]));
  IRTemp enter = Binop(sb, Iop_Sub64, IRExpr_RdTmp(raw), IRExpr_RdTmp(offset));
  StoreIf(sb, fast, At(sb, top, offsetof(VgcCallEntry, site)), IRExpr_RdTmp(site));
  StoreIf(sb, fast, At(sb, top, offsetof(VgcCallEntry, enter)), IRExpr_RdTmp(enter));
  StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, from_skipped)), U64(0));
  StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, push_limit)), IRExpr_RdTmp(limit));
  StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, pop_floor)), IRExpr_RdTmp(floor));
  IRTemp calls = LoadIf(sb, fast, At(sb, site, offsetof(VgcCallSite, calls)));
  IRTemp more = Binop(sb, Iop_Add64, IRExpr_RdTmp(calls), U64(1));
  StoreIf(sb, fast, At(sb, site, offsetof(VgcCallSite, calls)), IRExpr_RdTmp(more));
  IRTemp now = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(now, IRExpr_ITE(IRExpr_RdTmp(fast), IRExpr_RdTmp(target),
                                                 IRExpr_RdTmp(pushed))));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_PUSHED_FOR, IRExpr_RdTmp(now)));
  // A target not seen here before: remembered for the next time (the
  // function's first block pushes this one).
  IRDirty* d =
      unsafeIRDirty_0_N(2, "vgcount_note_stub_target", VG_(fnptr_to_fnentry)(&NoteStubTarget),
                        mkIRExprVec_2(Pointer(stub), IRExpr_RdTmp(target)));
  d->guard = IRExpr_RdTmp(And(sb, stubbed, Not(sb, same_target)));
  addStmtToIRSB(sb, IRStmt_Dirty(d));
}

// Appends, when `guard` holds, site->inclusive += collected - enter: an
// edge's inclusive cost when its call returns.
static void AddInclusive(IRSB* sb, IRTemp guard, IRTemp site, IRTemp collected, IRTemp enter) {
  IRTemp inclusive = Binop(sb, Iop_Sub64, IRExpr_RdTmp(collected), IRExpr_RdTmp(enter));
  IRTemp total = Binop(sb, Iop_Add64, IRExpr_RdTmp(site), U64(offsetof(VgcCallSite, inclusive)));
  AddIf(sb, guard, total, IRExpr_RdTmp(inclusive));
}

// At the end of a block that returns to `next`: the common return of a
// collecting thread, inline: it leaves the top frame, and with `two_pops`
// (a block of a function entered by a jump taken for a call) the one below
// too when the top's call was a jump from that one's callee (a tail call),
// but not the frame below those. Anything else in vgc_calls_on_return.
static void PopReturn(IRSB* sb, Int shadow, VgcCallInfo* at, IRTemp raw, IRExpr* next,
                      const VexGuestLayout* layout, Bool two_pops) {
  IRTemp target = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(target, deepCopyIRExpr(next)));
  // Each word is loaded right before its one use where it has one, so that
  // VEX folds the load into the comparison: a block this long otherwise
  // keeps more values than there are registers, and spills them.
  IRTemp sp = vgc_guest_sp(sb, layout);
  IRTemp cs = Get(sb, shadow + VGC_SHADOW_CALLS);
  IRTemp top = Load(sb, At(sb, cs, offsetof(VgcCallStack, top)));
  IRTemp floor = Load(sb, At(sb, cs, offsetof(VgcCallStack, pop_floor)));
  IRTemp site0 = EntryWord(sb, top, 0, offsetof(VgcCallEntry, site));
  // Any pop: above the floor (which a thread that does not collect has
  // closed), the top's frame left, the top has an edge (a call into a PLT
  // stub, which has none, returns from the function the stub jumped to, one
  // more frame up).
  const IRTemp common[] = {
      Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(floor), IRExpr_RdTmp(top)),
      Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(EntryWord(sb, top, 0, offsetof(VgcCallEntry, sp))),
           IRExpr_RdTmp(sp)),
      Test(sb, Iop_CmpNE64, IRExpr_RdTmp(site0), U64(0)),
  };
  IRTemp one = All(sb, common, sizeof(common) / sizeof(common[0]));
  // One pop: the next frame is not left. The thread runs no skipped code
  // after the pops: the last popped entry was not pushed while it did.
  IRTemp left_next =
      Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(EntryWord(sb, top, 1, offsetof(VgcCallEntry, sp))),
           IRExpr_RdTmp(sp));
  const IRTemp for_one[] = {
      one, Not(sb, left_next),
      Test(sb, Iop_CmpEQ64,
           IRExpr_RdTmp(EntryWord(sb, top, 0, offsetof(VgcCallEntry, saved_from_skipped))),
           U64(0))};
  IRTemp fast = All(sb, for_one, 3);
  IRTemp new_top = Binop(sb, Iop_Sub64, IRExpr_RdTmp(top), U64(sizeof(VgcCallEntry)));
  IRTemp second_adds = IRTemp_INVALID;
  // Two, in the return blocks of functions that were entered by a jump (the
  // others leave that rare case to the helper): the next frame is left too,
  // its entry is above the floor, and the third's frame is not left.
  if (two_pops) {
    const IRTemp for_two[] = {
        one,
        left_next,
        Test(sb, Iop_CmpLT64U, IRExpr_RdTmp(floor), IRExpr_RdTmp(new_top)),
        Test(sb, Iop_CmpLE64U, IRExpr_RdTmp(sp),
             IRExpr_RdTmp(EntryWord(sb, top, 2, offsetof(VgcCallEntry, sp)))),
        Test(sb, Iop_CmpEQ64,
             IRExpr_RdTmp(EntryWord(sb, top, 1, offsetof(VgcCallEntry, saved_from_skipped))),
             U64(0)),
    };
    IRTemp fast_two = All(sb, for_two, sizeof(for_two) / sizeof(for_two[0]));
    IRTemp either = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(sb, IRStmt_WrTmp(either, IRExpr_Binop(Iop_Or1, IRExpr_RdTmp(fast),
                                                        IRExpr_RdTmp(fast_two))));
    IRTemp two_below = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(two_below, IRExpr_ITE(IRExpr_RdTmp(fast_two),
                                                     At(sb, top, -2 * (Long)sizeof(VgcCallEntry)),
                                                     IRExpr_RdTmp(new_top))));
    fast = either;
    new_top = two_below;
    second_adds = fast_two;
  }
  IRTemp collected = Binop(sb, Iop_Sub64, IRExpr_RdTmp(raw),
                           IRExpr_RdTmp(Load(sb, At(sb, cs, offsetof(VgcCallStack, offset)))));
  AddInclusive(sb, fast, site0, collected, EntryWord(sb, top, 0, offsetof(VgcCallEntry, enter)));
  if (second_adds != IRTemp_INVALID) {
    IRTemp site1 = EntryWord(sb, top, 1, offsetof(VgcCallEntry, site));
    AddInclusive(sb, And(sb, second_adds, Test(sb, Iop_CmpNE64, IRExpr_RdTmp(site1), U64(0))),
                 site1, collected, EntryWord(sb, top, 1, offsetof(VgcCallEntry, enter)));
  }
  StoreIf(sb, fast, At(sb, cs, offsetof(VgcCallStack, top)), IRExpr_RdTmp(new_top));
  CallHelper(sb, shadow, "vgcount_calls_on_return", &vgc_calls_on_return, Pointer(at),
             IRExpr_RdTmp(target), layout, IRExpr_RdTmp(Not(sb, fast)));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_PUSHED_FOR, IRExpr_RdTmp(target)));
}

// The position of `sb`'s last instruction, made the first time it is asked.
static VgcCallInfo* BlockCallInfo(const IRSB* sb, VgcCallInfo** made) {
  if (*made == NULL) {
    Addr last = 0;
    for (Int i = 0; i < sb->stmts_used; i++) {
      const IRStmt* st = sb->stmts[i];
      if (st != NULL && st->tag == Ist_IMark)
        last = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
    }
    *made = vgc_calls_info(last, 0);
  }
  return *made;
}

void vgc_call_stack_at_start(IRSB* sb_out, Int shadow, VgcFunction* own, Addr start,
                             const VexGuestLayout* layout, Bool entry, Bool from_other_object) {
  if (entry) EntryJump(sb_out, shadow, own, start, layout, False);
  if (!entry && from_other_object) EntryJump(sb_out, shadow, own, start, layout, True);
}

void vgc_call_stack_at_exit(IRSB* sb_out, Int shadow, const IRSB* sb_in, const IRStmt* st,
                            Addr last_insn, const VexGuestLayout* layout,
                            VgcCallInfo** block_info) {
  if (st->Ist.Exit.jk != Ijk_Boring) return;
  if (ExitIntoPlt(st->Ist.Exit.dst)) {
    // Callgrind charges the call out of the stub to the block's end.
    CallHelper(sb_out, shadow, "vgcount_calls_on_plt_jump", &vgc_calls_on_plt_jump,
               Pointer(BlockCallInfo(sb_in, block_info)),
               IRExpr_Const(IRConst_U64(st->Ist.Exit.dst->Ico.U64)), layout,
               deepCopyIRExpr(st->Ist.Exit.guard));
  } else if (st->Ist.Exit.dst->tag == Ico_U64 && IsEntry((Addr)st->Ist.Exit.dst->Ico.U64)) {
    // Only when taken: SITE is cleared by the next function start only.
    // Callgrind writes such a call on the line of the exit's instruction.
    IRTemp site = Get(sb_out, shadow + VGC_SHADOW_SITE);
    IRTemp value = newIRTemp(sb_out->tyenv, Ity_I64);
    addStmtToIRSB(sb_out, IRStmt_WrTmp(value, IRExpr_ITE(deepCopyIRExpr(st->Ist.Exit.guard),
                                                         Pointer(vgc_calls_info(last_insn, 0)),
                                                         IRExpr_RdTmp(site))));
    addStmtToIRSB(sb_out, IRStmt_Put(shadow + VGC_SHADOW_SITE, IRExpr_RdTmp(value)));
  }
}

void vgc_call_stack_at_end(IRSB* sb_out, Int shadow, const IRSB* sb_in, IRTemp raw,
                           const VexGuestLayout* layout, VgcFunction* block_function,
                           Bool plt_block, Bool two_pops, Addr last_insn, Addr last_insn_end,
                           VgcCallInfo** block_info) {
  IRExpr* next = sb_in->next;
  const Bool into_plt = next->tag == Iex_Const && ExitIntoPlt(next->Iex.Const.con);
  if (plt_block) {
    if (sb_in->jumpkind == Ijk_Boring) StubJump(sb_out, shadow, raw, next, layout);
  } else if (sb_in->jumpkind == Ijk_Call) {
    PushCall(sb_out, shadow, vgc_calls_info(last_insn, last_insn_end), raw, next, layout, True,
             NULL, into_plt);
  } else if (sb_in->jumpkind == Ijk_Ret) {
    PopReturn(sb_out, shadow, vgc_calls_info(last_insn, 0), raw, next, layout, two_pops);
  } else if (sb_in->jumpkind == Ijk_Boring && into_plt) {
    CallHelper(sb_out, shadow, "vgcount_calls_on_plt_jump", &vgc_calls_on_plt_jump,
               Pointer(BlockCallInfo(sb_in, block_info)), deepCopyIRExpr(next), layout, NULL);
  } else if (sb_in->jumpkind == Ijk_Boring && JumpsToEntry(next)) {
    // A tail call: pushed here, so the function's first block finds it
    // pushed (PUSHED_FOR).
    Bool is_entry = False, is_plt = False;
    VgcFunction* callee = vgc_function_of((Addr)next->Iex.Const.con->Ico.U64, &is_entry, &is_plt);
    if (callee != NULL) callee->jump_entered = True;
    PushCall(sb_out, shadow, BlockCallInfo(sb_in, block_info), raw, next, layout,
             block_function != NULL && !block_function->pop_on_jump, callee, False);
  }
}
