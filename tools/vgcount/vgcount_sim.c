/* vgcount_sim.c: simulated branch prediction and caches (--vgcount-sim=yes).
 *
 * What an instruction count cannot see, simulated on one fixed model,
 * whatever the machine, so that the figures repeat like the count. The
 * model (tools/vgcount/README.md, "Simulated events", says the same for
 * users):
 *
 *   Conditional branches: every side exit of guest code whose kind is a
 *   jump, call or return (the conditional jumps; on amd64 also the loop
 *   test of a rep-prefixed string instruction, once per iteration). Taken
 *   means the guest's branch went to its target, not to the next
 *   instruction (VEX may turn a guard round; the exit's target says which).
 *   The predictor is gshare: a table of 2^14 two-bit saturating counters,
 *   all 1 (weakly not taken) at the start; a counter of 2 or 3 predicts
 *   taken. The index of the branch at address A is
 *       (a ^ (a >> 14) ^ (h << 2)) mod 2^14,   a = A >> VGC_SIM_ALIGN_BITS,
 *   h being the global history: the outcomes of the last 12 conditional
 *   branches, the newest in bit 0 (1 taken), all 0 at the start. The
 *   counter moves one step toward the outcome, and the outcome enters h.
 *
 *   Indirect branches: the jumps and calls whose target is computed (a
 *   block that ends in a jump or call to a non-constant address). Returns
 *   are not counted: a return stack predicts them, and the model takes it
 *   as perfect, as cachegrind does. The predictor is a last-target buffer
 *   of 2^10 entries without tags, all 0 at the start: entry
 *       (a ^ (a >> 10)) mod 2^10
 *   predicts the target that branch (or another with the same index) last
 *   went to, and is set to the actual target after.
 *
 *   Caches: I1 and D1 of 32 KiB, 8 ways, 64-byte lines; LL of 8 MiB, 16
 *   ways, 64-byte lines, shared by instructions and data. Each is
 *   set-associative with LRU replacement, the set of line L being L mod
 *   sets, and starts empty. An instruction fetch goes to I1, a data access
 *   to D1; a first-level miss goes to LL. Writes allocate like reads and
 *   nothing is written back (no dirty lines): D1mw and DLmw are writes that
 *   missed. LL does not hold what the first level holds (no inclusion, no
 *   back-invalidation). An access that straddles lines touches each line
 *   (at most VGC_SIM_MAX_LINES) in turn, and counts one access and at most
 *   one miss per level, a miss being that of any of its lines: so cachegrind
 *   counts too.
 *
 * What is an access: every guest instruction executed is one instruction
 * fetch of its length; every load is a data read, every store a data write,
 * of its size; a guarded load or store only when its guard holds; a
 * compare-and-swap is a read and a write of its size (both halves of a
 * double one); a load-linked a read, a store-conditional a write; a helper
 * that touches memory (x87 state, FXSAVE, CPUID does not) reads, writes or
 * both, by its declared effect and size.
 *
 * One model state per process, shared by its threads, as one core runs
 * them one at a time (Valgrind's own schedule): for a single-threaded
 * deterministic program the figures repeat exactly. A forked child goes on
 * from a copy of its parent's state, an exec'd program starts from the
 * initial state, and the figures themselves start from zero in both, like
 * the count (vgcount_account.c).
 *
 * Where the figures go: each executed instruction has a site (one per guest
 * address) that adds its events under the thread's KEY word (vgcount.h):
 * its context function and whether the thread collects. The totals are the
 * collected events; the profile writes them per function and line. A
 * client request's block is simulated under the collect state it ran in,
 * where its instructions go with the state the request sets (a difference
 * of the few events of one block at a region's ends).
 *
 * Instrumentation runs before the counting (vgc_instrument), on the block
 * as VEX gave it, so that the counting code's own loads and stores are
 * never simulated: helper calls are added to the block, each fetch at its
 * instruction (up to three fetches in one call, or a fetch with the data
 * access that follows it), each data access before the statement that makes
 * it, each branch before its exit. An instruction wholly within the line the
 * block fetched last gets no fetch call: only fetches touch I1, so that line
 * is still the most recent of its set, and the fetch would hit and change
 * nothing (the figures are those of a fetch per instruction, exactly).
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

// Instruction addresses' bits that are always 0, left out of the indices.
#if defined(VGA_arm64)
#define VGC_SIM_ALIGN_BITS 2
#else
#define VGC_SIM_ALIGN_BITS 0
#endif

#define VGC_SIM_PHT_BITS 14
#define VGC_SIM_HISTORY_BITS 12
#define VGC_SIM_BTB_BITS 10
#define VGC_SIM_LINE_BITS 6
// The lines one access touches at most: XSAVE's area is the largest a
// helper declares (a few KiB).
#define VGC_SIM_MAX_LINES 64

const HChar* const vgc_sim_event_names[VGC_SIM_EVENTS] = {
    "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim"};
enum { kDr, kDw, kI1mr, kD1mr, kD1mw, kILmr, kDLmr, kDLmw, kBc, kBcm, kBi, kBim };

typedef struct {
  UInt set_mask;  // sets - 1
  UInt ways;
  Addr* lines;  // sets * ways line numbers, each set most recent first
} Cache;

static Bool enabled = False;
static Cache i1, d1, ll;
static UChar pht[1u << VGC_SIM_PHT_BITS];
static UInt history = 0;
static Addr btb[1u << VGC_SIM_BTB_BITS];

// The owner of a site whose events have never been added to.
#define VGC_SIM_NO_OWNER ((HWord)1)

// One guest instruction's events under one KEY (vgcount.h).
typedef struct SimSite {
  struct SimSite* chain;  // VgHashNode's layout: the address is the key
  UWord key;
  HWord owner;  // the KEY `events` are under
  ULong events[VGC_SIM_EVENTS];
  UInt length;            // of the instruction, in bytes
  UInt file, line;        // profiling: its position (vgc_lines_source_of)
  struct SimSite* other;  // the same instruction under other KEYs
  struct SimSite* next;   // every site
} SimSite;

static VgHashTable* sites = NULL;  // the first site of each address
static SimSite* all_sites = NULL;

static void MakeCache(Cache* c, UInt bytes, UInt ways) {
  const UInt sets = bytes / ways >> VGC_SIM_LINE_BITS;
  tl_assert(sets > 0 && (sets & (sets - 1)) == 0);
  c->set_mask = sets - 1;
  c->ways = ways;
  c->lines = VG_(malloc)("vgcount.sim.cache", sets * ways * sizeof(Addr));
  for (UInt i = 0; i < sets * ways; i++) c->lines[i] = ~(Addr)0;  // empty
}

void vgc_sim_enable(void) {
  // The KEY word names a function and a collect state by the address of one
  // of its two counters; Owner() reads both back from it.
  tl_assert(offsetof(VgcFunction, ir) == 16);
  enabled = True;
  MakeCache(&i1, 32 << 10, 8);
  MakeCache(&d1, 32 << 10, 8);
  MakeCache(&ll, 8 << 20, 16);
  for (UInt i = 0; i < sizeof(pht); i++) pht[i] = 1;
  sites = VG_(HT_construct)("vgcount.sim.sites");
}

Bool vgc_sim_enabled(void) { return enabled; }

// Whether line `line` is in `c`, made its most recent line either way.
static inline Bool Touch(Cache* c, Addr line) {
  Addr* set = c->lines + (line & c->set_mask) * c->ways;
  if (set[0] == line) return True;
  UInt i = 1;
  while (i < c->ways && set[i] != line) i++;
  const Bool hit = i < c->ways;
  if (!hit) i = c->ways - 1;  // the least recent goes
  for (; i > 0; i--) set[i] = set[i - 1];
  set[0] = line;
  return hit;
}

// One access of `size` bytes at `addr` to first-level cache `l1`, its
// misses counted in events[miss1] and events[miss_ll]. Most accesses touch
// one line, most of them the most recent of its set: that hit changes
// nothing, and is decided without a call.
static inline void Access(Cache* l1, Addr addr, HWord size, ULong* events, Int miss1,
                          Int miss_ll) {
  const Addr first = addr >> VGC_SIM_LINE_BITS;
  Addr last = (addr + (size > 0 ? size - 1 : 0)) >> VGC_SIM_LINE_BITS;
  if (LIKELY(last == first)) {
    if (LIKELY(l1->lines[(first & l1->set_mask) * l1->ways] == first)) return;
    if (!Touch(l1, first)) {
      events[miss1]++;
      if (!Touch(&ll, first)) events[miss_ll]++;
    }
    return;
  }
  if (last < first || last - first >= VGC_SIM_MAX_LINES) last = first + VGC_SIM_MAX_LINES - 1;
  Bool missed1 = False, missed_ll = False;
  for (Addr line = first;; line++) {
    if (!Touch(l1, line)) {
      missed1 = True;
      if (!Touch(&ll, line)) missed_ll = True;
    }
    if (line == last) break;
  }
  events[miss1] += missed1;
  events[miss_ll] += missed_ll;
}

static HWord Folded(Addr addr) { return (HWord)addr >> VGC_SIM_ALIGN_BITS; }

static SimSite* NewSite(Addr addr, UInt length, HWord owner) {
  SimSite* s = VG_(calloc)("vgcount.sim.site", 1, sizeof(SimSite));
  s->key = (UWord)addr;
  s->owner = owner;
  s->length = length;
  s->next = all_sites;
  all_sites = s;
  return s;
}

// The events of site `s` under `key`: its own when they are that key's
// (nearly always: an instruction runs in one context), else those of the
// same instruction under `key`, which then take the first site's place.
static ULong* EventsSlow(SimSite* s, HWord key) {
  if (s->owner == VGC_SIM_NO_OWNER) {
    s->owner = key;
    return s->events;
  }
  SimSite* o = s->other;
  while (o != NULL && o->owner != key) o = o->other;
  if (o == NULL) {
    o = NewSite((Addr)s->key, s->length, key);
    o->file = s->file;
    o->line = s->line;
    o->other = s->other;
    s->other = o;
  }
  ULong events[VGC_SIM_EVENTS];
  VG_(memcpy)(events, s->events, sizeof(events));
  VG_(memcpy)(s->events, o->events, sizeof(events));
  VG_(memcpy)(o->events, events, sizeof(events));
  o->owner = s->owner;
  s->owner = key;
  return s->events;
}

static inline ULong* Events(SimSite* s, HWord key) {
  return LIKELY(s->owner == key) ? s->events : EventsSlow(s, key);
}

static void Fetch(SimSite* s, ULong* events) {
  Access(&i1, (Addr)s->key, s->length, events, kI1mr, kILmr);
}

// The helpers generated code calls: `key` is the thread's KEY word.
static void Fetch1(SimSite* s, HWord key) { Fetch(s, Events(s, key)); }
static void Fetch2(SimSite* a, SimSite* b, HWord key) {
  Fetch1(a, key);
  Fetch1(b, key);
}
static void Fetch3(SimSite* a, SimSite* b, SimSite* c, HWord key) {
  Fetch1(a, key);
  Fetch1(b, key);
  Fetch1(c, key);
}
static void Read(SimSite* s, HWord key, HWord addr, HWord size) {
  ULong* events = Events(s, key);
  events[kDr]++;
  Access(&d1, (Addr)addr, size, events, kD1mr, kDLmr);
}
static void Write(SimSite* s, HWord key, HWord addr, HWord size) {
  ULong* events = Events(s, key);
  events[kDw]++;
  Access(&d1, (Addr)addr, size, events, kD1mw, kDLmw);
}
static void FetchRead(SimSite* s, HWord key, HWord addr, HWord size) {
  Fetch1(s, key);
  Read(s, key, addr, size);
}
static void FetchWrite(SimSite* s, HWord key, HWord addr, HWord size) {
  Fetch1(s, key);
  Write(s, key, addr, size);
}
static void Conditional(SimSite* s, HWord key, HWord taken) {
  ULong* events = Events(s, key);
  const HWord a = Folded((Addr)s->key);
  const UInt mask = (1u << VGC_SIM_PHT_BITS) - 1;
  UChar* counter = &pht[(a ^ (a >> VGC_SIM_PHT_BITS) ^ ((HWord)history << 2)) & mask];
  const Bool predicted = *counter >= 2;
  events[kBc]++;
  events[kBcm] += predicted != (taken != 0);
  if (taken) {
    if (*counter < 3) (*counter)++;
  } else if (*counter > 0) {
    (*counter)--;
  }
  history = ((history << 1) | (taken != 0)) & ((1u << VGC_SIM_HISTORY_BITS) - 1);
}
static void Indirect(SimSite* s, HWord key, HWord target) {
  ULong* events = Events(s, key);
  const HWord a = Folded((Addr)s->key);
  Addr* entry = &btb[(a ^ (a >> VGC_SIM_BTB_BITS)) & ((1u << VGC_SIM_BTB_BITS) - 1)];
  events[kBi]++;
  events[kBim] += *entry != (Addr)target;
  *entry = (Addr)target;
}

// The site of the instruction at `addr`, made the first time.
static SimSite* SiteAt(Addr addr, UInt length) {
  SimSite* s = VG_(HT_lookup)(sites, (UWord)addr);
  if (s == NULL) {
    s = NewSite(addr, length, VGC_SIM_NO_OWNER);
    if (vgc_profile_enabled()) vgc_lines_source_of(addr, &s->file, &s->line);
    VG_(HT_add_node)(sites, s);
  }
  // The code at an address may have changed (a JIT): the last translation's.
  for (SimSite* o = s; o != NULL; o = o->other) o->length = length;
  return s;
}

void vgc_sim_forget_code(const VexGuestExtents* code) {
  if (sites == NULL) return;
  // The sites keep their events (all_sites), but the code now at their
  // addresses gets sites of its own, on its own lines. A site is an
  // instruction's address, so every byte of the code is looked for.
  for (UInt i = 0; i < code->n_used; i++) {
    for (UInt b = 0; b < code->len[i]; b++) VG_(HT_remove)(sites, (UWord)(code->base[i] + b));
  }
}

// The block being instrumented.
typedef struct {
  IRSB* out;
  IRTemp key;           // the thread's KEY word, read after the first IMark
  SimSite* pending[3];  // fetches not yet added
  Int pending_count;
  SimSite* current;  // the instruction being instrumented
  Addr next_insn;    // where it ends
  Addr fetched_line;  // the I1 line the block's last fetch ended in, if any
} Block;

static IRExpr* HostWord(HWord w) { return mkIRExpr_HWord(w); }
static IRExpr* SiteArg(SimSite* s) { return HostWord((HWord)s); }

static void Call(Block* b, const HChar* name, void* fn, IRExpr** args, IRExpr* guard) {
  IRDirty* d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
  if (guard != NULL) d->guard = guard;
  addStmtToIRSB(b->out, IRStmt_Dirty(d));
}

static void FlushFetches(Block* b) {
  IRExpr* key = IRExpr_RdTmp(b->key);
  if (b->pending_count == 1) {
    Call(b, "vgcount_sim_fetch1", Fetch1, mkIRExprVec_2(SiteArg(b->pending[0]), key), NULL);
  } else if (b->pending_count == 2) {
    Call(b, "vgcount_sim_fetch2", Fetch2,
         mkIRExprVec_3(SiteArg(b->pending[0]), SiteArg(b->pending[1]), key), NULL);
  } else if (b->pending_count == 3) {
    Call(b, "vgcount_sim_fetch3", Fetch3,
         mkIRExprVec_4(SiteArg(b->pending[0]), SiteArg(b->pending[1]), SiteArg(b->pending[2]), key),
         NULL);
  }
  b->pending_count = 0;
}

// A data access of the current instruction; `guard` NULL when it always
// happens.
static void DataAccess(Block* b, Bool write, IRExpr* addr, Int size, IRExpr* guard) {
  if (b->current == NULL || size <= 0) return;
  IRExpr* key = IRExpr_RdTmp(b->key);
  // The instruction's own fetch, not yet added, goes with its first access.
  const Bool with_fetch =
      guard == NULL && b->pending_count > 0 && b->pending[b->pending_count - 1] == b->current;
  if (with_fetch) {
    b->pending_count--;
    FlushFetches(b);
  }
  IRExpr** args =
      mkIRExprVec_4(SiteArg(b->current), key, deepCopyIRExpr(addr), HostWord((HWord)size));
  if (with_fetch) {
    Call(b, write ? "vgcount_sim_fetch_write" : "vgcount_sim_fetch_read",
         write ? (void*)FetchWrite : (void*)FetchRead, args, NULL);
  } else {
    Call(b, write ? "vgcount_sim_write" : "vgcount_sim_read", write ? (void*)Write : (void*)Read,
         args, guard != NULL ? deepCopyIRExpr(guard) : NULL);
  }
}

// Adds the accesses statement `st` makes, before it.
static void Accesses(Block* b, const IRStmt* st, const IRTypeEnv* tyenv) {
  switch (st->tag) {
    case Ist_WrTmp:
      if (st->Ist.WrTmp.data->tag == Iex_Load) {
        const IRExpr* load = st->Ist.WrTmp.data;
        DataAccess(b, False, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty), NULL);
      }
      return;
    case Ist_Store:
      DataAccess(b, True, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
                 NULL);
      return;
    case Ist_StoreG: {
      const IRStoreG* sg = st->Ist.StoreG.details;
      DataAccess(b, True, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard);
      return;
    }
    case Ist_LoadG: {
      const IRLoadG* lg = st->Ist.LoadG.details;
      IRType loaded = Ity_INVALID, widened = Ity_INVALID;
      typeOfIRLoadGOp(lg->cvt, &widened, &loaded);
      DataAccess(b, False, lg->addr, sizeofIRType(loaded), lg->guard);
      return;
    }
    case Ist_CAS: {
      const IRCAS* cas = st->Ist.CAS.details;
      Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
      if (cas->dataHi != NULL) size *= 2;
      DataAccess(b, False, cas->addr, size, NULL);
      DataAccess(b, True, cas->addr, size, NULL);
      return;
    }
    case Ist_LLSC: {
      const IRExpr* data = st->Ist.LLSC.storedata;
      if (data == NULL) {
        DataAccess(b, False, st->Ist.LLSC.addr,
                   sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), NULL);
      } else {
        DataAccess(b, True, st->Ist.LLSC.addr, sizeofIRType(typeOfIRExpr(tyenv, data)), NULL);
      }
      return;
    }
    case Ist_Dirty: {
      const IRDirty* d = st->Ist.Dirty.details;
      if (d->mFx == Ifx_None) return;
      // A guard that is the constant true is none.
      const Bool always = d->guard->tag == Iex_Const && d->guard->Iex.Const.con->Ico.U1;
      IRExpr* guard = always ? NULL : d->guard;
      if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) {
        DataAccess(b, False, d->mAddr, d->mSize, guard);
      }
      if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) {
        DataAccess(b, True, d->mAddr, d->mSize, guard);
      }
      return;
    }
    default:
      return;
  }
}

// A side exit's conditional branch, before the exit.
static void Branch(Block* b, const IRStmt* st) {
  const IRJumpKind jk = st->Ist.Exit.jk;
  if (b->current == NULL || (jk != Ijk_Boring && jk != Ijk_Call && jk != Ijk_Ret)) return;
  const IRConst* dst = st->Ist.Exit.dst;
  const Addr target = dst->tag == Ico_U64 ? (Addr)dst->Ico.U64 : (Addr)dst->Ico.U32;
  // An exit to the next instruction is the branch not taken.
  const Bool inverted = target == b->next_insn;
  IRTemp taken = newIRTemp(b->out->tyenv, Ity_I64);
  addStmtToIRSB(b->out,
                IRStmt_WrTmp(taken, IRExpr_Unop(Iop_1Uto64, deepCopyIRExpr(st->Ist.Exit.guard))));
  if (inverted) {
    IRTemp flipped = newIRTemp(b->out->tyenv, Ity_I64);
    addStmtToIRSB(b->out, IRStmt_WrTmp(flipped, IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(taken),
                                                             IRExpr_Const(IRConst_U64(1)))));
    taken = flipped;
  }
  Call(b, "vgcount_sim_conditional", Conditional,
       mkIRExprVec_3(SiteArg(b->current), IRExpr_RdTmp(b->key), IRExpr_RdTmp(taken)), NULL);
}

IRSB* vgc_sim_instrument(IRSB* sb_in, const VexGuestLayout* layout) {
  Block b;
  b.out = deepCopyIRSBExceptStmts(sb_in);
  b.key = IRTemp_INVALID;
  b.pending_count = 0;
  b.current = NULL;
  b.next_insn = 0;
  b.fetched_line = ~(Addr)0;
  for (Int i = 0; i < sb_in->stmts_used; i++) {
    IRStmt* st = sb_in->stmts[i];
    if (st == NULL || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_IMark) {
      const Addr addr = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
      const UInt length = st->Ist.IMark.len > 0 ? st->Ist.IMark.len : 1;
      addStmtToIRSB(b.out, st);
      if (b.key == IRTemp_INVALID) {
        b.key = newIRTemp(b.out->tyenv, Ity_I64);
        addStmtToIRSB(
            b.out, IRStmt_WrTmp(b.key, IRExpr_Get(layout->total_sizeB + VGC_SHADOW_KEY, Ity_I64)));
      }
      b.current = SiteAt(addr, length);
      // An instruction within the line the block fetched last hits I1 and
      // changes nothing: that line is the most recent of its set, as only
      // fetches touch I1 and the block's run in order. It needs no call.
      const Addr first_line = addr >> VGC_SIM_LINE_BITS;
      const Addr last_line = (addr + length - 1) >> VGC_SIM_LINE_BITS;
      if (first_line != last_line || first_line != b.fetched_line) {
        if (b.pending_count == 3) FlushFetches(&b);
        b.pending[b.pending_count++] = b.current;
        b.fetched_line = last_line;
      }
      b.next_insn = (Addr)st->Ist.IMark.addr + st->Ist.IMark.len;
      continue;
    }
    if (st->tag == Ist_Exit) {
      if (b.current != NULL) FlushFetches(&b);
      Branch(&b, st);
    } else {
      Accesses(&b, st, sb_in->tyenv);
    }
    addStmtToIRSB(b.out, st);
  }
  if (b.current != NULL) {
    FlushFetches(&b);
    if ((sb_in->jumpkind == Ijk_Boring || sb_in->jumpkind == Ijk_Call) &&
        sb_in->next->tag != Iex_Const) {
      Call(&b, "vgcount_sim_indirect", Indirect,
           mkIRExprVec_3(SiteArg(b.current), IRExpr_RdTmp(b.key), deepCopyIRExpr(sb_in->next)),
           NULL);
    }
  }
  return b.out;
}

// Whether events under `owner` were collected: the KEY word is the address
// of a function's ir[0] while its thread collects, ir[1] while not, and
// functions are 16-byte aligned with ir at offset 16 (vgc_sim_enable).
static Bool Collected(HWord owner) {
  return owner == 0 || ((owner - offsetof(VgcFunction, ir)) & 15) == 0;
}
static VgcFunction* OwnerFunction(HWord owner) {
  if (owner == 0) return vgc_profile_start_function();
  return (VgcFunction*)((owner - offsetof(VgcFunction, ir)) & ~(HWord)15);
}

void vgc_sim_zero(void) {
  for (SimSite* s = all_sites; s != NULL; s = s->next) {
    VG_(memset)(s->events, 0, sizeof(s->events));
  }
}

void vgc_sim_totals(ULong totals[VGC_SIM_EVENTS]) {
  for (Int e = 0; e < VGC_SIM_EVENTS; e++) totals[e] = 0;
  for (const SimSite* s = all_sites; s != NULL; s = s->next) {
    if (s->owner == VGC_SIM_NO_OWNER || !Collected(s->owner)) continue;
    for (Int e = 0; e < VGC_SIM_EVENTS; e++) totals[e] += s->events[e];
  }
}

static Int ByFunctionPosition(const void* a, const void* b) {
  const VgcSimLineCost* x = a;
  const VgcSimLineCost* y = b;
  if (x->function->id != y->function->id) return x->function->id < y->function->id ? -1 : 1;
  return vgc_lines_position_order(x->file, x->line, y->file, y->line);
}

VgcSimLineCost* vgc_sim_collect(UInt* count) {
  *count = 0;
  UInt n = 0;
  for (const SimSite* s = all_sites; s != NULL; s = s->next) {
    n += s->owner != VGC_SIM_NO_OWNER && Collected(s->owner);
  }
  if (n == 0) return NULL;
  VgcSimLineCost* out = VG_(malloc)("vgcount.sim.lines", n * sizeof(VgcSimLineCost));
  for (const SimSite* s = all_sites; s != NULL; s = s->next) {
    if (s->owner == VGC_SIM_NO_OWNER || !Collected(s->owner)) continue;
    Bool any = False;
    for (Int e = 0; e < VGC_SIM_EVENTS; e++) any = any || s->events[e] != 0;
    if (!any) continue;
    VgcSimLineCost* c = &out[(*count)++];
    c->function = OwnerFunction(s->owner);
    c->file = s->file;
    c->line = s->line;
    VG_(memcpy)(c->events, s->events, sizeof(c->events));
  }
  VG_(ssort)(out, *count, sizeof(VgcSimLineCost), ByFunctionPosition);
  // One entry per function and line.
  UInt kept = 0;
  for (UInt i = 0; i < *count; i++) {
    if (kept > 0 && ByFunctionPosition(&out[kept - 1], &out[i]) == 0) {
      for (Int e = 0; e < VGC_SIM_EVENTS; e++) out[kept - 1].events[e] += out[i].events[e];
    } else {
      out[kept++] = out[i];
    }
  }
  *count = kept;
  return out;
}
