/* lex.h - the op-language tokenizer (a Python subset, SPEC 6).
 *
 * tl_lex turns a whole source text into an array of tokens, each carrying
 * the byte span it came from (tl_span, err.h), so that every later error can
 * underline the text it is about. Statements are one per logical line:
 * NEWLINE tokens end them (`;` is a token of its own), lines inside brackets
 * and after a backslash continue, comments and blank lines vanish. Blocks
 * are Python's: a deeper-indented line opens one with INDENT, a shallower
 * one closes blocks with DEDENT (IndentationError when it matches no open
 * level); the parser decides where an INDENT is allowed. f-strings come as
 * one FSTR token whose body the parser splits (tl_lex_expr lexes the
 * expressions inside).
 *
 * Ownership: tl_lex fills a tl_toklist the caller frees with
 * tl_toklist_free; token strings (names, decoded string literals) are owned
 * by the list.
 */
#ifndef TL_LEX_H
#define TL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_tokkind {
    TL_TOK_EOF = 0,
    TL_TOK_NEWLINE,
    TL_TOK_NAME,
    TL_TOK_INT,
    TL_TOK_FLOAT,
    TL_TOK_STR,
    TL_TOK_KEYWORD, /* kw holds which */
    TL_TOK_OP,      /* op holds which (punctuation and operators) */
    TL_TOK_INDENT,  /* a line indented deeper than the enclosing block */
    TL_TOK_DEDENT,  /* one block closed (several may follow one another) */
    TL_TOK_FSTR     /* f-string: body_start..body_end is its undecoded body */
} tl_tokkind;

typedef enum tl_keyword {
    TL_KW_FALSE, TL_KW_NONE, TL_KW_TRUE, TL_KW_AND, TL_KW_AS, TL_KW_ASSERT,
    TL_KW_ASYNC, TL_KW_AWAIT, TL_KW_BREAK, TL_KW_CLASS, TL_KW_CONTINUE,
    TL_KW_DEF, TL_KW_DEL, TL_KW_ELIF, TL_KW_ELSE, TL_KW_EXCEPT,
    TL_KW_FINALLY, TL_KW_FOR, TL_KW_FROM, TL_KW_GLOBAL, TL_KW_IF,
    TL_KW_IMPORT, TL_KW_IN, TL_KW_IS, TL_KW_LAMBDA, TL_KW_NONLOCAL,
    TL_KW_NOT, TL_KW_OR, TL_KW_PASS, TL_KW_RAISE, TL_KW_RETURN, TL_KW_TRY,
    TL_KW_WHILE, TL_KW_WITH, TL_KW_YIELD, TL_NKEYWORDS
} tl_keyword;

typedef enum tl_opkind {
    /* brackets */
    TL_OP_LPAR, TL_OP_RPAR, TL_OP_LSQB, TL_OP_RSQB, TL_OP_LBRACE, TL_OP_RBRACE,
    /* punctuation */
    TL_OP_COMMA, TL_OP_COLON, TL_OP_DOT, TL_OP_ELLIPSIS, TL_OP_SEMI,
    TL_OP_ASSIGN, TL_OP_ARROW, TL_OP_WALRUS, TL_OP_AT,
    /* arithmetic and bitwise */
    TL_OP_PLUS, TL_OP_MINUS, TL_OP_STAR, TL_OP_SLASH, TL_OP_DSLASH,
    TL_OP_PERCENT, TL_OP_DSTAR, TL_OP_AMP, TL_OP_PIPE, TL_OP_CARET,
    TL_OP_TILDE, TL_OP_LSHIFT, TL_OP_RSHIFT,
    /* comparisons */
    TL_OP_EQ, TL_OP_NE, TL_OP_LT, TL_OP_LE, TL_OP_GT, TL_OP_GE,
    /* augmented assignment */
    TL_OP_PLUSEQ, TL_OP_MINUSEQ, TL_OP_STAREQ, TL_OP_SLASHEQ, TL_OP_DSLASHEQ,
    TL_OP_PERCENTEQ, TL_OP_DSTAREQ, TL_OP_ATEQ, TL_OP_AMPEQ, TL_OP_PIPEEQ,
    TL_OP_CARETEQ, TL_OP_LSHIFTEQ, TL_OP_RSHIFTEQ,
    TL_NOPS
} tl_opkind;

typedef struct tl_token {
    tl_tokkind kind;
    tl_span span;
    union {
        int64_t i;       /* TL_TOK_INT */
        double f;        /* TL_TOK_FLOAT */
        tl_keyword kw;   /* TL_TOK_KEYWORD */
        tl_opkind op;    /* TL_TOK_OP */
    } u;
    char *str;           /* NAME: the name (in the list's arena); STR: decoded
                            bytes (owned) */
    size_t len;          /* length of str */
    int int_overflow;    /* INT literal did not fit in int64 */
    int32_t body_start;  /* FSTR: the text between the quotes */
    int32_t body_end;
    int raw;             /* FSTR: r prefix (no escapes) */
} tl_token;

typedef struct tl_toklist {
    tl_token *toks;
    size_t n;
    size_t cap;
    struct tl_arena_block *names; /* NAME tokens' text (base/arena.h) */
} tl_toklist;

/* Tokenize text[0..len). max_depth bounds bracket nesting (TL_ERR_LIMIT
 * past it). On success the list ends with NEWLINE (if any statement) and
 * EOF. On failure returns -1 with a TL_ERR_SYNTAX / TL_ERR_LIMIT error whose
 * span points at the offending text; the list is then freed. */
int tl_lex(const char *text, size_t len, int max_depth, tl_toklist *out,
           tl_error *err);
void tl_toklist_free(tl_toklist *tl);

/* Tokenize text[0..len) as one expression inside an f-string field: no
 * NEWLINE/INDENT tokens, spans shifted by `base` (the field's offset in the
 * whole source). Same errors as tl_lex. */
int tl_lex_expr(const char *text, size_t len, int32_t base, int max_depth,
                tl_toklist *out, tl_error *err);

/* Decode Python string escapes of s[0..n) (raw: none) into out. Returns
 * -1 with a SyntaxError spanning the bad escape (offsets from base). */
int tl_lex_decode(const char *s, size_t n, bool raw, int32_t base, tl_buf *out,
                  tl_error *err);

/* "if", "lambda", ... for messages. */
const char *tl_lex_keyword_text(tl_keyword kw);

#ifdef __cplusplus
}
#endif

#endif
