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
 * be counted although they never ran, and a block could span two functions.
 * What chasing would save, a profiled loop of one block gets another way:
 * vgcount_unroll.c repeats it in one translation before it is instrumented.
 *
 * With a profile, each block also gets the code of the profile's mechanisms,
 * each in its own file (vgcount_ir.h lists them): the hand-over of counted
 * instructions to the context (vgcount_context.c), the line counters
 * (vgcount_line_counters.c) and the call stack (vgcount_call_stack.c).
 * vgc_instrument below decides where in the block each goes.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "vgcount_ir.h"

// Appends `counter = base + amount`, the counter being at guest state
// offset `offset`. Flat IR: the sum goes through a temp.
static IRTemp StoreCounter(IRSB* sb, Int offset, IRTemp base, ULong amount) {
  IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base),
                                                   IRExpr_Const(IRConst_U64(amount)))));
  addStmtToIRSB(sb, IRStmt_Put(offset, IRExpr_RdTmp(sum)));
  return sum;
}

ULong vgc_clreq_block_instructions = 0;

ULong vgc_shadow_get(ThreadId tid, Int offset) {
  ULong value = 0;
  VG_(get_shadow_regs_area)(tid, (UChar*)&value, 1, offset, sizeof(value));
  return value;
}

void vgc_shadow_set(ThreadId tid, Int offset, ULong value) {
  VG_(set_shadow_regs_area)(tid, 1, offset, sizeof(value), (const UChar*)&value);
}

ULong vgc_scratch_counter = 0;
Bool vgc_option_lines = True;

// The guest's last write to its stack pointer in the block being
// instrumented (an atom: the input is flat), or NULL before any or after a
// statement that may write it otherwise (a dirty call). vgc_instrument keeps
// it through NoteGuestSPWrite; the code added at a block's end reads the
// stack pointer through vgc_guest_sp. VEX's clean-up after instrumentation does not forward a PUT
// to a later GET, so a GET there would load again what the block just stored.
static IRExpr* block_sp = NULL;

// Keeps block_sp after guest statement `st` of the block being instrumented
// (`tyenv` its types).
static void NoteGuestSPWrite(const IRStmt* st, const IRTypeEnv* tyenv,
                             const VexGuestLayout* layout) {
  if (st->tag == Ist_Put) {
    const Int size = sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Put.data));
    if (st->Ist.Put.offset == layout->offset_SP && size == layout->sizeof_SP) {
      block_sp = st->Ist.Put.data;
    } else if (st->Ist.Put.offset < layout->offset_SP + layout->sizeof_SP &&
               layout->offset_SP < st->Ist.Put.offset + size) {
      block_sp = NULL;
    }
  } else if (st->tag == Ist_Dirty || st->tag == Ist_PutI) {
    block_sp = NULL;
  }
}

IRTemp vgc_guest_sp(IRSB* sb, const VexGuestLayout* layout) {
  if (block_sp != NULL && block_sp->tag == Iex_RdTmp) return block_sp->Iex.RdTmp.tmp;
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, block_sp != NULL ? deepCopyIRExpr(block_sp)
                                                     : IRExpr_Get(layout->offset_SP, Ity_I64)));
  return t;
}

IRSB* vgc_instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                     const VexGuestExtents* extents, const VexArchInfo* arch_info,
                     IRType guest_word_type, IRType host_word_type) {
  (void)extents;
  (void)arch_info;
  (void)guest_word_type;

  // The first shadow state follows the guest state, so its offsets are the
  // guest state's size on.
  const Int shadow = layout->total_sizeB;
  const Int counter_offset = shadow + VGC_SHADOW_RAW;
  // The simulation's helper calls first: only the program's accesses count.
  if (vgc_sim_enabled()) sb_in = vgc_sim_instrument(sb_in, layout);
  const Bool profiling = vgc_profile_enabled();
  Addr last_insn_end = 0;  // where the block's last instruction ends
  Addr last_insn = 0;      // where it starts
  const Bool calls = profiling && vgc_calls_enabled();
  VgcCallInfo* block_info = NULL;      // the block's last instruction's position, once needed
  Bool block_unnamed = False;          // profiling: the block is code without a symbol
  VgcFunction* block_function = NULL;  // profiling: the function of its first instruction
  // Profiling: a return here may pop two frames inline (vgcount_call_stack.c),
  // which its function's having been entered by a jump decides.
  Bool two_pops = True;
  block_sp = NULL;
  VgcLineSlot* lines = NULL;  // profiling: the block's line counters
  UInt* counted_exit = NULL;  // profiling: per statement (vgc_line_counters_plan)
  // Profiling: a PLT stub's instructions go to the line of the block that
  // reached it (callgrind's skipped cost), so it has no line counters of
  // its own but adds to that block's skipped counter, through SKIP_TO.
  Bool plt_block = False;
  IRTemp skip_counter = IRTemp_INVALID, skip_base = IRTemp_INVALID;
  IRTemp line_base = IRTemp_INVALID;  // profiling: the LINE_BASE word, once read
  // Profiling: the block's context (vgc_context_of), decided where its
  // first instruction starts.
  VgcContextKind kind = kVgcNoContext;
  VgcFunction* own = NULL;
  Bool entry = False;
  Addr start = 0;
  Bool has_instructions = False;
  if (profiling) {
    for (Int i = 0; i < sb_in->stmts_used; i++) {
      const IRStmt* st = sb_in->stmts[i];
      if (st != NULL && st->tag == Ist_IMark) {
        start = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
        has_instructions = True;
        break;
      }
    }
    if (has_instructions) {
      plt_block = InPlt(start);
      kind = vgc_context_of(start, &own, &entry);
    }
    if (has_instructions && !plt_block && kind == kVgcNoContext) {
      IRSB* unrolled = vgc_unroll_loop(sb_in, start);
      if (unrolled != NULL) sb_in = unrolled;
    }
    if (!plt_block && vgc_option_lines) {
      counted_exit = VG_(malloc)("vgcount.counted_exit",
                                 (sb_in->stmts_used > 0 ? sb_in->stmts_used : 1) * sizeof(UInt));
      lines = vgc_line_counters_plan(sb_in, counted_exit);
    }
  }
  IRSB* sb_out = deepCopyIRSBExceptStmts(sb_in);
  IRTemp base = IRTemp_INVALID;  // the counter as the block found it
  IRTemp raw = IRTemp_INVALID;   // the counter as the block last stored it
  ULong total = 0;               // IMarks met since the block's start
  ULong stored_total = 0;        // what the last exit on the way stored
  for (Int i = 0; i < sb_in->stmts_used; i++) {
    IRStmt* st = sb_in->stmts[i];
    if (st == NULL || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_IMark) {
      if (base == IRTemp_INVALID) {
        base = newIRTemp(sb_out->tyenv, Ity_I64);
        addStmtToIRSB(sb_out, IRStmt_WrTmp(base, IRExpr_Get(counter_offset, Ity_I64)));
        if (profiling) {
          block_function = own;
          two_pops = own == NULL || own->jump_entered;
          if (calls) {
            vgc_call_stack_at_start(
                sb_out, shadow, own, start, layout, entry,
                kind == kVgcIfEnteredByCall || kind == kVgcReturnOrIfEnteredByCall);
          }
          IRTemp key = vgc_context_at_start(sb_out, shadow, kind, own, base, layout);
          const HChar* name = NULL;
          block_unnamed = !VG_(get_fnname)(VG_(current_DiEpoch)(),
                                           (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta), &name);
          if (lines != NULL) {
            line_base = Get(sb_out, shadow + VGC_SHADOW_LINE_BASE);
            vgc_line_counters_count_block(sb_out, shadow, layout, closure->nraddr, lines, line_base,
                                          key);
          } else if (plt_block) {
            skip_counter = Get(sb_out, shadow + VGC_SHADOW_SKIP_TO);
            skip_base = newIRTemp(sb_out->tyenv, Ity_I64);
            addStmtToIRSB(sb_out, IRStmt_WrTmp(skip_base, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64,
                                                                      IRExpr_RdTmp(skip_counter))));
          }
        }
      }
      total++;
      last_insn = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
      last_insn_end = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.len);
    } else if (st->tag == Ist_Exit && total > stored_total) {
      // An exit before the first IMark (a preamble check) leaves nothing
      // executed, and one right after another stores the same figure: both
      // store nothing.
      raw = StoreCounter(sb_out, counter_offset, base, total);
      if (skip_counter != IRTemp_INVALID) {
        vgc_line_counters_store_skipped(sb_out, skip_counter, skip_base, total);
      }
      stored_total = total;
    }
    if (st->tag == Ist_Exit && profiling && !plt_block && ExitIntoPlt(st->Ist.Exit.dst)) {
      vgc_line_counters_skip_to(sb_out, shadow, lines);
    }
    if (st->tag == Ist_Exit && calls && !plt_block) {
      vgc_call_stack_at_exit(sb_out, shadow, sb_in, st, last_insn, layout, &block_info);
    }
    if (st->tag == Ist_Exit && lines != NULL && counted_exit[i] != 0) {
      vgc_line_counters_count_exit(sb_out, line_base, lines, counted_exit[i],
                                   deepCopyIRExpr(st->Ist.Exit.guard));
    }
    NoteGuestSPWrite(st, sb_in->tyenv, layout);
    // Helpers that read the TSC or the random generator, and CPUID
    // (vgcount_pin.c); every other statement goes through as it is.
    if (st->tag == Ist_Dirty && vgc_pin_statement(sb_out, st)) continue;
    addStmtToIRSB(sb_out, st);
  }
  if (total > stored_total) {
    raw = StoreCounter(sb_out, counter_offset, base, total);
    if (skip_counter != IRTemp_INVALID) {
      vgc_line_counters_store_skipped(sb_out, skip_counter, skip_base, total);
    }
  }
  // The counter after the block: helpers read it but never write it.
  if (raw == IRTemp_INVALID) raw = Get(sb_out, counter_offset);
  if (profiling && !plt_block &&
      (sb_in->jumpkind == Ijk_Call ||
       (sb_in->next->tag == Iex_Const && ExitIntoPlt(sb_in->next->Iex.Const.con)))) {
    vgc_line_counters_skip_to(sb_out, shadow, lines);
  }
  if (calls) {
    vgc_call_stack_at_end(sb_out, shadow, sb_in, raw, layout, block_function, plt_block, two_pops,
                          last_insn, last_insn_end, &block_info);
  }
  if (profiling && sb_in->jumpkind == Ijk_Call) {
    vgc_context_at_call(sb_out, shadow, raw, sb_in->next, layout, block_unnamed, last_insn_end);
  }

  // The client-request handler runs after this block and needs its length to
  // place the region boundary where callgrind places it (vgcount_account.c).
  // Only blocks that end in a client request pay for this store.
  if (sb_in->jumpkind == Ijk_ClientReq) {
    // Requests the core serves itself (a native call) are looked at here.
    vgc_requests_instrument(sb_out);
    addStmtToIRSB(sb_out, IRStmt_Store(VGC_HOST_ENDNESS,
                                       HostAddress(&vgc_clreq_block_instructions, host_word_type),
                                       IRExpr_Const(IRConst_U64(total))));
    if (profiling) {
      // NULL for a block without lines: nothing of it to move.
      addStmtToIRSB(sb_out, IRStmt_Store(VGC_HOST_ENDNESS,
                                         HostAddress(&vgc_clreq_block_lines, host_word_type),
                                         HostAddress(lines, host_word_type)));
    }
  }
  if (counted_exit != NULL) VG_(free)(counted_exit);
  return sb_out;
}
