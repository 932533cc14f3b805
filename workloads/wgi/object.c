/* Heap objects and the mark-and-sweep collector.
 *
 * Every string and array is on one list. A collection runs, when enabled,
 * at the start of an allocation once the bytes allocated since the last one
 * pass a threshold; it marks from the roots (the VM's value stack, the
 * globals, every function's constants), then frees what is unmarked. So an
 * object that the interpreter still needs must be reachable from a root
 * whenever a new object is allocated: the VM keeps operands on its stack
 * until the result exists. Collection order depends only on the program, so
 * runs are deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgi.h"

static Obj* g_objects;
static Function* g_functions;
static size_t g_bytes_since_gc;
#define MIN_GC_THRESHOLD (256u << 10)
static size_t g_gc_threshold = MIN_GC_THRESHOLD;
static size_t g_live_bytes;
static size_t g_collections;
static int g_gc_enabled = 1;

static Obj** g_gray;
static size_t g_gray_count;
static size_t g_gray_capacity;

static void* checked_realloc(void* p, size_t size) {
  void* q = realloc(p, size);
  if (q == NULL && size != 0) {
    fprintf(stderr, "wgi: out of memory\n");
    exit(70);
  }
  return q;
}

static size_t object_size(const Obj* o) {
  if (o->type == OBJ_STRING) return sizeof(String) + ((const String*)o)->length + 1;
  const Array* a = (const Array*)o;
  return sizeof(Array) + a->capacity * sizeof(Value);
}

static void mark_value(Value v) {
  Obj* o;
  if (v.type == VAL_STR) {
    o = &v.as.str->obj;
  } else if (v.type == VAL_ARR) {
    o = &v.as.arr->obj;
  } else {
    return;
  }
  if (o->marked) return;
  o->marked = 1;
  if (o->type == OBJ_ARRAY) {  // strings have no references to trace
    if (g_gray_count == g_gray_capacity) {
      g_gray_capacity = g_gray_capacity < 64 ? 64 : g_gray_capacity * 2;
      g_gray = checked_realloc(g_gray, g_gray_capacity * sizeof *g_gray);
    }
    g_gray[g_gray_count++] = o;
  }
}

static void collect(void) {
  vm_mark_roots(mark_value);
  for (int i = 0; i < g_global_count; ++i) mark_value(g_globals[i]);
  for (Function* f = g_functions; f != NULL; f = f->next_function) {
    for (size_t i = 0; i < f->chunk.constant_count; ++i) mark_value(f->chunk.constants[i]);
  }
  while (g_gray_count > 0) {
    Array* a = (Array*)g_gray[--g_gray_count];
    for (size_t i = 0; i < a->count; ++i) mark_value(a->items[i]);
  }
  Obj** link = &g_objects;
  g_live_bytes = 0;
  while (*link != NULL) {
    Obj* o = *link;
    if (o->marked) {
      o->marked = 0;
      g_live_bytes += object_size(o);
      link = &o->next;
      continue;
    }
    *link = o->next;
    if (o->type == OBJ_ARRAY) free(((Array*)o)->items);
    free(o);
  }
  // Collect again after allocating as much as is live now (at least 256 KiB).
  g_gc_threshold = g_live_bytes < MIN_GC_THRESHOLD ? MIN_GC_THRESHOLD : g_live_bytes;
  g_bytes_since_gc = 0;
  ++g_collections;
}

static Obj* allocate(size_t size, ObjType type) {
  g_bytes_since_gc += size;
  if (g_gc_enabled && g_bytes_since_gc > g_gc_threshold) collect();
  Obj* o = checked_realloc(NULL, size);
  o->type = type;
  o->marked = 0;
  o->next = g_objects;
  g_objects = o;
  return o;
}

String* string_new(const char* chars, size_t length) {
  String* s = (String*)allocate(sizeof(String) + length + 1, OBJ_STRING);
  s->length = length;
  memcpy(s->chars, chars, length);
  s->chars[length] = '\0';
  return s;
}

String* string_concat(const String* a, const String* b) {
  String* s = (String*)allocate(sizeof(String) + a->length + b->length + 1, OBJ_STRING);
  s->length = a->length + b->length;
  memcpy(s->chars, a->chars, a->length);
  memcpy(s->chars + a->length, b->chars, b->length);
  s->chars[s->length] = '\0';
  return s;
}

Array* array_new(size_t capacity) {
  Array* a = (Array*)allocate(sizeof(Array) + capacity * sizeof(Value), OBJ_ARRAY);
  a->count = 0;
  a->capacity = capacity;
  a->items = capacity ? checked_realloc(NULL, capacity * sizeof(Value)) : NULL;
  return a;
}

void array_push(Array* a, Value v) {
  if (a->count == a->capacity) {
    size_t grown = a->capacity < 4 ? 4 : a->capacity * 2;
    g_bytes_since_gc += (grown - a->capacity) * sizeof(Value);  // counted, never collects here
    a->items = checked_realloc(a->items, grown * sizeof(Value));
    a->capacity = grown;
  }
  a->items[a->count++] = v;
}

void gc_set_enabled(int enabled) { g_gc_enabled = enabled; }

void gc_register_function(Function* fn) {
  fn->next_function = g_functions;
  g_functions = fn;
}

size_t gc_collections(void) { return g_collections; }
