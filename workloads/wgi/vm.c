/* The dispatch loop: a switch over opcodes, with the instruction pointer,
 * the stack top and the current frame's base in locals.
 *
 * Built with WGI_OPCODE_PROFILE defined (the wgi_candidate target), every
 * dispatch also increments a per-opcode counter: the execution profile an
 * interpreter developer compiles in to see which instructions a program
 * runs, and a known, small amount of extra work per dispatch (one memory
 * increment on x86-64). Output is unchanged; WGI_STATS=1 prints the
 * collector's runs on stderr, and in the profiling build also the number of
 * instructions dispatched, per opcode and in total. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgi.h"

#define STACK_MAX (1 << 16)
#define FRAMES_MAX 4096
/* Headroom a frame may need: its locals and temporaries. */
#define FRAME_HEADROOM 1024

typedef struct {
  Function* fn;
  uint8_t* ip;
  Value* base;
} Frame;

static Value g_stack[STACK_MAX];
static Value* g_sp = g_stack;
static Frame g_frames[FRAMES_MAX];
static int g_frame_count;

#ifdef WGI_OPCODE_PROFILE
static unsigned long long g_op_counts[256];

static const char* const kOpNames[] = {
    "CONST",         "NIL",        "TRUE", "FALSE", "POP",  "POPN",   "GET_LOCAL", "SET_LOCAL",
    "GET_GLOBAL",    "SET_GLOBAL", "ADD",  "SUB",   "MUL",  "DIV",    "MOD",       "NEG",
    "NOT",           "EQ",         "NE",   "LT",    "LE",   "GT",     "GE",        "JUMP",
    "JUMP_IF_FALSE", "AND",        "OR",   "LOOP",  "CALL", "RETURN", "ARRAY",     "INDEX",
    "INDEX_SET"};
#endif

/* WGI_STATS=1: what the run did, on stderr (stdout stays the program's). */
static void print_stats(void) {
  const char* stats = getenv("WGI_STATS");
  if (stats == NULL || strcmp(stats, "1") != 0) return;
  fprintf(stderr, "wgi: collections: %zu\n", gc_collections());
#ifdef WGI_OPCODE_PROFILE
  unsigned long long total = 0;
  for (size_t op = 0; op < sizeof kOpNames / sizeof kOpNames[0]; ++op) {
    if (g_op_counts[op] == 0) continue;
    fprintf(stderr, "wgi: op %-13s %llu\n", kOpNames[op], g_op_counts[op]);
    total += g_op_counts[op];
  }
  fprintf(stderr, "wgi: dispatched: %llu\n", total);
#endif
}

void runtime_error(const char* fmt, ...) {
  fflush(stdout);
  fprintf(stderr, "wgi: runtime error: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  for (int i = g_frame_count - 1; i >= 0; --i) {
    const Frame* f = &g_frames[i];
    size_t at = (size_t)(f->ip - f->fn->chunk.code);
    int line = at > 0 ? f->fn->chunk.lines[at - 1] : 0;
    fprintf(stderr, "  at line %d in %s\n", line, f->fn->name);
  }
  exit(70);
}

void vm_mark_roots(void (*mark)(Value)) {
  for (Value* v = g_stack; v < g_sp; ++v) mark(*v);
}

static int compare_strings(const String* a, const String* b) {
  size_t n = a->length < b->length ? a->length : b->length;
  int c = memcmp(a->chars, b->chars, n);
  if (c != 0) return c;
  return a->length < b->length ? -1 : (a->length > b->length ? 1 : 0);
}

/* Text of a non-string operand of `+` with a string. */
static String* to_string(Value v) {
  if (v.type == VAL_STR) return v.as.str;
  char buf[512];
  size_t n = format_value(v, buf, sizeof buf);
  return string_new(buf, n);
}

/* Stores a valid index of a sequence of `count` elements in *out. */
static inline int valid_index(Value index, size_t count, size_t* out) {
  if (index.type != VAL_NUM) return 0;
  double i = index.as.num;
  if (!(i >= 0 && i < (double)count) || i != floor(i)) return 0;
  *out = (size_t)i;
  return 1;
}

static void bad_index(Value index, size_t count) __attribute__((noreturn));
static void bad_index(Value index, size_t count) {
  if (index.type != VAL_NUM) runtime_error("an index must be a number, not a %s", type_name(index));
  runtime_error("index %g out of range (length %zu)", index.as.num, count);
}

int vm_run(Function* script) {
  Frame* frame = &g_frames[g_frame_count++];
  frame->fn = script;
  frame->base = g_stack;
  frame->ip = script->chunk.code;
  g_sp = g_stack;
  g_sp->type = VAL_FN;
  g_sp->as.fn = script;
  ++g_sp;

  uint8_t* ip = frame->ip;
  Value* base = frame->base;
  Value* consts = script->chunk.constants;
  Value* sp = g_sp;

// The collector and error reports read the stack top and ip from memory.
#define SYNC() (frame->ip = ip, g_sp = sp)
#define READ_U16() (ip += 2, (size_t)((ip[-2] << 8) | ip[-1]))
#define FAIL(...) (SYNC(), runtime_error(__VA_ARGS__))
#define NUMERIC_OPERANDS(op)                                                     \
  if (sp[-2].type != VAL_NUM || sp[-1].type != VAL_NUM) {                        \
    FAIL("operands of %s must be numbers, not %s and %s", op, type_name(sp[-2]), \
         type_name(sp[-1]));                                                     \
  }
#define ARITH(op, sym)                            \
  NUMERIC_OPERANDS(sym);                          \
  sp[-2].as.num = sp[-2].as.num op sp[-1].as.num; \
  --sp;                                           \
  break;
#define COMPARE(op, sym)                                                   \
  if (sp[-2].type == VAL_STR && sp[-1].type == VAL_STR) {                  \
    sp[-2] = val_bool(compare_strings(sp[-2].as.str, sp[-1].as.str) op 0); \
  } else {                                                                 \
    NUMERIC_OPERANDS(sym);                                                 \
    sp[-2] = val_bool(sp[-2].as.num op sp[-1].as.num);                     \
  }                                                                        \
  --sp;                                                                    \
  break;

  for (;;) {
#ifdef WGI_OPCODE_PROFILE
    ++g_op_counts[*ip];
#endif
    switch ((OpCode)*ip++) {
      case OP_CONST:
        *sp++ = consts[READ_U16()];
        break;
      case OP_NIL:
        *sp++ = val_nil();
        break;
      case OP_TRUE:
        *sp++ = val_bool(1);
        break;
      case OP_FALSE:
        *sp++ = val_bool(0);
        break;
      case OP_POP:
        --sp;
        break;
      case OP_POPN:
        sp -= *ip++;
        break;
      case OP_GET_LOCAL:
        *sp++ = base[*ip++];
        break;
      case OP_SET_LOCAL:
        base[*ip++] = sp[-1];
        break;
      case OP_GET_GLOBAL: {
        size_t g = READ_U16();
        if (g_globals[g].type == VAL_UNDEF) FAIL("undefined variable '%s'", g_global_names[g]);
        *sp++ = g_globals[g];
        break;
      }
      case OP_SET_GLOBAL:
        g_globals[READ_U16()] = sp[-1];
        break;
      case OP_ADD:
        if (sp[-2].type == VAL_NUM && sp[-1].type == VAL_NUM) {
          sp[-2].as.num += sp[-1].as.num;
        } else if (sp[-2].type == VAL_STR || sp[-1].type == VAL_STR) {
          // Operands stay on the stack (rooted) while the strings are made.
          SYNC();
          String* a = to_string(sp[-2]);
          sp[-2] = val_str(a);
          String* b = to_string(sp[-1]);
          sp[-1] = val_str(b);
          sp[-2] = val_str(string_concat(a, b));
        } else {
          FAIL("cannot add a %s and a %s", type_name(sp[-2]), type_name(sp[-1]));
        }
        --sp;
        break;
      case OP_SUB:
        ARITH(-, "-")
      case OP_MUL:
        ARITH(*, "*")
      case OP_DIV:
        ARITH(/, "/")
      case OP_MOD:
        NUMERIC_OPERANDS("%");
        sp[-2].as.num = fmod(sp[-2].as.num, sp[-1].as.num);
        --sp;
        break;
      case OP_NEG:
        if (sp[-1].type != VAL_NUM) FAIL("cannot negate a %s", type_name(sp[-1]));
        sp[-1].as.num = -sp[-1].as.num;
        break;
      case OP_NOT:
        sp[-1] = val_bool(is_falsy(sp[-1]));
        break;
      case OP_EQ:
        sp[-2] = val_bool(values_equal(sp[-2], sp[-1]));
        --sp;
        break;
      case OP_NE:
        sp[-2] = val_bool(!values_equal(sp[-2], sp[-1]));
        --sp;
        break;
      case OP_LT:
        COMPARE(<, "<")
      case OP_LE:
        COMPARE(<=, "<=")
      case OP_GT:
        COMPARE(>, ">")
      case OP_GE:
        COMPARE(>=, ">=")
      case OP_JUMP: {
        size_t offset = READ_U16();
        ip += offset;
        break;
      }
      case OP_JUMP_IF_FALSE: {
        size_t offset = READ_U16();
        if (is_falsy(*--sp)) ip += offset;
        break;
      }
      case OP_AND: {
        size_t offset = READ_U16();
        if (is_falsy(sp[-1])) {
          ip += offset;
        } else {
          --sp;
        }
        break;
      }
      case OP_OR: {
        size_t offset = READ_U16();
        if (is_falsy(sp[-1])) {
          --sp;
        } else {
          ip += offset;
        }
        break;
      }
      case OP_LOOP: {
        size_t offset = READ_U16();
        ip -= offset;
        break;
      }
      case OP_CALL: {
        int argc = *ip++;
        Value callee = sp[-argc - 1];
        if (callee.type == VAL_FN) {
          Function* fn = callee.as.fn;
          if (argc != fn->arity)
            FAIL("%s expects %d argument(s), got %d", fn->name, fn->arity, argc);
          if (g_frame_count == FRAMES_MAX || sp + FRAME_HEADROOM > g_stack + STACK_MAX) {
            FAIL("stack overflow");
          }
          frame->ip = ip;
          frame = &g_frames[g_frame_count++];
          frame->fn = fn;
          frame->base = base = sp - argc - 1;
          ip = fn->chunk.code;
          consts = fn->chunk.constants;
        } else if (callee.type == VAL_BUILTIN) {
          SYNC();
          Value result = builtin_call(callee.as.builtin, argc, sp - argc);
          sp -= argc;
          sp[-1] = result;
        } else {
          FAIL("cannot call a %s", type_name(callee));
        }
        break;
      }
      case OP_RETURN: {
        Value result = sp[-1];
        sp = base;
        if (--g_frame_count == 0) {
          g_sp = sp;
          print_stats();
          return 0;
        }
        *sp++ = result;
        frame = &g_frames[g_frame_count - 1];
        ip = frame->ip;
        base = frame->base;
        consts = frame->fn->chunk.constants;
        break;
      }
      case OP_ARRAY: {
        int n = *ip++;
        SYNC();
        Array* a = array_new((size_t)n);
        memcpy(a->items, sp - n, (size_t)n * sizeof(Value));
        a->count = (size_t)n;
        sp -= n;
        *sp++ = val_arr(a);
        break;
      }
      case OP_INDEX: {
        Value container = sp[-2];
        size_t i;
        if (container.type == VAL_ARR) {
          if (!valid_index(sp[-1], container.as.arr->count, &i)) {
            SYNC();
            bad_index(sp[-1], container.as.arr->count);
          }
          sp[-2] = container.as.arr->items[i];
        } else if (container.type == VAL_STR) {
          SYNC();
          if (!valid_index(sp[-1], container.as.str->length, &i)) {
            bad_index(sp[-1], container.as.str->length);
          }
          sp[-2] = val_str(string_new(container.as.str->chars + i, 1));
        } else {
          FAIL("cannot index a %s", type_name(container));
        }
        --sp;
        break;
      }
      case OP_INDEX_SET: {
        if (sp[-3].type != VAL_ARR) FAIL("cannot assign into a %s", type_name(sp[-3]));
        Array* a = sp[-3].as.arr;
        size_t i;
        if (!valid_index(sp[-2], a->count, &i)) {
          SYNC();
          bad_index(sp[-2], a->count);
        }
        a->items[i] = sp[-1];
        sp[-3] = sp[-1];
        sp -= 2;
        break;
      }
      default:
        FAIL("bad opcode %d", ip[-1]);
    }
  }
}
