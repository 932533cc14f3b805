/* State shared by the two halves of the compiler (statements, expressions). */
#ifndef WGI_COMPILER_H_
#define WGI_COMPILER_H_

#include "lexer.h"
#include "wgi.h"

#define MAX_LOCALS 256

typedef struct {
  const char* name;
  size_t length;
  int depth;
} Local;

/* One per function being compiled; the script itself is the outermost. */
typedef struct FnCompiler {
  struct FnCompiler* enclosing;
  Function* fn;
  Local locals[MAX_LOCALS];
  int local_count;
  int scope_depth;
} FnCompiler;

typedef struct {
  Lexer lexer;
  Token current;
  Token previous;
  const char* path;
  FnCompiler* fc;
} Parser;

extern Parser g_parser;

/* Reports an error at the previous token and abandons the compilation. */
void compile_error(const char* message) __attribute__((noreturn));
void advance_token(void);
void consume(TokenType type, const char* message);
int check(TokenType type);
int match_token(TokenType type);

void emit_byte(uint8_t byte);
void emit_op_u8(OpCode op, int operand);
void emit_op_u16(OpCode op, size_t operand);
/* Emits a forward jump with a placeholder offset; returns where to patch. */
size_t emit_jump(OpCode op);
void patch_jump(size_t at);
void emit_loop(size_t loop_start);
size_t current_offset(void);
void emit_constant(Value v);

void begin_scope(void);
void end_scope(void);
/* Adds a local for the value now on top of the stack. */
void add_local(Token name);
/* Slot of a local, or -1 when the name is not a local. */
int resolve_local(Token name);

void expression(void);
void declaration(void);

#endif /* WGI_COMPILER_H_ */
