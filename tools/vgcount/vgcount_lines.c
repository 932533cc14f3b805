/* vgcount_lines.c: self cost per source line, in the run that counts.
 *
 * Callgrind charges each executed instruction to the line its debug
 * information names (file and line), under the function that is the context
 * when it runs. vgcount gets the same figures without a helper call per
 * block, from two kinds of counters in each translation's slot:
 *
 *   counts[0]  the block's executions: added to right after the block's
 *              context is decided (vgcount_instrument.c), so after any
 *              exit that leaves before the first instruction;
 *   counts[k]  how often the block's k-th counted side exit was taken.
 *
 * A side exit is counted only when an instruction follows it in the block
 * (a conditional branch at a block's end needs none), so most blocks keep
 * only counts[0]. The instructions between counted exit k and exit k+1 (a
 * segment) ran counts[0] - counts[1] - ... - counts[k] times, which is the
 * figure the raw counter adds for them, exit by exit.
 *
 * Whose lines: a slot's counts belong to one key, the address of the counter
 * the block's instructions are handed to (the context's ir[0] while the
 * thread collects, ir[1] while not: the thread's KEY word, vgcount.h). The
 * block compares the key it runs under with its slot's (which it reaches
 * from the LINE_BASE word) and, only when they differ, calls SwitchKey,
 * which turns the counts so far into line costs of the old key and starts
 * the slot afresh. A block almost always runs in one context and one
 * collect state, so that call is rare. A block without any line information
 * keeps no counters at all: callgrind puts such instructions on line 0 of
 * their context's file, which is what is left of the function's self cost
 * once its lines are counted (vgcount_profile.c writes it so).
 *
 * At the end (and on demand) every slot's counts are turned into line
 * costs, and the profile writer (vgcount_profile.c) lists them under each
 * function in callgrind's format, file by file. A function's lines add up
 * to its self cost.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

/// Instructions of one source line in one segment of a block.
typedef struct {
  UInt file;   // index into `files`
  UInt line;   // 0 when the debug information has none
  UInt count;  // instructions
} LineRun;

struct VgcLineSlot {
  ULong key;                 // the counter address the counts belong to; 0: none yet
  struct VgcLineSlot* next;  // every slot, newest first
  UInt segments;             // counted side exits + 1
  LineRun* runs;             // every segment's runs, in order
  UInt* segment_end;         // segment s's runs end at runs[segment_end[s]]
  // `segments` counters (the top comment), then the skipped counter: the
  // instructions of PLT stubs this block called or jumped into, charged to
  // the line of its last instruction (exit_file, exit_line).
  ULong counts[];
};

// Where the skipped counter's instructions go.
typedef struct {
  UInt file, line;
} ExitLine;
_Static_assert(offsetof(VgcLineSlot, key) == VGC_LINE_SLOT_KEY_OFFSET, "the key's offset");
_Static_assert(offsetof(VgcLineSlot, counts) == VGC_LINE_SLOT_COUNTS_OFFSET, "the counts' offset");

static VgcLineSlot* slots = NULL;

// The anchor line slots are addressed from (vgcount.h): a word from the
// arena the slots come from, taken before the first of them.
static ULong* line_base = NULL;

HWord vgc_lines_base(void) {
  if (line_base == NULL) line_base = VG_(calloc)("vgcount.line_base", 1, sizeof(ULong));
  return (HWord)line_base;
}

// A line run's file when the debug information names none: callgrind then
// keeps the context function's own file (with line 0), which is known only
// when the costs are collected.
#define NO_FILE 0xffffffffu

ULong vgc_lines_orphan_skipped = 0;

static ExitLine* ExitOf(VgcLineSlot* slot) { return (ExitLine*)&slot->counts[slot->segments + 1]; }

ULong* vgc_lines_skipped_counter(VgcLineSlot* slot) { return &slot->counts[slot->segments]; }

// Source file names, each with its number (vgcount.h).
static VgcNames* files = NULL;

static UInt InternFile(const HChar* name) {
  if (files == NULL) files = vgc_names_new("vgcount.files");
  return vgc_names_intern(files, name);
}

const HChar* vgc_lines_file_name(UInt file) { return vgc_names_get(files, file); }
UInt vgc_lines_file_count(void) { return files != NULL ? vgc_names_count(files) : 0; }
UInt vgc_lines_unknown_file(void) { return InternFile("???"); }

Bool vgc_option_lines_by_address = False;

// Lines by address (--vgcount-lines-by-address). workgate shows Valgrind a
// detached debug file without its DWARF (its symbols only), so that a run
// does not parse the line tables of every compilation unit of glibc, and
// names the lines of the addresses that got cost after the run, from the
// file itself (src/counter/profile_lines.h). An instruction Valgrind has no
// line for, in an object it knows, is then written as a "file" that names
// the object and how to fall back, and a "line" that is the instruction's
// address in the object (its runtime address less the object's bias):
//
//   "\x01L<object>"  a line of a block: with no line, the function's own
//                    file and line 0 (callgrind's rule);
//   "\x01U<object>"  a call site's, a simulated site's or a skipped PLT
//                    call's: with no line, "???" and line 0;
//   "\x01" "F<hex address>\x01<object>"  a function's own file: the file of
//                    its first block's first instruction, else "???".
//
// The \x01 keeps these apart from any file name debug information holds.
// Addresses at 4 GiB or more in their object keep callgrind's no-line rule.
static Bool AddressInObject(Addr addr, const HChar** object, UInt* offset) {
  if (!vgc_option_lines_by_address) return False;
  DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), addr);
  if (di == NULL) return False;
  const Addr svma = addr - (Addr)VG_(DebugInfo_get_text_bias)(di);
  if (svma >= 0xffffffffUL) return False;
  *object = VG_(DebugInfo_get_filename)(di);
  *offset = (UInt)svma;
  return True;
}

static UInt InternMarker(const HChar* head, const HChar* object) {
  const SizeT size = VG_(strlen)(head) + VG_(strlen)(object) + 1;
  HChar* name = VG_(malloc)("vgcount.file.marker", size);
  VG_(snprintf)(name, size, "%s%s", head, object);
  const UInt file = InternFile(name);
  VG_(free)(name);
  return file;
}

// The file and line callgrind gives the instruction at `addr`: the debug
// information's directory and file joined with '/', or `no_file` and line 0
// (or, by address, a marker above).
static void SourceOf(Addr addr, UInt* file, UInt* line, UInt no_file) {
  const HChar* name = NULL;
  const HChar* dir = NULL;
  UInt number = 0;
  if (!VG_(get_filename_linenum)(VG_(current_DiEpoch)(), addr, &name, &dir, &number)) {
    const HChar* object = NULL;
    UInt offset = 0;
    if (AddressInObject(addr, &object, &offset)) {
      *file = InternMarker(no_file == NO_FILE ? "\x01L" : "\x01U", object);
      *line = offset;
      return;
    }
    *file = no_file;
    *line = 0;
    return;
  }
  // A file is met once per instruction: the last one seen for a (name,
  // dir) pair is kept, checked by content (the debug information's strings
  // may be freed and their memory reused when an object is unmapped).
  static struct {
    const HChar* name;
    const HChar* dir;
    HChar* name_copy;
    HChar* dir_copy;
    UInt file;
  } cache[256];
  if (dir == NULL) dir = "";
  const UInt slot = (UInt)((((UWord)name >> 3) ^ ((UWord)dir >> 5)) & 255);
  if (cache[slot].name == name && cache[slot].dir == dir &&
      VG_(strcmp)(cache[slot].name_copy, name) == 0 &&
      VG_(strcmp)(cache[slot].dir_copy, dir) == 0) {
    *file = cache[slot].file;
    *line = number;
    return;
  }
  if (cache[slot].name_copy != NULL) {
    VG_(free)(cache[slot].name_copy);
    VG_(free)(cache[slot].dir_copy);
  }
  cache[slot].name = name;
  cache[slot].dir = dir;
  cache[slot].name_copy = VG_(strdup)("vgcount.file_cache", name);
  cache[slot].dir_copy = VG_(strdup)("vgcount.file_cache", dir);
  if (dir[0] != '\0') {
    const SizeT size = VG_(strlen)(dir) + 1 + VG_(strlen)(name) + 1;
    HChar* joined = VG_(malloc)("vgcount.file.joined", size);
    VG_(snprintf)(joined, size, "%s/%s", dir, name);
    *file = InternFile(joined);
    VG_(free)(joined);
  } else {
    *file = InternFile(name);
  }
  cache[slot].file = *file;
  *line = number;
}

void vgc_lines_source_of(Addr addr, UInt* file, UInt* line) {
  SourceOf(addr, file, line, vgc_lines_unknown_file());
}

UInt vgc_lines_file_of(Addr addr) {
  UInt file = 0, line = 0;
  SourceOf(addr, &file, &line, vgc_lines_unknown_file());
  if (line != 0 && VG_(strncmp)(vgc_lines_file_name(file), "\x01U", 2) == 0) {
    // By address: the file of this very instruction, named after the run.
    HChar head[32];
    VG_(snprintf)(head, sizeof(head), "\x01" "F%x\x01", line);
    return InternMarker(head, vgc_lines_file_name(file) + 2);
  }
  return file;
}

VgcLineSlot* vgc_lines_new_slot(const Addr* addrs, const UInt* segment_of, UInt instructions,
                                UInt segments, Addr exit_addr) {
  tl_assert(segments >= 1);
  LineRun* runs = VG_(malloc)("vgcount.line_slot.runs",
                              (instructions > 0 ? instructions : 1) * sizeof(LineRun));
  UInt* segment_end = VG_(malloc)("vgcount.line_slot.ends", segments * sizeof(UInt));
  Bool any_line = False;
  UInt used = 0;
  UInt next = 0;  // the first instruction not yet placed
  for (UInt s = 0; s < segments; s++) {
    const UInt run_start = used;
    for (; next < instructions && segment_of[next] == s; next++) {
      UInt file = 0, line = 0;
      SourceOf(addrs[next], &file, &line, NO_FILE);
      any_line = any_line || file != NO_FILE;
      if (used > run_start && runs[used - 1].file == file && runs[used - 1].line == line) {
        runs[used - 1].count++;
      } else {
        runs[used].file = file;
        runs[used].line = line;
        runs[used].count = 1;
        used++;
      }
    }
    segment_end[s] = used;
  }
  tl_assert(next == instructions);
  // Nothing to count where no instruction has a line: such instructions are
  // line 0 of their context's file, what is left of its self cost once its
  // lines are counted (vgcount_profile.c).
  if (!any_line) {
    VG_(free)(runs);
    VG_(free)(segment_end);
    return NULL;
  }
  VgcLineSlot* slot =
      VG_(calloc)("vgcount.line_slot", 1,
                  sizeof(VgcLineSlot) + (segments + 1) * sizeof(ULong) + sizeof(ExitLine));
  slot->segments = segments;
  slot->runs = runs;
  slot->segment_end = segment_end;
  // callgrind looks the jump's line up without falling back to the
  // function's file.
  SourceOf(exit_addr, &ExitOf(slot)->file, &ExitOf(slot)->line, vgc_lines_unknown_file());
  slot->next = slots;
  slots = slot;
  return slot;
}

// Line costs so far: (key, file, line) -> instructions.
typedef struct LineCost {
  struct LineCost* chain;
  UWord hash;
  ULong key;
  UInt file;
  UInt line;
  ULong cost;
} LineCost;

static VgHashTable* line_costs = NULL;

static Word SameLine(const void* a, const void* b) {
  const LineCost* x = a;
  const LineCost* y = b;
  return !(x->key == y->key && x->file == y->file && x->line == y->line);
}

static void AddLineCost(ULong key, UInt file, UInt line, ULong cost) {
  if (line_costs == NULL) line_costs = VG_(HT_construct)("vgcount.line_costs");
  LineCost probe;
  probe.hash = (UWord)(key * 1099511628211ULL) ^ ((UWord)file << 32) ^ line;
  probe.key = key;
  probe.file = file;
  probe.line = line;
  LineCost* found = VG_(HT_gen_lookup)(line_costs, &probe, SameLine);
  if (found == NULL) {
    found = VG_(malloc)("vgcount.line_cost", sizeof(LineCost));
    *found = probe;
    found->cost = 0;
    VG_(HT_add_node)(line_costs, found);
  }
  found->cost += cost;
}

static void ZeroCounts(VgcLineSlot* slot) {
  for (UInt s = 0; s <= slot->segments; s++) slot->counts[s] = 0;
}

// Turns `slot`'s counts into line costs of its key and zeroes them.
static void Spill(VgcLineSlot* slot) {
  const ULong skipped = slot->counts[slot->segments];
  if (skipped > 0) AddLineCost(slot->key, ExitOf(slot)->file, ExitOf(slot)->line, skipped);
  if (slot->counts[0] == 0) {
    slot->counts[slot->segments] = 0;
    return;
  }
  ULong runs = slot->counts[0];
  UInt r = 0;
  for (UInt s = 0; s < slot->segments; s++) {
    if (s > 0) runs -= slot->counts[s];
    for (; r < slot->segment_end[s]; r++) {
      const LineRun* run = &slot->runs[r];
      if (runs > 0) AddLineCost(slot->key, run->file, run->line, runs * run->count);
    }
  }
  ZeroCounts(slot);
}

void vgc_lines_switch_key(VgcLineSlot* slot, ULong key) {
  Spill(slot);
  slot->key = key;
}

VgcLineSlot* vgc_clreq_block_lines = NULL;

void vgc_lines_request_block_to(ULong key) {
  VgcLineSlot* slot = vgc_clreq_block_lines;
  if (slot == NULL || slot->counts[0] == 0) return;
  slot->counts[0]--;
  vgc_lines_switch_key(slot, key);
  slot->counts[0]++;
}

void vgc_lines_zero(ULong request_block_key) {
  for (VgcLineSlot* slot = slots; slot != NULL; slot = slot->next) ZeroCounts(slot);
  vgc_lines_orphan_skipped = 0;
  if (line_costs != NULL) {
    VG_(HT_destruct)(line_costs, VG_(free));
    line_costs = NULL;
  }
  if (request_block_key != 0 && vgc_clreq_block_lines != NULL) {
    vgc_clreq_block_lines->key = request_block_key;
    vgc_clreq_block_lines->counts[0] = 1;
  }
}

Int vgc_lines_position_order(UInt file_a, UInt line_a, UInt file_b, UInt line_b) {
  if (file_a != file_b) {
    const Int order = VG_(strcmp)(vgc_lines_file_name(file_a), vgc_lines_file_name(file_b));
    if (order != 0) return order;
    return file_a < file_b ? -1 : 1;
  }
  if (line_a != line_b) return line_a < line_b ? -1 : 1;
  return 0;
}

static Int ByFunctionFileLine(const void* a, const void* b) {
  const VgcLineCost* x = a;
  const VgcLineCost* y = b;
  if (x->function->id != y->function->id) return x->function->id < y->function->id ? -1 : 1;
  return vgc_lines_position_order(x->file, x->line, y->file, y->line);
}

// Functions by the address of their collected counter.
typedef struct CounterOwner {
  struct CounterOwner* chain;
  UWord key;
  VgcFunction* function;
} CounterOwner;

VgcLineCost* vgc_lines_collect(UInt* count) {
  for (VgcLineSlot* slot = slots; slot != NULL; slot = slot->next) Spill(slot);
  *count = 0;
  if (line_costs == NULL) return NULL;
  VgHashTable* owners = VG_(HT_construct)("vgcount.counter_owners");
  for (VgcFunction* f = vgc_functions(); f != NULL; f = f->next) {
    CounterOwner* o = VG_(malloc)("vgcount.counter_owner", sizeof(CounterOwner));
    o->key = (UWord)&f->ir[0];
    o->function = f;
    VG_(HT_add_node)(owners, o);
  }
  const UInt n = VG_(HT_count_nodes)(line_costs);
  VgcLineCost* out = VG_(malloc)("vgcount.line_cost_list", (n > 0 ? n : 1) * sizeof(VgcLineCost));
  VG_(HT_ResetIter)(line_costs);
  for (LineCost* c = VG_(HT_Next)(line_costs); c != NULL; c = VG_(HT_Next)(line_costs)) {
    const CounterOwner* o = VG_(HT_lookup)(owners, (UWord)c->key);
    if (o == NULL || c->cost == 0) continue;  // not collected
    out[*count].function = o->function;
    out[*count].file = c->file == NO_FILE ? o->function->file : c->file;
    out[*count].line = c->line;
    out[*count].cost = c->cost;
    (*count)++;
  }
  VG_(HT_destruct)(owners, VG_(free));
  VG_(ssort)(out, *count, sizeof(VgcLineCost), ByFunctionFileLine);
  return out;
}
