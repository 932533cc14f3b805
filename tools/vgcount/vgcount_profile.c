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
 * instructions are charged to is decided in vgcount_instrument.c.
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
static VgHashTable* table = NULL;
// Without profiling, every instruction goes here; with it, a thread's
// instructions before its first context block (none in practice: a
// program's first block is its loader's entry).
static VgcFunction start_function = {NULL, 0,   {0, 0}, "???", 0, "(before the first function)",
                                     0,    NULL};
static VgcFunction* functions = &start_function;  // newest first
static UInt function_count = 0;

void vgc_profile_enable(void) {
  enabled = True;
  table = VG_(HT_construct)("vgcount.functions");
  start_function.id = ++function_count;
}

Bool vgc_profile_enabled(void) { return enabled; }

VgcFunction* vgc_profile_start_function(void) { return &start_function; }

VgcFunction* vgc_functions(void) { return functions; }

void vgc_functions_zero(void) {
  for (VgcFunction* f = functions; f != NULL; f = f->next) f->ir[0] = f->ir[1] = 0;
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

// Objects by name, each with its id: kept for the whole run, so a function's
// object name is one shared copy.
typedef struct ObjectName {
  struct ObjectName* chain;
  UWord key;
  const HChar* name;
  UWord id;
} ObjectName;

static VgHashTable* object_names = NULL;
static UWord object_count = 0;

static Word SameObjectName(const void* a, const void* b) {
  return VG_(strcmp)(((const ObjectName*)a)->name, ((const ObjectName*)b)->name) != 0;
}

static UWord Hash(const HChar* object, const HChar* name);

static const ObjectName* InternObject(const HChar* name) {
  if (object_names == NULL) object_names = VG_(HT_construct)("vgcount.object_names");
  ObjectName probe;
  probe.key = Hash(name, "");
  probe.name = name;
  ObjectName* found = VG_(HT_gen_lookup)(object_names, &probe, SameObjectName);
  if (found != NULL) return found;
  ObjectName* o = VG_(malloc)("vgcount.object_name", sizeof(ObjectName));
  o->key = probe.key;
  o->name = VG_(strdup)("vgcount.object_name.text", name);
  o->id = ++object_count;
  VG_(HT_add_node)(object_names, o);
  return o;
}

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
  f->ir[0] = f->ir[1] = 0;
  f->key = probe.key;
  const ObjectName* ob = InternObject(object);
  f->object = ob->name;
  f->object_id = ob->id;
  f->name = VG_(strdup)("vgcount.function.name", name);
  f->id = ++function_count;
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

// The id of each distinct object, by first use; 0 when not yet written.
typedef struct ObjectId {
  struct ObjectId* chain;
  UWord key;
  const HChar* object;
  UInt id;
} ObjectId;

static Word SameObject(const void* a, const void* b) {
  return VG_(strcmp)(((const ObjectId*)a)->object, ((const ObjectId*)b)->object) != 0;
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
  PutRaw(out, "\npositions: line\nevents: Ir\n");
  PutNumberLine(out, "summary: ", total);
  PutRaw(out, "\nfl=(1) ???\n");
  VgHashTable* objects = VG_(HT_construct)("vgcount.objects");
  UInt object_count = 0;
  HChar id[32];
  for (VgcFunction* f = functions; f != NULL; f = f->next) {
    if (f->ir[0] == 0) continue;
    ObjectId probe;
    probe.key = Hash(f->object, "");
    probe.object = f->object;
    ObjectId* ob = VG_(HT_gen_lookup)(objects, &probe, SameObject);
    if (ob == NULL) {
      ob = VG_(malloc)("vgcount.object", sizeof(ObjectId));
      ob->key = probe.key;
      ob->object = f->object;
      ob->id = ++object_count;
      VG_(HT_add_node)(objects, ob);
      VG_(snprintf)(id, sizeof(id), "ob=(%u) ", ob->id);
      PutRaw(out, id);
      PutName(out, f->object);
    } else {
      VG_(snprintf)(id, sizeof(id), "ob=(%u)", ob->id);
      PutRaw(out, id);
    }
    VG_(snprintf)(id, sizeof(id), "\nfn=(%u) ", f->id);
    PutRaw(out, id);
    PutName(out, f->name);
    PutNumberLine(out, "\n0 ", f->ir[0]);
  }
  VG_(HT_destruct)(objects, VG_(free));
  PutNumberLine(out, "totals: ", total);
  Flush(out);
  const Bool ok = vgc_output_close(&out->sink, !out->failed);
  VG_(free)(out);
  return ok;
}
