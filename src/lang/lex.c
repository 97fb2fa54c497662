/* lex.c - tokenizer for the op language (a Python subset).
 *
 * One pass over the bytes, producing tl_tokens with byte spans. Design:
 *   - Logical lines: NEWLINE is emitted at a physical newline only when no
 *     bracket is open and the line produced a token; backslash-newline
 *     joins lines. Comments run to the end of the line.
 *   - Indentation: a stack of open block columns (tabs to multiples of 8);
 *     INDENT when a line goes deeper, one DEDENT per block it leaves; blank
 *     and comment lines do not count. The stack is bounded by max_depth.
 *   - Brackets are tracked on a stack bounded by max_depth, which gives
 *     Python's messages for unmatched / mismatched / unclosed brackets.
 *   - Literals are decoded here: ints (dec/hex/oct/bin, underscores) into
 *     int64 (too large: unsupported), floats with strtod, strings with
 *     Python's escapes (raw prefix honoured; b prefix unsupported); an
 *     f-string stays undecoded (FSTR) for the parser to split.
 * Invariant: every token's span lies inside [0, len], and the list always
 * ends with EOF; a non-empty list of statements ends with NEWLINE first.
 */
#include <ctype.h>
#include <errno.h>
#include "platform.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "arena.h"
#include "util.h"

static const char *const keyword_text[TL_NKEYWORDS] = {
    "False", "None", "True", "and", "as", "assert", "async", "await",
    "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield"};

static const char *const op_text[TL_NOPS] = {
    "(", ")", "[", "]", "{", "}", ",", ":", ".", "...", ";", "=", "->", ":=",
    "@", "+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "~", "<<", ">>",
    "==", "!=", "<", "<=", ">", ">=", "+=", "-=", "*=", "/=", "//=", "%=",
    "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};

/* Candidates by first byte, built once: the operators starting with a
 * byte, longest first, and the keywords starting with it. A scan of every
 * operator and keyword per token was two thirds of the lexer's time. */
#define OPS_PER_BYTE 6
#define KWS_PER_BYTE 6
static signed char ops_by_first[128][OPS_PER_BYTE];
static signed char kws_by_first[128][KWS_PER_BYTE];
static unsigned char op_len[TL_NOPS], kw_len[TL_NKEYWORDS];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* k after the row's entries (a row ends at its first -1) */
static void row_add(signed char *row, int cap, int k)
{
    int i = 0;
    while (row[i] >= 0)
        i++;
    TL_ASSERT(i < cap - 1);
    row[i] = (signed char)k;
}

static void build_tables(void)
{
    memset(ops_by_first, -1, sizeof ops_by_first);
    memset(kws_by_first, -1, sizeof kws_by_first);
    for (int k = 0; k < TL_NOPS; k++) {
        op_len[k] = (unsigned char)strlen(op_text[k]);
        TL_ASSERT(op_len[k] >= 1 && op_len[k] <= 3); /* lex_op compares 3 bytes */
    }
    for (int k = 0; k < TL_NKEYWORDS; k++)
        kw_len[k] = (unsigned char)strlen(keyword_text[k]);
    for (size_t len = 3; len >= 1; len--) /* longest first */
        for (int k = 0; k < TL_NOPS; k++)
            if (strlen(op_text[k]) == len)
                row_add(ops_by_first[(unsigned char)op_text[k][0] & 127], OPS_PER_BYTE, k);
    for (int k = 0; k < TL_NKEYWORDS; k++)
        row_add(kws_by_first[(unsigned char)keyword_text[k][0] & 127], KWS_PER_BYTE, k);
}

const char *tl_lex_keyword_text(tl_keyword kw)
{
    return (unsigned)kw < TL_NKEYWORDS ? keyword_text[kw] : "?";
}

/* ---------------------------------------------------------------------- */
/* state */

typedef struct lexer {
    const char *s;
    size_t len;
    size_t pos;
    tl_toklist *out;
    tl_error *err;
    int max_depth;
    /* bracket stack */
    int depth;
    char *brk;        /* opening chars */
    int32_t *brkpos;  /* their offsets */
    /* indentation stack: columns of the open blocks, ind[0] = 0 */
    int *ind;
    int nind;
    bool expr_mode;   /* an f-string field: no lines, no indentation */
} lexer;

static int fail(lexer *L, tl_errkind kind, int32_t start, int32_t end,
                const char *fmt, ...) TL_PRINTF(5, 6);

static int fail(lexer *L, tl_errkind kind, int32_t start, int32_t end,
                const char *fmt, ...)
{
    char msg[TL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tl_error_set(L->err, kind, "%s", msg);
    if (end <= start)
        end = start + 1;
    tl_error_locate(L->err, (tl_span){start, end});
    return -1;
}

static tl_token *push(lexer *L, tl_tokkind kind, size_t start, size_t end)
{
    tl_toklist *o = L->out;
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->toks = tl_xrealloc(o->toks, o->cap * sizeof *o->toks);
    }
    tl_token *t = &o->toks[o->n++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->span.start = (int32_t)start;
    t->span.end = (int32_t)end;
    return t;
}

static bool last_is_newline_or_empty(const lexer *L)
{
    return L->out->n == 0 || L->out->toks[L->out->n - 1].kind == TL_TOK_NEWLINE;
}

static bool is_name_start(unsigned char c)
{
    return c == '_' || isalpha(c);
}

static bool is_name_char(unsigned char c)
{
    return c == '_' || isalnum(c);
}

/* Decode one UTF-8 sequence at s[0..n); returns its length (0 if invalid)
 * and the code point. */
static int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int need;
    uint32_t c;
    if ((s[0] & 0xe0) == 0xc0) {
        need = 1;
        c = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        need = 2;
        c = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        need = 3;
        c = s[0] & 0x07;
    } else {
        return 0;
    }
    if ((size_t)need >= n)
        return 0;
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c > 0x10ffff || (need == 1 && c < 0x80) || (need == 2 && c < 0x800) ||
        (need == 3 && c < 0x10000))
        return 0;
    *cp = c;
    return need + 1;
}

static void utf8_encode(tl_buf *b, uint32_t cp)
{
    char tmp[4];
    if (cp < 0x80) {
        tl_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xc0 | (cp >> 6));
        tmp[1] = (char)(0x80 | (cp & 0x3f));
        tl_buf_append(b, tmp, 2);
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xe0 | (cp >> 12));
        tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        tmp[2] = (char)(0x80 | (cp & 0x3f));
        tl_buf_append(b, tmp, 3);
    } else {
        tmp[0] = (char)(0xf0 | (cp >> 18));
        tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        tmp[3] = (char)(0x80 | (cp & 0x3f));
        tl_buf_append(b, tmp, 4);
    }
}

/* An unusable byte at pos: Python's wording where there is one. */
static int bad_char(lexer *L)
{
    const unsigned char *p = (const unsigned char *)L->s + L->pos;
    int32_t at = (int32_t)L->pos;
    if (*p == 0)
        return fail(L, TL_ERR_SYNTAX, at, at + 1,
                    "source code cannot contain null bytes");
    if (*p < 0x80) {
        if (!isprint(*p))
            return fail(L, TL_ERR_SYNTAX, at, at + 1,
                        "invalid non-printable character U+%04X", *p);
        return fail(L, TL_ERR_SYNTAX, at, at + 1, "invalid syntax");
    }
    uint32_t cp;
    int n = utf8_decode(p, L->len - L->pos, &cp);
    if (n == 0)
        return fail(L, TL_ERR_SYNTAX, at, at + 1,
                    "invalid byte 0x%02x (source must be UTF-8)", *p);
    return fail(L, TL_ERR_SYNTAX, at, at + n, "invalid character '%.*s' (U+%04X)",
                n, (const char *)p, (unsigned)cp);
}

/* ---------------------------------------------------------------------- */
/* numbers */

/* The decimal digits from *pp on into digits, skipping '_' separators; an
 * '_' must stand between two digits (SyntaxError at it otherwise, and
 * digits is freed). *pp ends after the last digit. */
static int decimal_digits(lexer *L, size_t *pp, tl_buf *digits)
{
    const char *s = L->s;
    size_t p = *pp, n = L->len;
    for (; p < n && (isdigit((unsigned char)s[p]) || s[p] == '_'); p++) {
        if (s[p] != '_') {
            tl_buf_putc(digits, s[p]);
        } else if (p == *pp || !isdigit((unsigned char)s[p - 1]) || p + 1 >= n ||
                   !isdigit((unsigned char)s[p + 1])) {
            tl_buf_free(digits);
            return fail(L, TL_ERR_SYNTAX, (int32_t)p, (int32_t)p + 1,
                        "invalid decimal literal");
        }
    }
    *pp = p;
    return 0;
}

static int lex_number(lexer *L)
{
    const char *s = L->s;
    size_t start = L->pos, p = L->pos, n = L->len;
    tl_buf digits = {0};
    bool is_float = false;
    int base = 10;

    if (s[p] == '0' && p + 1 < n && strchr("xXoObB", s[p + 1])) {
        char k = (char)tolower((unsigned char)s[p + 1]);
        const char *what = k == 'x' ? "hexadecimal" : k == 'o' ? "octal" : "binary";
        base = k == 'x' ? 16 : k == 'o' ? 8 : 2;
        p += 2;
        bool any = false;
        for (;;) {
            if (p < n && s[p] == '_')
                p++;
            if (p < n && isxdigit((unsigned char)s[p])) {
                int d = isdigit((unsigned char)s[p]) ? s[p] - '0'
                                                     : tolower((unsigned char)s[p]) - 'a' + 10;
                if (d >= base) {
                    tl_buf_free(&digits);
                    return fail(L, TL_ERR_SYNTAX, (int32_t)p, (int32_t)p + 1,
                                "invalid digit '%c' in %s literal", s[p], what);
                }
                tl_buf_putc(&digits, s[p]);
                p++;
                any = true;
                continue;
            }
            break;
        }
        if (!any || s[p - 1] == '_' || (p < n && is_name_char((unsigned char)s[p]))) {
            size_t at = p < n && is_name_char((unsigned char)s[p]) ? p : p - 1;
            tl_buf_free(&digits);
            return fail(L, TL_ERR_SYNTAX, (int32_t)at, (int32_t)at + 1,
                        "invalid %s literal", what);
        }
    } else {
        /* integer part */
        if (decimal_digits(L, &p, &digits) < 0)
            return -1;
        if (p < n && s[p] == '.' && !(p + 2 < n && s[p + 1] == '.' && s[p + 2] == '.')) {
            is_float = true;
            tl_buf_putc(&digits, '.');
            p++;
            if (decimal_digits(L, &p, &digits) < 0)
                return -1;
        }
        if (p < n && (s[p] == 'e' || s[p] == 'E')) {
            size_t q = p + 1;
            if (q < n && (s[q] == '+' || s[q] == '-'))
                q++;
            if (q >= n || !isdigit((unsigned char)s[q])) {
                tl_buf_free(&digits);
                return fail(L, TL_ERR_SYNTAX, (int32_t)start, (int32_t)start + 1,
                            "invalid decimal literal");
            }
            is_float = true;
            tl_buf_append(&digits, s + p, q - p);
            p = q;
            while (p < n && (isdigit((unsigned char)s[p]) || s[p] == '_')) {
                if (s[p] != '_')
                    tl_buf_putc(&digits, s[p]);
                p++;
            }
        }
        if (p < n && (s[p] == 'j' || s[p] == 'J')) {
            tl_buf_free(&digits);
            return fail(L, TL_ERR_UNSUPPORTED, (int32_t)start, (int32_t)p + 1,
                        "tlab does not support complex numbers");
        }
        if (p < n && is_name_char((unsigned char)s[p])) {
            tl_buf_free(&digits);
            return fail(L, TL_ERR_SYNTAX, (int32_t)start, (int32_t)start + 1,
                        "invalid decimal literal");
        }
        if (!is_float) {
            const char *d = tl_buf_str(&digits);
            if (d[0] == '0') {
                for (const char *q = d; *q; q++)
                    if (*q != '0') {
                        tl_buf_free(&digits);
                        return fail(L, TL_ERR_SYNTAX, (int32_t)start, (int32_t)p,
                                    "leading zeros in decimal integer literals are "
                                    "not permitted; use an 0o prefix for octal integers");
                    }
            }
        }
    }

    tl_token *t = push(L, is_float ? TL_TOK_FLOAT : TL_TOK_INT, start, p);
    const char *d = tl_buf_str(&digits);
    if (is_float) {
        t->u.f = strtod(d, NULL); /* overflow gives inf, as Python's 1e999 */
    } else {
        uint64_t v = 0;
        bool over = false;
        for (const char *q = d; *q; q++) {
            int dig = isdigit((unsigned char)*q) ? *q - '0'
                                                 : tolower((unsigned char)*q) - 'a' + 10;
            if (v > (UINT64_MAX - (uint64_t)dig) / (uint64_t)base)
                over = true;
            else
                v = v * (uint64_t)base + (uint64_t)dig;
        }
        /* 9223372036854775808 is kept (as INT64_MIN) so that -2**63 style
         * negation of the literal can still be represented; the parser
         * rejects it anywhere else. */
        if (over || v > (uint64_t)INT64_MAX + 1) {
            tl_buf_free(&digits);
            L->out->n--;
            return fail(L, TL_ERR_UNSUPPORTED, (int32_t)start, (int32_t)p,
                        "integer literal too large (tlab integers are 64-bit)");
        }
        if (v == (uint64_t)INT64_MAX + 1) {
            t->int_overflow = 1;
            t->u.i = INT64_MIN;
        } else {
            t->u.i = (int64_t)v;
        }
    }
    tl_buf_free(&digits);
    L->pos = p;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* strings */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int tl_lex_decode(const char *s, size_t n, bool raw, int32_t base, tl_buf *b,
                  tl_error *err)
{
    size_t p = 0;
    tl_buf_puts(b, "");
    while (p < n) {
        char c = s[p];
        if (c != '\\' || raw || p + 1 >= n) {
            tl_buf_putc(b, c);
            p++;
            continue;
        }
        char e = s[p + 1];
        p += 2;
        switch (e) {
        case '\n': break;
        case '\\': tl_buf_putc(b, '\\'); break;
        case '\'': tl_buf_putc(b, '\''); break;
        case '"': tl_buf_putc(b, '"'); break;
        case 'a': tl_buf_putc(b, '\a'); break;
        case 'b': tl_buf_putc(b, '\b'); break;
        case 'f': tl_buf_putc(b, '\f'); break;
        case 'n': tl_buf_putc(b, '\n'); break;
        case 'r': tl_buf_putc(b, '\r'); break;
        case 't': tl_buf_putc(b, '\t'); break;
        case 'v': tl_buf_putc(b, '\v'); break;
        case 'x': case 'u': case 'U': {
            int nd = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (int i = 0; i < nd; i++) {
                int h = p + (size_t)i < n ? hexval(s[p + (size_t)i]) : -1;
                if (h < 0) {
                    tl_error_set(err, TL_ERR_SYNTAX, "(unicode error) truncated \\%c escape", e);
                    tl_error_locate(err, (tl_span){base + (int32_t)p - 2,
                                                   base + (int32_t)(p + (size_t)i) + 1});
                    return -1;
                }
                cp = cp * 16 + (uint32_t)h;
            }
            p += (size_t)nd;
            if (cp > 0x10ffff) {
                tl_error_set(err, TL_ERR_SYNTAX, "(unicode error) illegal Unicode character");
                tl_error_locate(err, (tl_span){base + (int32_t)p - nd - 2, base + (int32_t)p});
                return -1;
            }
            utf8_encode(b, cp);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                uint32_t cp = (uint32_t)(e - '0');
                for (int i = 0; i < 2 && p < n && s[p] >= '0' && s[p] <= '7'; i++)
                    cp = cp * 8 + (uint32_t)(s[p++] - '0');
                utf8_encode(b, cp);
            } else {
                /* unknown escape: kept verbatim, as Python does */
                tl_buf_putc(b, '\\');
                p--;
            }
        }
    }
    return 0;
}

/* pos is at the opening quote; prefix_start is where the prefix began.
 * The body is found first (a backslash always protects the next byte, raw
 * or not), then decoded, or kept undecoded for an f-string. */
static int lex_string(lexer *L, size_t prefix_start, bool raw, bool fstr)
{
    const char *s = L->s;
    size_t n = L->len, p = L->pos;
    char q = s[p];
    bool triple = p + 2 < n && s[p + 1] == q && s[p + 2] == q;
    p += triple ? 3 : 1;
    size_t body = p, body_end;
    for (;;) {
        if (p >= n || (!triple && s[p] == '\n'))
            return fail(L, TL_ERR_SYNTAX, (int32_t)prefix_start,
                        (int32_t)prefix_start + 1,
                        triple ? "unterminated triple-quoted string literal"
                               : "unterminated string literal");
        char c = s[p];
        if (c == q) {
            if (!triple) {
                body_end = p;
                p++;
                break;
            }
            if (p + 2 < n && s[p + 1] == q && s[p + 2] == q) {
                body_end = p;
                p += 3;
                break;
            }
        }
        if (c == '\\' && p + 1 < n) {
            p += 2;
            continue;
        }
        p++;
    }
    if (fstr) {
        tl_token *t = push(L, TL_TOK_FSTR, prefix_start, p);
        t->body_start = (int32_t)body;
        t->body_end = (int32_t)body_end;
        t->raw = raw;
        L->pos = p;
        return 0;
    }
    tl_buf b = {0};
    if (tl_lex_decode(s + body, body_end - body, raw, (int32_t)body, &b, L->err) < 0) {
        tl_buf_free(&b);
        return -1;
    }
    tl_token *t = push(L, TL_TOK_STR, prefix_start, p);
    t->len = b.len;
    t->str = tl_buf_steal(&b);
    L->pos = p;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* operators */

static int lex_op(lexer *L)
{
    const char *s = L->s + L->pos;
    size_t rem = L->len - L->pos;
    int best = -1;
    size_t bestlen = 0;
    if ((unsigned char)s[0] < 128) {
        const signed char *row = ops_by_first[(unsigned char)s[0]];
        for (int i = 0; row[i] >= 0; i++) { /* longest first: the first match */
            size_t l = op_len[row[i]];
            const char *o = op_text[row[i]]; /* o[0] == s[0] */
            if (l <= rem && (l < 2 || o[1] == s[1]) && (l < 3 || o[2] == s[2])) {
                best = row[i];
                bestlen = l;
                break;
            }
        }
    }
    if (best < 0)
        return bad_char(L);
    int32_t at = (int32_t)L->pos;
    tl_opkind op = (tl_opkind)best;
    if (op == TL_OP_LPAR || op == TL_OP_LSQB || op == TL_OP_LBRACE) {
        if (L->depth >= L->max_depth)
            return fail(L, TL_ERR_LIMIT, at, at + 1,
                        "too many nested parentheses (limit %d)", L->max_depth);
        L->brk[L->depth] = *s;
        L->brkpos[L->depth] = at;
        L->depth++;
    } else if (op == TL_OP_RPAR || op == TL_OP_RSQB || op == TL_OP_RBRACE) {
        if (L->depth == 0)
            return fail(L, TL_ERR_SYNTAX, at, at + 1, "unmatched '%c'", *s);
        char open = L->brk[L->depth - 1];
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (*s != want)
            return fail(L, TL_ERR_SYNTAX, at, at + 1,
                        "closing parenthesis '%c' does not match opening "
                        "parenthesis '%c'", *s, open);
        L->depth--;
    }
    tl_token *t = push(L, TL_TOK_OP, L->pos, L->pos + bestlen);
    t->u.op = op;
    L->pos += bestlen;
    return 0;
}

/* ---------------------------------------------------------------------- */

static int lex_all(lexer *L)
{
    const char *s = L->s;
    size_t n = L->len;
    bool line_start = true;

    while (L->pos < n) {
        char c = s[L->pos];
        if (line_start && L->depth == 0 && !L->expr_mode) {
            /* indentation of the first token of a logical line */
            size_t p = L->pos;
            int col = 0;
            while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\f' || s[p] == '\r')) {
                if (s[p] == ' ')
                    col++;
                else if (s[p] == '\t')
                    col = (col / 8 + 1) * 8;
                else if (s[p] == '\f')
                    col = 0;
                p++;
                if (col > 1 << 20)
                    return fail(L, TL_ERR_LIMIT, (int32_t)L->pos, (int32_t)p,
                                "indentation too deep");
            }
            L->pos = p;
            line_start = false;
            if (p >= n || s[p] == '\n' || s[p] == '#' ||
                (s[p] == '\\' && p + 1 < n && s[p + 1] == '\n'))
                continue; /* blank or comment line: no block change */
            if (col > L->ind[L->nind - 1]) {
                if (L->nind > L->max_depth)
                    return fail(L, TL_ERR_LIMIT, (int32_t)p, (int32_t)p + 1,
                                "too many levels of indentation (limit %d)", L->max_depth);
                L->ind[L->nind++] = col;
                push(L, TL_TOK_INDENT, p, p + 1);
            } else if (col < L->ind[L->nind - 1]) {
                while (L->nind > 1 && col < L->ind[L->nind - 1]) {
                    L->nind--;
                    push(L, TL_TOK_DEDENT, p, p + 1);
                }
                if (col != L->ind[L->nind - 1])
                    return fail(L, TL_ERR_SYNTAX, (int32_t)p, (int32_t)p + 1,
                                "unindent does not match any outer indentation level");
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
            L->pos++;
            continue;
        }
        if (c == '#') {
            while (L->pos < n && s[L->pos] != '\n')
                L->pos++;
            continue;
        }
        if (c == '\n') {
            if (L->depth == 0 && !L->expr_mode) {
                if (!last_is_newline_or_empty(L))
                    push(L, TL_TOK_NEWLINE, L->pos, L->pos + 1);
                line_start = true;
            }
            L->pos++;
            continue;
        }
        if (c == '\\') {
            size_t p = L->pos + 1;
            if (p < n && s[p] == '\r')
                p++;
            if (p >= n)
                return fail(L, TL_ERR_SYNTAX, (int32_t)L->pos, (int32_t)L->pos + 1,
                            "unexpected EOF while parsing");
            if (s[p] != '\n')
                return fail(L, TL_ERR_SYNTAX, (int32_t)L->pos + 1, (int32_t)L->pos + 2,
                            "unexpected character after line continuation character");
            L->pos = p + 1;
            continue;
        }
        if (isdigit((unsigned char)c) ||
            (c == '.' && L->pos + 1 < n && isdigit((unsigned char)s[L->pos + 1]))) {
            if (lex_number(L) < 0)
                return -1;
            continue;
        }
        if (is_name_start((unsigned char)c)) {
            size_t start = L->pos, p = L->pos;
            while (p < n && is_name_char((unsigned char)s[p]))
                p++;
            /* string prefixes */
            if (p < n && (s[p] == '\'' || s[p] == '"') && p - start <= 2) {
                bool raw = false, fstr = false, bytes = false, ok = true;
                for (size_t i = start; i < p; i++) {
                    char k = (char)tolower((unsigned char)s[i]);
                    if (k == 'r') raw = true;
                    else if (k == 'f') fstr = true;
                    else if (k == 'b') bytes = true;
                    else if (k == 'u' && p - start == 1) ;
                    else ok = false;
                }
                if (ok) {
                    if (bytes)
                        return fail(L, TL_ERR_UNSUPPORTED, (int32_t)start, (int32_t)p + 1,
                                    "tlab does not support bytes literals");
                    L->pos = p;
                    if (lex_string(L, start, raw, fstr) < 0)
                        return -1;
                    continue;
                }
            }
            int kw = -1;
            const signed char *row = kws_by_first[(unsigned char)s[start] & 127];
            for (int i = 0; row[i] >= 0 && p - start <= 8; i++)
                if (kw_len[row[i]] == p - start &&
                    memcmp(keyword_text[row[i]], s + start, p - start) == 0) {
                    kw = row[i];
                    break;
                }
            if (kw >= 0) {
                tl_token *t = push(L, TL_TOK_KEYWORD, start, p);
                t->u.kw = (tl_keyword)kw;
            } else {
                tl_token *t = push(L, TL_TOK_NAME, start, p);
                t->str = tl_arena_alloc(&L->out->names, p - start + 1); /* zeroed */
                memcpy(t->str, s + start, p - start);
                t->len = p - start;
            }
            L->pos = p;
            continue;
        }
        if (c == '\'' || c == '"') {
            if (lex_string(L, L->pos, false, false) < 0)
                return -1;
            continue;
        }
        if (lex_op(L) < 0)
            return -1;
    }
    if (L->depth > 0) {
        int32_t at = L->brkpos[L->depth - 1];
        return fail(L, TL_ERR_SYNTAX, at, at + 1, "'%c' was never closed",
                    L->brk[L->depth - 1]);
    }
    if (L->expr_mode) {
        push(L, TL_TOK_EOF, n, n);
        return 0;
    }
    if (!last_is_newline_or_empty(L))
        push(L, TL_TOK_NEWLINE, n, n);
    while (L->nind > 1) {
        L->nind--;
        push(L, TL_TOK_DEDENT, n, n);
    }
    push(L, TL_TOK_EOF, n, n);
    return 0;
}

static int lex_run(const char *text, size_t len, int max_depth, bool expr_mode,
                   tl_toklist *out, tl_error *err)
{
    pthread_once(&tables_once, build_tables);
    lexer L;
    memset(&L, 0, sizeof L);
    memset(out, 0, sizeof *out);
    L.s = text;
    L.len = len;
    L.out = out;
    L.err = err;
    L.expr_mode = expr_mode;
    L.max_depth = max_depth > 0 ? max_depth : 1;
    L.brk = tl_xmalloc((size_t)L.max_depth);
    L.brkpos = tl_xmalloc((size_t)L.max_depth * sizeof *L.brkpos);
    L.ind = tl_xmalloc(((size_t)L.max_depth + 1) * sizeof *L.ind);
    L.ind[0] = 0;
    L.nind = 1;
    int rc = lex_all(&L);
    free(L.brk);
    free(L.brkpos);
    free(L.ind);
    if (rc < 0)
        tl_toklist_free(out);
    return rc;
}

int tl_lex(const char *text, size_t len, int max_depth, tl_toklist *out,
           tl_error *err)
{
    return lex_run(text, len, max_depth, false, out, err);
}

int tl_lex_expr(const char *text, size_t len, int32_t base, int max_depth,
                tl_toklist *out, tl_error *err)
{
    if (lex_run(text, len, max_depth, true, out, err) < 0) {
        if (err && err->span.start >= 0) {
            err->span.start += base;
            err->span.end += base;
        }
        return -1;
    }
    for (size_t i = 0; i < out->n; i++) {
        out->toks[i].span.start += base;
        out->toks[i].span.end += base;
        if (out->toks[i].kind == TL_TOK_FSTR) {
            out->toks[i].body_start += base;
            out->toks[i].body_end += base;
        }
    }
    return 0;
}

void tl_toklist_free(tl_toklist *tl)
{
    for (size_t i = 0; i < tl->n; i++)
        if (tl->toks[i].kind != TL_TOK_NAME)
            free(tl->toks[i].str);
    free(tl->toks);
    tl_arena_free(tl->names);
    memset(tl, 0, sizeof *tl);
}
