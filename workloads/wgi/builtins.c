/* Global variables and the builtin functions scripts can call:
 *   print(a, ...)        prints its arguments separated by spaces, then a newline
 *   len(s_or_a)          length of a string or an array
 *   push(a, v)           appends v to array a; returns a
 *   pop(a)               removes and returns the last element of a
 *   str(v)               the text form of v
 *   ord(s, i)            the byte value of s[i]
 *   chr(n)               a one-character string
 *   substr(s, start, n)  n characters of s from start (clamped to s)
 *   floor(x), sqrt(x)
 *   array(n, v)          a new array of n copies of v
 *   clock()              seconds since the first call; under WORKGATE_FIXED_CLOCK=1
 *                        the k-th call (from 0) returns exactly k, so two calls
 *                        always measure exactly one second */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wgi.h"

Value g_globals[MAX_GLOBALS];
const char* g_global_names[MAX_GLOBALS];
int g_global_count;

static int g_fixed_clock;
static unsigned long long g_clock_calls;

/* Text of values is built here before it becomes a string or output. */
static char g_text[1 << 16];

int global_slot(const char* name, size_t length) {
  for (int i = 0; i < g_global_count; ++i) {
    if (strlen(g_global_names[i]) == length && memcmp(g_global_names[i], name, length) == 0)
      return i;
  }
  if (g_global_count == MAX_GLOBALS) return -1;
  char* copy = malloc(length + 1);
  memcpy(copy, name, length);
  copy[length] = '\0';
  g_global_names[g_global_count] = copy;
  g_globals[g_global_count].type = VAL_UNDEF;
  return g_global_count++;
}

static void expect_args(const char* name, int argc, int want) {
  if (argc != want) runtime_error("%s expects %d argument(s), got %d", name, want, argc);
}

static double num_arg(const char* name, Value v) {
  if (v.type != VAL_NUM) runtime_error("%s expects a number, got a %s", name, type_name(v));
  return v.as.num;
}

static Array* array_arg(const char* name, Value v) {
  if (v.type != VAL_ARR) runtime_error("%s expects an array, got a %s", name, type_name(v));
  return v.as.arr;
}

static String* string_arg(const char* name, Value v) {
  if (v.type != VAL_STR) runtime_error("%s expects a string, got a %s", name, type_name(v));
  return v.as.str;
}

static Value b_print(int argc, Value* args) {
  for (int i = 0; i < argc; ++i) {
    if (i > 0) fputc(' ', stdout);
    if (args[i].type == VAL_STR) {
      fwrite(args[i].as.str->chars, 1, args[i].as.str->length, stdout);
    } else {
      size_t n = format_value(args[i], g_text, sizeof g_text);
      fwrite(g_text, 1, n, stdout);
    }
  }
  fputc('\n', stdout);
  return val_nil();
}

static Value b_len(int argc, Value* args) {
  expect_args("len", argc, 1);
  if (args[0].type == VAL_STR) return val_num((double)args[0].as.str->length);
  return val_num((double)array_arg("len", args[0])->count);
}

static Value b_push(int argc, Value* args) {
  expect_args("push", argc, 2);
  array_push(array_arg("push", args[0]), args[1]);
  return args[0];
}

static Value b_pop(int argc, Value* args) {
  expect_args("pop", argc, 1);
  Array* a = array_arg("pop", args[0]);
  if (a->count == 0) runtime_error("pop from an empty array");
  return a->items[--a->count];
}

static Value b_str(int argc, Value* args) {
  expect_args("str", argc, 1);
  if (args[0].type == VAL_STR) return args[0];
  size_t n = format_value(args[0], g_text, sizeof g_text);
  return val_str(string_new(g_text, n));
}

static Value b_ord(int argc, Value* args) {
  expect_args("ord", argc, 2);
  String* s = string_arg("ord", args[0]);
  double i = num_arg("ord", args[1]);
  if (i < 0 || i >= (double)s->length || i != floor(i))
    runtime_error("ord: index %g out of range", i);
  return val_num((unsigned char)s->chars[(size_t)i]);
}

static Value b_chr(int argc, Value* args) {
  expect_args("chr", argc, 1);
  double n = num_arg("chr", args[0]);
  if (n < 0 || n > 255 || n != floor(n)) runtime_error("chr: %g is not a byte", n);
  char c = (char)(unsigned char)n;
  return val_str(string_new(&c, 1));
}

static Value b_substr(int argc, Value* args) {
  expect_args("substr", argc, 3);
  String* s = string_arg("substr", args[0]);
  double start = floor(num_arg("substr", args[1]));
  double n = floor(num_arg("substr", args[2]));
  if (start < 0) start = 0;
  if (start > (double)s->length) start = (double)s->length;
  if (n < 0) n = 0;
  if (start + n > (double)s->length) n = (double)s->length - start;
  return val_str(string_new(s->chars + (size_t)start, (size_t)n));
}

static Value b_floor(int argc, Value* args) {
  expect_args("floor", argc, 1);
  return val_num(floor(num_arg("floor", args[0])));
}

static Value b_sqrt(int argc, Value* args) {
  expect_args("sqrt", argc, 1);
  return val_num(sqrt(num_arg("sqrt", args[0])));
}

static Value b_array(int argc, Value* args) {
  expect_args("array", argc, 2);
  double n = num_arg("array", args[0]);
  if (n < 0 || n > 1e8 || n != floor(n)) runtime_error("array: bad length %g", n);
  Array* a = array_new((size_t)n);
  for (size_t i = 0; i < (size_t)n; ++i) a->items[i] = args[1];
  a->count = (size_t)n;
  return val_arr(a);
}

static Value b_clock(int argc, Value* args) {
  (void)args;
  expect_args("clock", argc, 0);
  static struct timespec first;
  unsigned long long call = g_clock_calls++;
  if (g_fixed_clock) return val_num((double)call);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (call == 0) first = now;
  return val_num((double)(now.tv_sec - first.tv_sec) + (double)(now.tv_nsec - first.tv_nsec) / 1e9);
}

static const struct {
  const char* name;
  BuiltinFn fn;
} kBuiltins[] = {
    {"print", b_print}, {"len", b_len},   {"push", b_push},   {"pop", b_pop},
    {"str", b_str},     {"ord", b_ord},   {"chr", b_chr},     {"substr", b_substr},
    {"floor", b_floor}, {"sqrt", b_sqrt}, {"array", b_array}, {"clock", b_clock},
};

#define BUILTIN_COUNT (sizeof kBuiltins / sizeof kBuiltins[0])

Value builtin_call(int index, int argc, Value* args) { return kBuiltins[index].fn(argc, args); }

void builtins_install(int fixed_clock) {
  g_fixed_clock = fixed_clock;
  for (size_t i = 0; i < BUILTIN_COUNT; ++i) {
    int slot = global_slot(kBuiltins[i].name, strlen(kBuiltins[i].name));
    g_globals[slot].type = VAL_BUILTIN;
    g_globals[slot].as.builtin = (int)i;
  }
}
