/* Equality, type names and the text form of values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wgi.h"

int values_equal(Value a, Value b) {
  if (a.type != b.type) return 0;
  switch (a.type) {
    case VAL_NIL:
      return 1;
    case VAL_BOOL:
      return a.as.boolean == b.as.boolean;
    case VAL_NUM:
      return a.as.num == b.as.num;
    case VAL_STR:
      return a.as.str->length == b.as.str->length &&
             memcmp(a.as.str->chars, b.as.str->chars, a.as.str->length) == 0;
    case VAL_ARR:
      return a.as.arr == b.as.arr;
    case VAL_FN:
      return a.as.fn == b.as.fn;
    case VAL_BUILTIN:
      return a.as.builtin == b.as.builtin;
    default:
      return 0;
  }
}

const char* type_name(Value v) {
  switch (v.type) {
    case VAL_NIL:
      return "nil";
    case VAL_BOOL:
      return "bool";
    case VAL_NUM:
      return "number";
    case VAL_STR:
      return "string";
    case VAL_ARR:
      return "array";
    case VAL_FN:
      return "function";
    case VAL_BUILTIN:
      return "builtin";
    default:
      return "undefined";
  }
}

/* Integral numbers print without a fraction (and -0 as 0), others with 14
 * significant digits, so output is the same on every libc we care about. */
static size_t format_number(double n, char* buf, size_t size) {
  int len;
  if (n == floor(n) && fabs(n) < 1e15) {
    len = snprintf(buf, size, "%lld", (long long)n);
  } else {
    len = snprintf(buf, size, "%.14g", n);
  }
  return len < 0 ? 0 : ((size_t)len < size ? (size_t)len : size - 1);
}

static size_t append(char* buf, size_t size, size_t at, const char* text, size_t n) {
  if (at + 1 >= size) return at;
  if (n > size - 1 - at) n = size - 1 - at;
  memcpy(buf + at, text, n);
  buf[at + n] = '\0';
  return at + n;
}

/* Arrays nest (and may contain themselves): print at most this deep. */
#define MAX_PRINT_DEPTH 8

static size_t format_at_depth(Value v, char* buf, size_t size, int depth) {
  if (size == 0) return 0;
  buf[0] = '\0';
  switch (v.type) {
    case VAL_NUM:
      return format_number(v.as.num, buf, size);
    case VAL_STR:
      return append(buf, size, 0, v.as.str->chars, v.as.str->length);
    case VAL_BOOL:
      return append(buf, size, 0, v.as.boolean ? "true" : "false", v.as.boolean ? 4 : 5);
    case VAL_NIL:
      return append(buf, size, 0, "nil", 3);
    case VAL_FN: {
      int len = snprintf(buf, size, "<fn %s>", v.as.fn->name);
      return len < 0 ? 0 : ((size_t)len < size ? (size_t)len : size - 1);
    }
    case VAL_BUILTIN:
      return append(buf, size, 0, "<builtin>", 9);
    case VAL_ARR: {
      if (depth >= MAX_PRINT_DEPTH) return append(buf, size, 0, "[...]", 5);
      size_t at = append(buf, size, 0, "[", 1);
      for (size_t i = 0; i < v.as.arr->count; ++i) {
        if (i > 0) at = append(buf, size, at, ", ", 2);
        at += format_at_depth(v.as.arr->items[i], buf + at, size - at, depth + 1);
      }
      return append(buf, size, at, "]", 1);
    }
    default:
      return append(buf, size, 0, "undefined", 9);
  }
}

size_t format_value(Value v, char* buf, size_t size) { return format_at_depth(v, buf, size, 0); }
