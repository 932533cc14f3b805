/* vgcount_context.c: the generated code that hands counted instructions
 * over to the function whose context they ran in (profiling only).
 *
 * Profiling (--vgcount-profile-file) charges instructions to functions the
 * way callgrind 3.19 does (callgrind/bbcc.c, setup_bbcc): a function's self
 * cost is what ran while it was callgrind's context, the top of its call
 * stack, which is not always the function whose address ran. The thread's
 * CONTEXT word (vgcount.h) plays that part. Instructions are counted as
 * without profiling and handed over in bulk, raw - seen into the context's
 * counter, only where the context changes; every other block costs what it
 * costs without profiling. Where the context changes:
 *
 *   - a block where a named function starts (a call, or a jump callgrind
 *     takes for a tail call): it becomes the context (HandOver);
 *   - a block where a call returns, the call's next instruction: in a named
 *     function it names its own context (HandOver). Such an address is known
 *     exactly once a block ending in a call to it was translated; a return
 *     site translated before that (the join of an `if` that skipped the
 *     call) is recognised by the call instruction that ends right before it
 *     (ReturnSiteByCode);
 *   - a call into code without a symbol, which has no entries: callgrind
 *     names such a context by the block it was called at. A direct call's
 *     target is known when the calling block is translated, and the calling
 *     block hands over at its end; an indirect call asks IndirectCall, a
 *     helper that looks its target up once. A jump into such code from the
 *     same object (a tail call into a static function of a stripped
 *     program) leaves the context as it was, as callgrind does;
 *   - a return into code without a symbol: callgrind gives back the context
 *     the call was made in, which may be a named function that jumped into
 *     that code. A call made from code without a symbol therefore pushes its
 *     context and the stack pointer the return will leave on the thread's
 *     return stack (a ring of VGC_RETURN_STACK_ENTRIES), and a return site
 *     in such code takes the top entry back when the stack pointer matches,
 *     which a jump to the same address does not make it do
 *     (HandOverAtUnnamedReturn);
 *   - code in no object Valgrind knows (trampolines): a block there takes
 *     the context when it was reached by a call or from an object
 *     (HandOverIfCalled), since callgrind takes a jump between objects for a
 *     call; the thread's CALLED word says a call was the last exit;
 *   - the process's first block;
 *   - never a block in a PLT section: callgrind skips PLT stubs
 *     (--skip-plt=yes, its default) and charges them to the caller, which
 *     is the context still when the stub jumps on to the callee.
 *
 * A block inside a function that was entered by a jump into its middle from
 * another function (glibc's mempcpy ends in memcpy's body) is therefore
 * charged to the jumping function, as callgrind charges it.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "vgcount_ir.h"

// The return address of every call translated so far (keys only).
static VgHashTable* return_sites = NULL;
static Bool first_block_made = False;

static void NoteAddress(VgHashTable** table, Addr addr) {
  if (*table == NULL) *table = VG_(HT_construct)("vgcount.addresses");
  if (VG_(HT_lookup)(*table, (UWord)addr) != NULL) return;
  VgHashNode* node = VG_(malloc)("vgcount.address", sizeof(VgHashNode));
  node->key = (UWord)addr;
  VG_(HT_add_node)(*table, node);
}

static Bool Noted(const VgHashTable* table, Addr addr) {
  return table != NULL && VG_(HT_lookup)(table, (UWord)addr) != NULL;
}

// Drops `addr`'s node from `table`, a table of nodes that nothing else
// points to.
static void Forget(VgHashTable* table, Addr addr) {
  if (table == NULL) return;
  void* node = VG_(HT_remove)(table, (UWord)addr);
  if (node != NULL) VG_(free)(node);
}

// Whether the client's bytes [addr - len, addr) can be read.
static Bool Readable(Addr addr, SizeT len) {
  return addr > len && VG_(am_is_valid_for_client)(addr - len, len, VKI_PROT_READ);
}

// Whether the instruction that ends right before `addr` is a call: the
// return sites that were translated before any call to them.
static Bool ReturnSiteByCode(Addr addr) {
#if defined(VGA_amd64)
  // call rel32 (E8), and call r/m64 (FF /2) in the encodings compilers
  // emit: register, [reg], [reg+disp8], [reg+disp32], [rip+disp32], with or
  // without a SIB byte, with or without a REX prefix (one byte more, which
  // only moves the start).
  if (!Readable(addr, 8)) return False;
  const UChar* end = (const UChar*)addr;
  if (end[-5] == 0xE8) return True;
  for (Int len = 2; len <= 7; len++) {
    const UChar* op = end - len;
    if (op[0] != 0xFF) continue;
    const UChar modrm = op[1];
    if (((modrm >> 3) & 7) != 2) continue;  // /2: call
    const Int mod = modrm >> 6, rm = modrm & 7;
    Int size = 2;                                            // FF, ModRM
    if (mod != 3 && rm == 4) size += 1;                      // SIB
    if (mod == 1) size += 1;                                 // disp8
    if (mod == 2 || (mod == 0 && rm == 5)) size += 4;        // disp32, rip+disp32
    if (mod == 0 && rm == 4 && (op[2] & 7) == 5) size += 4;  // SIB, no base
    if (size == len) return True;
  }
  return False;
#elif defined(VGA_arm64)
  // BL imm26 and BLR Xn: fixed-width, aligned instructions.
  if ((addr & 3) != 0 || !Readable(addr, 4)) return False;
  const UInt insn = *(const UInt*)(addr - 4);
  return (insn & 0xFC000000u) == 0x94000000u || (insn & 0xFFFFFC1Fu) == 0xD63F0000u;
#else
  (void)addr;
  return False;
#endif
}

// Whether a block at `addr` is a context block and of which function (see
// the top comment).
VgcContextKind vgc_context_of(Addr addr, VgcFunction** own, Bool* entry) {
  Bool is_entry = False, is_plt = False;
  *own = vgc_function_of(addr, &is_entry, &is_plt);
  const Bool first = !first_block_made;
  first_block_made = True;
  // The process's first block is reached from no block: no call.
  *entry = is_entry && !is_plt && !first;
  if (is_plt) return kVgcNoContext;
  if (is_entry || first) return kVgcContext;
  const HChar* name = NULL;
  const Bool named = VG_(get_fnname)(VG_(current_DiEpoch)(), addr, &name);
  // Code in no object Valgrind knows (trampolines, and an object's .init
  // and .fini, which lie outside the .text that Valgrind takes for the
  // object's code): a jump from an object is callgrind's call. Elsewhere the
  // calls into code without a symbol name the context themselves
  // (CallsIntoUnnamed).
  const Bool outside_objects = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), addr) == NULL;
  if (Noted(return_sites, addr) || ReturnSiteByCode(addr)) {
    if (named) return kVgcContext;
    // The code right after a call may also be a function that is jumped or
    // called into: a program whose .text ends in a call to a function that
    // does not return (glibc 2.41's ld.so jumps to the _fini that follows).
    // Which it is, only the way in says.
    return outside_objects ? kVgcReturnOrIfEnteredByCall : kVgcReturnIntoUnnamed;
  }
  if (named) return kVgcNoContext;
  return outside_objects ? kVgcIfEnteredByCall : kVgcNoContext;
}

// The function of a call's target when it is code without a symbol in a
// known object (its context starts at the call), else NULL.
static VgcFunction* UnnamedCallTarget(Addr target) {
  Bool is_entry = False, is_plt = False;
  VgcFunction* f = vgc_function_of(target, &is_entry, &is_plt);
  const HChar* name = NULL;
  if (is_plt || VG_(get_fnname)(VG_(current_DiEpoch)(), target, &name)) return NULL;
  return f;
}

// Appends *key += raw - seen; seen = raw: the instructions since the last
// hand-over go to the counter of the present context and collect state.
static void HandOverToContext(IRSB* sb, Int shadow, IRTemp raw) {
  IRTemp seen = Get(sb, shadow + VGC_SHADOW_SEEN);
  IRTemp counter = Get(sb, shadow + VGC_SHADOW_KEY);
  IRTemp delta = Binop(sb, Iop_Sub64, IRExpr_RdTmp(raw), IRExpr_RdTmp(seen));
  IRTemp before = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(
      sb, IRStmt_WrTmp(before, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, IRExpr_RdTmp(counter))));
  IRTemp after = Binop(sb, Iop_Add64, IRExpr_RdTmp(before), IRExpr_RdTmp(delta));
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(counter), IRExpr_RdTmp(after)));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_SEEN, IRExpr_RdTmp(raw)));
}

// Appends KEY = `context` + SLOT, after the block changed the context, and
// returns the temporary that holds it.
static IRTemp SetKey(IRSB* sb, Int shadow, IRExpr* context) {
  IRTemp slot = Get(sb, shadow + VGC_SHADOW_SLOT);
  IRTemp key = Binop(sb, Iop_Add64, context, IRExpr_RdTmp(slot));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_KEY, IRExpr_RdTmp(key)));
  return key;
}

// A context block's hand-over, inline: *key += raw - seen; seen = raw;
// context = `own`; CALLED = 0. `shadow` is the first shadow state's offset.
// Returns the temporary that holds the new KEY: VEX's clean-up after
// instrumentation does not forward a PUT to a later GET of the same word,
// so code after it reads the temporary instead.
// Unconditional: a block where a named function starts or a call returns
// usually changes the context, and a test would cost about what it saves.
static IRTemp HandOver(IRSB* sb, Int shadow, IRTemp raw, VgcFunction* own) {
  HandOverToContext(sb, shadow, raw);
  addStmtToIRSB(
      sb, IRStmt_Put(shadow + VGC_SHADOW_CONTEXT, IRExpr_Const(IRConst_U64((ULong)(HWord)own))));
  IRTemp key = SetKey(sb, shadow, IRExpr_Const(IRConst_U64((ULong)(HWord)own)));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_CONTEXT_OBJECT,
                               IRExpr_Const(IRConst_U64(own->object_id))));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_CALLED, IRExpr_Const(IRConst_U64(0))));
  return key;
}

// Functions of code without a symbol that indirect calls were seen to
// reach, by address; NULL for a target that names its context itself (a
// named function's entry) or never takes one (a PLT stub).
typedef struct CallTarget {
  struct CallTarget* chain;
  UWord key;
  VgcFunction* unnamed;
} CallTarget;

static VgHashTable* indirect_targets = NULL;

// At the end of a block that makes an indirect call to `target`: when the
// target is code without a symbol, its context starts here (callgrind's
// call), after the calling block's own instructions are handed over to the
// caller. Each target is looked up once.
static VG_REGPARM(2) void IndirectCall(ULong raw, HWord target) {
  if (indirect_targets == NULL) indirect_targets = VG_(HT_construct)("vgcount.indirect_targets");
  CallTarget* t = VG_(HT_lookup)(indirect_targets, (UWord)target);
  if (t == NULL) {
    t = VG_(malloc)("vgcount.indirect_target", sizeof(CallTarget));
    t->key = (UWord)target;
    t->unnamed = UnnamedCallTarget((Addr)target);
    VG_(HT_add_node)(indirect_targets, t);
  }
  if (t->unnamed != NULL) vgc_account_switch_context(VG_(get_running_tid)(), raw, t->unnamed);
}

void vgc_context_forget_code(Addr entry, const VexGuestExtents* code) {
  // A return site was noted by the block that ends in its call, which is
  // that block's code's end: the code being gone, so is the call. (When the
  // translation was only evicted, a return site met later is still found by
  // its call instruction, ReturnSiteByCode.)
  for (UInt i = 0; i < code->n_used; i++) {
    Forget(return_sites, (Addr)code->base[i] + code->len[i]);
  }
  // An indirect call's target is where the discarded block started.
  Forget(indirect_targets, entry);
  // Line slots by address (ClaimSlotAt) stay: the slot a block finds from
  // the program counter is its own, in the translation that claimed the
  // address, and every later translation passes its own.
}

// Appends the IndirectCall of a block whose final exit is a call to `next`;
// `raw` is the counter after the block's own instructions.
static void AddIndirectCall(IRSB* sb, Int shadow, IRExpr* raw, IRExpr* next) {
  IRDirty* d = unsafeIRDirty_0_N(2, "vgcount_indirect_call", VG_(fnptr_to_fnentry)(&IndirectCall),
                                 mkIRExprVec_2(raw, next));
  // It reads and writes the shadow words after the raw counter, and KEY.
  DeclareState(d, Ifx_Modify, shadow + VGC_SHADOW_SEEN,
               VGC_SHADOW_CONTEXT_OBJECT + 8 - VGC_SHADOW_SEEN);
  DeclareState(d, Ifx_Modify, shadow + VGC_SHADOW_KEY, sizeof(ULong));
  addStmtToIRSB(sb, IRStmt_Dirty(d));
}

// The address of return-stack entry `depth` (taken modulo the ring's size).
static IRTemp StackEntry(IRSB* sb, Int shadow, IRExpr* depth) {
  IRTemp base = Get(sb, shadow + VGC_SHADOW_STACK);
  IRTemp index =
      Binop(sb, Iop_And64, depth, IRExpr_Const(IRConst_U64(VGC_RETURN_STACK_ENTRIES - 1)));
  IRTemp offset = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(offset, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(index),
                                                      IRExpr_Const(IRConst_U8(5)))));
  return Binop(sb, Iop_Add64, IRExpr_RdTmp(base), IRExpr_RdTmp(offset));
}

// The stack pointer the guest will have when the call that ends this block
// returns: on amd64 the call pushed its return address, which the return
// pops; an arm64 call leaves the stack pointer alone.
static IRTemp StackPointerAfterReturn(IRSB* sb, const VexGuestLayout* layout) {
  IRTemp sp = vgc_guest_sp(sb, layout);
#if defined(VGA_amd64)
  return Binop(sb, Iop_Add64, IRExpr_RdTmp(sp), IRExpr_Const(IRConst_U64(8)));
#else
  return sp;
#endif
}

// At the end of a block of code without a symbol that ends in a call: push
// (context, its object, the stack pointer after the return).
static void PushReturn(IRSB* sb, Int shadow, const VexGuestLayout* layout) {
  IRTemp depth = Get(sb, shadow + VGC_SHADOW_DEPTH);
  IRTemp entry = StackEntry(sb, shadow, IRExpr_RdTmp(depth));
  const Int fields[2] = {VGC_SHADOW_CONTEXT, VGC_SHADOW_CONTEXT_OBJECT};
  for (Int i = 0; i < 2; i++) {
    IRTemp value = Get(sb, shadow + fields[i]);
    IRTemp at = Binop(sb, Iop_Add64, IRExpr_RdTmp(entry), IRExpr_Const(IRConst_U64(8 * i)));
    addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(at), IRExpr_RdTmp(value)));
  }
  IRTemp sp = StackPointerAfterReturn(sb, layout);
  IRTemp at = Binop(sb, Iop_Add64, IRExpr_RdTmp(entry), IRExpr_Const(IRConst_U64(16)));
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(at), IRExpr_RdTmp(sp)));
  IRTemp deeper = Binop(sb, Iop_Add64, IRExpr_RdTmp(depth), IRExpr_Const(IRConst_U64(1)));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_DEPTH, IRExpr_RdTmp(deeper)));
}

// A return site in code without a symbol: hand over to the present context
// (the callee's, whose last instructions these are), then take the top
// entry's context back if this is the return it was pushed for.
static void HandOverAtUnnamedReturn(IRSB* sb, Int shadow, IRTemp raw,
                                    const VexGuestLayout* layout) {
  IRTemp object = Get(sb, shadow + VGC_SHADOW_CONTEXT_OBJECT);
  IRTemp context = Get(sb, shadow + VGC_SHADOW_CONTEXT);
  HandOverToContext(sb, shadow, raw);

  IRTemp depth = Get(sb, shadow + VGC_SHADOW_DEPTH);
  IRTemp top = Binop(sb, Iop_Sub64, IRExpr_RdTmp(depth), IRExpr_Const(IRConst_U64(1)));
  IRTemp entry = StackEntry(sb, shadow, IRExpr_RdTmp(top));
  IRTemp loaded[3];
  for (Int i = 0; i < 3; i++) {
    IRTemp at = Binop(sb, Iop_Add64, IRExpr_RdTmp(entry), IRExpr_Const(IRConst_U64(8 * i)));
    loaded[i] = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(
        sb, IRStmt_WrTmp(loaded[i], IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, IRExpr_RdTmp(at))));
  }
  // A match: the entry's stack pointer is the present one, on a stack that
  // is not empty.
  IRTemp sp = vgc_guest_sp(sb, layout);
  IRTemp differs = Binop(sb, Iop_Xor64, IRExpr_RdTmp(loaded[2]), IRExpr_RdTmp(sp));
  IRTemp is_empty = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(is_empty, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(depth),
                                                        IRExpr_Const(IRConst_U64(0)))));
  IRTemp empty = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(empty, IRExpr_Unop(Iop_1Uto64, IRExpr_RdTmp(is_empty))));
  IRTemp either = Binop(sb, Iop_Or64, IRExpr_RdTmp(differs), IRExpr_RdTmp(empty));
  IRTemp match = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(match, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(either),
                                                     IRExpr_Const(IRConst_U64(0)))));
  const struct {
    Int offset;
    IRTemp if_match;
    IRTemp otherwise;
  } words[] = {
      {VGC_SHADOW_CONTEXT, loaded[0], context},
      {VGC_SHADOW_CONTEXT_OBJECT, loaded[1], object},
      {VGC_SHADOW_DEPTH, top, depth},
  };
  for (Int i = 0; i < 3; i++) {
    IRTemp value = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(
        sb, IRStmt_WrTmp(value, IRExpr_ITE(IRExpr_RdTmp(match), IRExpr_RdTmp(words[i].if_match),
                                           IRExpr_RdTmp(words[i].otherwise))));
    addStmtToIRSB(sb, IRStmt_Put(shadow + words[i].offset, IRExpr_RdTmp(value)));
    if (words[i].offset == VGC_SHADOW_CONTEXT) SetKey(sb, shadow, IRExpr_RdTmp(value));
  }
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_CALLED, IRExpr_Const(IRConst_U64(0))));
}

// A block of code in no object Valgrind knows: it takes the context only
// when CALLED is set or the context is another object's (callgrind takes a
// jump between objects for a call). Inline, into a scratch counter when not
// taken. `called` is the CALLED word as the block found it, read before any
// other hand-over of the block cleared it, or IRTemp_INVALID to read it here.
static void HandOverIfCalled(IRSB* sb, Int shadow, IRTemp raw, VgcFunction* own, IRTemp called) {
  if (called == IRTemp_INVALID) called = Get(sb, shadow + VGC_SHADOW_CALLED);
  IRTemp object = Get(sb, shadow + VGC_SHADOW_CONTEXT_OBJECT);
  IRTemp other_object =
      Binop(sb, Iop_Xor64, IRExpr_RdTmp(object), IRExpr_Const(IRConst_U64(own->object_id)));
  IRTemp either = Binop(sb, Iop_Or64, IRExpr_RdTmp(called), IRExpr_RdTmp(other_object));
  IRTemp take = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(take, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(either),
                                                    IRExpr_Const(IRConst_U64(0)))));
  {
    IRTemp context = Get(sb, shadow + VGC_SHADOW_CONTEXT);
    IRTemp seen = Get(sb, shadow + VGC_SHADOW_SEEN);
    IRTemp delta = Binop(sb, Iop_Sub64, IRExpr_RdTmp(raw), IRExpr_RdTmp(seen));
    IRTemp taken = Get(sb, shadow + VGC_SHADOW_KEY);
    IRTemp counter = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(counter, IRExpr_ITE(IRExpr_RdTmp(take), IRExpr_RdTmp(taken),
                                                   HostAddress(&vgc_scratch_counter, Ity_I64))));
    IRTemp before = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(
        sb, IRStmt_WrTmp(before, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, IRExpr_RdTmp(counter))));
    IRTemp after = Binop(sb, Iop_Add64, IRExpr_RdTmp(before), IRExpr_RdTmp(delta));
    addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(counter), IRExpr_RdTmp(after)));
    const struct {
      Int offset;
      IRExpr* if_taken;
      IRTemp otherwise;
    } words[] = {
        {VGC_SHADOW_SEEN, IRExpr_RdTmp(raw), seen},
        {VGC_SHADOW_CONTEXT, IRExpr_Const(IRConst_U64((ULong)(HWord)own)), context},
        {VGC_SHADOW_CONTEXT_OBJECT, IRExpr_Const(IRConst_U64(own->object_id)), object},
    };
    for (Int i = 0; i < 3; i++) {
      IRTemp value = newIRTemp(sb->tyenv, Ity_I64);
      addStmtToIRSB(sb, IRStmt_WrTmp(value, IRExpr_ITE(IRExpr_RdTmp(take), words[i].if_taken,
                                                       IRExpr_RdTmp(words[i].otherwise))));
      addStmtToIRSB(sb, IRStmt_Put(shadow + words[i].offset, IRExpr_RdTmp(value)));
      if (words[i].offset == VGC_SHADOW_CONTEXT) SetKey(sb, shadow, IRExpr_RdTmp(value));
    }
    addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_CALLED, IRExpr_Const(IRConst_U64(0))));
  }
}

IRTemp vgc_context_at_start(IRSB* sb, Int shadow, VgcContextKind kind, VgcFunction* own, IRTemp raw,
                            const VexGuestLayout* layout) {
  // Both ways in: a return that matches its entry gives back the caller's
  // context, which is then the block's own object's, so the second keeps
  // it; a call, or a jump from another object, makes the block's function
  // the context.
  IRTemp called = IRTemp_INVALID;
  if (kind == kVgcReturnOrIfEnteredByCall) called = Get(sb, shadow + VGC_SHADOW_CALLED);
  IRTemp key = IRTemp_INVALID;
  if (kind == kVgcContext) key = HandOver(sb, shadow, raw, own);
  if (kind == kVgcReturnIntoUnnamed || kind == kVgcReturnOrIfEnteredByCall) {
    HandOverAtUnnamedReturn(sb, shadow, raw, layout);
  }
  if (kind == kVgcIfEnteredByCall || kind == kVgcReturnOrIfEnteredByCall) {
    HandOverIfCalled(sb, shadow, raw, own, called);
  }
  return key;
}

void vgc_context_at_call(IRSB* sb, Int shadow, IRTemp raw, IRExpr* next,
                         const VexGuestLayout* layout, Bool from_unnamed, Addr return_site) {
  if (from_unnamed) PushReturn(sb, shadow, layout);
  // The raw counter now includes this block (its last store), which is the
  // caller's.
  if (next->tag != Iex_Const) {
    AddIndirectCall(sb, shadow, IRExpr_RdTmp(raw), next);
  } else if (next->Iex.Const.con->tag == Ico_U64) {
    VgcFunction* target = UnnamedCallTarget((Addr)next->Iex.Const.con->Ico.U64);
    if (target != NULL) HandOver(sb, shadow, raw, target);
  }
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_CALLED, IRExpr_Const(IRConst_U64(1))));
  if (return_site != 0) NoteAddress(&return_sites, return_site);
}
