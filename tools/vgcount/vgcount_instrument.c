/* vgcount_instrument.c: the generated code that counts instructions.
 *
 * Callgrind's Ir for one execution of a superblock is the number of guest
 * instructions (IMarks) from the block's start up to and including the
 * instruction whose exit was taken. We get the same figure without a helper
 * call: the block reads its thread's counter once, where its first
 * instruction starts, and before every exit (each side exit, then the final
 * one) stores that value plus the IMarks met so far. A side exit that is
 * taken therefore leaves exactly the instructions up to it counted.
 *
 * Where the counter lives: in the thread's first shadow guest state, which
 * Valgrind keeps beside the guest registers and which only tools use. The
 * generated code reaches it as GET/PUT at a fixed offset from the guest
 * state pointer the block already holds in a register, so a count costs one
 * load per block and one register add and store per exit. The same counter
 * in a global variable costs an address load at each access, and measured
 * 15% slower on lua5.4 (best of 5 interleaved runs). Being per thread, it
 * needs no care at thread switches; vgcount_account.c reads it between
 * blocks.
 *
 * Chasing (VEX following a branch into its target and folding both into one
 * superblock) is switched off in vgcount_main.c, as callgrind does: with it,
 * VEX may fold a not-taken branch arm into the block, whose IMarks would then
 * be counted although they never ran.
 */
#include "vgcount.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"

#if defined(VG_BIGENDIAN)
#define VGC_HOST_ENDNESS Iend_BE
#elif defined(VG_LITTLEENDIAN)
#define VGC_HOST_ENDNESS Iend_LE
#else
#error "vgcount: unknown host endianness"
#endif

// The counter's place in the first shadow guest state: its first 8 bytes,
// which shadow the event-check fields that no tool uses.
#define VGC_COUNTER_SHADOW_OFFSET 0

ULong vgc_clreq_block_instructions = 0;

ULong vgc_thread_instructions(ThreadId tid) {
  ULong value = 0;
  VG_(get_shadow_regs_area)(tid, (UChar*)&value, 1, VGC_COUNTER_SHADOW_OFFSET, sizeof(value));
  return value;
}

// A host address as an IR constant of the host word type.
static IRExpr* HostAddress(const void* address, IRType host_word_type) {
  if (host_word_type == Ity_I64) return IRExpr_Const(IRConst_U64((ULong)(HWord)address));
  tl_assert(host_word_type == Ity_I32);
  return IRExpr_Const(IRConst_U32((UInt)(HWord)address));
}

// Appends `counter = base + amount`, the counter being at guest state
// offset `offset`. Flat IR: the sum goes through a temp.
static void StoreCounter(IRSB* sb, Int offset, IRTemp base, ULong amount) {
  IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base),
                                                   IRExpr_Const(IRConst_U64(amount)))));
  addStmtToIRSB(sb, IRStmt_Put(offset, IRExpr_RdTmp(sum)));
}

IRSB* vgc_instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                     const VexGuestExtents* extents, const VexArchInfo* arch_info,
                     IRType guest_word_type, IRType host_word_type) {
  (void)closure;
  (void)extents;
  (void)arch_info;
  (void)guest_word_type;

  // The first shadow state follows the guest state, so its offsets are the
  // guest state's size on.
  const Int counter_offset = layout->total_sizeB + VGC_COUNTER_SHADOW_OFFSET;
  IRSB* sb_out = deepCopyIRSBExceptStmts(sb_in);
  IRTemp base = IRTemp_INVALID;  // the counter as the block found it
  ULong total = 0;               // IMarks met since the block's start
  ULong stored_total = 0;        // what the last exit on the way stored
  for (Int i = 0; i < sb_in->stmts_used; i++) {
    IRStmt* st = sb_in->stmts[i];
    if (st == NULL || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_IMark) {
      if (base == IRTemp_INVALID) {
        base = newIRTemp(sb_out->tyenv, Ity_I64);
        addStmtToIRSB(sb_out, IRStmt_WrTmp(base, IRExpr_Get(counter_offset, Ity_I64)));
      }
      total++;
    } else if (st->tag == Ist_Exit && total > stored_total) {
      // An exit before the first IMark (a preamble check) leaves nothing
      // executed, and one right after another stores the same figure: both
      // store nothing.
      StoreCounter(sb_out, counter_offset, base, total);
      stored_total = total;
    }
    addStmtToIRSB(sb_out, st);
  }
  if (total > stored_total) StoreCounter(sb_out, counter_offset, base, total);

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
