/* yaml_fast.c - the lab files' YAML subset in one pass (see yaml_fast.h).
 *
 * libyaml (YAML 1.1, version 0.2.5) is the reference: this file builds the
 * tree its events give, node for node, for
 *   - comments, blank lines, an optional `---` first line, a UTF-8 BOM;
 *   - block mappings and sequences, indentless sequences (`key:` then
 *     `- item` at the key's column), compact nesting (`- key: v`, `- - a`);
 *   - plain scalars, with libyaml's rules: `: ` and ` #` end them,
 *     indicators may not start them, a longer key than 1024 characters is
 *     no simple key (declined); a value (never a key) may go on over
 *     lines deeper than its collection, folded as libyaml folds;
 *   - single-quoted and double-quoted scalars on one line (`''`; the
 *     escapes \\ \" \a \b \t \n \v \f \r \e \space \N \_ \L \P \xXX \uXXXX
 *     \UXXXXXXXX; others, \0 and invalid code points are declined);
 *   - literal `|` and folded `>` block scalars with chomping (- +), folded
 *     exactly as libyaml folds; an explicit indentation indicator, a
 *     more-indented line in a folded scalar, a leading line with more
 *     spaces than the first content line, or an empty body is declined;
 *   - flow sequences and mappings on one line of plain and quoted scalars
 *     and flow collections, e.g. `{kind: view, shape: [2, 3]}`.
 * Everything else (anchors, aliases, tags, `?` keys, a plain value on
 * the line after its key, multi-line quoted scalars or flow collections,
 * tabs outside scalars and comments, directives, a second document, any
 * error) is declined.
 *
 * Positions as lab.c records them: a node's start/end are byte offsets of
 * libyaml's start and end marks, its column is 1-based in bytes from the
 * line's start (the BOM counts on line 1), while libyaml's own column,
 * which decides indentation, starts after the BOM. An empty value's marks
 * are the end of its `:` or `-`; a block scalar ends where its last line
 * break leaves off; a block collection ends where its last child ends.
 *
 * Invariants: the position only moves forward and every loop advances it,
 * so the pass is linear; every read is bounds-checked against len; the
 * recursion is bounded by max_depth (collections), the node count by
 * max_nodes. Errors are values: a function that can decline returns
 * false (or NULL for a node), every caller passes that straight up, and
 * tl_yfast_parse frees what was allocated (no setjmp: wasi-libc has none).
 */
#include "yaml_fast.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct yp {
    const char *s;
    size_t len;
    size_t bom;           /* 3 after a UTF-8 BOM, else 0 */
    size_t pos;           /* next byte */
    size_t line;          /* 0-based line of pos */
    size_t lstart;        /* byte offset of that line's start */
    bool eof;             /* next_content found no more content */
    bool doc_start;       /* the first next_content: `---` is allowed */
    bool has_cr;          /* a CR somewhere: line ends are not just LF */
    size_t cpos;          /* next_content: first non-space byte */
    size_t ccol;          /* and libyaml's column of it */
    tl_arena_block *arena;
    size_t nodes, max_nodes;
    int max_depth;
    int depth;            /* open collections */
    tl_ynode **kids;      /* children of the open collections */
    size_t nkids, capkids;
    char *buf;            /* a quoted or block scalar's text */
    size_t nbuf, capbuf;
} yp;

typedef enum ctx { CTX_MAPVAL, CTX_SEQITEM } ctx;

static inline int ch(const yp *P, size_t i)
{
    return i < P->len ? (unsigned char)P->s[i] : -1;
}
static inline bool is_brk(int c) { return c == '\n' || c == '\r'; }

/* byte classes for the scanning loops */
enum { C_BLANK = 1, C_BRK = 2, C_COLON = 4, C_SQ = 8, C_DQ = 16, C_BSL = 32 };
static const unsigned char cls[256] = {
    [' '] = C_BLANK, ['\t'] = C_BLANK, ['\n'] = C_BRK, ['\r'] = C_BRK,
    [':'] = C_COLON, ['\''] = C_SQ, ['"'] = C_DQ, ['\\'] = C_BSL};

/* the end of the line at i (its break, or len) */
static inline size_t line_end(const yp *P, size_t i)
{
    if (!P->has_cr) {
        const char *e = i < P->len ? memchr(P->s + i, '\n', P->len - i) : NULL;
        return e ? (size_t)(e - P->s) : P->len;
    }
    while (i < P->len && !(cls[(unsigned char)P->s[i]] & C_BRK))
        i++;
    return i;
}
static inline bool is_blank(int c) { return c == ' ' || c == '\t'; }
/* libyaml's IS_BLANKZ: blank, break or the end */
static inline bool blankz(const yp *P, size_t i)
{
    int c = ch(P, i);
    return c < 0 || is_blank(c) || is_brk(c);
}

/* libyaml's column of byte i on the current line */
static inline size_t ycol(const yp *P, size_t i)
{
    return i - P->lstart - (P->line == 0 ? P->bom : 0);
}

/* pos at a line break: past it */
static void skip_break(yp *P)
{
    if (ch(P, P->pos) == '\r' && ch(P, P->pos + 1) == '\n')
        P->pos += 2;
    else
        P->pos++;
    P->line++;
    P->lstart = P->pos;
}

/* ---------------------------------------------------------------- output */

static bool poll_node(yp *P)
{
    if (++P->nodes > P->max_nodes)
        return false;
    if ((P->nodes & 255) == 0 && tl_budget_passed())
        return false;
    return true;
}

/* a collection node starting at byte start of the current line */
static tl_ynode *new_node(yp *P, tl_ykind kind, size_t start)
{
    if (!poll_node(P))
        return NULL;
    tl_ynode *n = tl_arena_alloc(&P->arena, sizeof *n);
    n->kind = kind;
    n->start = start;
    n->end = start;
    n->line = (int)P->line + 1;
    n->col = (int)(start - P->lstart) + 1;
    return n;
}

/* a scalar node with its text in the same allocation */
static tl_ynode *scalar_at(yp *P, size_t start, size_t line, size_t lstart, const char *v,
                           size_t len)
{
    if (!poll_node(P))
        return NULL;
    tl_ynode *n = tl_arena_alloc(&P->arena, sizeof *n + len + 1);
    n->kind = TL_Y_SCALAR;
    n->start = start;
    n->end = start;
    n->line = (int)line + 1;
    n->col = (int)(start - lstart) + 1;
    n->value = (char *)(n + 1);
    if (len)
        memcpy(n->value, v, len);
    n->len = len;
    return n;
}

static tl_ynode *plain_node(yp *P, size_t start, size_t end)
{
    tl_ynode *n = scalar_at(P, start, P->line, P->lstart, P->s + start, end - start);
    if (!n)
        return NULL;
    n->plain = true;
    n->end = end;
    return n;
}

static void push(yp *P, tl_ynode *n)
{
    if (P->nkids == P->capkids) {
        P->capkids = P->capkids ? 2 * P->capkids : 64;
        P->kids = tl_xrealloc(P->kids, P->capkids * sizeof *P->kids);
    }
    P->kids[P->nkids++] = n;
}

static tl_ynode *open_coll(yp *P, tl_ykind kind, size_t start)
{
    if (P->depth >= P->max_depth)
        return NULL;
    P->depth++;
    return new_node(P, kind, start);
}

/* the children pushed since base become n's items */
static void close_coll(yp *P, tl_ynode *n, size_t base)
{
    size_t k = P->nkids - base;
    if (k) {
        n->items = tl_arena_alloc(&P->arena, k * sizeof *n->items);
        memcpy(n->items, P->kids + base, k * sizeof *n->items);
        if (!n->flow)
            n->end = n->items[k - 1]->end;
    }
    n->nslots = k;
    n->n = n->kind == TL_Y_MAP ? k / 2 : k;
    P->nkids = base;
    P->depth--;
}

static void buf_add(yp *P, const char *v, size_t n)
{
    if (P->nbuf + n > P->capbuf) {
        size_t cap = P->capbuf ? P->capbuf : 256;
        while (cap < P->nbuf + n)
            cap *= 2;
        P->buf = tl_xrealloc(P->buf, cap);
        P->capbuf = cap;
    }
    memcpy(P->buf + P->nbuf, v, n);
    P->nbuf += n;
}

static void buf_nl(yp *P, size_t k)
{
    while (k--)
        buf_add(P, "\n", 1);
}

/* ---------------------------------------------------------------- lines */

/* from the start of a line (or the end): skip blank and comment lines to
 * the next content; sets eof, or cpos/ccol. A document marker (--- or ...
 * at column 0) is declined: a second document or a document end. */
static bool next_content(yp *P)
{
    for (;;) {
        size_t q = P->pos;
        while (ch(P, q) == ' ')
            q++;
        int c = ch(P, q);
        if (c < 0) {
            P->pos = P->len;
            P->eof = true;
            return true;
        }
        if (is_brk(c)) {
            P->pos = q;
            skip_break(P);
            continue;
        }
        if (c == '#') {
            q = line_end(P, q);
            P->pos = q;
            if (q < P->len)
                skip_break(P);
            continue;
        }
        P->pos = q;
        P->cpos = q;
        P->ccol = ycol(P, q);
        P->eof = false;
        if (P->ccol == 0 && q + 3 <= P->len &&
            (!memcmp(P->s + q, "---", 3) || !memcmp(P->s + q, "...", 3)) && blankz(P, q + 3) &&
            !(P->doc_start && P->s[q] == '-'))
            return false;
        return true;
    }
}

/* After a value on its line at i: blanks, then the end of the line, or a
 * comment after a blank; then the next content. */
static bool end_line(yp *P, size_t i)
{
    size_t j = i;
    while (is_blank(ch(P, j)))
        j++;
    int c = ch(P, j);
    if (c == '#') {
        if (j == i)
            return false;
        j = line_end(P, j);
        c = ch(P, j);
    }
    if (c >= 0 && !is_brk(c))
        return false;
    P->pos = j;
    if (c >= 0)
        skip_break(P);
    return next_content(P);
}

/* `-` followed by a blank, a break or the end: a block sequence entry */
static inline bool dash_entry(const yp *P, size_t i)
{
    return ch(P, i) == '-' && blankz(P, i + 1);
}

/* A character that starts a plain scalar here, as libyaml decides; `?`
 * and `:` starts (plain in some places) are declined. */
static bool plain_start(const yp *P, size_t i)
{
    int c = ch(P, i);
    if (c < 0 || is_blank(c) || is_brk(c))
        return false;
    switch (c) {
    case '-':
        return !blankz(P, i + 1);
    case '?': case ':': case ',': case '[': case ']': case '{': case '}':
    case '#': case '&': case '*': case '!': case '|': case '>': case '\'':
    case '"': case '%': case '@': case '`':
        return false;
    default:
        return true;
    }
}

/* ---------------------------------------------------------------- scalars */

/* A plain scalar in the block context from i: runs of non-blanks that
 * `: ` (or `:` at the end of the line) or a blank then `#` end. Returns
 * its end; *stop is where scanning stopped (a `:`, a `#`, a break or the
 * end, trailing blanks skipped). */
static size_t scan_plain_block(const yp *P, size_t i, size_t *stop)
{
    size_t end = i;
    for (;;) {
        size_t r = i;
        while (i < P->len) {
            unsigned k = cls[(unsigned char)P->s[i]];
            if (k && (k & (C_BLANK | C_BRK) || (k & C_COLON && blankz(P, i + 1))))
                break;
            i++;
        }
        if (i > r)
            end = i;
        if (ch(P, i) == ':')
            break;
        while (is_blank(ch(P, i)))
            i++;
        int c = ch(P, i);
        if (c < 0 || is_brk(c) || c == '#' || (c == ':' && blankz(P, i + 1)))
            break;
    }
    *stop = i;
    return end;
}

static bool flow_ind(int c)
{
    return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* A plain scalar in a flow collection from i, on this line: it ends at a
 * flow indicator or `: `; a `:` before anything else, a tab, a comment
 * or the end of the line is declined. *stop: where it stopped. */
static bool scan_plain_flow(yp *P, size_t i, size_t *end_out, size_t *stop)
{
    size_t end = i;
    for (;;) {
        size_t r = i;
        while (i < P->len) {
            int c = (unsigned char)P->s[i];
            if (is_blank(c) || is_brk(c) || flow_ind(c))
                break;
            if (c == ':') {
                if (ch(P, i + 1) == ' ')
                    break;
                return false;
            }
            i++;
        }
        if (i > r)
            end = i;
        while (ch(P, i) == ' ')
            i++;
        int c = ch(P, i);
        if (c < 0 || is_brk(c) || c == '\t' || c == '#')
            return false;
        if (flow_ind(c) || c == ':') {
            if (c == ':' && ch(P, i + 1) != ' ')
                return false;
            break;
        }
    }
    *stop = i;
    *end_out = end;
    return true;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void buf_utf8(yp *P, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf_add(P, u, n);
}

/* A quoted scalar from i (at its quote), closed on this line. Returns the
 * node; *after: the byte after the closing quote. */
static tl_ynode *quoted(yp *P, size_t i, size_t *after)
{
    bool single = P->s[i] == '\'';
    size_t j = i + 1;
    P->nbuf = 0;
    for (;;) {
        size_t r = j; /* a run of ordinary bytes, copied at once */
        unsigned stop = C_BRK | (single ? C_SQ : C_DQ | C_BSL);
        while (j < P->len && !(cls[(unsigned char)P->s[j]] & stop))
            j++;
        if (j > r)
            buf_add(P, P->s + r, j - r);
        int c = ch(P, j);
        if (c < 0 || is_brk(c))
            return NULL; /* runs on to another line, or unterminated */
        if (single) {
            if (ch(P, j + 1) == '\'') {
                buf_add(P, "'", 1);
                j += 2;
                continue;
            }
            break;
        }
        if (c == '"')
            break;
        /* an escape */
        int e = ch(P, j + 1);
        const char *lit = NULL;
        int digits = 0;
        switch (e) {
        case 'a': lit = "\a"; break;
        case 'b': lit = "\b"; break;
        case 't': case '\t': lit = "\t"; break;
        case 'n': lit = "\n"; break;
        case 'v': lit = "\v"; break;
        case 'f': lit = "\f"; break;
        case 'r': lit = "\r"; break;
        case 'e': lit = "\x1b"; break;
        case ' ': lit = " "; break;
        case '"': lit = "\""; break;
        case '\\': lit = "\\"; break;
        case 'N': lit = "\xC2\x85"; break;
        case '_': lit = "\xC2\xA0"; break;
        case 'L': lit = "\xE2\x80\xA8"; break;
        case 'P': lit = "\xE2\x80\xA9"; break;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default: return NULL; /* \0, \/, \', a line break, unknown */
        }
        if (lit) {
            buf_add(P, lit, strlen(lit));
            j += 2;
            continue;
        }
        uint32_t cp = 0;
        for (int k = 0; k < digits; k++) {
            int h = hexval(ch(P, j + 2 + (size_t)k));
            if (h < 0)
                return NULL;
            cp = (cp << 4) | (uint32_t)h;
        }
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
            return NULL;
        buf_utf8(P, cp);
        j += 2 + (size_t)digits;
    }
    tl_ynode *n = scalar_at(P, i, P->line, P->lstart, P->buf, P->nbuf);
    if (!n)
        return NULL;
    n->end = j + 1;
    *after = j + 1;
    return n;
}

/* Skip the empty lines of a block scalar from P->pos (each counted in
 * *trailing, *end after it), looking past at most `cap` spaces of
 * indentation; *max_indent (when given) keeps the deepest seen. Returns
 * the position after the indentation of the first non-empty line. */
static size_t skip_empty_lines(yp *P, size_t cap, size_t *max_indent, size_t *trailing,
                               size_t *end)
{
    for (;;) {
        size_t q = P->pos;
        while (ch(P, q) == ' ' && q - P->lstart < cap)
            q++;
        if (max_indent && q - P->lstart > *max_indent)
            *max_indent = q - P->lstart;
        if (!is_brk(ch(P, q)))
            return q;
        P->pos = q;
        skip_break(P);
        (*trailing)++;
        *end = P->pos;
    }
}

/* A block scalar from its indicator at i; ind is libyaml's indent (the
 * column of the innermost block collection). Ends at the start of the
 * line after it (pos), then finds the next content. */
static tl_ynode *block_scalar(yp *P, size_t i, size_t ind)
{
    size_t line = P->line, lstart = P->lstart;
    bool literal = P->s[i] == '|';
    size_t j = i + 1;
    int chomp = 0;
    if (ch(P, j) == '+' || ch(P, j) == '-')
        chomp = P->s[j++] == '+' ? 1 : -1;
    if (ch(P, j) >= '0' && ch(P, j) <= '9')
        return NULL; /* an indentation indicator */
    size_t k = j;
    while (is_blank(ch(P, k)))
        k++;
    if (ch(P, k) == '#') {
        if (k == j)
            return NULL;
        k = line_end(P, k);
    }
    if (k < P->len && !is_brk(ch(P, k)))
        return NULL;
    P->pos = k;
    if (k >= P->len)
        return NULL; /* no body */
    skip_break(P);
    size_t end = P->pos;
    /* leading empty lines; the indentation from the first content line */
    size_t trailing = 0, max_indent = 0;
    k = skip_empty_lines(P, SIZE_MAX, &max_indent, &trailing, &end);
    size_t indent = max_indent;
    if (indent < ind + 1)
        indent = ind + 1;
    if (indent < 1)
        indent = 1;
    if (k >= P->len || k - P->lstart != indent)
        return NULL; /* empty, or a leading line deeper than the text */
    P->nbuf = 0;
    bool leading_break = false;
    while (k < P->len && k - P->lstart == indent) {
        bool blank_start = is_blank(ch(P, k));
        if (!literal && blank_start)
            return NULL; /* a more-indented line of a folded scalar */
        if (!literal && leading_break) {
            if (trailing == 0)
                buf_add(P, " ", 1);
        } else if (leading_break) {
            buf_add(P, "\n", 1);
        }
        buf_nl(P, trailing);
        trailing = 0;
        leading_break = false;
        size_t e = line_end(P, k);
        buf_add(P, P->s + k, e - k);
        P->pos = e;
        if (e < P->len) {
            skip_break(P);
            leading_break = true;
        }
        end = P->pos;
        /* empty lines (up to indent spaces) */
        k = skip_empty_lines(P, indent, NULL, &trailing, &end);
    }
    if (chomp != -1 && leading_break)
        buf_add(P, "\n", 1);
    if (chomp == 1)
        buf_nl(P, trailing);
    tl_ynode *n = scalar_at(P, i, line, lstart, P->buf, P->nbuf);
    if (!n)
        return NULL;
    n->block_scalar = true;
    n->end = end;
    /* pos is at the start of the line that ended the scalar */
    return next_content(P) ? n : NULL;
}

static inline size_t skip_spaces(const yp *P, size_t i)
{
    while (ch(P, i) == ' ')
        i++;
    return i;
}

/* A plain value from i whose first line ends at end (its last non-blank)
 * and then a break at stop, in a collection at column ind: the lines after
 * it that are deeper than ind and no comment continue it, folded as
 * libyaml folds them (one space between lines, a newline for each empty
 * line between), up to `: ` (declined: libyaml's error) or ` #`. Ends at
 * the next content. */
static tl_ynode *plain_lines(yp *P, size_t i, size_t end, size_t stop, size_t ind)
{
    size_t line0 = P->line, lstart0 = P->lstart;
    P->nbuf = 0;
    buf_add(P, P->s + i, end - i);
    P->pos = stop;
    bool comment = false;
    for (;;) {
        skip_break(P); /* pos is at a break */
        size_t empties = 0, q;
        for (;;) {
            q = skip_spaces(P, P->pos);
            if (!is_brk(ch(P, q)))
                break;
            P->pos = q;
            skip_break(P);
            empties++;
        }
        if (q >= P->len || q - P->lstart <= ind || P->s[q] == '#')
            break; /* pos: the start of the line after the scalar */
        if (empties)
            buf_nl(P, empties);
        else
            buf_add(P, " ", 1);
        size_t st, e = scan_plain_block(P, q, &st);
        if (ch(P, st) == ':')
            return NULL;
        buf_add(P, P->s + q, e - q);
        end = e;
        if (!is_brk(ch(P, st))) {
            comment = true; /* a comment or the end of the text */
            break;
        }
        P->pos = st;
    }
    tl_ynode *n = scalar_at(P, i, line0, lstart0, P->buf, P->nbuf);
    if (!n)
        return NULL;
    n->plain = true;
    n->end = end;
    bool ok = comment ? end_line(P, end) : next_content(P);
    return ok ? n : NULL;
}

/* ---------------------------------------------------------------- flow */

static tl_ynode *flow_coll(yp *P, size_t i, size_t *after);

/* a node inside a flow collection at i; *after: the byte after it */
static tl_ynode *flow_node(yp *P, size_t i, size_t *after, bool key)
{
    int c = ch(P, i);
    if (c == '[' || c == '{') {
        if (key)
            return NULL;
        return flow_coll(P, i, after);
    }
    if (c == '\'' || c == '"')
        return quoted(P, i, after);
    if (!plain_start(P, i))
        return NULL;
    size_t stop, end;
    if (!scan_plain_flow(P, i, &end, &stop))
        return NULL;
    *after = stop;
    return plain_node(P, i, end);
}

/* a flow collection from its bracket at i, closed on this line */
static tl_ynode *flow_coll(yp *P, size_t i, size_t *after)
{
    bool map = P->s[i] == '{';
    int close = map ? '}' : ']';
    tl_ynode *n = open_coll(P, map ? TL_Y_MAP : TL_Y_SEQ, i);
    if (!n)
        return NULL;
    n->flow = true;
    size_t base = P->nkids;
    size_t j = skip_spaces(P, i + 1);
    if (ch(P, j) != close) {
        for (;;) {
            size_t a;
            tl_ynode *it = flow_node(P, j, &a, map);
            if (!it)
                return NULL;
            if (map && a - j > 1000)
                return NULL; /* no simple key */
            push(P, it);
            j = skip_spaces(P, a);
            if (ch(P, j) == ':') {
                if (!map || ch(P, j + 1) != ' ')
                    return NULL; /* a single-pair mapping in a sequence */
                j = skip_spaces(P, j + 1);
                tl_ynode *v = flow_node(P, j, &a, false);
                if (!v)
                    return NULL;
                push(P, v);
                j = skip_spaces(P, a);
            } else if (map) {
                return NULL; /* a key without a value */
            }
            if (ch(P, j) == ',') {
                j = skip_spaces(P, j + 1);
                if (ch(P, j) == close)
                    return NULL; /* a trailing comma */
                continue;
            }
            if (ch(P, j) == close)
                break;
            return NULL;
        }
    }
    n->end = j + 1;
    close_coll(P, n, base);
    *after = j + 1;
    return n;
}

/* ---------------------------------------------------------------- block */

static bool block_map(yp *P, size_t col, size_t kpos);
static bool block_seq(yp *P, size_t col, size_t dpos);

/* A key at i on this line, then its `:`; pushes the key, *mark: the byte
 * after the `:`. */
static bool map_key(yp *P, size_t i, size_t *mark)
{
    size_t colon;
    tl_ynode *k;
    int c = ch(P, i);
    if (c == '\'' || c == '"') {
        size_t a;
        k = quoted(P, i, &a);
        if (!k)
            return false;
        colon = skip_spaces(P, a);
    } else if (plain_start(P, i)) {
        size_t end = scan_plain_block(P, i, &colon);
        k = plain_node(P, i, end);
        if (!k)
            return false;
    } else {
        return false;
    }
    if (ch(P, colon) != ':' || !blankz(P, colon + 1) || colon - i > 1000)
        return false;
    push(P, k);
    *mark = colon + 1;
    return true;
}

/* The value after a `:` (CTX_MAPVAL) or a `-` (CTX_SEQITEM) whose end is
 * mark, in a collection at column ind; pushes it and ends at the next
 * content. */
static bool block_value(yp *P, size_t ind, size_t mark, ctx where)
{
    size_t mline = P->line, mlstart = P->lstart;
    size_t i = skip_spaces(P, mark);
    int c = ch(P, i);
    if (c == '\t')
        return false;
    if (c < 0 || is_brk(c) || c == '#') {
        if (!end_line(P, mark))
            return false;
        if (!P->eof) {
            if (dash_entry(P, P->cpos)) {
                if (P->ccol > ind || (P->ccol == ind && where == CTX_MAPVAL))
                    return block_seq(P, P->ccol, P->cpos);
            } else if (P->ccol > ind) {
                return block_map(P, P->ccol, P->cpos);
            }
        }
        tl_ynode *n = scalar_at(P, mark, mline, mlstart, "", 0);
        if (!n)
            return false;
        n->plain = true;
        push(P, n);
        return true;
    }
    if (dash_entry(P, i)) {
        if (where != CTX_SEQITEM)
            return false;
        return block_seq(P, ycol(P, i), i);
    }
    if (c == '|' || c == '>') {
        tl_ynode *b = block_scalar(P, i, ind);
        if (!b)
            return false;
        push(P, b);
        return true;
    }
    size_t a;
    if (c == '[' || c == '{') {
        tl_ynode *f = flow_coll(P, i, &a);
        if (!f)
            return false;
        push(P, f);
        return end_line(P, a);
    }
    if (c == '\'' || c == '"') {
        tl_ynode *q = quoted(P, i, &a);
        if (!q)
            return false;
        size_t j = skip_spaces(P, a);
        if (ch(P, j) == ':') {
            if (where != CTX_SEQITEM)
                return false;
            P->nodes--; /* map_key reads it again */
            return block_map(P, ycol(P, i), i);
        }
        push(P, q);
        return end_line(P, a);
    }
    if (!plain_start(P, i))
        return false;
    size_t stop, end = scan_plain_block(P, i, &stop);
    if (ch(P, stop) == ':') {
        if (where != CTX_SEQITEM)
            return false;
        return block_map(P, ycol(P, i), i);
    }
    tl_ynode *v = is_brk(ch(P, stop)) ? plain_lines(P, i, end, stop, ind) : plain_node(P, i, end);
    if (!v)
        return false;
    push(P, v);
    return is_brk(ch(P, stop)) || end_line(P, end);
}

/* A block mapping at column col whose first key is at kpos (this line). */
static bool block_map(yp *P, size_t col, size_t kpos)
{
    tl_ynode *m = open_coll(P, TL_Y_MAP, kpos);
    if (!m)
        return false;
    size_t base = P->nkids;
    for (;;) {
        size_t mark;
        if (!map_key(P, kpos, &mark) || !block_value(P, col, mark, CTX_MAPVAL))
            return false;
        if (P->eof || P->ccol < col)
            break;
        if (P->ccol > col || dash_entry(P, P->cpos))
            return false;
        kpos = P->cpos;
    }
    close_coll(P, m, base);
    push(P, m);
    return true;
}

/* A block sequence at column col whose first `-` is at dpos (this line);
 * also an indentless one (items at the column of the mapping it is in). */
static bool block_seq(yp *P, size_t col, size_t dpos)
{
    tl_ynode *s = open_coll(P, TL_Y_SEQ, dpos);
    if (!s)
        return false;
    size_t base = P->nkids;
    for (;;) {
        if (!block_value(P, col, dpos + 1, CTX_SEQITEM))
            return false;
        if (P->eof || P->ccol < col)
            break;
        if (P->ccol > col)
            return false;
        if (!dash_entry(P, P->cpos))
            break; /* an indentless sequence's mapping goes on */
        dpos = P->cpos;
    }
    close_coll(P, s, base);
    push(P, s);
    return true;
}

/* ---------------------------------------------------------------- entry */

static tl_ynode *parse(yp *P)
{
    if (memchr(P->s, 0, P->len))
        return NULL;
    if (P->len >= 3 && !memcmp(P->s, "\xEF\xBB\xBF", 3))
        P->bom = 3;
    P->has_cr = memchr(P->s, '\r', P->len) != NULL;
    P->pos = P->bom;
    P->doc_start = true;
    bool ok = next_content(P);
    P->doc_start = false;
    if (!ok || P->eof)
        return NULL;
    if (P->ccol == 0 && P->cpos + 3 <= P->len && !memcmp(P->s + P->cpos, "---", 3) &&
        blankz(P, P->cpos + 3)) {
        /* `---` alone on its line (a comment may follow) */
        size_t e = skip_spaces(P, P->cpos + 3);
        if (ch(P, e) == '#' && e > P->cpos + 3)
            while (e < P->len && !is_brk(ch(P, e)))
                e++;
        if (e < P->len && !is_brk(ch(P, e)))
            return NULL;
        P->pos = e;
        if (e < P->len)
            skip_break(P);
        if (!next_content(P) || P->eof)
            return NULL;
    }
    ok = dash_entry(P, P->cpos) ? block_seq(P, P->ccol, P->cpos)
                                : block_map(P, P->ccol, P->cpos);
    if (!ok || !P->eof || P->nkids != 1)
        return NULL;
    return P->kids[0];
}

tl_ynode *tl_yfast_parse(const char *text, size_t len, size_t max_nodes, int max_depth,
                         tl_arena_block **arena)
{
    yp *P = tl_xcalloc(1, sizeof *P);
    P->s = text;
    P->len = len;
    P->max_nodes = max_nodes;
    P->max_depth = max_depth;
    tl_ynode *root = parse(P);
    if (root)
        *arena = P->arena;
    else
        tl_arena_free(P->arena);
    free(P->kids);
    free(P->buf);
    free(P);
    return root;
}
