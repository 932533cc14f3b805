/* vgcount_unroll.c: a loop's block, several iterations to one translation.
 *
 * Every execution of a profiled block pays for its bookkeeping: the event
 * check, the read of the raw counter, the line check and the execution
 * counter (vgcount_instrument.c). In a loop whose body is one block (the
 * block jumps back to its own start) that is paid per iteration, and on a
 * benchmark's hot loops it was most of what profiling added. VEX unrolls
 * such loops itself, but only small ones (--vex-iropt-unroll-thresh), and
 * changing that would change the blocks callgrind sees at context blocks.
 *
 * So vgcount unrolls them before instrumenting, for blocks that decide
 * nothing about the context (no function starts there, no call returns
 * there): the copies run one after another, the loop's jump back between
 * them left out, and every side exit of every copy kept, so the block still
 * leaves wherever the loop would have left, after the same instructions.
 * The instrumentation then counts the copies' instructions as it counts any
 * block's (each exit stores the instructions up to it, each side exit that
 * leaves instructions after it has a line counter), and the key a block's
 * lines go to cannot change inside a block: the figures are those of the
 * loop run one iteration at a time. Nothing in the copies is optimised
 * across them (VEX's clean-up after instrumentation does not look at guest
 * state), so each copy writes the guest registers the loop writes.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_libcassert.h"

// An unrolled block stays within this many guest instructions, well inside
// the largest block VEX may make itself (--vex-guest-max-insns allows 100;
// Valgrind's default is 50), so its host code fits where any block's does,
// and within this many IR statements.
#define VGC_UNROLL_MAX_INSTRUCTIONS 60
#define VGC_UNROLL_MAX_STATEMENTS 480
#define VGC_UNROLL_MAX_COPIES 8

// Renames the temporaries of `e` (a copy), adding `delta`. False for an
// expression this does not know.
static Bool RenameExpr(IRExpr* e, Int delta) {
  if (e == NULL) return True;
  switch (e->tag) {
    case Iex_RdTmp:
      e->Iex.RdTmp.tmp += delta;
      return True;
    case Iex_Get:
    case Iex_Const:
    case Iex_VECRET:
    case Iex_GSPTR:
      return True;
    case Iex_GetI:
      return RenameExpr(e->Iex.GetI.ix, delta);
    case Iex_Qop:
      return RenameExpr(e->Iex.Qop.details->arg1, delta) &&
             RenameExpr(e->Iex.Qop.details->arg2, delta) &&
             RenameExpr(e->Iex.Qop.details->arg3, delta) &&
             RenameExpr(e->Iex.Qop.details->arg4, delta);
    case Iex_Triop:
      return RenameExpr(e->Iex.Triop.details->arg1, delta) &&
             RenameExpr(e->Iex.Triop.details->arg2, delta) &&
             RenameExpr(e->Iex.Triop.details->arg3, delta);
    case Iex_Binop:
      return RenameExpr(e->Iex.Binop.arg1, delta) && RenameExpr(e->Iex.Binop.arg2, delta);
    case Iex_Unop:
      return RenameExpr(e->Iex.Unop.arg, delta);
    case Iex_Load:
      return RenameExpr(e->Iex.Load.addr, delta);
    case Iex_ITE:
      return RenameExpr(e->Iex.ITE.cond, delta) && RenameExpr(e->Iex.ITE.iftrue, delta) &&
             RenameExpr(e->Iex.ITE.iffalse, delta);
    case Iex_CCall:
      for (Int i = 0; e->Iex.CCall.args[i] != NULL; i++) {
        if (!RenameExpr(e->Iex.CCall.args[i], delta)) return False;
      }
      return True;
    default:
      return False;
  }
}

static void RenameTemp(IRTemp* t, Int delta) {
  if (*t != IRTemp_INVALID) *t += delta;
}

// Renames the temporaries of `st` (a copy), adding `delta`. False for a
// statement this does not know.
static Bool RenameStmt(IRStmt* st, Int delta) {
  switch (st->tag) {
    case Ist_NoOp:
    case Ist_IMark:
    case Ist_MBE:
      return True;
    case Ist_AbiHint:
      return RenameExpr(st->Ist.AbiHint.base, delta) && RenameExpr(st->Ist.AbiHint.nia, delta);
    case Ist_Put:
      return RenameExpr(st->Ist.Put.data, delta);
    case Ist_PutI:
      return RenameExpr(st->Ist.PutI.details->ix, delta) &&
             RenameExpr(st->Ist.PutI.details->data, delta);
    case Ist_WrTmp:
      RenameTemp(&st->Ist.WrTmp.tmp, delta);
      return RenameExpr(st->Ist.WrTmp.data, delta);
    case Ist_Store:
      return RenameExpr(st->Ist.Store.addr, delta) && RenameExpr(st->Ist.Store.data, delta);
    case Ist_StoreG: {
      IRStoreG* sg = st->Ist.StoreG.details;
      return RenameExpr(sg->addr, delta) && RenameExpr(sg->data, delta) &&
             RenameExpr(sg->guard, delta);
    }
    case Ist_LoadG: {
      IRLoadG* lg = st->Ist.LoadG.details;
      RenameTemp(&lg->dst, delta);
      return RenameExpr(lg->addr, delta) && RenameExpr(lg->alt, delta) &&
             RenameExpr(lg->guard, delta);
    }
    case Ist_CAS: {
      IRCAS* cas = st->Ist.CAS.details;
      RenameTemp(&cas->oldHi, delta);
      RenameTemp(&cas->oldLo, delta);
      return RenameExpr(cas->addr, delta) && RenameExpr(cas->expdHi, delta) &&
             RenameExpr(cas->expdLo, delta) && RenameExpr(cas->dataHi, delta) &&
             RenameExpr(cas->dataLo, delta);
    }
    case Ist_LLSC:
      RenameTemp(&st->Ist.LLSC.result, delta);
      return RenameExpr(st->Ist.LLSC.addr, delta) && RenameExpr(st->Ist.LLSC.storedata, delta);
    case Ist_Dirty: {
      IRDirty* d = st->Ist.Dirty.details;
      RenameTemp(&d->tmp, delta);
      for (Int i = 0; d->args[i] != NULL; i++) {
        if (!RenameExpr(d->args[i], delta)) return False;
      }
      return RenameExpr(d->guard, delta) && RenameExpr(d->mAddr, delta);
    }
    case Ist_Exit:
      return RenameExpr(st->Ist.Exit.guard, delta);
    default:
      return False;
  }
}

static Bool enabled = True;
ULong vgc_unrolled_blocks = 0, vgc_unrolled_copies = 0;

void vgc_unroll_set_enabled(Bool on) { enabled = on; }

static Bool IsNoOp(const IRStmt* st) { return st == NULL || st->tag == Ist_NoOp; }

static Bool ConstAt(const IRConst* c, Addr addr) {
  return (c->tag == Ico_U64 && c->Ico.U64 == (ULong)addr) ||
         (c->tag == Ico_U32 && c->Ico.U32 == (UInt)addr);
}

IRSB* vgc_unroll_loop(const IRSB* sb, Addr start) {
  if (!enabled || sb->jumpkind != Ijk_Boring || sb->next->tag != Iex_Const) return NULL;
  // Guest statements from the first instruction on; nothing may come
  // before it (a translation of code on the stack checks its bytes there).
  Int first = -1, last = -1;
  UInt instructions = 0, statements = 0;
  for (Int i = 0; i < sb->stmts_used; i++) {
    const IRStmt* st = sb->stmts[i];
    if (IsNoOp(st)) continue;
    if (first < 0 && st->tag != Ist_IMark) return NULL;
    if (st->tag == Ist_IMark) {
      if (first < 0) first = i;
      instructions++;
    }
    statements++;
    last = i;
  }
  if (first < 0 ||
      (Addr)(sb->stmts[first]->Ist.IMark.addr + sb->stmts[first]->Ist.IMark.delta) != start) {
    return NULL;
  }
  // The loop: the block ends in a jump to its start, or its last statement
  // is a side exit to its start (`back`), the jump at the end leaving the
  // loop.
  Int back = -1;
  if (!ConstAt(sb->next->Iex.Const.con, start)) {
    const IRStmt* st = sb->stmts[last];
    if (st->tag != Ist_Exit || st->Ist.Exit.jk != Ijk_Boring || !ConstAt(st->Ist.Exit.dst, start)) {
      return NULL;
    }
    back = last;
  }
  UInt copies = VGC_UNROLL_MAX_COPIES;
  if (copies > VGC_UNROLL_MAX_INSTRUCTIONS / instructions) {
    copies = VGC_UNROLL_MAX_INSTRUCTIONS / instructions;
  }
  if (copies > VGC_UNROLL_MAX_STATEMENTS / statements) {
    copies = VGC_UNROLL_MAX_STATEMENTS / statements;
  }
  if (copies < 2) return NULL;

  // Copy k's temporaries are the block's, k * temps on: made first, in
  // order, so that the numbering holds.
  IRSB* out = deepCopyIRSBExceptStmts(sb);
  const Int temps = sb->tyenv->types_used;
  for (UInt k = 1; k < copies; k++) {
    for (Int t = 0; t < temps; t++) {
      const IRTemp made = newIRTemp(out->tyenv, sb->tyenv->types[t]);
      tl_assert(made == (IRTemp)(temps * (Int)k + t));
    }
  }
  for (UInt k = 0; k < copies; k++) {
    const Int delta = temps * (Int)k;
    for (Int i = first; i <= last; i++) {
      const IRStmt* st = sb->stmts[i];
      if (IsNoOp(st)) continue;
      IRStmt* copy = deepCopyIRStmt(st);
      if (!RenameStmt(copy, delta)) return NULL;
      if (i == back && k + 1 < copies) {
        // Between copies the loop goes on where it jumped back, and leaves
        // where it did not.
        IRTemp leave = newIRTemp(out->tyenv, Ity_I1);
        addStmtToIRSB(out, IRStmt_WrTmp(leave, IRExpr_Unop(Iop_Not1, copy->Ist.Exit.guard)));
        copy = IRStmt_Exit(IRExpr_RdTmp(leave), Ijk_Boring,
                           deepCopyIRConst(sb->next->Iex.Const.con), copy->Ist.Exit.offsIP);
      }
      addStmtToIRSB(out, copy);
    }
  }
  vgc_unrolled_blocks++;
  vgc_unrolled_copies += copies;
  return out;
}
