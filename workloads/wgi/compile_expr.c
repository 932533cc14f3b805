/* Expressions: a Pratt parser. Each token type has an optional prefix rule,
 * an optional infix rule and the precedence of that infix rule. */
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

typedef enum {
  PREC_NONE,
  PREC_ASSIGN,    // =
  PREC_OR,        // ||
  PREC_AND,       // &&
  PREC_EQUALITY,  // == !=
  PREC_COMPARE,   // < <= > >=
  PREC_TERM,      // + -
  PREC_FACTOR,    // * / %
  PREC_UNARY,     // ! -
  PREC_POSTFIX,   // () []
} Precedence;

typedef void (*ParseFn)(int can_assign);
typedef struct {
  ParseFn prefix;
  ParseFn infix;
  Precedence precedence;
} Rule;

static const Rule* rule_for(TokenType type);
static void parse_precedence(Precedence prec);

static void number(int can_assign) {
  (void)can_assign;
  emit_constant(val_num(strtod(g_parser.previous.start, NULL)));
}

static void string(int can_assign) {
  (void)can_assign;
  const char* s = g_parser.previous.start + 1;
  size_t n = g_parser.previous.length - 2;
  char* buf = malloc(n + 1);
  size_t len = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (c == '\\' && i + 1 < n) {
      c = s[++i];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
    }
    buf[len++] = c;
  }
  emit_constant(val_str(string_new(buf, len)));
  free(buf);
}

static void literal(int can_assign) {
  (void)can_assign;
  switch (g_parser.previous.type) {
    case TOK_TRUE:
      emit_byte(OP_TRUE);
      break;
    case TOK_FALSE:
      emit_byte(OP_FALSE);
      break;
    default:
      emit_byte(OP_NIL);
      break;
  }
}

static void grouping(int can_assign) {
  (void)can_assign;
  expression();
  consume(TOK_RPAREN, "expected ')' after expression");
}

static void array_literal(int can_assign) {
  (void)can_assign;
  int count = 0;
  if (!check(TOK_RBRACKET)) {
    do {
      expression();
      if (++count > 255) compile_error("more than 255 elements in an array literal");
    } while (match_token(TOK_COMMA));
  }
  consume(TOK_RBRACKET, "expected ']' after array elements");
  emit_op_u8(OP_ARRAY, count);
}

static void variable(int can_assign) {
  Token name = g_parser.previous;
  int slot = resolve_local(name);
  int set = can_assign && match_token(TOK_EQ);
  if (set) expression();
  if (slot >= 0) {
    emit_op_u8(set ? OP_SET_LOCAL : OP_GET_LOCAL, slot);
    return;
  }
  int global = global_slot(name.start, name.length);
  if (global < 0) compile_error("too many global names");
  emit_op_u16(set ? OP_SET_GLOBAL : OP_GET_GLOBAL, (size_t)global);
}

static void unary(int can_assign) {
  (void)can_assign;
  TokenType op = g_parser.previous.type;
  parse_precedence(PREC_UNARY);
  emit_byte(op == TOK_MINUS ? OP_NEG : OP_NOT);
}

static void binary(int can_assign) {
  (void)can_assign;
  TokenType op = g_parser.previous.type;
  parse_precedence((Precedence)(rule_for(op)->precedence + 1));
  switch (op) {
    case TOK_PLUS:
      emit_byte(OP_ADD);
      break;
    case TOK_MINUS:
      emit_byte(OP_SUB);
      break;
    case TOK_STAR:
      emit_byte(OP_MUL);
      break;
    case TOK_SLASH:
      emit_byte(OP_DIV);
      break;
    case TOK_PERCENT:
      emit_byte(OP_MOD);
      break;
    case TOK_EQ_EQ:
      emit_byte(OP_EQ);
      break;
    case TOK_BANG_EQ:
      emit_byte(OP_NE);
      break;
    case TOK_LT:
      emit_byte(OP_LT);
      break;
    case TOK_LE:
      emit_byte(OP_LE);
      break;
    case TOK_GT:
      emit_byte(OP_GT);
      break;
    default:
      emit_byte(OP_GE);
      break;
  }
}

static void logical(int can_assign) {
  (void)can_assign;
  TokenType op = g_parser.previous.type;
  size_t jump = emit_jump(op == TOK_AND_AND ? OP_AND : OP_OR);
  parse_precedence(op == TOK_AND_AND ? PREC_AND + 1 : PREC_OR + 1);
  patch_jump(jump);
}

static void call(int can_assign) {
  (void)can_assign;
  int argc = 0;
  if (!check(TOK_RPAREN)) {
    do {
      expression();
      if (++argc > 255) compile_error("more than 255 arguments");
    } while (match_token(TOK_COMMA));
  }
  consume(TOK_RPAREN, "expected ')' after arguments");
  emit_op_u8(OP_CALL, argc);
}

static void index_expr(int can_assign) {
  expression();
  consume(TOK_RBRACKET, "expected ']' after index");
  if (can_assign && match_token(TOK_EQ)) {
    expression();
    emit_byte(OP_INDEX_SET);
  } else {
    emit_byte(OP_INDEX);
  }
}

static const Rule* rule_for(TokenType type) {
  static Rule rules[TOK_EOF + 1];
  static int ready = 0;
  if (!ready) {
    rules[TOK_LPAREN] = (Rule){grouping, call, PREC_POSTFIX};
    rules[TOK_LBRACKET] = (Rule){array_literal, index_expr, PREC_POSTFIX};
    rules[TOK_MINUS] = (Rule){unary, binary, PREC_TERM};
    rules[TOK_PLUS] = (Rule){NULL, binary, PREC_TERM};
    rules[TOK_STAR] = (Rule){NULL, binary, PREC_FACTOR};
    rules[TOK_SLASH] = (Rule){NULL, binary, PREC_FACTOR};
    rules[TOK_PERCENT] = (Rule){NULL, binary, PREC_FACTOR};
    rules[TOK_BANG] = (Rule){unary, NULL, PREC_NONE};
    rules[TOK_BANG_EQ] = (Rule){NULL, binary, PREC_EQUALITY};
    rules[TOK_EQ_EQ] = (Rule){NULL, binary, PREC_EQUALITY};
    rules[TOK_LT] = (Rule){NULL, binary, PREC_COMPARE};
    rules[TOK_LE] = (Rule){NULL, binary, PREC_COMPARE};
    rules[TOK_GT] = (Rule){NULL, binary, PREC_COMPARE};
    rules[TOK_GE] = (Rule){NULL, binary, PREC_COMPARE};
    rules[TOK_AND_AND] = (Rule){NULL, logical, PREC_AND};
    rules[TOK_OR_OR] = (Rule){NULL, logical, PREC_OR};
    rules[TOK_IDENT] = (Rule){variable, NULL, PREC_NONE};
    rules[TOK_NUMBER] = (Rule){number, NULL, PREC_NONE};
    rules[TOK_STRING] = (Rule){string, NULL, PREC_NONE};
    rules[TOK_TRUE] = (Rule){literal, NULL, PREC_NONE};
    rules[TOK_FALSE] = (Rule){literal, NULL, PREC_NONE};
    rules[TOK_NIL] = (Rule){literal, NULL, PREC_NONE};
    ready = 1;
  }
  return &rules[type];
}

static void parse_precedence(Precedence prec) {
  advance_token();
  ParseFn prefix = rule_for(g_parser.previous.type)->prefix;
  if (prefix == NULL) compile_error("expected an expression");
  int can_assign = prec <= PREC_ASSIGN;
  prefix(can_assign);
  while (prec <= rule_for(g_parser.current.type)->precedence) {
    advance_token();
    rule_for(g_parser.previous.type)->infix(can_assign);
  }
  if (can_assign && match_token(TOK_EQ)) compile_error("invalid assignment target");
}

void expression(void) { parse_precedence(PREC_ASSIGN); }
