/* Statements, scopes and code emission; the entry point compile_script. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

Parser g_parser;
static jmp_buf g_bail;

void compile_error(const char* message) {
  const Token* t = &g_parser.previous;
  fprintf(stderr, "%s:%d: error: %s", g_parser.path, t->line, message);
  if (t->type == TOK_ERROR) {
    fprintf(stderr, " (%.*s)\n", (int)t->length, t->start);
  } else if (t->type == TOK_EOF) {
    fprintf(stderr, " at end of file\n");
  } else {
    fprintf(stderr, " at '%.*s'\n", (int)t->length, t->start);
  }
  longjmp(g_bail, 1);
}

void advance_token(void) {
  g_parser.previous = g_parser.current;
  g_parser.current = lexer_next(&g_parser.lexer);
  if (g_parser.current.type == TOK_ERROR) {
    g_parser.previous = g_parser.current;
    compile_error("bad token");
  }
}

int check(TokenType type) { return g_parser.current.type == type; }

int match_token(TokenType type) {
  if (!check(type)) return 0;
  advance_token();
  return 1;
}

void consume(TokenType type, const char* message) {
  if (check(type)) {
    advance_token();
    return;
  }
  g_parser.previous = g_parser.current;
  compile_error(message);
}

static Chunk* chunk(void) { return &g_parser.fc->fn->chunk; }

void emit_byte(uint8_t byte) { chunk_write(chunk(), byte, g_parser.previous.line); }

void emit_op_u8(OpCode op, int operand) {
  emit_byte((uint8_t)op);
  emit_byte((uint8_t)operand);
}

void emit_op_u16(OpCode op, size_t operand) {
  if (operand > 0xffff) compile_error("operand too large");
  emit_byte((uint8_t)op);
  emit_byte((uint8_t)(operand >> 8));
  emit_byte((uint8_t)operand);
}

size_t current_offset(void) { return chunk()->count; }

size_t emit_jump(OpCode op) {
  emit_op_u16(op, 0xffff);
  return chunk()->count - 2;
}

void patch_jump(size_t at) {
  size_t distance = chunk()->count - at - 2;
  if (distance > 0xffff) compile_error("jump too long");
  chunk()->code[at] = (uint8_t)(distance >> 8);
  chunk()->code[at + 1] = (uint8_t)distance;
}

void emit_loop(size_t loop_start) { emit_op_u16(OP_LOOP, chunk()->count + 3 - loop_start); }

void emit_constant(Value v) { emit_op_u16(OP_CONST, chunk_add_constant(chunk(), v)); }

void begin_scope(void) { ++g_parser.fc->scope_depth; }

void end_scope(void) {
  FnCompiler* fc = g_parser.fc;
  int n = 0;
  --fc->scope_depth;
  while (fc->local_count > 0 && fc->locals[fc->local_count - 1].depth > fc->scope_depth) {
    --fc->local_count;
    ++n;
  }
  if (n == 1) emit_byte(OP_POP);
  if (n > 1) emit_op_u8(OP_POPN, n);
}

void add_local(Token name) {
  FnCompiler* fc = g_parser.fc;
  if (fc->local_count == MAX_LOCALS) compile_error("too many local variables in one function");
  Local* l = &fc->locals[fc->local_count++];
  l->name = name.start;
  l->length = name.length;
  l->depth = fc->scope_depth;
}

int resolve_local(Token name) {
  FnCompiler* fc = g_parser.fc;
  for (int i = fc->local_count - 1; i > 0; --i) {
    if (fc->locals[i].length == name.length &&
        memcmp(fc->locals[i].name, name.start, name.length) == 0) {
      return i;
    }
  }
  return -1;
}

static void fn_compiler_init(FnCompiler* fc, const char* name, size_t length) {
  memset(fc, 0, sizeof *fc);
  fc->enclosing = g_parser.fc;
  fc->fn = calloc(1, sizeof(Function));
  snprintf(fc->fn->name, sizeof fc->fn->name, "%.*s", (int)length, name);
  gc_register_function(fc->fn);
  fc->local_count = 1;  // slot 0 holds the function being called
  g_parser.fc = fc;
}

static int at_top_level(void) {
  return g_parser.fc->enclosing == NULL && g_parser.fc->scope_depth == 0;
}

static void statement(void);

static void block(void) {
  while (!check(TOK_RBRACE) && !check(TOK_EOF)) declaration();
  consume(TOK_RBRACE, "expected '}' after block");
}

static void fn_declaration(void) {
  if (!at_top_level()) compile_error("functions are declared at the top level only");
  consume(TOK_IDENT, "expected a function name");
  Token name = g_parser.previous;
  int global = global_slot(name.start, name.length);
  if (global < 0) compile_error("too many global names");
  FnCompiler fc;
  fn_compiler_init(&fc, name.start, name.length);
  begin_scope();
  consume(TOK_LPAREN, "expected '(' after the function name");
  if (!check(TOK_RPAREN)) {
    do {
      consume(TOK_IDENT, "expected a parameter name");
      add_local(g_parser.previous);
      if (++fc.fn->arity > 255) compile_error("more than 255 parameters");
    } while (match_token(TOK_COMMA));
  }
  consume(TOK_RPAREN, "expected ')' after parameters");
  consume(TOK_LBRACE, "expected '{' before the function body");
  block();
  emit_byte(OP_NIL);
  emit_byte(OP_RETURN);
  g_parser.fc = fc.enclosing;
  Value v;
  v.type = VAL_FN;
  v.as.fn = fc.fn;
  emit_constant(v);
  emit_op_u16(OP_SET_GLOBAL, (size_t)global);
  emit_byte(OP_POP);
}

static void let_declaration(void) {
  consume(TOK_IDENT, "expected a variable name");
  Token name = g_parser.previous;
  if (match_token(TOK_EQ)) {
    expression();
  } else {
    emit_byte(OP_NIL);
  }
  consume(TOK_SEMICOLON, "expected ';' after the variable declaration");
  if (at_top_level()) {
    int global = global_slot(name.start, name.length);
    if (global < 0) compile_error("too many global names");
    emit_op_u16(OP_SET_GLOBAL, (size_t)global);
    emit_byte(OP_POP);
  } else {
    add_local(name);  // the initializer's value is the local's slot
  }
}

static void if_statement(void) {
  consume(TOK_LPAREN, "expected '(' after 'if'");
  expression();
  consume(TOK_RPAREN, "expected ')' after the condition");
  size_t to_else = emit_jump(OP_JUMP_IF_FALSE);
  statement();
  if (match_token(TOK_ELSE)) {
    size_t to_end = emit_jump(OP_JUMP);
    patch_jump(to_else);
    statement();
    patch_jump(to_end);
  } else {
    patch_jump(to_else);
  }
}

static void while_statement(void) {
  size_t start = current_offset();
  consume(TOK_LPAREN, "expected '(' after 'while'");
  expression();
  consume(TOK_RPAREN, "expected ')' after the condition");
  size_t exit = emit_jump(OP_JUMP_IF_FALSE);
  statement();
  emit_loop(start);
  patch_jump(exit);
}

/* for (init; cond; step) body: the step is compiled before the body but
 * jumped over, so that the body loops back to it. */
static void for_statement(void) {
  begin_scope();
  consume(TOK_LPAREN, "expected '(' after 'for'");
  if (match_token(TOK_LET)) {
    let_declaration();
  } else if (!match_token(TOK_SEMICOLON)) {
    expression();
    emit_byte(OP_POP);
    consume(TOK_SEMICOLON, "expected ';' after the loop initializer");
  }
  size_t loop_start = current_offset();
  size_t exit = 0;
  int has_cond = !check(TOK_SEMICOLON);
  if (has_cond) {
    expression();
    exit = emit_jump(OP_JUMP_IF_FALSE);
  }
  consume(TOK_SEMICOLON, "expected ';' after the loop condition");
  if (!check(TOK_RPAREN)) {
    size_t to_body = emit_jump(OP_JUMP);
    size_t step_start = current_offset();
    expression();
    emit_byte(OP_POP);
    emit_loop(loop_start);
    loop_start = step_start;
    patch_jump(to_body);
  }
  consume(TOK_RPAREN, "expected ')' after the for clauses");
  statement();
  emit_loop(loop_start);
  if (has_cond) patch_jump(exit);
  end_scope();
}

static void return_statement(void) {
  if (g_parser.fc->enclosing == NULL) compile_error("'return' outside a function");
  if (match_token(TOK_SEMICOLON)) {
    emit_byte(OP_NIL);
  } else {
    expression();
    consume(TOK_SEMICOLON, "expected ';' after the return value");
  }
  emit_byte(OP_RETURN);
}

static void statement(void) {
  if (match_token(TOK_IF)) {
    if_statement();
  } else if (match_token(TOK_WHILE)) {
    while_statement();
  } else if (match_token(TOK_FOR)) {
    for_statement();
  } else if (match_token(TOK_RETURN)) {
    return_statement();
  } else if (match_token(TOK_LBRACE)) {
    begin_scope();
    block();
    end_scope();
  } else {
    expression();
    consume(TOK_SEMICOLON, "expected ';' after the expression");
    emit_byte(OP_POP);
  }
}

void declaration(void) {
  if (match_token(TOK_FN)) {
    fn_declaration();
  } else if (match_token(TOK_LET)) {
    let_declaration();
  } else {
    statement();
  }
}

Function* compile_script(const char* source, const char* path) {
  static FnCompiler script;  // static: a FnCompiler is large
  memset(&g_parser, 0, sizeof g_parser);
  g_parser.path = path;
  lexer_init(&g_parser.lexer, source);
  // Compiling makes no garbage; keep the collector out of it.
  gc_set_enabled(0);
  if (setjmp(g_bail) != 0) {
    g_parser.fc = NULL;
    return NULL;
  }
  fn_compiler_init(&script, "script", 6);
  advance_token();
  while (!match_token(TOK_EOF)) declaration();
  emit_byte(OP_NIL);
  emit_byte(OP_RETURN);
  g_parser.fc = NULL;
  gc_set_enabled(1);
  return script.fn;
}
