/* Turns source text into tokens on demand. Comments run from `//` to the end
 * of the line. String literals keep their escapes; the compiler decodes them. */
#include "lexer.h"

#include <string.h>

void lexer_init(Lexer* lx, const char* source) {
  lx->start = source;
  lx->current = source;
  lx->line = 1;
}

static Token make(const Lexer* lx, TokenType type) {
  Token t = {type, lx->start, (size_t)(lx->current - lx->start), lx->line};
  return t;
}

static Token error_token(const Lexer* lx, const char* message) {
  Token t = {TOK_ERROR, message, strlen(message), lx->line};
  return t;
}

static int match(Lexer* lx, char expected) {
  if (*lx->current != expected) return 0;
  ++lx->current;
  return 1;
}

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static void skip_space(Lexer* lx) {
  for (;;) {
    char c = *lx->current;
    if (c == '\n') {
      ++lx->line;
      ++lx->current;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++lx->current;
    } else if (c == '/' && lx->current[1] == '/') {
      while (*lx->current != '\n' && *lx->current != '\0') ++lx->current;
    } else {
      return;
    }
  }
}

static TokenType keyword(const char* s, size_t n) {
  static const struct {
    const char* word;
    TokenType type;
  } kKeywords[] = {{"let", TOK_LET},       {"fn", TOK_FN},       {"if", TOK_IF},
                   {"else", TOK_ELSE},     {"while", TOK_WHILE}, {"for", TOK_FOR},
                   {"return", TOK_RETURN}, {"true", TOK_TRUE},   {"false", TOK_FALSE},
                   {"nil", TOK_NIL}};
  for (size_t i = 0; i < sizeof kKeywords / sizeof kKeywords[0]; ++i) {
    if (strlen(kKeywords[i].word) == n && memcmp(kKeywords[i].word, s, n) == 0) {
      return kKeywords[i].type;
    }
  }
  return TOK_IDENT;
}

static Token number(Lexer* lx) {
  while (is_digit(*lx->current)) ++lx->current;
  if (*lx->current == '.' && is_digit(lx->current[1])) {
    ++lx->current;
    while (is_digit(*lx->current)) ++lx->current;
  }
  return make(lx, TOK_NUMBER);
}

static Token string(Lexer* lx) {
  while (*lx->current != '"') {
    if (*lx->current == '\0' || *lx->current == '\n') return error_token(lx, "unterminated string");
    if (*lx->current == '\\' && lx->current[1] != '\0') ++lx->current;
    ++lx->current;
  }
  ++lx->current;
  return make(lx, TOK_STRING);
}

Token lexer_next(Lexer* lx) {
  skip_space(lx);
  lx->start = lx->current;
  if (*lx->current == '\0') return make(lx, TOK_EOF);
  char c = *lx->current++;
  if (is_alpha(c)) {
    while (is_alpha(*lx->current) || is_digit(*lx->current)) ++lx->current;
    return make(lx, keyword(lx->start, (size_t)(lx->current - lx->start)));
  }
  if (is_digit(c)) return number(lx);
  switch (c) {
    case '(':
      return make(lx, TOK_LPAREN);
    case ')':
      return make(lx, TOK_RPAREN);
    case '{':
      return make(lx, TOK_LBRACE);
    case '}':
      return make(lx, TOK_RBRACE);
    case '[':
      return make(lx, TOK_LBRACKET);
    case ']':
      return make(lx, TOK_RBRACKET);
    case ',':
      return make(lx, TOK_COMMA);
    case ';':
      return make(lx, TOK_SEMICOLON);
    case '+':
      return make(lx, TOK_PLUS);
    case '-':
      return make(lx, TOK_MINUS);
    case '*':
      return make(lx, TOK_STAR);
    case '/':
      return make(lx, TOK_SLASH);
    case '%':
      return make(lx, TOK_PERCENT);
    case '!':
      return make(lx, match(lx, '=') ? TOK_BANG_EQ : TOK_BANG);
    case '=':
      return make(lx, match(lx, '=') ? TOK_EQ_EQ : TOK_EQ);
    case '<':
      return make(lx, match(lx, '=') ? TOK_LE : TOK_LT);
    case '>':
      return make(lx, match(lx, '=') ? TOK_GE : TOK_GT);
    case '&':
      if (match(lx, '&')) return make(lx, TOK_AND_AND);
      break;
    case '|':
      if (match(lx, '|')) return make(lx, TOK_OR_OR);
      break;
    case '"':
      return string(lx);
    default:
      break;
  }
  return error_token(lx, "unexpected character");
}
