/* vgcount_instrument.c: the generated code that counts instructions.
 *
 * Callgrind's Ir for one execution of a superblock is the number of guest
 * instructions (IMarks) from the block's start up to and including the
 * instruction whose exit was taken. We get the same figure without a helper
 * call: before every exit (each side exit, then the final one) we add the
 * IMarks met since the previous add to one 64-bit counter. A side exit that
 * is taken therefore leaves exactly the instructions up to it counted; one
 * that falls through leaves the rest to the next add.
 *
 * Chasing (VEX following a branch into its target and folding both into one
 * superblock) is switched off in vgcount_main.c, as callgrind does: with it,
 * VEX may also fold a not-taken branch arm and this tool would still count
 * right, but callgrind cannot run with it and figures must match callgrind's
 * block structure, so we keep to the same settings.
 */
#include "vgcount.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"

#if defined(VG_BIGENDIAN)
#define VGC_HOST_ENDNESS Iend_BE
#elif defined(VG_LITTLEENDIAN)
#define VGC_HOST_ENDNESS Iend_LE
#else
#error "vgcount: unknown host endianness"
#endif

ULong vgc_raw_instructions = 0;
ULong vgc_clreq_block_instructions = 0;

// A host address as an IR constant of the host word type.
static IRExpr* HostAddress(const void* address, IRType host_word_type) {
  if (host_word_type == Ity_I64) return IRExpr_Const(IRConst_U64((ULong)(HWord)address));
  tl_assert(host_word_type == Ity_I32);
  return IRExpr_Const(IRConst_U32((UInt)(HWord)address));
}

// Appends `counter += amount` as a load, an add and a store: three IR
// statements that the back end turns into a couple of host instructions.
static void AddToCounter(IRSB* sb, ULong* counter, ULong amount, IRType host_word_type) {
  IRTemp old_value = newIRTemp(sb->tyenv, Ity_I64);
  IRTemp new_value = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(old_value, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64,
                                                        HostAddress(counter, host_word_type))));
  addStmtToIRSB(sb, IRStmt_WrTmp(new_value, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old_value),
                                                         IRExpr_Const(IRConst_U64(amount)))));
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, HostAddress(counter, host_word_type),
                                 IRExpr_RdTmp(new_value)));
}

IRSB* vgc_instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                     const VexGuestExtents* extents, const VexArchInfo* arch_info,
                     IRType guest_word_type, IRType host_word_type) {
  (void)closure;
  (void)layout;
  (void)extents;
  (void)arch_info;
  (void)guest_word_type;

  IRSB* sb_out = deepCopyIRSBExceptStmts(sb_in);
  ULong pending = 0;  // IMarks met since the last add
  ULong total = 0;    // IMarks met since the block's start
  for (Int i = 0; i < sb_in->stmts_used; i++) {
    IRStmt* st = sb_in->stmts[i];
    if (st == NULL || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_IMark) {
      pending++;
      total++;
    } else if (st->tag == Ist_Exit && pending > 0) {
      // An exit before the first IMark (a preamble check) leaves nothing
      // executed, so it needs no add.
      AddToCounter(sb_out, &vgc_raw_instructions, pending, host_word_type);
      pending = 0;
    }
    addStmtToIRSB(sb_out, st);
  }
  if (pending > 0) AddToCounter(sb_out, &vgc_raw_instructions, pending, host_word_type);

  // The client-request handler runs after this block and needs its length to
  // place the region boundary where callgrind places it (vgcount_account.c).
  // Only blocks that end in a client request pay for this store.
  if (sb_in->jumpkind == Ijk_ClientReq) {
    addStmtToIRSB(sb_out, IRStmt_Store(VGC_HOST_ENDNESS,
                                       HostAddress(&vgc_clreq_block_instructions, host_word_type),
                                       IRExpr_Const(IRConst_U64(total))));
  }
  return sb_out;
}
