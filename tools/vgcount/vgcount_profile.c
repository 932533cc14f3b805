/* vgcount_profile.c: the functions instructions are charged to, and the
 * profile file.
 *
 * A function is named as callgrind 3.19 names it (callgrind/fn.c,
 * get_fn_node): the symbol Valgrind's debug information gives for the
 * address (demangled, as VG_(get_fnname) always does), in the object the
 * address lies in (the debug information's file name, "???" for code in no
 * object). Code without a symbol is named by its offset in its object,
 * "%#016lx" (or "%#08lx" on a 32-bit host) followed by " [PLT]", " [GOT]",
 * " [Data]" or " [BSS]" for those sections. Which function a block's
 * instructions are charged to is decided in vgcount_context.c.
 *
 * Names are taken when a block is translated, while its object is mapped: a
 * function of a library unloaded later still has its name at the end. They
 * are interned per (object, name), so a function costs one entry however
 * many blocks it has, and its two counters are where generated code adds.
 *
 * The profile is written in callgrind's own format (the "Callgrind Format
 * Specification" of Valgrind's documentation): one `ob=` and `fn=` per
 * function with its self cost on one cost line, and the process's total on
 * the `summary:` and `totals:` lines, so callgrind_annotate and workgate's
 * callgrind reader take it as they take callgrind's.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"

static Bool enabled = False;
// Objects by name: kept for the whole run, so a function's object name is one
// shared copy, and its number is the object's id less 1.
static VgcNames* objects = NULL;
static VgHashTable* table = NULL;
// Without profiling, every instruction goes here; with it, a thread's
// instructions before its first context block (none in practice: a
// program's first block is its loader's entry).
static VgcFunction start_function = {NULL, 0, {0, 0}, "???", 0,    "(before the first function)", 0,
                                     NULL, 0, False,  False, False};
static VgcFunction* functions = &start_function;  // newest first
static UInt function_count = 0;

void vgc_profile_enable(void) {
  enabled = True;
  table = VG_(HT_construct)("vgcount.functions");
  start_function.id = ++function_count;
  start_function.file = vgc_lines_unknown_file();
  if (objects == NULL) objects = vgc_names_new("vgcount.objects");
  start_function.object_id = vgc_names_intern(objects, start_function.object) + 1;
}

Bool vgc_profile_enabled(void) { return enabled; }

VgcFunction* vgc_profile_start_function(void) { return &start_function; }

VgcFunction* vgc_functions(void) { return functions; }

void vgc_functions_zero(void) {
  for (VgcFunction* f = functions; f != NULL; f = f->next) f->ir[0] = f->ir[1] = 0;
  // The simulated events are the functions' too.
  if (vgc_sim_enabled()) vgc_sim_zero();
}

static UWord Hash(const HChar* object, const HChar* name) {
  UWord h = 14695981039346656037ULL & ~(UWord)0;  // FNV-1a
  for (const HChar* p = object; *p != '\0'; p++) h = (h ^ (UChar)*p) * 1099511628211ULL;
  h = (h ^ 0xff) * 1099511628211ULL;  // keeps ("ab","c") apart from ("a","bc")
  for (const HChar* p = name; *p != '\0'; p++) h = (h ^ (UChar)*p) * 1099511628211ULL;
  return h;
}

static Word SameFunction(const void* a, const void* b) {
  const VgcFunction* x = a;
  const VgcFunction* y = b;
  return VG_(strcmp)(x->object, y->object) != 0 || VG_(strcmp)(x->name, y->name) != 0;
}

// Names interned with a number each (vgcount.h).
typedef struct InternedName {
  struct InternedName* chain;
  UWord key;
  const HChar* name;
  UInt number;
} InternedName;

struct VgcNames {
  VgHashTable* table;
  const HChar** names;  // by number
  UInt count, capacity;
};

static Word SameName(const void* a, const void* b) {
  return VG_(strcmp)(((const InternedName*)a)->name, ((const InternedName*)b)->name) != 0;
}

VgcNames* vgc_names_new(const HChar* what) {
  VgcNames* names = VG_(calloc)("vgcount.names", 1, sizeof(VgcNames));
  names->table = VG_(HT_construct)(what);
  return names;
}

UInt vgc_names_intern(VgcNames* names, const HChar* name) {
  InternedName probe;
  probe.key = Hash(name, "");
  probe.name = name;
  const InternedName* found = VG_(HT_gen_lookup)(names->table, &probe, SameName);
  if (found != NULL) return found->number;
  if (names->count == names->capacity) {
    names->capacity = names->capacity * 2 + 64;
    names->names =
        VG_(realloc)("vgcount.names.list", names->names, names->capacity * sizeof(HChar*));
  }
  InternedName* n = VG_(malloc)("vgcount.name", sizeof(InternedName));
  n->key = probe.key;
  n->name = VG_(strdup)("vgcount.name.text", name);
  n->number = names->count;
  names->names[names->count++] = n->name;
  VG_(HT_add_node)(names->table, n);
  return n->number;
}

const HChar* vgc_names_get(const VgcNames* names, UInt number) { return names->names[number]; }

UInt vgc_names_count(const VgcNames* names) { return names->count; }

VgcFunction* vgc_function_of(Addr addr, Bool* is_entry, Bool* is_plt) {
  DiEpoch ep = VG_(current_DiEpoch)();
  DebugInfo* di = VG_(find_DebugInfo)(ep, addr);
  const HChar* object = di != NULL ? VG_(DebugInfo_get_filename)(di) : "???";
  const HChar* name = NULL;
  HChar unnamed[48];
  const VgSectKind kind = VG_(DebugInfo_sect_kind)(NULL, addr);
  *is_plt = kind == Vg_SectPLT;
  if (VG_(get_fnname)(ep, addr, &name)) {
    const HChar* at_entry = NULL;
    *is_entry = VG_(get_fnname_if_entry)(ep, addr, &at_entry);
    // The lookup above reused get_fnname's buffer: take the name again.
    if (!VG_(get_fnname)(ep, addr, &name)) name = "???";
  } else {
    // Code without a symbol has no entries: callgrind names each context
    // of it by the block it was entered at (by a call or a return).
    *is_entry = False;
    // callgrind: the offset in the object, then the section kind.
    const UWord offset = (UWord)(addr - (di != NULL ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0));
    Int n = sizeof(Addr) == 4 ? VG_(sprintf)(unnamed, "%#08lx", offset)
                              : VG_(sprintf)(unnamed, "%#016lx", offset);
    VG_(sprintf)
    (unnamed + n, "%s",
     kind == Vg_SectData  ? " [Data]"
     : kind == Vg_SectBSS ? " [BSS]"
     : kind == Vg_SectGOT ? " [GOT]"
     : kind == Vg_SectPLT ? " [PLT]"
                          : "");
    name = unnamed;
  }
  VgcFunction probe;
  probe.key = Hash(object, name);
  probe.object = object;
  probe.name = name;
  VgcFunction* found = VG_(HT_gen_lookup)(table, &probe, SameFunction);
  if (found != NULL) return found;
  // get_fnname's buffer and the debug information's file name do not outlive
  // the next lookup or the object's unmapping: keep copies.
  VgcFunction* f = VG_(malloc)("vgcount.function", sizeof(VgcFunction));
  tl_assert(((HWord)f & 15) == 0);  // vgcount.h
  f->ir[0] = f->ir[1] = 0;
  f->key = probe.key;
  if (objects == NULL) objects = vgc_names_new("vgcount.objects");
  const UInt object_number = vgc_names_intern(objects, object);
  f->object = vgc_names_get(objects, object_number);
  f->object_id = object_number + 1;
  f->name = VG_(strdup)("vgcount.function.name", name);
  f->id = ++function_count;
  f->file = enabled ? vgc_lines_file_of(addr) : 0;
  f->to_write = False;
  // callgrind's name test (callgrind/fn.c).
  f->pop_on_jump = VG_(strncmp)(name, "_dl_runtime_resolve", 19) == 0;
  f->jump_entered = False;
  f->next = functions;
  functions = f;
  VG_(HT_add_node)(table, f);
  return f;
}

// Buffered output.
typedef struct {
  VgcOutput sink;
  Bool failed;
  Int used;
  HChar buffer[16384];
} Output;

static void Flush(Output* out) {
  if (!out->failed && !vgc_output_write(&out->sink, out->buffer, (SizeT)out->used)) {
    out->failed = True;
  }
  out->used = 0;
}

static void PutChar(Output* out, HChar c) {
  if (out->used == (Int)sizeof(out->buffer)) Flush(out);
  out->buffer[out->used++] = c;
}

static void PutRaw(Output* out, const HChar* text) {
  for (const HChar* p = text; *p != '\0'; p++) PutChar(out, *p);
}

// A name on one line of the file: a newline in it (an ELF symbol or a path
// may hold one) would end the record early, so it is written as a space.
static void PutName(Output* out, const HChar* text) {
  for (const HChar* p = text; *p != '\0'; p++) PutChar(out, *p == '\n' ? ' ' : *p);
}

static void PutNumberLine(Output* out, const HChar* key, ULong value) {
  HChar line[64];
  VG_(snprintf)(line, sizeof(line), "%s%llu\n", key, value);
  PutRaw(out, line);
}

// Writes "KEY" and the cost `ir`, then the simulated events when
// `events` is not NULL, on one line.
static void PutCostLine(Output* out, const HChar* key, ULong ir, const ULong* events) {
  PutRaw(out, key);
  HChar number[32];
  VG_(snprintf)(number, sizeof(number), "%llu", ir);
  PutRaw(out, number);
  for (Int e = 0; events != NULL && e < VGC_SIM_EVENTS; e++) {
    VG_(snprintf)(number, sizeof(number), " %llu", events[e]);
    PutRaw(out, number);
  }
  PutChar(out, '\n');
}

// Writes "KEY(N)", and " NAME" the first time number N is written
// (callgrind's name compression; `written` is indexed by N).
static void PutNumbered(Output* out, const HChar* key, ULong number, const HChar* name,
                        Bool* written) {
  HChar id[48];
  VG_(snprintf)(id, sizeof(id), "%s(%llu)", key, number);
  PutRaw(out, id);
  if (!written[number]) {
    written[number] = True;
    PutChar(out, ' ');
    PutName(out, name);
  }
  PutChar(out, '\n');
}

// A source file (numbered from 1 in the file), an object, a function.
static void PutFile(Output* out, const HChar* key, UInt file, Bool* written) {
  PutNumbered(out, key, (ULong)file + 1, vgc_lines_file_name(file), written);
}
static void PutObject(Output* out, const HChar* key, const VgcFunction* f, Bool* written) {
  PutNumbered(out, key, f->object_id, f->object, written);
}
static void PutFunction(Output* out, const HChar* key, const VgcFunction* f, Bool* written) {
  PutNumbered(out, key, f->id, f->name, written);
}

static Int ByCallerPositionCallee(const void* a, const void* b) {
  const VgcCallSiteCost* x = a;
  const VgcCallSiteCost* y = b;
  if (x->caller->id != y->caller->id) return x->caller->id < y->caller->id ? -1 : 1;
  const Int order = vgc_lines_position_order(x->file, x->line, y->file, y->line);
  if (order != 0) return order;
  if (x->callee->id != y->callee->id) return x->callee->id < y->callee->id ? -1 : 1;
  return 0;
}

// Every call edge with a cost (callgrind writes none without), sorted, in a
// block the caller frees; NULL when there is none.
static VgcCallSiteCost* CollectCalls(UInt* count) {
  *count = 0;
  if (!vgc_calls_enabled()) return NULL;
  UInt n = 0;
  for (VgcCallSite* s = vgc_call_sites(); s != NULL; s = vgc_call_site_next(s)) n++;
  if (n == 0) return NULL;
  VgcCallSiteCost* out = VG_(malloc)("vgcount.call_list", n * sizeof(VgcCallSiteCost));
  for (VgcCallSite* s = vgc_call_sites(); s != NULL; s = vgc_call_site_next(s)) {
    vgc_call_site_get(s, &out[*count]);
    if (out[*count].inclusive > 0) (*count)++;
  }
  VG_(ssort)(out, *count, sizeof(VgcCallSiteCost), ByCallerPositionCallee);
  return out;
}

static Int ById(const void* a, const void* b) {
  const UInt x = (*(const VgcFunction*const*)a)->id, y = (*(const VgcFunction*const*)b)->id;
  return x < y ? -1 : x > y ? 1 : 0;
}

Bool vgc_profile_write(const HChar* path_template, const HChar* cmd, ULong total) {
  Output* out = VG_(malloc)("vgcount.output", sizeof(Output));
  if (!vgc_output_open(&out->sink, kVgcOutputProfile, "--vgcount-profile-file", path_template)) {
    VG_(free)(out);
    return False;
  }
  out->failed = False;
  out->used = 0;
  PutRaw(out, "# callgrind format\nversion: 1\ncreator: vgcount\n");
  PutNumberLine(out, "pid: ", (ULong)VG_(getpid)());
  PutRaw(out, "cmd: ");
  PutName(out, cmd);
  PutRaw(out, "\npositions: line\nevents: Ir");
  // The simulated events, with their totals and per line (the calls'
  // inclusive costs stay Ir alone: README.md).
  const Bool sim = vgc_sim_enabled();
  ULong sim_totals[VGC_SIM_EVENTS];
  UInt sim_count = 0;
  VgcSimLineCost* sim_lines = sim ? vgc_sim_collect(&sim_count) : NULL;
  if (sim) {
    vgc_sim_totals(sim_totals);
    for (Int e = 0; e < VGC_SIM_EVENTS; e++) {
      PutChar(out, ' ');
      PutRaw(out, vgc_sim_event_names[e]);
    }
  }
  PutChar(out, '\n');
  PutCostLine(out, "summary: ", total, sim ? sim_totals : NULL);
  PutChar(out, '\n');

  // The call edges with a cost, by caller id (then by position and callee),
  // walked beside the functions as their lines are.
  UInt site_count = 0;
  VgcCallSiteCost* calls = CollectCalls(&site_count);
  Bool* fn_written = VG_(calloc)("vgcount.functions_written", function_count + 1, sizeof(Bool));

  // The functions with a collected cost or a call, by id, and their lines,
  // which vgc_lines_collect sorts by function id too.
  UInt line_count = 0;
  VgcLineCost* lines = vgc_lines_collect(&line_count);
  Bool* file_written =
      VG_(calloc)("vgcount.files_written", vgc_lines_file_count() + 1, sizeof(Bool));
  for (UInt k = 0; k < site_count; k++) calls[k].caller->to_write = True;
  for (UInt k = 0; k < sim_count; k++) sim_lines[k].function->to_write = True;
  UInt written_count = 0;
  for (VgcFunction* f = functions; f != NULL; f = f->next) {
    written_count += f->ir[0] != 0 || f->to_write;
  }
  VgcFunction** ordered = VG_(malloc)(
      "vgcount.ordered", (written_count > 0 ? written_count : 1) * sizeof(VgcFunction*));
  UInt n = 0;
  for (VgcFunction* f = functions; f != NULL; f = f->next) {
    if (f->ir[0] != 0 || f->to_write) ordered[n++] = f;
    f->to_write = False;
  }
  VG_(ssort)(ordered, n, sizeof(VgcFunction*), ById);

  // Each object's id is its name's number in the file, written out the
  // first time (callgrind's name compression).
  Bool* object_written = VG_(calloc)(
      "vgcount.objects_written", objects != NULL ? vgc_names_count(objects) + 1 : 1, sizeof(Bool));
  UInt next_line = 0, next_call = 0, next_sim = 0;
  for (UInt i = 0; i < n; i++) {
    VgcFunction* f = ordered[i];
    PutObject(out, "ob=", f, object_written);
    while (next_line < line_count && lines[next_line].function->id < f->id) next_line++;
    UInt end = next_line;
    while (end < line_count && lines[end].function == f) end++;
    // The function's own file, as callgrind names it; lines in other files
    // follow fi= switches, as callgrind writes inlined code.
    UInt file = f->file;
    PutFile(out, "fl=", file, file_written);
    PutFunction(out, "fn=", f, fn_written);
    ULong listed = 0;
    for (UInt k = next_line; k < end; k++) listed += lines[k].cost;
    // Lines that add up to more than the function's self cost (never seen:
    // both come from the same executions) would make the file's costs
    // disagree with its totals; the function is then written on line 0.
    if (listed > f->ir[0]) end = next_line;
    listed = 0;
    // Its simulated lines, merged in by position.
    while (next_sim < sim_count && sim_lines[next_sim].function->id < f->id) next_sim++;
    UInt sim_end = next_sim;
    while (sim_end < sim_count && sim_lines[sim_end].function == f) sim_end++;
    UInt k = next_line;
    while (k < end || next_sim < sim_end) {
      const VgcSimLineCost* s = next_sim < sim_end ? &sim_lines[next_sim] : NULL;
      const Int order =
          k >= end    ? 1
          : s == NULL ? -1
                      : vgc_lines_position_order(lines[k].file, lines[k].line, s->file, s->line);
      const UInt at_file = order <= 0 ? lines[k].file : s->file;
      const UInt at_line = order <= 0 ? lines[k].line : s->line;
      if (at_file != file) {
        file = at_file;
        PutFile(out, file == f->file ? "fe=" : "fi=", file, file_written);
      }
      HChar position[16];
      VG_(snprintf)(position, sizeof(position), "%u ", at_line);
      PutCostLine(out, position, order <= 0 ? lines[k].cost : 0, order >= 0 ? s->events : NULL);
      if (order <= 0) listed += lines[k++].cost;
      if (order >= 0) next_sim++;
    }
    // Anything the line counters did not see (none, when they agree with
    // the hand-overs, as the tests check) stays the function's, on no line.
    if (listed < f->ir[0]) {
      if (file != f->file) PutFile(out, "fe=", f->file, file_written);
      PutNumberLine(out, "0 ", f->ir[0] - listed);
    }
    while (end < line_count && lines[end].function == f) end++;
    next_line = end;
    // Its calls, each on the line of its call: "calls=COUNT TARGET" then
    // the position and the inclusive cost (callgrind's target position is
    // the callee's first line; vgcount gives 0, no line).
    while (next_call < site_count && calls[next_call].caller->id < f->id) next_call++;
    for (; next_call < site_count && calls[next_call].caller == f; next_call++) {
      const VgcCallSiteCost* c = &calls[next_call];
      if (c->file != file) {
        file = c->file;
        PutFile(out, file == f->file ? "fe=" : "fi=", file, file_written);
      }
      if (c->callee->object_id != f->object_id) PutObject(out, "cob=", c->callee, object_written);
      PutFile(out, "cfi=", c->callee->file, file_written);
      PutFunction(out, "cfn=", c->callee, fn_written);
      HChar count[64];
      VG_(snprintf)(count, sizeof(count), "calls=%llu 0\n", c->calls);
      PutRaw(out, count);
      HChar cost[64];
      VG_(snprintf)(cost, sizeof(cost), "%u %llu\n", c->line, c->inclusive);
      PutRaw(out, cost);
    }
  }
  VG_(free)(fn_written);
  if (calls != NULL) VG_(free)(calls);
  VG_(free)(object_written);
  VG_(free)(ordered);
  VG_(free)(file_written);
  if (lines != NULL) VG_(free)(lines);
  PutCostLine(out, "totals: ", total, sim ? sim_totals : NULL);
  if (sim_lines != NULL) VG_(free)(sim_lines);
  Flush(out);
  const Bool ok = vgc_output_close(&out->sink, !out->failed);
  VG_(free)(out);
  return ok;
}
