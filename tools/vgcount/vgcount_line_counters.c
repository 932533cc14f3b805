/* vgcount_line_counters.c: the generated code of each translation's line
 * counters (vgcount_lines.c keeps them and turns them into line costs).
 *
 * A profiled block adds one to its slot's execution counter right after its
 * context is decided, and each counted side exit adds whether it was taken;
 * before that, it compares the key it runs under (the thread's KEY word)
 * with its slot's, and calls a helper only when they differ. The slot's
 * words are addressed from the LINE_BASE shadow word by a 32-bit distance.
 * A PLT stub's block has no slot: it adds its instructions to the skipped
 * counter of the block that reached it (SKIP_TO), at each exit, the raw
 * counter's way.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "vgcount_ir.h"

// The line counters' part of a profiled block (vgcount_lines.c): which side
// exits are counted (those with an instruction after them, from the first
// instruction on) and the segment of each instruction. Returns the slot;
// `*counted_exit` (sized sb->stmts_used) says, per statement, the counter
// of an exit there, 0 for none.
VgcLineSlot* vgc_line_counters_plan(const IRSB* sb, UInt* counted_exit) {
  Int first_imark = -1, last_imark = -1;
  UInt instructions = 0;
  for (Int i = 0; i < sb->stmts_used; i++) {
    counted_exit[i] = 0;
    const IRStmt* st = sb->stmts[i];
    if (st == NULL || st->tag != Ist_IMark) continue;
    if (first_imark < 0) first_imark = i;
    last_imark = i;
    instructions++;
  }
  Addr* addrs =
      VG_(malloc)("vgcount.plan.addrs", (instructions > 0 ? instructions : 1) * sizeof(Addr));
  UInt* segment_of =
      VG_(malloc)("vgcount.plan.segments", (instructions > 0 ? instructions : 1) * sizeof(UInt));
  UInt segment = 0, n = 0;
  for (Int i = 0; i < sb->stmts_used; i++) {
    const IRStmt* st = sb->stmts[i];
    if (st == NULL) continue;
    if (st->tag == Ist_IMark) {
      addrs[n] = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
      segment_of[n++] = segment;
    } else if (st->tag == Ist_Exit && i > first_imark && i < last_imark) {
      counted_exit[i] = ++segment;
    }
  }
  VgcLineSlot* slot = vgc_lines_new_slot(addrs, segment_of, instructions, segment + 1,
                                         instructions > 0 ? addrs[instructions - 1] : 0);
  if (slot == NULL) {
    for (Int i = 0; i < sb->stmts_used; i++) counted_exit[i] = 0;
  }
  VG_(free)(addrs);
  VG_(free)(segment_of);
  return slot;
}

// A block that calls, or jumps into a PLT stub: the stubs' instructions
// that follow go to its skipped counter, or nowhere (line 0) from a block
// without lines.
void vgc_line_counters_skip_to(IRSB* sb, Int shadow, VgcLineSlot* slot) {
  ULong* to = slot != NULL ? vgc_lines_skipped_counter(slot) : &vgc_lines_orphan_skipped;
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_SKIP_TO, HostAddress(to, Ity_I64)));
}

// A PLT block's exit: *skip_counter = skip_base + amount (the raw counter's
// way, so a side exit leaves exactly the instructions up to it).
void vgc_line_counters_store_skipped(IRSB* sb, IRTemp skip_counter, IRTemp skip_base,
                                     ULong amount) {
  IRTemp sum = Binop(sb, Iop_Add64, IRExpr_RdTmp(skip_base), IRExpr_Const(IRConst_U64(amount)));
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(skip_counter), IRExpr_RdTmp(sum)));
}

static ULong* SlotCounter(VgcLineSlot* slot, UInt k) {
  return (ULong*)((HChar*)slot + VGC_LINE_SLOT_COUNTS_OFFSET) + k;
}

// The address of `word`, a line slot's, as a block reaches it: from
// `base`, the thread's LINE_BASE word, when the distance fits in 32 bits
// (vgcount.h), else as a constant.
static IRExpr* LineSlotWord(IRSB* sb, IRTemp base, const void* word) {
  const Long distance = (Long)((HWord)word - vgc_lines_base());
  if (distance != (Long)(Int)distance) return HostAddress(word, Ity_I64);
  return IRExpr_RdTmp(
      Binop(sb, Iop_Add64, IRExpr_RdTmp(base), IRExpr_Const(IRConst_U64((ULong)distance))));
}

// Appends `*counter += amount`, `counter` being a line slot's.
static void AddToLineCounter(IRSB* sb, IRTemp base, ULong* counter, IRExpr* amount) {
  IRTemp before = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(before, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64,
                                                     LineSlotWord(sb, base, counter))));
  IRTemp after = Binop(sb, Iop_Add64, IRExpr_RdTmp(before), amount);
  addStmtToIRSB(
      sb, IRStmt_Store(VGC_HOST_ENDNESS, LineSlotWord(sb, base, counter), IRExpr_RdTmp(after)));
}

// A block's line counters met a key other than their slot's: the running
// thread's KEY word (which the calling block declares it reads).
static VG_REGPARM(1) void SwitchKey(VgcLineSlot* slot) {
  vgc_lines_switch_key(slot, vgc_shadow_get(VG_(get_running_tid)(), VGC_SHADOW_KEY));
}

// Line slots by the address their block's translation is for (the
// client's, before any redirection): the first slot made for each address.
// Its block passes nothing to SwitchKeyHere, which finds the slot from the
// guest program counter: a block starts with the counter at its own address
// (the code that left the previous block stored it, and a failed event
// check returns to the scheduler with it), and the call comes before any of
// the block's own instructions. That spares every profiled block the two
// host instructions of an argument on its common path (the key matches). A
// second translation of one address (code made anew, a translation without
// redirection beside one with) passes its slot as before, since the first
// may still run.
typedef struct SlotAt {
  struct SlotAt* chain;
  UWord key;  // the address
  VgcLineSlot* slot;
} SlotAt;

static VgHashTable* slots_at = NULL;

// Whether `slot` is now the one its block finds by `addr`.
static Bool ClaimSlotAt(Addr addr, VgcLineSlot* slot) {
  if (slots_at == NULL) slots_at = VG_(HT_construct)("vgcount.slots_at");
  if (VG_(HT_lookup)(slots_at, (UWord)addr) != NULL) return False;
  SlotAt* node = VG_(malloc)("vgcount.slot_at", sizeof(SlotAt));
  node->key = (UWord)addr;
  node->slot = slot;
  VG_(HT_add_node)(slots_at, node);
  return True;
}

// SwitchKey for a block that claimed its slot's address (ClaimSlotAt).
static void SwitchKeyHere(void) {
  const ThreadId tid = VG_(get_running_tid)();
  const SlotAt* node = VG_(HT_lookup)(slots_at, (UWord)VG_(get_IP)(tid));
  tl_assert(node != NULL);
  vgc_lines_switch_key(node->slot, vgc_shadow_get(tid, VGC_SHADOW_KEY));
}

// After a profiled block's hand-overs: the key its instructions go to
// (the KEY word, or `key` when the block set it) checked against the line
// slot's, then one more execution. SwitchKey runs only when the key
// differs. `at` is the address the block's translation is for.
void vgc_line_counters_count_block(IRSB* sb, Int shadow, const VexGuestLayout* layout, Addr at,
                                   VgcLineSlot* slot, IRTemp base, IRTemp key) {
  if (key == IRTemp_INVALID) key = Get(sb, shadow + VGC_SHADOW_KEY);
  IRExpr* key_address = LineSlotWord(sb, base, (HChar*)slot + VGC_LINE_SLOT_KEY_OFFSET);
  IRTemp cached = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(cached, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, key_address)));
  IRTemp differs = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(differs, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(key),
                                                       IRExpr_RdTmp(cached))));
  IRDirty* d = NULL;
  if (ClaimSlotAt(at, slot)) {
    d = unsafeIRDirty_0_N(0, "vgcount_switch_key_here", VG_(fnptr_to_fnentry)(&SwitchKeyHere),
                          mkIRExprVec_0());
    DeclareState(d, Ifx_Read, layout->offset_IP, layout->sizeof_IP);
  } else {
    d = unsafeIRDirty_0_N(1, "vgcount_switch_key", VG_(fnptr_to_fnentry)(&SwitchKey),
                          mkIRExprVec_1(HostAddress(slot, Ity_I64)));
  }
  d->guard = IRExpr_RdTmp(differs);
  DeclareState(d, Ifx_Read, shadow + VGC_SHADOW_KEY, sizeof(ULong));
  // It writes the slot, which the loads below read.
  d->mFx = Ifx_Modify;
  d->mAddr = HostAddress(slot, Ity_I64);
  d->mSize = VGC_LINE_SLOT_COUNTS_OFFSET + sizeof(ULong);
  addStmtToIRSB(sb, IRStmt_Dirty(d));
  AddToLineCounter(sb, base, SlotCounter(slot, 0), IRExpr_Const(IRConst_U64(1)));
}

void vgc_line_counters_count_exit(IRSB* sb, IRTemp line_base, VgcLineSlot* slot, UInt k,
                                  IRExpr* guard) {
  IRTemp taken = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(taken, IRExpr_Unop(Iop_1Uto64, guard)));
  AddToLineCounter(sb, line_base, SlotCounter(slot, k), IRExpr_RdTmp(taken));
}
