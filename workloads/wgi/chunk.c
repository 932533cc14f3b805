/* Growable bytecode and constant arrays of one function. */
#include <stdio.h>
#include <stdlib.h>

#include "wgi.h"

static void* grow(void* p, size_t* capacity, size_t elem_size) {
  *capacity = *capacity < 8 ? 8 : *capacity * 2;
  void* q = realloc(p, *capacity * elem_size);
  if (q == NULL) {
    fprintf(stderr, "wgi: out of memory\n");
    exit(70);
  }
  return q;
}

void chunk_write(Chunk* c, uint8_t byte, int line) {
  if (c->count == c->capacity) {
    size_t cap = c->capacity;
    c->code = grow(c->code, &cap, sizeof *c->code);
    cap = c->capacity;
    c->lines = grow(c->lines, &cap, sizeof *c->lines);
    c->capacity = cap;
  }
  c->code[c->count] = byte;
  c->lines[c->count] = line;
  ++c->count;
}

size_t chunk_add_constant(Chunk* c, Value v) {
  // Numbers repeat a lot in scripts (0, 1, 2); share their slot.
  if (v.type == VAL_NUM) {
    for (size_t i = 0; i < c->constant_count; ++i) {
      if (c->constants[i].type == VAL_NUM && c->constants[i].as.num == v.as.num) return i;
    }
  }
  if (c->constant_count == c->constant_capacity) {
    c->constants = grow(c->constants, &c->constant_capacity, sizeof *c->constants);
  }
  c->constants[c->constant_count] = v;
  return c->constant_count++;
}
