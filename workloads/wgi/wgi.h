/* wgi: a small bytecode interpreter, the workload that workgate uses to show
 * a comparison of two interpreter builds.
 *
 * Pipeline: lexer.c (tokens) -> compile_*.c (a single-pass Pratt parser that
 * emits bytecode per function) -> vm.c (a switch dispatch loop over a value
 * stack). Values are numbers (doubles), strings (immutable), arrays
 * (mutable, by reference), functions and builtins. Strings and arrays are
 * heap objects reclaimed by a mark-and-sweep collector (object.c) whose roots
 * are the value stack, the globals and every function's constants. Functions
 * are compiled once and live until exit. */
#ifndef WGI_WGI_H_
#define WGI_WGI_H_

#include <stddef.h>
#include <stdint.h>

typedef enum {
  VAL_UNDEF,  // an unassigned global; never visible to scripts
  VAL_NIL,
  VAL_BOOL,
  VAL_NUM,
  VAL_STR,
  VAL_ARR,
  VAL_FN,
  VAL_BUILTIN,
} ValueType;

struct Obj;
struct String;
struct Array;
struct Function;

typedef struct {
  ValueType type;
  union {
    int boolean;
    double num;
    struct String* str;
    struct Array* arr;
    struct Function* fn;
    int builtin;
  } as;
} Value;

typedef enum { OBJ_STRING, OBJ_ARRAY } ObjType;

/* Header of every collected object; `next` links all of them for the sweep. */
typedef struct Obj {
  ObjType type;
  int marked;
  struct Obj* next;
} Obj;

typedef struct String {
  Obj obj;
  size_t length;
  char chars[];  // NUL-terminated
} String;

typedef struct Array {
  Obj obj;
  size_t count;
  size_t capacity;
  Value* items;
} Array;

typedef enum {
  OP_CONST,  // u16 constant index
  OP_NIL,
  OP_TRUE,
  OP_FALSE,
  OP_POP,
  OP_POPN,        // u8 count
  OP_GET_LOCAL,   // u8 slot
  OP_SET_LOCAL,   // u8 slot
  OP_GET_GLOBAL,  // u16 global index
  OP_SET_GLOBAL,  // u16 global index
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_MOD,
  OP_NEG,
  OP_NOT,
  OP_EQ,
  OP_NE,
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
  OP_JUMP,           // u16 forward offset
  OP_JUMP_IF_FALSE,  // u16 forward offset; pops the condition
  OP_AND,            // u16: falsy -> keep it and jump, else pop it
  OP_OR,             // u16: truthy -> keep it and jump, else pop it
  OP_LOOP,           // u16 backward offset
  OP_CALL,           // u8 argument count
  OP_RETURN,
  OP_ARRAY,  // u8 element count
  OP_INDEX,
  OP_INDEX_SET,
} OpCode;

typedef struct {
  uint8_t* code;
  int* lines;  // source line of each byte
  size_t count;
  size_t capacity;
  Value* constants;
  size_t constant_count;
  size_t constant_capacity;
} Chunk;

typedef struct Function {
  char name[64];
  int arity;
  Chunk chunk;
  struct Function* next_function;  // all functions, for GC roots
} Function;

typedef Value (*BuiltinFn)(int argc, Value* args);

/* --- values (value.c) --- */
static inline Value val_nil(void) {
  Value v;
  v.type = VAL_NIL;
  v.as.num = 0;
  return v;
}
static inline Value val_bool(int b) {
  Value v;
  v.type = VAL_BOOL;
  v.as.boolean = b != 0;
  return v;
}
static inline Value val_num(double n) {
  Value v;
  v.type = VAL_NUM;
  v.as.num = n;
  return v;
}
static inline Value val_str(String* s) {
  Value v;
  v.type = VAL_STR;
  v.as.str = s;
  return v;
}
static inline Value val_arr(Array* a) {
  Value v;
  v.type = VAL_ARR;
  v.as.arr = a;
  return v;
}
static inline int is_falsy(Value v) {
  return v.type == VAL_NIL || (v.type == VAL_BOOL && !v.as.boolean);
}
int values_equal(Value a, Value b);
/* Writes the text of `v` (strings unquoted) into buf; returns its length. */
size_t format_value(Value v, char* buf, size_t size);
const char* type_name(Value v);

/* --- heap (object.c) --- */
String* string_new(const char* chars, size_t length);
String* string_concat(const String* a, const String* b);
Array* array_new(size_t capacity);
void array_push(Array* a, Value v);
void gc_set_enabled(int enabled);
void gc_register_function(Function* fn);
size_t gc_collections(void);

/* --- chunks (chunk.c) --- */
void chunk_write(Chunk* c, uint8_t byte, int line);
size_t chunk_add_constant(Chunk* c, Value v);

/* --- globals and builtins (builtins.c) --- */
#define MAX_GLOBALS 1024
extern Value g_globals[MAX_GLOBALS];
extern const char* g_global_names[MAX_GLOBALS];
extern int g_global_count;
/* Index of a global by name, created (undefined) when new; -1 when full. */
int global_slot(const char* name, size_t length);
void builtins_install(int fixed_clock);
/* Calls builtin `index` with its arguments (still on the VM stack). */
Value builtin_call(int index, int argc, Value* args);

/* --- lexer, compiler, vm --- */
/* Compiles a script into its top-level function; prints errors and returns
 * NULL on failure. */
Function* compile_script(const char* source, const char* path);
/* Runs a compiled script; returns 0, or 70 after a runtime error. */
int vm_run(Function* script);
/* Reports a runtime error with the current line and exits with status 70. */
void runtime_error(const char* fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Marks the VM's roots (stack) during a collection. */
void vm_mark_roots(void (*mark)(Value));

#endif /* WGI_WGI_H_ */
