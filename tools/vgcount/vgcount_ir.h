/* vgcount_ir.h: what the parts of vgcount's instrumentation share: small
 * builders of flat IR, and the functions through which the block driver
 * (vgcount_instrument.c) adds each mechanism's code to a superblock:
 *
 *   vgcount_instrument.c     the driver, and the counting itself;
 *   vgcount_context.c        the hand-over of counted instructions to the
 *                            function whose context they ran in;
 *   vgcount_line_counters.c  each translation's line counters;
 *   vgcount_call_stack.c     the call stack's common pushes and pops, inline.
 *
 * Only those files include it, after vgcount.h.
 */
#ifndef WORKGATE_TOOLS_VGCOUNT_VGCOUNT_IR_H_
#define WORKGATE_TOOLS_VGCOUNT_VGCOUNT_IR_H_

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"

#if defined(VG_BIGENDIAN)
#define VGC_HOST_ENDNESS Iend_BE
#elif defined(VG_LITTLEENDIAN)
#define VGC_HOST_ENDNESS Iend_LE
#else
#error "vgcount: unknown host endianness"
#endif

// A host address as an IR constant of the host word type.
static inline IRExpr* HostAddress(const void* address, IRType host_word_type) {
  if (host_word_type == Ity_I64) return IRExpr_Const(IRConst_U64((ULong)(HWord)address));
  tl_assert(host_word_type == Ity_I32);
  return IRExpr_Const(IRConst_U32((UInt)(HWord)address));
}

// A host pointer as a 64-bit IR constant.
static inline IRExpr* Pointer(const void* p) { return IRExpr_Const(IRConst_U64((ULong)(HWord)p)); }

static inline IRExpr* U64(ULong value) { return IRExpr_Const(IRConst_U64(value)); }

// Appends `temp = GET:I64(offset)`.
static inline IRTemp Get(IRSB* sb, Int offset) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(offset, Ity_I64)));
  return t;
}

// Appends `temp = a op b`.
static inline IRTemp Binop(IRSB* sb, IROp op, IRExpr* a, IRExpr* b) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, a, b)));
  return t;
}

// Appends `temp = LOAD:I64(address)`.
static inline IRTemp Load(IRSB* sb, IRExpr* address) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, address)));
  return t;
}

// The address `base + offset`, `base` a temp.
static inline IRExpr* At(IRSB* sb, IRTemp base, Long offset) {
  return IRExpr_RdTmp(
      Binop(sb, Iop_Add64, IRExpr_RdTmp(base), IRExpr_Const(IRConst_U64((ULong)offset))));
}

// Appends `temp = a op b` for a comparison (an I1).
static inline IRTemp Test(IRSB* sb, IROp op, IRExpr* a, IRExpr* b) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, a, b)));
  return t;
}

// Declares that dirty call `d` has effect `fx` on the guest (or shadow) state
// words [offset, offset + size), so that VEX keeps the block's writes to
// them before the call (and, for a write, its reads after).
static inline void DeclareState(IRDirty* d, IREffect fx, Int offset, Int size) {
  tl_assert(d->nFxState < VEX_N_FXSTATE);
  d->fxState[d->nFxState].fx = fx;
  d->fxState[d->nFxState].offset = offset;
  d->fxState[d->nFxState].size = size;
  d->fxState[d->nFxState].nRepeats = 0;
  d->fxState[d->nFxState].repeatLen = 0;
  d->nFxState++;
}

static inline Bool InPlt(Addr addr) { return VG_(DebugInfo_sect_kind)(NULL, addr) == Vg_SectPLT; }

// Whether a jump to `target` enters a PLT stub.
static inline Bool ExitIntoPlt(const IRConst* target) {
  return target->tag == Ico_U64 && InPlt((Addr)target->Ico.U64);
}

// Where code that adds to a counter only when a guard holds adds otherwise.
extern ULong vgc_scratch_counter;

// The guest stack pointer at this point of the block being instrumented:
// the temporary the block last wrote it from, else a GET (vgcount_instrument.c).
IRTemp vgc_guest_sp(IRSB* sb, const VexGuestLayout* layout);

/// Context hand-over (vgcount_context.c). What a block does for the
/// context, decided when it is translated.
typedef enum {
  kVgcNoContext,               // the block runs in whatever context it finds
  kVgcContext,                 // the block's function becomes the context
  kVgcIfEnteredByCall,         // ... when reached by a call or from another object
  kVgcReturnIntoUnnamed,       // a call from code without a symbol returns here
  kVgcReturnOrIfEnteredByCall  // both of the last two (code in no object)
} VgcContextKind;
/// The kind of a block at `addr`, `*own` its function, `*entry` whether it
/// is where that function starts (a call or a jump reaches it).
VgcContextKind vgc_context_of(Addr addr, VgcFunction** own, Bool* entry);
/// Appends a block's hand-over of kind `kind` (its first instruction's
/// raw figure `raw`), and returns the temporary that holds the KEY the
/// block set, or IRTemp_INVALID when it may have kept the thread's.
IRTemp vgc_context_at_start(IRSB* sb, Int shadow, VgcContextKind kind, VgcFunction* own, IRTemp raw,
                            const VexGuestLayout* layout);
/// Appends what a block that ends in a call to `next` does for the context
/// (`raw` the counter after the block): from code without a symbol
/// (`from_unnamed`), the return stack's push; into such code, the callee's
/// context. `return_site` is where the call returns.
void vgc_context_at_call(IRSB* sb, Int shadow, IRTemp raw, IRExpr* next,
                         const VexGuestLayout* layout, Bool from_unnamed, Addr return_site);

/// Line counters (vgcount_line_counters.c). Plans those of a profiled
/// block: returns its slot, or NULL for a block without lines, and sets
/// `counted_exit[i]` (sb->stmts_used entries) to the counter of the side
/// exit at statement i, 0 for none.
VgcLineSlot* vgc_line_counters_plan(const IRSB* sb, UInt* counted_exit);
/// Appends the block's check of its key (KEY, or `key` where the block set
/// it) and its execution count; `line_base` the LINE_BASE word, `at` the
/// address the translation is for.
void vgc_line_counters_count_block(IRSB* sb, Int shadow, const VexGuestLayout* layout, Addr at,
                                   VgcLineSlot* slot, IRTemp line_base, IRTemp key);
/// Appends `counts[k] += guard` for the side exit guarded by `guard`.
void vgc_line_counters_count_exit(IRSB* sb, IRTemp line_base, VgcLineSlot* slot, UInt k,
                                  IRExpr* guard);
/// A block that calls, or jumps into a PLT stub: the stubs' instructions
/// that follow go to its slot's skipped counter (line 0 without a slot).
void vgc_line_counters_skip_to(IRSB* sb, Int shadow, VgcLineSlot* slot);
/// A PLT block's exit: *skip_counter = skip_base + amount.
void vgc_line_counters_store_skipped(IRSB* sb, IRTemp skip_counter, IRTemp skip_base, ULong amount);

/// The call stack (vgcount_call_stack.c), for a block `sb_in` of
/// `block_function` (NULL for a PLT stub's) translated into `sb_out`.
/// At its start (before its hand-over): a block where a function starts
/// (`entry`), or code in no object (`from_other_object`), takes a jump that
/// reached it for a call.
void vgc_call_stack_at_start(IRSB* sb_out, Int shadow, VgcFunction* own, Addr start,
                             const VexGuestLayout* layout, Bool entry, Bool from_other_object);
/// At side exit `st` (statement of `sb_in`, whose last instruction so far
/// is at `last_insn`): a jump into a PLT stub, or to where a function starts.
void vgc_call_stack_at_exit(IRSB* sb_out, Int shadow, const IRSB* sb_in, const IRStmt* st,
                            Addr last_insn, const VexGuestLayout* layout, VgcCallInfo** block_info);
/// At the block's end, `raw` the counter after it: a call, a return, a
/// jump into a PLT stub or to where a function starts, or a stub's jump.
/// `two_pops`: a return may leave two frames inline.
void vgc_call_stack_at_end(IRSB* sb_out, Int shadow, const IRSB* sb_in, IRTemp raw,
                           const VexGuestLayout* layout, VgcFunction* block_function,
                           Bool plt_block, Bool two_pops, Addr last_insn, Addr last_insn_end,
                           VgcCallInfo** block_info);

#endif  // WORKGATE_TOOLS_VGCOUNT_VGCOUNT_IR_H_
