/* Tokens of the wgi language. */
#ifndef WGI_LEXER_H_
#define WGI_LEXER_H_

#include <stddef.h>

typedef enum {
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_LBRACE,
  TOK_RBRACE,
  TOK_LBRACKET,
  TOK_RBRACKET,
  TOK_COMMA,
  TOK_SEMICOLON,
  TOK_PLUS,
  TOK_MINUS,
  TOK_STAR,
  TOK_SLASH,
  TOK_PERCENT,
  TOK_BANG,
  TOK_BANG_EQ,
  TOK_EQ,
  TOK_EQ_EQ,
  TOK_LT,
  TOK_LE,
  TOK_GT,
  TOK_GE,
  TOK_AND_AND,
  TOK_OR_OR,
  TOK_IDENT,
  TOK_NUMBER,
  TOK_STRING,
  TOK_LET,
  TOK_FN,
  TOK_IF,
  TOK_ELSE,
  TOK_WHILE,
  TOK_FOR,
  TOK_RETURN,
  TOK_TRUE,
  TOK_FALSE,
  TOK_NIL,
  TOK_ERROR,
  TOK_EOF,
} TokenType;

typedef struct {
  TokenType type;
  const char* start;  // into the source; for TOK_ERROR, the message
  size_t length;
  int line;
} Token;

typedef struct {
  const char* start;
  const char* current;
  int line;
} Lexer;

void lexer_init(Lexer* lx, const char* source);
Token lexer_next(Lexer* lx);

#endif /* WGI_LEXER_H_ */
