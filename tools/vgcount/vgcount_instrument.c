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

#if defined(VGA_amd64)
#include "libvex_guest_amd64.h"
typedef VexGuestAMD64State VgcGuestState;
#elif defined(VGA_arm64)
#include "libvex_guest_arm64.h"
typedef VexGuestARM64State VgcGuestState;
#else
#error "vgcount: no guest state layout for this platform"
#endif

#if defined(VG_BIGENDIAN)
#define VGC_HOST_ENDNESS Iend_BE
#elif defined(VG_LITTLEENDIAN)
#define VGC_HOST_ENDNESS Iend_LE
#else
#error "vgcount: unknown host endianness"
#endif

// A host address as an IR constant of the host word type.
static IRExpr* HostAddress(const void* address, IRType host_word_type) {
  if (host_word_type == Ity_I64) return IRExpr_Const(IRConst_U64((ULong)(HWord)address));
  tl_assert(host_word_type == Ity_I32);
  return IRExpr_Const(IRConst_U32((UInt)(HWord)address));
}
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

typedef enum {
  kNoContext,               // the block runs in whatever context it finds
  kContext,                 // the block's function becomes the context
  kIfEnteredByCall,         // ... when reached by a call or from another object
  kReturnIntoUnnamed,       // a call from code without a symbol returns here
  kReturnOrIfEnteredByCall  // both of the last two (code in no object)
} ContextKind;

// Whether a block at `addr` is a context block and of which function (see
// the top comment).
static ContextKind ContextOf(Addr addr, VgcFunction** own, Bool* entry) {
  Bool is_entry = False, is_plt = False;
  *own = vgc_function_of(addr, &is_entry, &is_plt);
  const Bool first = !first_block_made;
  first_block_made = True;
  // The process's first block is reached from no block: no call.
  *entry = is_entry && !is_plt && !first;
  if (is_plt) return kNoContext;
  if (is_entry || first) return kContext;
  const HChar* name = NULL;
  const Bool named = VG_(get_fnname)(VG_(current_DiEpoch)(), addr, &name);
  // Code in no object Valgrind knows (trampolines, and an object's .init
  // and .fini, which lie outside the .text that Valgrind takes for the
  // object's code): a jump from an object is callgrind's call. Elsewhere the
  // calls into code without a symbol name the context themselves
  // (CallsIntoUnnamed).
  const Bool outside_objects = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), addr) == NULL;
  if (Noted(return_sites, addr) || ReturnSiteByCode(addr)) {
    if (named) return kContext;
    // The code right after a call may also be a function that is jumped or
    // called into: a program whose .text ends in a call to a function that
    // does not return (glibc 2.41's ld.so jumps to the _fini that follows).
    // Which it is, only the way in says.
    return outside_objects ? kReturnOrIfEnteredByCall : kReturnIntoUnnamed;
  }
  if (named) return kNoContext;
  return outside_objects ? kIfEnteredByCall : kNoContext;
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

// Appends `temp = GET:I64(offset)`.
static IRTemp Get(IRSB* sb, Int offset) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(offset, Ity_I64)));
  return t;
}

// The guest's last write to its stack pointer in the block being
// instrumented (an atom: the input is flat), or NULL before any or after a
// statement that may write it otherwise (a dirty call). vgc_instrument keeps
// it through NoteGuestSPWrite; the code added at a block's end reads the
// stack pointer through GuestSP. VEX's clean-up after instrumentation does not forward a PUT to a
// later GET, so a GET there would load again what the block just stored.
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

// The guest stack pointer at this point of the block: the temporary the
// block last wrote it from, else a GET.
static IRTemp GuestSP(IRSB* sb, const VexGuestLayout* layout) {
  if (block_sp != NULL && block_sp->tag == Iex_RdTmp) return block_sp->Iex.RdTmp.tmp;
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, block_sp != NULL ? deepCopyIRExpr(block_sp)
                                                     : IRExpr_Get(layout->offset_SP, Ity_I64)));
  return t;
}

// Appends `temp = a op b`.
static IRTemp Binop(IRSB* sb, IROp op, IRExpr* a, IRExpr* b) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, a, b)));
  return t;
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

static VgcFunction* UnnamedCallTarget(Addr target);

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

void vgc_instrument_forget_code(Addr entry, const VexGuestExtents* code) {
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

// Declares that dirty call `d` has effect `fx` on the guest (or shadow) state
// words [offset, offset + size), so that VEX keeps the block's writes to
// them before the call (and, for a write, its reads after).
static void DeclareState(IRDirty* d, IREffect fx, Int offset, Int size) {
  tl_assert(d->nFxState < VEX_N_FXSTATE);
  d->fxState[d->nFxState].fx = fx;
  d->fxState[d->nFxState].offset = offset;
  d->fxState[d->nFxState].size = size;
  d->fxState[d->nFxState].nRepeats = 0;
  d->fxState[d->nFxState].repeatLen = 0;
  d->nFxState++;
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
  IRTemp sp = GuestSP(sb, layout);
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
  IRTemp sp = GuestSP(sb, layout);
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

// Where an untaken inline hand-over adds its delta.
static ULong scratch_counter = 0;

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
    addStmtToIRSB(sb, IRStmt_WrTmp(counter, IRExpr_ITE(IRExpr_RdTmp(take), IRExpr_RdTmp(taken),
                                                       HostAddress(&scratch_counter, Ity_I64))));
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

// The line counters' part of a profiled block (vgcount_lines.c): which side
// exits are counted (those with an instruction after them, from the first
// instruction on) and the segment of each instruction. Returns the slot;
// `*counted_exit` (sized sb->stmts_used) says, per statement, the counter
// of an exit there, 0 for none.
static VgcLineSlot* PlanLines(const IRSB* sb, UInt* counted_exit) {
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

static Bool InPlt(Addr addr) { return VG_(DebugInfo_sect_kind)(NULL, addr) == Vg_SectPLT; }

// Whether a jump to `target` enters a PLT stub.
static Bool ExitIntoPlt(const IRConst* target) {
  return target->tag == Ico_U64 && InPlt((Addr)target->Ico.U64);
}

// A block that calls, or jumps into a PLT stub: the stubs' instructions
// that follow go to its skipped counter, or nowhere (line 0) from a block
// without lines.
static void SetSkipTo(IRSB* sb, Int shadow, VgcLineSlot* slot) {
  ULong* to = slot != NULL ? vgc_lines_skipped_counter(slot) : &vgc_lines_orphan_skipped;
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_SKIP_TO, HostAddress(to, Ity_I64)));
}

// A PLT block's exit: *skip_counter = skip_base + amount (the raw counter's
// way, so a side exit leaves exactly the instructions up to it).
static void StoreSkipped(IRSB* sb, IRTemp skip_counter, IRTemp skip_base, ULong amount) {
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
static void CountBlockLines(IRSB* sb, Int shadow, const VexGuestLayout* layout, Addr at,
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

// Call edges (vgcount_calls.c). A host pointer as a 64-bit IR constant.
static IRExpr* Pointer(const void* p) { return IRExpr_Const(IRConst_U64((ULong)(HWord)p)); }

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

// vgc_calls_on_entry_jump for a block at the address its translation is for
// (no redirection): the callee is the function where the guest program
// counter is (the block's own address when it starts, see SwitchKeyHere),
// the jump's position the SITE word. The block then computes no arguments
// for a call it seldom makes; VEX computes a conditional call's arguments
// before its test.
static void EntryJumpHere(void) {
  const ThreadId tid = VG_(get_running_tid)();
  Bool is_entry = False, is_plt = False;
  VgcFunction* callee = vgc_function_of(VG_(get_IP)(tid), &is_entry, &is_plt);
  vgc_calls_on_entry_jump(callee, (VgcCallInfo*)(HWord)vgc_shadow_get(tid, VGC_SHADOW_SITE));
}

// At a block where a function starts: unless a call just pushed it, the
// jump that reached it is taken for a call. Before the block hands over, so
// the context is still the caller.
// With `from_other_object`, for code in no object Valgrind knows: only when
// the jump came from another object (the context's, as HandOverIfCalled
// takes it).
// `here`: the translation is for `addr` itself (not redirected).
static void EntryJump(IRSB* sb, Int shadow, VgcFunction* own, Addr addr,
                      const VexGuestLayout* layout, Bool from_other_object, Bool here) {
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
  if (here && !from_other_object && vgc_option_entry_jump_here) {
    IRDirty* d = StackHelper(shadow, "vgcount_entry_jump_here", &EntryJumpHere, mkIRExprVec_0(),
                             layout, IRExpr_RdTmp(differs));
    DeclareState(d, Ifx_Read, shadow + VGC_SHADOW_SITE, sizeof(ULong));
    DeclareState(d, Ifx_Read, layout->offset_IP, layout->sizeof_IP);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
  } else {
    CallHelper(sb, shadow, "vgcount_calls_on_entry_jump", &vgc_calls_on_entry_jump, Pointer(own),
               IRExpr_RdTmp(Get(sb, shadow + VGC_SHADOW_SITE)), layout, IRExpr_RdTmp(differs));
  }
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_PUSHED_FOR, IRExpr_Const(IRConst_U64(0))));
  addStmtToIRSB(sb, IRStmt_Put(shadow + VGC_SHADOW_SITE, IRExpr_Const(IRConst_U64(0))));
}

// Appends `temp = LOAD:I64(address)`.
static IRTemp Load(IRSB* sb, IRExpr* address) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I64, address)));
  return t;
}

// The address `base + offset`, `base` a temp.
static IRExpr* At(IRSB* sb, IRTemp base, Long offset) {
  return IRExpr_RdTmp(
      Binop(sb, Iop_Add64, IRExpr_RdTmp(base), IRExpr_Const(IRConst_U64((ULong)offset))));
}

// Appends `temp = a op b` for a comparison (an I1).
static IRTemp Test(IRSB* sb, IROp op, IRExpr* a, IRExpr* b) {
  IRTemp t = newIRTemp(sb->tyenv, Ity_I1);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, a, b)));
  return t;
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
                                                   HostAddress(&scratch_counter, Ity_I64))));
  IRTemp before = Load(sb, IRExpr_RdTmp(where));
  IRTemp after = Binop(sb, Iop_Add64, IRExpr_RdTmp(before), amount);
  addStmtToIRSB(sb, IRStmt_Store(VGC_HOST_ENDNESS, IRExpr_RdTmp(where), IRExpr_RdTmp(after)));
}

// Appends `*address = value` when `guard` holds.
static void StoreIf(IRSB* sb, IRTemp guard, IRExpr* address, IRExpr* value) {
  addStmtToIRSB(sb, IRStmt_StoreG(VGC_HOST_ENDNESS, address, value, IRExpr_RdTmp(guard)));
}

static IRExpr* U64(ULong value) { return IRExpr_Const(IRConst_U64(value)); }

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
  IRTemp sp = GuestSP(sb, layout);
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
  IRTemp sp = GuestSP(sb, layout);
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

ULong vgc_returns_made_again = 0;
Bool vgc_option_lines = True, vgc_option_remake_returns = True, vgc_option_entry_jump_here = True;

// Asks the scheduler to discard the running thread's block, which has run
// none of its instructions yet: the guest state words it reads for that,
// from the guest program counter, the block's own address then (a block's
// translation is for the address the exit that left the previous one
// stored).
static void DiscardThisBlock(void) {
  const ThreadId tid = VG_(get_running_tid)();
  const ULong start = VG_(get_IP)(tid), len = 1;
  VG_(set_shadow_regs_area)
  (tid, 0, offsetof(VgcGuestState, guest_CMSTART), sizeof(start), (const UChar*)&start);
  VG_(set_shadow_regs_area)
  (tid, 0, offsetof(VgcGuestState, guest_CMLEN), sizeof(len), (const UChar*)&len);
  vgc_returns_made_again++;
}

// At the start of a block that returns, made while its function `own` had
// never been entered by a jump, so that PopReturn left the return that
// leaves two frames to the helper: once the function is entered by a jump
// (a tail call into a function called before, which is common), the block
// has itself discarded before any of its instructions ran and starts again,
// made anew with both pops inline. It leaves the way a translation of code
// that changed does (an exit to its own start that invalidates it).
static void MakeAgainOnceJumpEntered(IRSB* sb, VgcFunction* own, const VexGuestLayout* layout,
                                     Addr start) {
  IRTemp flag = newIRTemp(sb->tyenv, Ity_I8);
  addStmtToIRSB(
      sb, IRStmt_WrTmp(flag, IRExpr_Load(VGC_HOST_ENDNESS, Ity_I8, Pointer(&own->jump_entered))));
  IRTemp entered = Test(sb, Iop_CmpNE8, IRExpr_RdTmp(flag), IRExpr_Const(IRConst_U8(0)));
  IRDirty* d = unsafeIRDirty_0_N(0, "vgcount_discard_this_block",
                                 VG_(fnptr_to_fnentry)(&DiscardThisBlock), mkIRExprVec_0());
  DeclareState(d, Ifx_Read, layout->offset_IP, layout->sizeof_IP);
  DeclareState(d, Ifx_Write, offsetof(VgcGuestState, guest_CMSTART), sizeof(ULong));
  DeclareState(d, Ifx_Write, offsetof(VgcGuestState, guest_CMLEN), sizeof(ULong));
  d->guard = IRExpr_RdTmp(entered);
  addStmtToIRSB(sb, IRStmt_Dirty(d));
  addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(entered), Ijk_InvalICache, IRConst_U64((ULong)start),
                                layout->offset_IP));
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
  IRTemp sp = GuestSP(sb, layout);
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
  // Profiling: a return here may pop two frames inline (PopReturn), which
  // its function's having been entered by a jump decides.
  Bool two_pops = True;
  const HChar* name = NULL;
  block_sp = NULL;
  VgcLineSlot* lines = NULL;  // profiling: the block's line counters
  UInt* counted_exit = NULL;  // profiling: per statement (PlanLines)
  // Profiling: a PLT stub's instructions go to the line of the block that
  // reached it (callgrind's skipped cost), so it has no line counters of
  // its own but adds to that block's skipped counter, through SKIP_TO.
  Bool plt_block = False;
  IRTemp skip_counter = IRTemp_INVALID, skip_base = IRTemp_INVALID;
  IRTemp line_base = IRTemp_INVALID;  // profiling: the LINE_BASE word, once read
  // Profiling: the block's context (ContextOf), decided where its first
  // instruction starts.
  ContextKind kind = kNoContext;
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
      kind = ContextOf(start, &own, &entry);
    }
    if (has_instructions && !plt_block && kind == kNoContext) {
      IRSB* unrolled = vgc_unroll_loop(sb_in, start);
      if (unrolled != NULL) sb_in = unrolled;
    }
    if (!plt_block && vgc_option_lines) {
      counted_exit = VG_(malloc)("vgcount.counted_exit",
                                 (sb_in->stmts_used > 0 ? sb_in->stmts_used : 1) * sizeof(UInt));
      lines = PlanLines(sb_in, counted_exit);
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
          // The translation is for the block's own address: helpers may
          // find it from the guest program counter (not so for redirected
          // code, whose address the counter does not name).
          const Bool here = closure->nraddr == closure->readdr;
          if (calls && sb_in->jumpkind == Ijk_Ret && !two_pops && here &&
              vgc_option_remake_returns) {
            MakeAgainOnceJumpEntered(sb_out, own, layout, start);
          }
          if (calls && entry) EntryJump(sb_out, shadow, own, start, layout, False, here);
          if (calls && !entry && (kind == kIfEnteredByCall || kind == kReturnOrIfEnteredByCall)) {
            EntryJump(sb_out, shadow, own, start, layout, True, here);
          }
          // Both ways in: a return that matches its entry gives back the
          // caller's context, which is then the block's own object's, so
          // the second keeps it; a call, or a jump from another object,
          // makes the block's function the context.
          IRTemp called = IRTemp_INVALID;
          if (kind == kReturnOrIfEnteredByCall) called = Get(sb_out, shadow + VGC_SHADOW_CALLED);
          IRTemp key = IRTemp_INVALID;  // KEY, when this block set it
          if (kind == kContext) key = HandOver(sb_out, shadow, base, own);
          if (kind == kReturnIntoUnnamed || kind == kReturnOrIfEnteredByCall) {
            HandOverAtUnnamedReturn(sb_out, shadow, base, layout);
          }
          block_unnamed = !VG_(get_fnname)(VG_(current_DiEpoch)(),
                                           (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta), &name);
          if (kind == kIfEnteredByCall || kind == kReturnOrIfEnteredByCall) {
            HandOverIfCalled(sb_out, shadow, base, own, called);
          }
          if (lines != NULL) {
            line_base = Get(sb_out, shadow + VGC_SHADOW_LINE_BASE);
            CountBlockLines(sb_out, shadow, layout, closure->nraddr, lines, line_base, key);
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
      if (skip_counter != IRTemp_INVALID) StoreSkipped(sb_out, skip_counter, skip_base, total);
      stored_total = total;
    }
    if (st->tag == Ist_Exit && profiling && !plt_block && ExitIntoPlt(st->Ist.Exit.dst)) {
      SetSkipTo(sb_out, shadow, lines);
      if (calls && st->Ist.Exit.jk == Ijk_Boring) {
        // Callgrind charges the call out of the stub to the block's end.
        CallHelper(sb_out, shadow, "vgcount_calls_on_plt_jump", &vgc_calls_on_plt_jump,
                   Pointer(BlockCallInfo(sb_in, &block_info)),
                   IRExpr_Const(IRConst_U64(st->Ist.Exit.dst->Ico.U64)), layout,
                   deepCopyIRExpr(st->Ist.Exit.guard));
      }
    } else if (st->tag == Ist_Exit && calls && !plt_block && st->Ist.Exit.jk == Ijk_Boring &&
               st->Ist.Exit.dst->tag == Ico_U64 && IsEntry((Addr)st->Ist.Exit.dst->Ico.U64)) {
      // Only when taken: SITE is cleared by the next function start only.
      // Callgrind writes such a call on the line of the exit's instruction.
      IRTemp site = Get(sb_out, shadow + VGC_SHADOW_SITE);
      IRTemp value = newIRTemp(sb_out->tyenv, Ity_I64);
      addStmtToIRSB(sb_out, IRStmt_WrTmp(value, IRExpr_ITE(deepCopyIRExpr(st->Ist.Exit.guard),
                                                           Pointer(vgc_calls_info(last_insn, 0)),
                                                           IRExpr_RdTmp(site))));
      addStmtToIRSB(sb_out, IRStmt_Put(shadow + VGC_SHADOW_SITE, IRExpr_RdTmp(value)));
    }
    if (st->tag == Ist_Exit && lines != NULL && counted_exit[i] != 0) {
      IRTemp taken = newIRTemp(sb_out->tyenv, Ity_I64);
      addStmtToIRSB(
          sb_out, IRStmt_WrTmp(taken, IRExpr_Unop(Iop_1Uto64, deepCopyIRExpr(st->Ist.Exit.guard))));
      AddToLineCounter(sb_out, line_base, SlotCounter(lines, counted_exit[i]), IRExpr_RdTmp(taken));
    }
    NoteGuestSPWrite(st, sb_in->tyenv, layout);
    // Helpers that read the TSC or the random generator, and CPUID
    // (vgcount_pin.c); every other statement goes through as it is.
    if (st->tag == Ist_Dirty && vgc_pin_statement(sb_out, st)) continue;
    addStmtToIRSB(sb_out, st);
  }
  if (total > stored_total) {
    raw = StoreCounter(sb_out, counter_offset, base, total);
    if (skip_counter != IRTemp_INVALID) StoreSkipped(sb_out, skip_counter, skip_base, total);
  }
  // The counter after the block: helpers read it but never write it.
  if (raw == IRTemp_INVALID) raw = Get(sb_out, counter_offset);
  if (profiling && !plt_block &&
      (sb_in->jumpkind == Ijk_Call ||
       (sb_in->next->tag == Iex_Const && ExitIntoPlt(sb_in->next->Iex.Const.con)))) {
    SetSkipTo(sb_out, shadow, lines);
  }
  if (calls && plt_block && sb_in->jumpkind == Ijk_Boring) {
    StubJump(sb_out, shadow, raw, sb_in->next, layout);
  }
  if (calls && !plt_block) {
    if (sb_in->jumpkind == Ijk_Call) {
      const Bool into_plt =
          sb_in->next->tag == Iex_Const && ExitIntoPlt(sb_in->next->Iex.Const.con);
      PushCall(sb_out, shadow, vgc_calls_info(last_insn, last_insn_end), raw, sb_in->next, layout,
               True, NULL, into_plt);
    } else if (sb_in->jumpkind == Ijk_Ret) {
      PopReturn(sb_out, shadow, vgc_calls_info(last_insn, 0), raw, sb_in->next, layout, two_pops);
    } else if (sb_in->jumpkind == Ijk_Boring && sb_in->next->tag == Iex_Const &&
               ExitIntoPlt(sb_in->next->Iex.Const.con)) {
      CallHelper(sb_out, shadow, "vgcount_calls_on_plt_jump", &vgc_calls_on_plt_jump,
                 Pointer(BlockCallInfo(sb_in, &block_info)), deepCopyIRExpr(sb_in->next), layout,
                 NULL);
    } else if (sb_in->jumpkind == Ijk_Boring && JumpsToEntry(sb_in->next)) {
      // A tail call: pushed here, so the function's first block finds it
      // pushed (PUSHED_FOR).
      Bool is_entry = False, is_plt = False;
      VgcFunction* callee =
          vgc_function_of((Addr)sb_in->next->Iex.Const.con->Ico.U64, &is_entry, &is_plt);
      if (callee != NULL) callee->jump_entered = True;
      PushCall(sb_out, shadow, BlockCallInfo(sb_in, &block_info), raw, sb_in->next, layout,
               block_function != NULL && !block_function->pop_on_jump, callee, False);
    }
  }
  if (profiling && sb_in->jumpkind == Ijk_Call) {
    if (block_unnamed) PushReturn(sb_out, shadow, layout);
    // The raw counter now includes this block (the last StoreCounter), which
    // is the caller's.
    if (sb_in->next->tag != Iex_Const) {
      AddIndirectCall(sb_out, shadow, IRExpr_RdTmp(raw), sb_in->next);
    } else if (sb_in->next->Iex.Const.con->tag == Ico_U64) {
      VgcFunction* target = UnnamedCallTarget((Addr)sb_in->next->Iex.Const.con->Ico.U64);
      if (target != NULL) HandOver(sb_out, shadow, raw, target);
    }
    addStmtToIRSB(sb_out, IRStmt_Put(shadow + VGC_SHADOW_CALLED, IRExpr_Const(IRConst_U64(1))));
    if (last_insn_end != 0) NoteAddress(&return_sites, last_insn_end);
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
