/* lab.c - loading and validating lab files (SPEC 3, 7).
 *
 * Pipeline: read the file (<= 1 MiB) -> byte checks (UTF-8, NUL, tabs in
 * indentation; the line table on the way) -> a tl_ynode tree: first the
 * one-pass front end for the lab files' subset (yaml_fast.c), and where it
 * declines, libyaml's events (anchors and aliases refused, depth and node
 * count bounded; every YAML error is libyaml's) -> validation into tl_lab.
 *
 * Invariants:
 *   - every node carries its 1-based line/col and byte range; libyaml marks
 *     count characters (mark.index), so a character -> byte table and a
 *     line-start table, both built once, turn a mark into a byte offset and
 *     a byte column in O(1): the loader is linear in the file's size;
 *   - lines are counted as libyaml counts them: LF, CR LF and a lone CR
 *     each end one line (tl_diag_break_len); NEL, U+2028 and U+2029, which
 *     libyaml also counts, are refused, so every tool agrees on a line;
 *   - any error stops loading with ONE located message; nothing partial is
 *     returned (the lab is freed);
 *   - strings in the lab are owned copies; nodes are owned by lab->root.
 */
#include "lab.h"
#include "mccat.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include "platform.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "arena.h"
#include "dtype.h"
#include "escape.h"
#include "vargen.h"
#include "yaml_fast.h"

/* ------------------------------------------------------------------ kinds */

static const char *const kind_names[] = {
    "", "view", "copy", "alias", "error", "sometimes", "value", "mixed"};

const char *tl_lab_feedback_name(tl_lab_feedback f)
{
    return f == TL_FEEDBACK_WRONG_OPS ? "wrong-ops" : f == TL_FEEDBACK_SCORE_ONLY ? "score-only"
                                                                                 : "full";
}

const char *tl_lab_visibility_name(tl_lab_visibility v)
{
    return v == TL_VIS_HIDDEN ? "hidden" : v == TL_VIS_AFTER_PUBLISHED ? "after_published"
                                                                        : "after_due_date";
}

const char *tl_kind_name(tl_kind k)
{
    if ((int)k < 0 || (size_t)k >= TL_ARRAY_LEN(kind_names))
        return "";
    return kind_names[k];
}

bool tl_kind_from_name(const char *s, tl_kind *out)
{
    for (size_t i = 1; i < TL_ARRAY_LEN(kind_names); i++)
        if (strcmp(s, kind_names[i]) == 0) {
            *out = (tl_kind)i;
            return true;
        }
    return false;
}

/* ---------------------------------------------------------------- context */

typedef struct loader {
    const char *file;
    const char *text;
    size_t len;
    size_t *line_start; /* byte offset of each line */
    size_t nlines;
    uint32_t *char_byte; /* byte offset of each character (libyaml's index) */
    size_t nchars;
    bool ascii;          /* no byte >= 0x80 (scan_bytes): then no BOM, and a
                          * character index is its byte offset (no char_byte) */
    size_t nodes;
    tl_lab_err *err;
    tl_ynode *root;     /* owned until handed to the lab */
    tl_lab *lab;        /* being validated; freed on failure */
    bool have_parser;
    yaml_parser_t parser;
    bool have_event;
    bool in_scan;       /* in the byte checks: the text may not be text */
    yaml_event_t event;
    void *seen;         /* id table during validation; freed on failure */
    uint32_t *keys;     /* check_keys' index of a large mapping; freed on failure */
    bool lenient_keys;  /* unknown keys are warnings (top level only) */
    tl_buf warnings;    /* "FILE:LINE:COL: warning: ..." lines */
    tl_buf errors;      /* malformed predictions' diagnostics (lab->errors) */
    bool color;         /* for those diagnostics */
} loader;

static void set_err(tl_lab_err *e, int line, int col, const char *fmt, va_list ap)
{
    e->line = line;
    e->col = col;
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    if (n >= (int)sizeof e->msg) {
        /* a long quote from the sheet: cut on a character boundary */
        size_t k = sizeof e->msg - 4;
        while (k > 0 && ((unsigned char)e->msg[k] & 0xC0) == 0x80)
            k--;
        memcpy(e->msg + k, "...", 4);
    }
}

/* Errors are values (no setjmp: wasi-libc has none): failat records the
 * one located error and returns false, which every fallible step returns
 * to its caller (TRY) up to load(), or to read_prediction for a malformed
 * prediction. Whatever a step allocated before failing is already owned
 * by L or the lab, so the one cleanup in load() frees it. */
static bool failat(loader *L, int line, int col, const char *fmt, ...) TL_PRINTF(4, 5);
static bool failat(loader *L, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_err(L->err, line, col, fmt, ap);
    va_end(ap);
    return false;
}

#define TRY(step)         \
    do {                  \
        if (!(step))      \
            return false; \
    } while (0)

#define FAILN(L, node, ...) failat((L), (node)->line, (node)->col, __VA_ARGS__)

static void render_err_as(tl_lab_err *err, const char *file, const char *text, size_t len,
                          bool color, bool excerpt);

/* byte offset of a libyaml mark: O(1) through the character table */
static size_t mark_byte(const loader *L, const yaml_mark_t *m)
{
    if (L->ascii)
        return m->index < L->len ? m->index : L->len;
    if (!L->char_byte || m->index >= L->nchars)
        return L->len;
    return L->char_byte[m->index];
}

/* ---------------------------------------------------------- byte checks */

/* a line starts at byte i (the line table: LF, CR LF and CR end a line) */
static void add_line(loader *L, size_t *cap, size_t i)
{
    if (L->nlines == *cap) {
        *cap *= 2;
        L->line_start = tl_xrealloc(L->line_start, *cap * sizeof *L->line_start);
    }
    L->line_start[L->nlines++] = i;
}

/* The byte checks, and the line table on the way (NEL, U+2028 and U+2029
 * are refused here, so a line ends at LF, CR LF or CR only). */
static bool scan_bytes(loader *L)
{
    size_t line = 1, col = 1;
    bool at_indent = true, ascii = true;
    const unsigned char *s = (const unsigned char *)L->text;
    size_t cap = 64;
    L->line_start = tl_xmalloc(cap * sizeof *L->line_start);
    L->nlines = 0;
    add_line(L, &cap, 0);
    for (size_t i = 0; i < L->len;) {
        unsigned c = s[i];
        size_t w = 1;
        if (c == ' ') { /* indentation and blanks between words */
            i++;
            col++;
            continue;
        }
        if (c == '\n') {
            i++;
            add_line(L, &cap, i);
            line++;
            col = 1;
            at_indent = true;
            continue;
        }
        if (c > 0x20 && c < 0x7F) {
            /* the common case: a run of printable ASCII (spaces inside it) */
            size_t j = i + 1;
            /* eight bytes at a time while none is below 0x20 or above
             * 0x7E (the has-less-than and high-bit tests of each byte) */
            const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
            while (j + 8 <= L->len) {
                uint64_t w;
                memcpy(&w, s + j, 8);
                if (((w - 0x20 * ones) & ~w & high) || ((w | (w + ones)) & high))
                    break;
                j += 8;
            }
            while (j < L->len && s[j] >= 0x20 && s[j] < 0x7F)
                j++;
            col += j - i;
            at_indent = false;
            i = j;
            continue;
        }
        if (c >= 0x80)
            ascii = false;
        if (c == 0)
            return failat(L, (int)line, (int)col, "NUL byte in file (a lab file is UTF-8 text)");
        if (c >= 0x80) {
            unsigned cp;
            if (c >= 0xC2 && c <= 0xDF) { w = 2; cp = c & 0x1F; }
            else if (c >= 0xE0 && c <= 0xEF) { w = 3; cp = c & 0x0F; }
            else if (c >= 0xF0 && c <= 0xF4) { w = 4; cp = c & 0x07; }
            else
                return failat(L, (int)line, (int)col, "invalid UTF-8 byte 0x%02x (a lab file is UTF-8 text)", c);
            if (i + w > L->len)
                return failat(L, (int)line, (int)col, "truncated UTF-8 sequence (a lab file is UTF-8 text)");
            for (size_t k = 1; k < w; k++) {
                if ((s[i + k] & 0xC0) != 0x80)
                    return failat(L, (int)line, (int)col, "invalid UTF-8 sequence (a lab file is UTF-8 text)");
                cp = (cp << 6) | (s[i + k] & 0x3F);
            }
            if ((w == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
                (w == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
                return failat(L, (int)line, (int)col, "invalid UTF-8 sequence (a lab file is UTF-8 text)");
            if (cp == 0x85 || cp == 0x2028 || cp == 0x2029)
                return failat(L, (int)line, (int)col,
                       "line break U+%04X in the file (end lines with a newline)", cp);
            if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF ||
                (cp == 0xFEFF && i > 0))
                return failat(L, (int)line, (int)col, "control character U+%04X in the file", cp);
        }
        /* what libyaml refuses anyway ("control characters are not
         * allowed"), here with its position */
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
            return failat(L, (int)line, (int)col, "control character 0x%02x in the file", c);
        if (c == '\t' && at_indent)
            return failat(L, (int)line, (int)col,
                   "tab character in indentation (YAML indents with spaces)");
        size_t br = tl_diag_break_len(L->text, L->len, i);
        if (br) {
            line++;
            col = 1;
            at_indent = true;
            i += br;
            add_line(L, &cap, i);
            continue;
        } else {
            if (c != ' ' && c != '\t')
                at_indent = false;
            col += w; /* byte columns, as diag.c prints them */
        }
        i += w;
    }
    L->ascii = ascii;
    return true;
}

/* A leading UTF-8 BOM: 3, else 0. libyaml is given the text after it. With
 * the encoding set explicitly (yaml_parser_set_encoding) libyaml does not
 * strip a BOM itself: it counted it as character 0 and then as column 0,
 * so `tlab: 1` sat at column 1 and the next key ended the mapping; and
 * offsets were one byte late (found by tests/fuzz/fuzz_lab: `tlab new`
 * wrote `predict:: ~` for a sheet with a BOM). */
static size_t bom_len(const loader *L)
{
    const unsigned char *s = (const unsigned char *)L->text;
    return L->len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF ? 3 : 0;
}

/* Character index (libyaml's mark.index, from after the BOM; CR LF is two
 * characters) -> byte offset in the file, once; the text is valid UTF-8. */
static void build_chars(loader *L)
{
    if (L->ascii)
        return; /* mark_byte: a character index is its byte offset */
    const unsigned char *s = (const unsigned char *)L->text;
    size_t i = bom_len(L);
    uint32_t *cb = tl_xmalloc((L->len + 1) * sizeof *cb);
    size_t n = 0;
    for (; i < L->len; i++)
        if ((s[i] & 0xC0) != 0x80)
            cb[n++] = (uint32_t)i;
    cb[n] = (uint32_t)L->len;
    L->char_byte = cb;
    L->nchars = n + 1; /* the end of the text is a valid mark too */
}

/* ------------------------------------------------------------- event tree */

/* 1-based byte column of a libyaml mark (marks count characters) */
static int mark_col(const loader *L, const yaml_mark_t *m)
{
    size_t b = mark_byte(L, m);
    if (m->line >= L->nlines || L->line_start[m->line] > b)
        return (int)m->column + 1;
    return (int)(b - L->line_start[m->line]) + 1;
}

static int ev_line(const yaml_event_t *e) { return (int)e->start_mark.line + 1; }
#define ev_col(e) mark_col(L, &(e)->start_mark)

/* A libyaml error on a line of free text (`rule:`, `answer:`, `prompt:`,
 * `explanation:`, `title:`): most often an unquoted ': ' or ' #' in the
 * text. Fills hint with advice and returns true. Scans the text itself
 * (an error path: linear once). */
static bool free_text_hint(const loader *L, size_t line0, char *hint, size_t cap)
{
    static const char *const keys[] = {"rule", "answer", "prompt", "explanation", "title"};
    /* the line table counts breaks as libyaml does (CR, LF, CR LF) */
    const char *end = L->text + L->len;
    const char *p = line0 < L->nlines ? L->text + L->line_start[line0] : end;
    while (p < end && *p == ' ')
        p++;
    if (p + 1 < end && *p == '-' && p[1] == ' ')
        for (p++; p < end && *p == ' ';)
            p++;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        size_t kl = strlen(keys[k]);
        if ((size_t)(end - p) > kl && !strncmp(p, keys[k], kl) && p[kl] == ':') {
            snprintf(hint, cap, "; the '%s:' text needs quotes: quote this text, e.g. "
                     "%s: \"view: shares x's storage\"", keys[k], keys[k]);
            return true;
        }
    }
    return false;
}

static bool next_event(loader *L)
{
    if (L->have_event) {
        yaml_event_delete(&L->event);
        L->have_event = false;
    }
    if (!yaml_parser_parse(&L->parser, &L->event)) {
        const yaml_parser_t *p = &L->parser;
        if (p->error == YAML_READER_ERROR) {
            /* the reader reports a byte offset, not a mark */
            size_t off = p->problem_offset + bom_len(L);
            if (off > L->len)
                off = L->len;
            size_t lo = 0, hi = L->nlines;
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if (L->line_start[mid] <= off)
                    lo = mid;
                else
                    hi = mid;
            }
            return failat(L, (int)lo + 1, (int)(off - L->line_start[lo]) + 1, "invalid YAML: %s",
                   p->problem ? p->problem : "unreadable text");
        }
        char hint[200];
        if (free_text_hint(L, p->problem_mark.line, hint, sizeof hint))
            return failat(L, (int)p->problem_mark.line + 1, mark_col(L, &p->problem_mark),
                   "invalid YAML: %s%s", p->problem ? p->problem : "syntax error", hint);
        if (p->context)
            return failat(L, (int)p->problem_mark.line + 1, mark_col(L, &p->problem_mark),
                   "invalid YAML: %s %s at line %zu",
                   p->problem ? p->problem : "syntax error", p->context,
                   p->context_mark.line + 1);
        return failat(L, (int)p->problem_mark.line + 1, mark_col(L, &p->problem_mark),
               "invalid YAML: %s", p->problem ? p->problem : "syntax error");
    }
    L->have_event = true;
    return true;
}

static tl_ynode *new_node(loader *L, tl_ykind kind)
{
    const yaml_event_t *e = &L->event;
    if (++L->nodes > TL_LAB_MAX_NODES) {
        failat(L, ev_line(e), ev_col(e), "too many YAML nodes (more than %d)",
               TL_LAB_MAX_NODES);
        return NULL;
    }
    tl_ynode *n = tl_arena_alloc(&L->lab->arena, sizeof *n);
    n->kind = kind;
    n->line = ev_line(e);
    n->col = ev_col(e);
    n->start = mark_byte(L, &e->start_mark);
    n->end = mark_byte(L, &e->end_mark);
    return n;
}

typedef struct frame {
    tl_ynode *node;
    size_t cap, used;
} frame;

static void attach(loader *L, frame *f, tl_ynode *child)
{
    if (f->used == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 8;
        tl_ynode **items = tl_arena_alloc(&L->lab->arena, f->cap * sizeof *items);
        if (f->used)
            memcpy(items, f->node->items, f->used * sizeof *items);
        f->node->items = items;
    }
    f->node->items[f->used++] = child;
    f->node->nslots = f->used;
    f->node->n = f->node->kind == TL_Y_MAP ? f->used / 2 : f->used;
}

static bool build_tree(loader *L)
{
    frame stack[TL_LAB_MAX_DEPTH + 2];
    int depth = 0; /* number of open collections */
    int docs = 0;
    bool done = false;
    size_t events = 0;
    while (!done) {
        TRY(next_event(L));
        const yaml_event_t *e = &L->event;
        /* `tlab grade`: one submission costs at most --sheet-timeout */
        if ((++events & 255) == 0 && tl_budget_passed()) {
            char msg[160];
            tl_deadline_message(msg, sizeof msg, 0);
            return failat(L, ev_line(e), ev_col(e), "%s while loading the file", msg);
        }
        const yaml_char_t *anchor = NULL;
        tl_ynode *n = NULL;
        switch (e->type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            continue;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                return failat(L, ev_line(e), ev_col(e),
                       "a lab file holds one YAML document, found a second");
            continue;
        case YAML_STREAM_END_EVENT:
            done = true;
            continue;
        case YAML_ALIAS_EVENT:
            return failat(L, ev_line(e), ev_col(e),
                   "YAML aliases (*%s) are not allowed in a lab file",
                   (const char *)e->data.alias.anchor);
        case YAML_SCALAR_EVENT:
            anchor = e->data.scalar.anchor;
            break;
        case YAML_SEQUENCE_START_EVENT:
            anchor = e->data.sequence_start.anchor;
            break;
        case YAML_MAPPING_START_EVENT:
            anchor = e->data.mapping_start.anchor;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            TL_ASSERT(depth > 0);
            frame *f = &stack[--depth];
            /* a block collection's end mark lies at the next token; keep
             * the end of its last child instead */
            if (f->node->flow)
                f->node->end = mark_byte(L, &e->end_mark);
            else if (f->used > 0)
                f->node->end = f->node->items[f->used - 1]->end;
            if (f->node->kind == TL_Y_MAP && f->used % 2)
                return failat(L, f->node->line, f->node->col, "invalid YAML mapping");
            continue;
        }
        default:
            return failat(L, ev_line(e), ev_col(e), "unexpected YAML event");
        }
        if (anchor)
            return failat(L, ev_line(e), ev_col(e),
                   "YAML anchors (&%s) are not allowed in a lab file",
                   (const char *)anchor);
        if (e->type == YAML_SCALAR_EVENT) {
            n = new_node(L, TL_Y_SCALAR);
            if (!n)
                return false;
            n->value = tl_arena_alloc(&L->lab->arena, e->data.scalar.length + 1);
            memcpy(n->value, e->data.scalar.value, e->data.scalar.length);
            n->len = e->data.scalar.length;
            yaml_scalar_style_t st = e->data.scalar.style;
            n->plain = st == YAML_PLAIN_SCALAR_STYLE || st == YAML_ANY_SCALAR_STYLE;
            n->block_scalar = st == YAML_LITERAL_SCALAR_STYLE ||
                              st == YAML_FOLDED_SCALAR_STYLE;
        } else {
            n = new_node(L, e->type == YAML_SEQUENCE_START_EVENT ? TL_Y_SEQ : TL_Y_MAP);
            if (!n)
                return false;
            n->flow = e->type == YAML_SEQUENCE_START_EVENT
                          ? e->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                          : e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        }
        if (depth == 0) {
            if (L->root) /* cannot happen with one document */
                return failat(L, ev_line(e), ev_col(e), "unexpected second root node");
            L->root = n;
        } else {
            attach(L, &stack[depth - 1], n);
        }
        if (n->kind != TL_Y_SCALAR) {
            if (depth >= TL_LAB_MAX_DEPTH)
                return failat(L, n->line, n->col, "YAML nested deeper than %d levels",
                       TL_LAB_MAX_DEPTH);
            stack[depth].node = n;
            stack[depth].cap = 0;
            stack[depth].used = 0;
            depth++;
        }
        if (n->kind == TL_Y_SCALAR && n->len != strlen(n->value))
            return failat(L, n->line, n->col, "NUL character in a YAML scalar");
    }
    return true;
}

/* -------------------------------------------------------------- node API */

/* strcmp(a, b) == 0 without a call: keys mostly differ at the first byte */
static inline bool same(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

const tl_ynode *tl_ynode_get(const tl_ynode *map, const char *key)
{
    if (!map || map->kind != TL_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        const tl_ynode *k = map->items[2 * i];
        if (k->kind == TL_Y_SCALAR && same(k->value, key))
            return map->items[2 * i + 1];
    }
    return NULL;
}

bool tl_ynode_is_null(const tl_ynode *n)
{
    if (!n)
        return true;
    if (n->kind != TL_Y_SCALAR || !n->plain)
        return false;
    const char *v = n->value;
    switch (n->len) {
    case 0: return true;
    case 1: return v[0] == '~';
    case 4: return same(v, "null") || same(v, "Null") || same(v, "NULL");
    default: return false;
    }
}

bool tl_ynode_equal(const tl_ynode *a, const tl_ynode *b)
{
    if (!a || !b)
        return a == b;
    if (tl_ynode_is_null(a) && tl_ynode_is_null(b))
        return true;
    if (a->kind != b->kind || a->n != b->n)
        return false;
    if (a->kind == TL_Y_SCALAR)
        return a->len == b->len && memcmp(a->value, b->value, a->len) == 0;
    size_t cnt = a->kind == TL_Y_MAP ? 2 * a->n : a->n;
    for (size_t i = 0; i < cnt; i++)
        if (!tl_ynode_equal(a->items[i], b->items[i]))
            return false;
    return true;
}

/* ------------------------------------------------------- scalar helpers */

static const char *node_desc(const tl_ynode *n)
{
    switch (n->kind) {
    case TL_Y_SCALAR: return "a scalar";
    case TL_Y_SEQ: return "a list";
    default: return "a mapping";
    }
}

/* The known word nearest to `word` (case-insensitive), or NULL. */
static const char *closest(const char *word, const char *const *cands)
{
    size_t n = 0;
    while (cands[n])
        n++;
    return tl_suggest(word, cands, n, TL_SUGGEST_FOLD_CASE | TL_SUGGEST_FIRST);
}

static void join_words(char *buf, size_t cap, const char *const *words)
{
    buf[0] = 0;
    size_t used = 0;
    for (size_t i = 0; words[i]; i++) {
        int k = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", words[i]);
        if (k < 0 || (size_t)k >= cap - used)
            break;
        used += (size_t)k;
    }
}

/* A key that can be a note of the student's (student: Alice), not YAML
 * machinery such as the merge key '<<'. */
static bool plain_word(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return false;
    return true;
}

/* Keys of a mapping: scalars, no duplicates, all known (at the top level,
 * an unknown plain word is a warning). */
/* A key as shown in a message: controls escaped, at most 64 bytes
 * (thread-local: loaders run in parallel under grade --jobs). */
static const char *key_text(const tl_ynode *k)
{
    static _Thread_local char buf[80];
    char *e = tl_escape_line_dup(k->value);
    snprintf(buf, sizeof buf, "%.64s%s", e, strlen(e) > 64 ? "..." : "");
    free(e);
    return buf;
}

/* The earlier key of map equal to key i, or -1: a scan of the few keys
 * of an op, a hash index (slot: key index + 1, at most half full) over a
 * mapping of many keys (a sheet of 100,000 unknown top-level keys compared
 * every key with every earlier one: 30 s; issue #28). */
static long earlier_key(const tl_ynode *map, size_t i, uint32_t *slot, size_t mask)
{
    const char *v = map->items[2 * i]->value;
    if (!slot) {
        for (size_t j = 0; j < i; j++)
            if (same(map->items[2 * j]->value, v))
                return (long)j;
        return -1;
    }
    size_t h = (size_t)tl_hash_bytes(v, strlen(v), 0) & mask;
    for (; slot[h]; h = (h + 1) & mask)
        if (same(map->items[2 * (slot[h] - 1)]->value, v))
            return (long)(slot[h] - 1);
    slot[h] = (uint32_t)(i + 1);
    return -1;
}

static bool check_keys(loader *L, const tl_ynode *map, const char *const *known,
                       const char *where)
{
    uint32_t *slot = NULL;
    size_t mask = 0;
    if (map->n > 16) {
        size_t ns = 64;
        while (ns < 2 * map->n)
            ns *= 2;
        slot = tl_xcalloc(ns, sizeof *slot);
        mask = ns - 1;
        L->keys = slot; /* freed on failure too */
    }
    for (size_t i = 0; i < map->n; i++) {
        const tl_ynode *k = map->items[2 * i];
        if (k->kind != TL_Y_SCALAR)
            return FAILN(L, k, "a key in %s must be a plain word, got %s", where, node_desc(k));
        /* `tlab grade`: loading, too, costs at most --sheet-timeout */
        if ((i & 255) == 255 && tl_budget_passed()) {
            char msg[160];
            tl_deadline_message(msg, sizeof msg, 0);
            return FAILN(L, k, "%s while loading the file", msg);
        }
        long j = earlier_key(map, i, slot, mask);
        if (j >= 0)
            return FAILN(L, k, "duplicate key '%s' in %s (first at line %d)", key_text(k), where,
                  map->items[2 * j]->line);
        bool ok = false;
        for (size_t j = 0; known[j]; j++)
            if (same(known[j], k->value))
                ok = true;
        if (!ok) {
            const char *sug = closest(k->value, known);
            /* a student's variant sheet (sheetvar.h) names its student */
            if (L->lenient_keys && same(k->value, "student") && tl_ynode_get(map, "variant"))
                continue;
            if (L->lenient_keys && !sug && plain_word(k->value)) {
                /* SPEC 3: an unknown top-level key (student: Alice) is a
                 * warning unless it looks like a misspelt known key */
                tl_buf_printf(&L->warnings, "%s:%d:%d: warning: unknown key '", L->file,
                              k->line, k->col);
                tl_escape_line(&L->warnings, k->value);
                tl_buf_printf(&L->warnings, "' in %s ignored\n", where);
                continue;
            }
            char list[300];
            join_words(list, sizeof list, known);
            if (sug)
                return FAILN(L, k, "unknown key '%s' in %s (did you mean '%s'?)", key_text(k),
                      where, sug);
            return FAILN(L, k, "unknown key '%s' in %s (known keys: %s)", key_text(k), where, list);
        }
    }
    free(slot);
    L->keys = NULL;
    return true;
}

static bool need_scalar(loader *L, const tl_ynode *n, const char *what)
{
    if (n->kind != TL_Y_SCALAR)
        return FAILN(L, n, "'%s' must be a scalar, got %s", what, node_desc(n));
    return true;
}

/* *out: the text of a scalar (owned); NULL when null/blank (if allow_null). */
static bool get_text(loader *L, const tl_ynode *n, const char *what, bool allow_null,
                     char **out)
{
    TRY(need_scalar(L, n, what));
    if (tl_ynode_is_null(n)) {
        if (!allow_null)
            return FAILN(L, n, "'%s' is empty", what);
        *out = NULL;
        return true;
    }
    *out = tl_xstrdup(n->value);
    return true;
}

/* An optional text: NULL when null or only blanks. */
static bool get_nonblank_text(loader *L, const tl_ynode *n, const char *what, char **out)
{
    char *s;
    TRY(get_text(L, n, what, true, &s));
    if (s && s[strspn(s, " \t\n\r")] == 0) {
        free(s);
        s = NULL;
    }
    *out = s;
    return true;
}

static bool parse_int(const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!isdigit((unsigned char)*p))
        return false;
    int64_t v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return false;
        v = v * 10 + (*p - '0');
    }
    if (*p)
        return false;
    *out = neg ? -v : v;
    return true;
}

static bool get_int(loader *L, const tl_ynode *n, const char *what, int64_t lo, int64_t hi,
                    int64_t *out)
{
    TRY(need_scalar(L, n, what));
    int64_t v;
    if (!n->plain || !parse_int(n->value, &v))
        return FAILN(L, n, "'%s' must be an integer, got '%s'", what, n->value);
    if (v < lo || v > hi)
        return FAILN(L, n, "'%s' must be between %lld and %lld, got %lld", what, (long long)lo,
              (long long)hi, (long long)v);
    *out = v;
    return true;
}

static bool parse_bool(const tl_ynode *n, bool *out)
{
    if (n->kind != TL_Y_SCALAR || !n->plain)
        return false;
    const char *v = n->value;
    if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
        *out = true;
        return true;
    }
    if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
        *out = false;
        return true;
    }
    return false;
}

static bool get_bool(loader *L, const tl_ynode *n, const char *what, bool *out)
{
    if (!parse_bool(n, out))
        return FAILN(L, n, "'%s' must be true or false, got %s", what,
              n->kind == TL_Y_SCALAR ? n->value : node_desc(n));
    return true;
}

/* A scalar or a list of scalars -> owned string array. */
static bool get_str_list(loader *L, const tl_ynode *n, const char *what, char ***out,
                         size_t *count)
{
    *out = NULL;
    *count = 0;
    if (tl_ynode_is_null(n))
        return true;
    if (n->kind == TL_Y_SCALAR) {
        *out = tl_xmalloc(sizeof **out);
        (*out)[0] = tl_xstrdup(n->value);
        *count = 1;
        return true;
    }
    if (n->kind != TL_Y_SEQ)
        return FAILN(L, n, "'%s' must be a list of words, got %s", what, node_desc(n));
    *out = tl_xcalloc(n->n ? n->n : 1, sizeof **out);
    for (size_t i = 0; i < n->n; i++) {
        const tl_ynode *it = n->items[i];
        if (it->kind != TL_Y_SCALAR || tl_ynode_is_null(it))
            return FAILN(L, it, "items of '%s' must be non-empty words", what);
        (*out)[i] = tl_xstrdup(it->value);
        *count = i + 1;
    }
    return true;
}

static void free_str_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Where op-language text of scalar n starts in the file. */
static void text_position(loader *L, const tl_ynode *n, int *line, int *col,
                          int *block_col)
{
    *block_col = 0;
    if (n->block_scalar) {
        /* content starts on the line after the indicator; its indentation
         * is that of the first non-blank content line */
        size_t ln = (size_t)n->line; /* 0-based index of the next line */
        int indent = 0;
        for (size_t l = ln; l < L->nlines; l++) {
            size_t p = L->line_start[l];
            int sp = 0;
            while (p < L->len && L->text[p] == ' ') {
                p++;
                sp++;
            }
            if (p < L->len && L->text[p] != '\n' && L->text[p] != '\r') {
                indent = sp;
                break;
            }
        }
        *line = n->line + 1;
        *col = indent + 1;
        *block_col = indent + 1;
        /* a folded scalar (>) joins its lines: offsets past the first
         * line do not map back to the file */
        if (n->start < L->len && L->text[n->start] == '>') {
            size_t nl = 0;
            for (size_t i = L->line_start[ln < L->nlines ? ln : L->nlines - 1];
                 i < n->end && i < L->len; i++) {
                size_t br = tl_diag_break_len(L->text, L->len, i);
                nl += br > 0;
                if (br == 2)
                    i++;
            }
            if (nl > 1)
                *block_col = -1;
        }
        return;
    }
    *line = n->line;
    *col = n->col + (n->plain ? 0 : 1);
    /* a quoted scalar with escapes ("a\nb") or any scalar folded over
     * several lines differs from its bytes in the file: its offsets do not
     * map back (diag.h: block_col < 0) */
    size_t q = n->plain ? 0 : 1;
    size_t a = n->start + q, b = n->end >= a + q ? n->end - q : a;
    if (b > L->len || b - a != n->len || memcmp(L->text + a, n->value, n->len) != 0)
        *block_col = -1;
}

/* ---------------------------------------------------------- predictions */

static const char *const pred_scalar_names[] = {"view", "copy", "alias", "error",
                                               "sometimes", NULL};
static const char *const pred_keys[] = {"kind", "shape", "stride", "offset",
                                       "contiguous", "dtype", "value", "error", NULL};
static const char *const accept_names[] = {"view", "copy", "alias", "error",
                                          "sometimes", "value", NULL};

static bool fail_prediction(loader *L, const tl_ynode *n, const char *got)
{
    const char *sug = got ? closest(got, pred_scalar_names) : NULL;
    char hint[64] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    return FAILN(L, n,
          "invalid prediction '%s'%s; valid predictions: view, copy, alias, error, "
          "sometimes, or a mapping {kind, shape, stride, offset, contiguous, dtype, "
          "value, error}",
          got ? got : node_desc(n), hint);
}

static bool int_list(loader *L, const tl_ynode *n, const char *what, int64_t **out,
                     int *count)
{
    if (n->kind != TL_Y_SEQ)
        return FAILN(L, n, "'%s' must be a list of integers like [2, 3], got %s", what,
              n->kind == TL_Y_SCALAR ? n->value : node_desc(n));
    if (n->n > 64)
        return FAILN(L, n, "'%s' has more than 64 dimensions", what);
    *out = tl_xcalloc(n->n ? n->n : 1, sizeof **out);
    *count = (int)n->n;
    for (size_t i = 0; i < n->n; i++)
        TRY(get_int(L, n->items[i], what, INT64_MIN / 2, INT64_MAX / 2, &(*out)[i]));
    return true;
}

static void ynode_flow(const tl_ynode *n, tl_buf *b)
{
    if (n->kind == TL_Y_SCALAR) {
        if (n->plain)
            tl_buf_puts(b, n->value);
        else {
            tl_buf_putc(b, '"');
            tl_buf_puts(b, n->value);
            tl_buf_putc(b, '"');
        }
        return;
    }
    bool map = n->kind == TL_Y_MAP;
    tl_buf_putc(b, map ? '{' : '[');
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            tl_buf_puts(b, ", ");
        if (map) {
            ynode_flow(n->items[2 * i], b);
            tl_buf_puts(b, ": ");
            ynode_flow(n->items[2 * i + 1], b);
        } else {
            ynode_flow(n->items[i], b);
        }
    }
    tl_buf_putc(b, map ? '}' : ']');
}

static void put_ints(tl_buf *b, const int64_t *v, int n)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
    tl_buf_putc(b, ']');
}

static bool parse_prediction(loader *L, const tl_ynode *n, tl_prediction *p)
{
    memset(p, 0, sizeof *p);
    if (!n || tl_ynode_is_null(n) || (n->kind == TL_Y_SCALAR && n->value[0] == 0)) {
        p->blank = true;
        return true;
    }
    if (n->kind == TL_Y_SCALAR) {
        char low[32];
        size_t k = 0;
        const char *s = n->value;
        while (*s == ' ')
            s++;
        for (; *s && k < sizeof low - 1; s++)
            low[k++] = (char)tolower((unsigned char)*s);
        while (k > 0 && low[k - 1] == ' ')
            k--;
        low[k] = 0;
        if (k == 0) {
            p->blank = true;
            return true;
        }
        tl_kind kd = TL_KIND_NONE;
        if (strlen(n->value) >= sizeof low || !tl_kind_from_name(low, &kd) ||
            kd == TL_KIND_VALUE || kd == TL_KIND_MIXED)
            return fail_prediction(L, n, n->value);
        p->kind = kd;
        p->text = tl_xstrdup(tl_kind_name(kd));
        return true;
    }
    if (n->kind == TL_Y_SEQ)
        return fail_prediction(L, n, NULL);
    TRY(check_keys(L, n, pred_keys, "a prediction"));
    p->mapping = true;
    bool any = false;
    for (size_t i = 0; i < n->n; i++) {
        const char *key = n->items[2 * i]->value;
        const tl_ynode *v = n->items[2 * i + 1];
        if (tl_ynode_is_null(v))
            continue;
        any = true;
        if (!strcmp(key, "kind")) {
            TRY(need_scalar(L, v, "kind"));
            tl_kind kd;
            if (!tl_kind_from_name(v->value, &kd) || kd == TL_KIND_MIXED) {
                const char *sug = closest(v->value, accept_names);
                return FAILN(L, v, "invalid kind '%s'%s%s%s; valid kinds: view, copy, alias, "
                      "error, sometimes, value", v->value, sug ? " (did you mean '" : "",
                      sug ? sug : "", sug ? "'?)" : "");
            }
            p->kind = kd;
        } else if (!strcmp(key, "shape")) {
            TRY(int_list(L, v, "shape", &p->shape, &p->shape_n));
            p->has_shape = true;
        } else if (!strcmp(key, "stride")) {
            TRY(int_list(L, v, "stride", &p->stride, &p->stride_n));
            p->has_stride = true;
        } else if (!strcmp(key, "offset")) {
            TRY(get_int(L, v, "offset", 0, INT64_MAX / 2, &p->offset));
            p->has_offset = true;
        } else if (!strcmp(key, "contiguous")) {
            TRY(get_bool(L, v, "contiguous", &p->contiguous));
            p->has_contiguous = true;
        } else if (!strcmp(key, "dtype")) {
            TRY(need_scalar(L, v, "dtype"));
            const char *s = v->value;
            if (!strncmp(s, "torch.", 6))
                s += 6;
            tl_dtype dt;
            if (!tl_dtype_from_name(s, &dt))
                return FAILN(L, v, "unknown dtype '%s' (e.g. float32, int64, bool)", v->value);
            p->dtype = tl_xstrdup(tl_dtype_name(dt));
            p->has_dtype = true;
        } else if (!strcmp(key, "value")) {
            if (v->kind == TL_Y_MAP)
                return FAILN(L, v, "'value' must be a scalar or a list, got a mapping");
            p->value = v;
            p->has_value = true;
        } else if (!strcmp(key, "error")) {
            TRY(need_scalar(L, v, "error"));
            p->error = tl_xstrdup(v->value);
            p->has_error = true;
        }
    }
    if (!any) {
        p->blank = true;
        p->mapping = false;
        return true;
    }
    bool tensor_fields = p->has_shape || p->has_stride || p->has_offset ||
                         p->has_contiguous || p->has_dtype;
    /* SPEC 3: kind is required for a tensor op; {value: ...} (a non-tensor
     * result) and {error: T} name theirs. Fields alone would be graded on
     * the fields only: four right dtypes, 4/4 without one view/copy answer
     * (issue #28.1). */
    if (p->kind == TL_KIND_NONE && !p->has_value && !p->has_error)
        return FAILN(L, n, "a prediction mapping must name its kind (kind: view, copy, alias, "
              "error or sometimes; {value: ...} for a result that is not a tensor)");
    if (p->has_value) {
        if (p->kind == TL_KIND_NONE)
            p->kind = TL_KIND_VALUE;
        if (p->kind != TL_KIND_VALUE || tensor_fields || p->has_error)
            return FAILN(L, n, "a prediction with 'value' is for a non-tensor result: "
                  "use kind: value and no tensor fields");
    }
    if (p->has_error) {
        if (p->kind == TL_KIND_NONE)
            p->kind = TL_KIND_ERROR;
        if (p->kind != TL_KIND_ERROR || tensor_fields)
            return FAILN(L, n, "a prediction with 'error' must have kind: error and no tensor fields");
    }
    if (tensor_fields && (p->kind == TL_KIND_VALUE || p->kind == TL_KIND_ERROR))
        return FAILN(L, n, "kind: %s predicts no tensor, so shape/stride/offset/contiguous/dtype "
              "do not apply", tl_kind_name(p->kind));
    tl_buf b = {0};
    tl_buf_putc(&b, '{');
    const char *sep = "";
#define SEP() (tl_buf_puts(&b, sep), sep = ", ")
    if (p->kind != TL_KIND_NONE) {
        SEP();
        tl_buf_printf(&b, "kind: %s", tl_kind_name(p->kind));
    }
    if (p->has_shape) {
        SEP();
        tl_buf_puts(&b, "shape: ");
        put_ints(&b, p->shape, p->shape_n);
    }
    if (p->has_stride) {
        SEP();
        tl_buf_puts(&b, "stride: ");
        put_ints(&b, p->stride, p->stride_n);
    }
    if (p->has_offset) {
        SEP();
        tl_buf_printf(&b, "offset: %lld", (long long)p->offset);
    }
    if (p->has_contiguous) {
        SEP();
        tl_buf_printf(&b, "contiguous: %s", p->contiguous ? "true" : "false");
    }
    if (p->has_dtype) {
        SEP();
        tl_buf_printf(&b, "dtype: %s", p->dtype);
    }
    if (p->has_value) {
        SEP();
        tl_buf_puts(&b, "value: ");
        ynode_flow(p->value, &b);
    }
    if (p->has_error) {
        SEP();
        tl_buf_printf(&b, "error: %s", p->error);
    }
#undef SEP
    tl_buf_putc(&b, '}');
    p->text = tl_buf_steal(&b);
    return true;
}

static void free_prediction(tl_prediction *p)
{
    free(p->shape);
    free(p->stride);
    free(p->dtype);
    free(p->error);
    free(p->text);
    free(p->bad_msg);
}

/* An op's prediction. A malformed one does not stop the loader (SPEC 3:
 * that op scores 0 with its located message, the rest of the sheet is
 * graded): its failure lands in pred_fail instead of fail, the prediction
 * keeps the text as written and the one-line message, and the rendered
 * diagnostic goes to lab->errors. Everything else wrong in the sheet
 * (types elsewhere, duplicate ids, a missing op) still fails it. */
static void read_prediction(loader *L, const tl_ynode *n, tl_prediction *p)
{
    if (parse_prediction(L, n, p))
        return;
    free(L->keys); /* check_keys' index, when it failed there */
    L->keys = NULL;
    free_prediction(p);
    memset(p, 0, sizeof *p);
    p->malformed = true;
    p->bad_line = L->err->line;
    p->bad_col = L->err->col;
    tl_buf t = {0};
    ynode_flow(n, &t);
    if (t.len > 120) { /* the display form, cut on a character boundary */
        size_t k = 117;
        while (k > 0 && ((unsigned char)t.data[k] & 0xC0) == 0x80)
            k--;
        t.len = k;
        tl_buf_puts(&t, "...");
    }
    p->text = tl_buf_steal(&t);
    tl_lab_err e = *L->err;
    e.rendered = NULL;
    render_err_as(&e, L->file, L->text, L->len, false, false);
    const char *nl = strchr(e.rendered, '\n');
    p->bad_msg = nl ? tl_xstrndup(e.rendered, (size_t)(nl - e.rendered))
                    : tl_xstrdup(e.rendered);
    render_err_as(&e, L->file, L->text, L->len, L->color, false);
    tl_buf_puts(&L->errors, e.rendered);
    tl_lab_err_free(&e);
    memset(L->err, 0, sizeof *L->err);
}

/* ------------------------------------------------------------ validation */

static const char *const top_keys[] = {"tlab", "id", "title", "device", "threshold",
                                      "setup", "parent", "ops", "questions", "rules",
                                      "classify", "classify_points", "feedback",
                                      "visibility", "variants", "variant", "tag",
                                      "misconceptions", NULL};
static const char *const variant_keys[] = {"name", "setup", NULL};
static const char *const generator_keys[] = {"generate", NULL};
static const char *const op_keys[] = {"id", "op", "predict", "rule", "points",
                                     "accept", "explanation", "misconceptions", NULL};
static const char *const q_keys[] = {"id", "prompt", "answer", "mention_any",
                                    "reject", "min_words", "points", NULL};
static const char *const rules_keys[] = {"required", "reject", "points", NULL};

/* The ids seen so far, with a hash index (open addressing, at most half
 * full): a sheet of 1000 ops compared every id with every earlier one. One
 * block holds the set, its entries and its slots. */
typedef struct idseen {
    const char *id;
    int line;
} idseen;

typedef struct idset {
    idseen *seen;
    size_t n;
    uint32_t *slot; /* index + 1 into seen; 0: empty */
    size_t mask;
} idset;

static idset *idset_new(size_t cap)
{
    size_t nslots = 16;
    while (nslots < 2 * cap)
        nslots *= 2;
    idset *s = tl_xcalloc(1, sizeof *s + cap * sizeof(idseen) + nslots * sizeof(uint32_t));
    s->seen = (idseen *)(s + 1);
    s->slot = (uint32_t *)(s->seen + cap);
    s->mask = nslots - 1;
    return s;
}

/* Fails on a duplicate, else records id (owned by the lab) at line. */
static bool check_id(loader *L, const tl_ynode *n, const char *id, int line, idset *set)
{
    size_t i = (size_t)tl_hash_bytes(id, strlen(id), 0) & set->mask;
    for (; set->slot[i]; i = (i + 1) & set->mask) {
        const idseen *e = &set->seen[set->slot[i] - 1];
        if (same(e->id, id))
            return FAILN(L, n, "duplicate id '%s' (already used at line %d)", id, e->line);
    }
    set->seen[set->n].id = id;
    set->seen[set->n].line = line;
    set->slot[i] = (uint32_t)++set->n;
    return true;
}

/* The id of an op or question `item`: its 'id:', else prefix + number
 * ("3", "q2"); stored in *id (owned by the lab) before it is checked
 * against the ids seen, then recorded there. */
static bool take_id(loader *L, const tl_ynode *item, const char *prefix, size_t number,
                    char **id, idset *set)
{
    const tl_ynode *n = tl_ynode_get(item, "id");
    if (n && !tl_ynode_is_null(n)) {
        TRY(get_text(L, n, "id", false, id));
        TRY(check_id(L, n, *id, n->line, set));
    } else {
        char buf[32];
        snprintf(buf, sizeof buf, "%s%zu", prefix, number);
        *id = tl_xstrdup(buf);
        TRY(check_id(L, item, *id, item->line, set));
    }
    return true;
}

static bool is_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}


/* The full setup of a variant: the lab's, then the variant's. */
static char *variant_full_setup(const tl_lab *lab, const char *setup)
{
    size_t sl = strlen(lab->setup);
    tl_buf full = {0};
    tl_buf_puts(&full, lab->setup);
    if (sl && lab->setup[sl - 1] != '\n')
        tl_buf_putc(&full, '\n');
    tl_buf_puts(&full, setup);
    return tl_buf_steal(&full);
}

/* A variant of lab (lab->variants has room) named name, unless another
 * already is (node: where to say so). */
static bool add_variant(loader *L, const tl_ynode *node, const char *name, size_t *cap)
{
    tl_lab *lab = L->lab;
    if (lab->nvariants >= TL_LAB_MAX_OPS)
        return FAILN(L, node, "too many variants (more than %d)", TL_LAB_MAX_OPS);
    if (lab->nvariants == *cap) {
        *cap = *cap * 2 + 1;
        lab->variants = tl_xrealloc(lab->variants, *cap * sizeof *lab->variants);
        memset(lab->variants + lab->nvariants, 0,
               (*cap - lab->nvariants) * sizeof *lab->variants);
    }
    for (size_t j = 0; j < lab->nvariants; j++)
        if (!strcmp(lab->variants[j].name, name))
            return FAILN(L, node, "duplicate variant name '%s' (first at line %d)", name,
                         lab->variants[j].line);
    tl_lab_variant *var = &lab->variants[lab->nvariants++];
    var->name = tl_xstrdup(name);
    var->line = node->line;
    var->col = node->col;
    return true;
}

/* The variants a generator `generate:` stands for (vargen.h): each setup
 * is located at the generator (its text is not in the file). */
static bool generate_variants(loader *L, const tl_ynode *gen, size_t *cap)
{
    tl_lab *lab = L->lab;
    tl_vargen_item *items;
    size_t n;
    const tl_ynode *bad = gen;
    char msg[400];
    size_t room = TL_LAB_MAX_OPS - lab->nvariants;
    if (!tl_vargen_expand(gen, lab->parent, room, &items, &n, &bad, msg, sizeof msg))
        return FAILN(L, bad ? bad : gen, "%s", msg);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        ok = add_variant(L, gen, items[i].name, cap);
        if (!ok)
            break;
        tl_lab_variant *var = &lab->variants[lab->nvariants - 1];
        var->setup = items[i].setup;
        items[i].setup = NULL;
        var->setup_line = gen->line;
        var->setup_col = gen->col;
        var->setup_block_col = -1;
        var->full_setup = variant_full_setup(lab, var->setup);
    }
    tl_vargen_free(items, n);
    return ok;
}

/* `variants:` (issue #29): a non-empty list of {name, setup} and
 * {generate: {...}} items, or one {generate: {...}} mapping; and a
 * student's sheet's `student:`, `variant:`, `tag:` (scalars). */
static bool read_variants(loader *L)
{
    tl_lab *lab = L->lab;
    const tl_ynode *root = L->root, *n;
    if ((n = tl_ynode_get(root, "student")) && tl_ynode_get(root, "variant"))
        TRY(get_text(L, n, "student", true, &lab->student));
    if ((n = tl_ynode_get(root, "variant"))) {
        TRY(get_text(L, n, "variant", false, &lab->variant));
        lab->variant_line = n->line;
        lab->variant_col = n->col;
    }
    if ((n = tl_ynode_get(root, "tag")))
        TRY(get_text(L, n, "tag", true, &lab->tag));
    if (!(n = tl_ynode_get(root, "variants")) || tl_ynode_is_null(n))
        return true;
    size_t cap = n->kind == TL_Y_SEQ && n->n ? n->n : 1;
    if (n->kind == TL_Y_MAP) {
        TRY(check_keys(L, n, generator_keys, "'variants'"));
        const tl_ynode *g = tl_ynode_get(n, "generate");
        if (!g)
            return FAILN(L, n, "'variants' must be a list of {name, setup} or a mapping "
                         "{generate: {...}}");
        lab->variants = tl_xcalloc(cap, sizeof *lab->variants);
        return generate_variants(L, g, &cap);
    }
    if (n->kind != TL_Y_SEQ)
        return FAILN(L, n, "'variants' must be a list of {name, setup}, got %s", node_desc(n));
    if (n->n == 0)
        return FAILN(L, n, "'variants' is empty (give at least one {name, setup})");
    if (n->n > TL_LAB_MAX_OPS)
        return FAILN(L, n, "too many variants (%zu; at most %d)", n->n, TL_LAB_MAX_OPS);
    lab->variants = tl_xcalloc(n->n, sizeof *lab->variants);
    for (size_t i = 0; i < n->n; i++) {
        const tl_ynode *it = n->items[i], *f;
        if (it->kind != TL_Y_MAP)
            return FAILN(L, it, "a variant must be a mapping {name, setup}, got %s",
                         node_desc(it));
        if (tl_ynode_get(it, "generate")) {
            TRY(check_keys(L, it, generator_keys, "a variant generator"));
            TRY(generate_variants(L, tl_ynode_get(it, "generate"), &cap));
            continue;
        }
        TRY(check_keys(L, it, variant_keys, "a variant"));
        if (!(f = tl_ynode_get(it, "name")))
            return FAILN(L, it, "a variant needs a 'name'");
        char *name;
        TRY(get_text(L, f, "name", false, &name));
        if (!plain_word(name)) {
            free(name);
            return FAILN(L, f, "a variant's 'name' must be a plain word (letters, digits, "
                         "'_', '-'), got '%s'", key_text(f));
        }
        bool added = add_variant(L, f, name, &cap);
        free(name);
        TRY(added);
        tl_lab_variant *var = &lab->variants[lab->nvariants - 1];
        var->line = it->line;
        var->col = it->col;
        if (!(f = tl_ynode_get(it, "setup")))
            return FAILN(L, it, "variant '%s' needs a 'setup'", var->name);
        TRY(get_text(L, f, "setup", false, &var->setup));
        text_position(L, f, &var->setup_line, &var->setup_col, &var->setup_block_col);
        var->full_setup = variant_full_setup(lab, var->setup);
    }
    return true;
}

static bool validate(loader *L)
{
    tl_lab *lab = L->lab;
    const tl_ynode *root = L->root;
    if (!root || tl_ynode_is_null(root))
        return failat(L, 1, 1, "empty lab file (expected a mapping with tlab, setup, ops, ...)");
    if (root->kind != TL_Y_MAP)
        return FAILN(L, root, "a lab file is a mapping of keys (tlab, id, title, setup, ops, ...), "
              "got %s", node_desc(root));
    L->lenient_keys = true;
    TRY(check_keys(L, root, top_keys, "the lab"));
    L->lenient_keys = false;

    const tl_ynode *n;
    lab->version = 1;
    if ((n = tl_ynode_get(root, "tlab")) && !tl_ynode_is_null(n)) {
        TRY(get_int(L, n, "tlab", INT64_MIN / 2, INT64_MAX / 2, &lab->version));
        if (lab->version != 1)
            return FAILN(L, n, "unsupported lab format version %lld (this tlab reads version 1)",
                  (long long)lab->version);
    }
    if ((n = tl_ynode_get(root, "id")))
        TRY(get_text(L, n, "id", true, &lab->id));
    if ((n = tl_ynode_get(root, "title")))
        TRY(get_text(L, n, "title", true, &lab->title));
    if ((n = tl_ynode_get(root, "device")) && !tl_ynode_is_null(n)) {
        TRY(need_scalar(L, n, "device"));
        if (!strcmp(n->value, "cpu"))
            lab->device = TL_LAB_DEV_CPU;
        else if (!strcmp(n->value, "cuda"))
            lab->device = TL_LAB_DEV_CUDA;
        else
            return FAILN(L, n, "'device' must be cpu or cuda, got '%s'", n->value);
    }
    lab->setup = tl_xstrdup("");
    lab->setup_line = 1;
    lab->setup_col = 1;
    if ((n = tl_ynode_get(root, "setup")) && !tl_ynode_is_null(n)) {
        TRY(need_scalar(L, n, "setup"));
        free(lab->setup);
        lab->setup = tl_xstrdup(n->value);
        text_position(L, n, &lab->setup_line, &lab->setup_col, &lab->setup_block_col);
    }
    lab->classify_points = 1;
    if ((n = tl_ynode_get(root, "classify"))) {
        lab->classify = tl_xstrdup("");
        if (!tl_ynode_is_null(n)) {
            TRY(need_scalar(L, n, "classify"));
            free(lab->classify);
            lab->classify = tl_xstrdup(n->value);
            text_position(L, n, &lab->classify_line, &lab->classify_col,
                          &lab->classify_block_col);
        }
    }
    if ((n = tl_ynode_get(root, "classify_points")) && !tl_ynode_is_null(n))
        TRY(get_int(L, n, "classify_points", 0, 1000000, &lab->classify_points));
    if ((n = tl_ynode_get(root, "feedback")) && !tl_ynode_is_null(n)) {
        TRY(need_scalar(L, n, "feedback"));
        if (!strcmp(n->value, "full"))
            lab->feedback = TL_FEEDBACK_FULL;
        else if (!strcmp(n->value, "wrong-ops"))
            lab->feedback = TL_FEEDBACK_WRONG_OPS;
        else if (!strcmp(n->value, "score-only"))
            lab->feedback = TL_FEEDBACK_SCORE_ONLY;
        else
            return FAILN(L, n, "'feedback' must be full, wrong-ops or score-only, got '%s'",
                  n->value);
    }
    if ((n = tl_ynode_get(root, "visibility")) && !tl_ynode_is_null(n)) {
        TRY(need_scalar(L, n, "visibility"));
        if (!strcmp(n->value, "after_due_date"))
            lab->visibility = TL_VIS_AFTER_DUE_DATE;
        else if (!strcmp(n->value, "after_published"))
            lab->visibility = TL_VIS_AFTER_PUBLISHED;
        else if (!strcmp(n->value, "hidden"))
            lab->visibility = TL_VIS_HIDDEN;
        else
            return FAILN(L, n, "'visibility' must be after_due_date, after_published or hidden, "
                  "got '%s'", n->value);
    }
    lab->parent = tl_xstrdup("x");
    lab->parent_line = root->line;
    lab->parent_col = root->col;
    if ((n = tl_ynode_get(root, "parent")) && !tl_ynode_is_null(n)) {
        TRY(need_scalar(L, n, "parent"));
        if (!is_ident(n->value))
            return FAILN(L, n, "'parent' must be a variable name, got '%s'", n->value);
        free(lab->parent);
        lab->parent = tl_xstrdup(n->value);
        lab->parent_line = n->line;
        lab->parent_col = n->col;
    }
    TRY(read_variants(L));

    /* ops */
    const tl_ynode *ops = tl_ynode_get(root, "ops");
    if (!ops)
        return FAILN(L, root, "missing key 'ops' (the list of ops to predict)");
    if (ops->kind != TL_Y_SEQ)
        return FAILN(L, ops, "'ops' must be a list of ops, got %s", node_desc(ops));
    if (ops->n == 0)
        return FAILN(L, ops, "'ops' is empty: a lab needs at least one op");
    if (ops->n > TL_LAB_MAX_OPS)
        return FAILN(L, ops->items[TL_LAB_MAX_OPS], "too many ops (%zu; at most %d)", ops->n,
              TL_LAB_MAX_OPS);
    const tl_ynode *qs = tl_ynode_get(root, "questions");
    size_t nq = 0;
    if (qs && !tl_ynode_is_null(qs)) {
        if (qs->kind != TL_Y_SEQ)
            return FAILN(L, qs, "'questions' must be a list, got %s", node_desc(qs));
        if (qs->n > TL_LAB_MAX_OPS)
            return FAILN(L, qs->items[TL_LAB_MAX_OPS], "too many questions (at most %d)",
                  TL_LAB_MAX_OPS);
        nq = qs->n;
    }
    idset *seen = idset_new(ops->n + nq + 1);
    L->seen = seen; /* borrows ids owned by the lab; freed on both paths */
    lab->ops = tl_xcalloc(ops->n, sizeof *lab->ops);
    for (size_t i = 0; i < ops->n; i++) {
        const tl_ynode *on = ops->items[i];
        tl_lab_op *op = &lab->ops[i];
        lab->nops = i + 1;
        op->points = 1;
        op->node = on;
        op->line = on->line;
        op->col = on->col;
        if (on->kind != TL_Y_MAP)
            return FAILN(L, on, "each op must be a mapping with at least 'op:', got %s",
                  node_desc(on));
        TRY(check_keys(L, on, op_keys, "an op"));
        TRY(take_id(L, on, "", i + 1, &op->id, seen));
        n = tl_ynode_get(on, "op");
        if (!n)
            return FAILN(L, on, "op '%s' has no 'op:' (the expression to run)", op->id);
        TRY(need_scalar(L, n, "op"));
        if (tl_ynode_is_null(n) || n->value[strspn(n->value, " \n\r")] == 0)
            return FAILN(L, n, "'op' is empty in op '%s'", op->id);
        op->op = tl_xstrdup(n->value);
        text_position(L, n, &op->op_line, &op->op_col, &op->op_block_col);
        read_prediction(L, tl_ynode_get(on, "predict"), &op->predict);
        if ((n = tl_ynode_get(on, "rule")))
            TRY(get_nonblank_text(L, n, "rule", &op->rule));
        if ((n = tl_ynode_get(on, "points")) && !tl_ynode_is_null(n))
            TRY(get_int(L, n, "points", 0, 1000000, &op->points));
        if ((n = tl_ynode_get(on, "accept")) && !tl_ynode_is_null(n)) {
            char **names;
            size_t cnt;
            TRY(get_str_list(L, n, "accept", &names, &cnt));
            op->has_accept = true;
            for (size_t k = 0; k < cnt; k++) {
                tl_kind kd;
                if (!tl_kind_from_name(names[k], &kd) || kd == TL_KIND_MIXED) {
                    const char *sug = closest(names[k], accept_names);
                    char bad[128];
                    snprintf(bad, sizeof bad, "%s", names[k]);
                    free_str_list(names, cnt);
                    return FAILN(L, n, "invalid kind '%s' in 'accept'%s%s%s; valid kinds: view, "
                          "copy, alias, error, sometimes, value", bad,
                          sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
                }
                op->accept |= 1u << kd;
            }
            free_str_list(names, cnt);
        }
        if ((n = tl_ynode_get(on, "explanation")))
            TRY(get_text(L, n, "explanation", true, &op->explanation));
    }

    /* questions */
    if (nq) {
        lab->questions = tl_xcalloc(nq, sizeof *lab->questions);
        for (size_t i = 0; i < nq; i++) {
            const tl_ynode *qn = qs->items[i];
            tl_lab_question *q = &lab->questions[i];
            lab->nquestions = i + 1;
            q->node = qn;
            q->line = qn->line;
            q->col = qn->col;
            if (qn->kind != TL_Y_MAP)
                return FAILN(L, qn, "each question must be a mapping with 'prompt:', got %s",
                      node_desc(qn));
            TRY(check_keys(L, qn, q_keys, "a question"));
            TRY(take_id(L, qn, "q", i + 1, &q->id, seen));
            if ((n = tl_ynode_get(qn, "prompt")))
                TRY(get_text(L, n, "prompt", true, &q->prompt));
            if ((n = tl_ynode_get(qn, "answer")))
                TRY(get_nonblank_text(L, n, "answer", &q->answer));
            if ((n = tl_ynode_get(qn, "mention_any")))
                TRY(get_str_list(L, n, "mention_any", &q->mention_any, &q->n_mention));
            if ((n = tl_ynode_get(qn, "reject")))
                TRY(get_str_list(L, n, "reject", &q->reject, &q->n_reject));
            if ((n = tl_ynode_get(qn, "min_words")) && !tl_ynode_is_null(n))
                TRY(get_int(L, n, "min_words", 0, 100000, &q->min_words));
            q->points = 1;
            if ((n = tl_ynode_get(qn, "points")) && !tl_ynode_is_null(n))
                TRY(get_int(L, n, "points", 0, 1000000, &q->points));
        }
    }
    free(seen);
    L->seen = NULL;

    /* rules */
    if ((n = tl_ynode_get(root, "rules")) && !tl_ynode_is_null(n)) {
        if (n->kind != TL_Y_MAP)
            return FAILN(L, n, "'rules' must be a mapping {required, reject}, got %s",
                  node_desc(n));
        TRY(check_keys(L, n, rules_keys, "'rules'"));
        lab->has_rules = true;
        const tl_ynode *r;
        if ((r = tl_ynode_get(n, "required")) && !tl_ynode_is_null(r))
            TRY(get_bool(L, r, "required", &lab->rules_required));
        if ((r = tl_ynode_get(n, "reject")))
            TRY(get_str_list(L, r, "reject", &lab->rules_reject, &lab->n_rules_reject));
        lab->rules_points = 1;
        if ((r = tl_ynode_get(n, "points")) && !tl_ynode_is_null(r))
            TRY(get_int(L, r, "points", 0, 1000000, &lab->rules_points));
    }

    /* threshold (after ops: a count is checked against their number) */
    if ((n = tl_ynode_get(root, "threshold")) && !tl_ynode_is_null(n)) {
        lab->threshold_line = n->line;
        lab->threshold_col = n->col;
        if (n->kind != TL_Y_SCALAR)
            return FAILN(L, n, "'threshold' must be a count of ops or a percentage like \"80%%\", "
                  "got %s", node_desc(n));
        int64_t cnt;
        const char *s = n->value;
        size_t sl = strlen(s);
        if (n->plain && parse_int(s, &cnt)) {
            if (cnt < 0)
                return FAILN(L, n, "'threshold' must not be negative, got %lld", (long long)cnt);
            if ((uint64_t)cnt > lab->nops)
                return FAILN(L, n, "'threshold' is %lld but the lab has only %zu ops",
                      (long long)cnt, lab->nops);
            lab->threshold_value = (double)cnt;
        } else if (sl >= 2 && s[sl - 1] == '%') {
            char *end;
            errno = 0;
            double v = strtod(s, &end);
            while (*end == ' ')
                end++;
            if (end != s + sl - 1 || errno || !(v >= 0 && v <= 100) ||
                !isdigit((unsigned char)s[0]))
                return FAILN(L, n, "'threshold' percentage must be between 0%% and 100%%, "
                      "got '%s'", s);
            lab->threshold_pct = true;
            lab->threshold_value = v;
        } else {
            return FAILN(L, n, "'threshold' must be a count of ops or a percentage like \"80%%\", "
                  "got '%s'", s);
        }
        lab->has_threshold = true;
    }

    /* misconceptions: the lab's own and the ops' tags (mccat.h) */
    bool mc = tl_ynode_get(root, "misconceptions") != NULL;
    for (size_t i = 0; !mc && i < lab->nops; i++)
        mc = lab->ops[i].node && tl_ynode_get(lab->ops[i].node, "misconceptions");
    if (mc) {
        int line = 1, col = 1;
        char *msg = NULL;
        tl_mc_catalogue *c = tl_mc_for_lab(lab->file, root, NULL, &line, &col, &msg);
        if (!c) {
            bool r = failat(L, line, col, "%s", msg ? msg : "bad misconceptions");
            free(msg);
            return r;
        }
        tl_mc_catalogue_free(c);
    }
    return true;
}

/* ---------------------------------------------------------------- public */

void tl_lab_err_free(tl_lab_err *e)
{
    if (e) {
        free(e->rendered);
        e->rendered = NULL;
    }
}

void tl_lab_free(tl_lab *lab)
{
    if (!lab)
        return;
    free(lab->warnings);
    free(lab->errors);
    for (size_t i = 0; i < lab->nops; i++) {
        tl_lab_op *op = &lab->ops[i];
        free(op->id);
        free(op->op);
        free_prediction(&op->predict);
        free(op->rule);
        free(op->explanation);
    }
    free(lab->ops);
    for (size_t i = 0; i < lab->nquestions; i++) {
        tl_lab_question *q = &lab->questions[i];
        free(q->id);
        free(q->prompt);
        free(q->answer);
        free_str_list(q->mention_any, q->n_mention);
        free_str_list(q->reject, q->n_reject);
    }
    free(lab->questions);
    free_str_list(lab->rules_reject, lab->n_rules_reject);
    free(lab->id);
    free(lab->title);
    free(lab->setup);
    free(lab->classify);
    free(lab->parent);
    for (size_t i = 0; i < lab->nvariants; i++) {
        free(lab->variants[i].name);
        free(lab->variants[i].setup);
        free(lab->variants[i].full_setup);
    }
    free(lab->variants);
    free(lab->student);
    free(lab->variant);
    free(lab->tag);
    tl_arena_free(lab->arena); /* the node tree */
    free(lab->text);
    free(lab->file);
    free(lab);
}

/* The one located line (and the source line under it). The message may
 * quote the sheet (keys, values, block scalars) and the file name comes
 * from whoever named the submission: both are shown escaped, on one line
 * (escape.h), so a sheet can never add a line such as `FILE:9:1: error:`
 * or `::error` of its own. */
static void render_err_as(tl_lab_err *err, const char *file, const char *text, size_t len,
                          bool color, bool excerpt)
{
    tl_buf b = {0}, m = {0};
    char *f = tl_escape_line_dup(file);
    tl_escape_line(&m, err->msg);
    if (err->line > 0 && excerpt)
        tl_diag_render_excerpt(&b, f, err->line, err->col, tl_buf_str(&m), text, len, color);
    else if (err->line > 0)
        tl_diag_render_at(&b, f, err->line, err->col, tl_buf_str(&m), text, len, color);
    else
        tl_buf_printf(&b, "%s: error: %s\n", f, tl_buf_str(&m));
    free(f);
    tl_buf_free(&m);
    free(err->rendered);
    err->rendered = tl_buf_steal(&b);
}

static void render_err(tl_lab_err *err, const char *file, const char *text, size_t len,
                       bool color)
{
    render_err_as(err, file, text, len, color, false);
}

/* tl_lab_set_yaml: how tl_lab_parse builds the tree (tests only) */
static tl_lab_yaml default_yaml = TL_LAB_YAML_AUTO;

void tl_lab_set_yaml(tl_lab_yaml how) { default_yaml = how; }

static tl_lab *load(const char *file, char *copy, size_t len, bool color, tl_lab_err *err,
                    tl_lab_yaml how, bool tree_only);

/* the loader's text: owned itself, or a NUL-terminated copy of text */
static char *own_text(const char *text, size_t len, char *owned)
{
    if (owned)
        return owned;
    char *copy = tl_xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    return copy;
}

/* The loader; how picks the YAML front end (yaml_fast.c, else libyaml),
 * tree_only stops before validation. owned: text itself, NUL-terminated
 * and malloc'd, handed over (tl_lab_open's buffer, not copied again); NULL:
 * text is copied. */
static tl_lab *parse_lab(const char *file, const char *text, size_t len, bool color,
                         tl_lab_err *err, tl_lab_yaml how, bool tree_only, char *owned)
{
    memset(err, 0, sizeof *err);
    if (len > TL_LAB_MAX_BYTES) {
        err->line = 1;
        err->col = 1;
        snprintf(err->msg, sizeof err->msg,
                 "lab file is %zu bytes; the limit is 1 MiB (%zu bytes)", len,
                 TL_LAB_MAX_BYTES);
        render_err(err, file, NULL, 0, color);
        free(owned);
        return NULL;
    }
    return load(file, own_text(text, len, owned), len, color, err, how, tree_only);
}

static pthread_mutex_t sha_mu = PTHREAD_MUTEX_INITIALIZER;

const char *tl_lab_sha256(const tl_lab *lab)
{
    if (!__atomic_load_n(&lab->sha256_known, __ATOMIC_ACQUIRE)) {
        tl_lab *w = (tl_lab *)lab; /* a cache: the digest of bytes that never change */
        pthread_mutex_lock(&sha_mu);
        if (!w->sha256_known) {
            tl_sha256_hex(w->text, w->len, w->sha256);
            __atomic_store_n(&w->sha256_known, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&sha_mu);
    }
    return lab->sha256;
}

/* load's steps: the byte checks, the tree (the fast front end, else
 * libyaml), the validation. false: a located error in L->err, or (*declined)
 * the fast front end alone was asked for and declined. */
static bool load_steps(loader *L, tl_lab_yaml how, bool tree_only, bool *declined)
{
    tl_lab *lab = L->lab;
    L->in_scan = true;
    TRY(scan_bytes(L));
    L->in_scan = false;
    build_chars(L); /* after scan_bytes: it knows whether the text is ASCII */
    if (L->len == 0 || L->text[strspn(L->text, " \t\r\n")] == 0)
        return failat(L, 1, 1, "empty lab file (expected a mapping with tlab, setup, ops, ...)");
    /* the fast front end first; libyaml when it declines (lab->arena is
     * still empty then, and stays so) */
    if (how != TL_LAB_YAML_LIBYAML)
        L->root = tl_yfast_parse(L->text, L->len, TL_LAB_MAX_NODES, TL_LAB_MAX_DEPTH,
                                 &lab->arena);
    if (!L->root && how == TL_LAB_YAML_FAST) {
        *declined = true;
        return false;
    }
    if (!L->root) {
        if (!yaml_parser_initialize(&L->parser))
            return failat(L, 1, 1, "cannot initialise the YAML parser (out of memory)");
        L->have_parser = true;
        size_t bom = bom_len(L);
        yaml_parser_set_input_string(&L->parser, (const unsigned char *)L->text + bom,
                                     L->len - bom);
        yaml_parser_set_encoding(&L->parser, YAML_UTF8_ENCODING);
        TRY(build_tree(L));
        if (L->have_event) {
            yaml_event_delete(&L->event);
            L->have_event = false;
        }
        yaml_parser_delete(&L->parser);
        L->have_parser = false;
    }
    if (!tree_only)
        TRY(validate(L));
    return true;
}

/* parse_lab's work on copy (NUL-terminated, owned: it goes to the lab) */
static tl_lab *load(const char *file, char *copy, size_t len, bool color, tl_lab_err *err,
                    tl_lab_yaml how, bool tree_only)
{
    loader *L = tl_xcalloc(1, sizeof *L);
    L->file = file;
    L->text = copy;
    L->len = len;
    L->err = err;
    L->color = color;
    tl_lab *lab = tl_xcalloc(1, sizeof *lab);
    lab->file = tl_xstrdup(file);
    lab->text = copy;
    lab->len = len;
    L->lab = lab;

    bool declined = false;
    if (!load_steps(L, how, tree_only, &declined)) {
        if (L->have_event)
            yaml_event_delete(&L->event);
        if (L->have_parser)
            yaml_parser_delete(&L->parser);
        lab->root = L->root; /* freed with the lab */
        free(L->seen);
        free(L->keys);
        tl_buf_free(&L->warnings);
        tl_buf_free(&L->errors);
        if (!declined) /* declined: err->msg stays empty */
            render_err_as(err, file, copy, len, color, L->in_scan);
        tl_lab_free(lab);
        free(L->line_start);
        free(L->char_byte);
        free(L);
        return NULL;
    }
    lab->root = L->root;
    lab->warnings = L->warnings.len ? tl_buf_steal(&L->warnings) : NULL;
    lab->errors = L->errors.len ? tl_buf_steal(&L->errors) : NULL;
    free(L->line_start);
    free(L->char_byte);
    free(L);
    return lab;
}

tl_lab *tl_lab_parse(const char *file, const char *text, size_t len, bool color,
                     tl_lab_err *err)
{
    return parse_lab(file, text, len, color, err, default_yaml, false, NULL);
}

tl_lab *tl_lab_parse_tree(const char *file, const char *text, size_t len, tl_lab_yaml how,
                          tl_lab_err *err)
{
    return parse_lab(file, text, len, false, err, how, true, NULL);
}

tl_lab *tl_lab_load(const char *path, bool color, tl_lab_err *err)
{
    return tl_lab_open(path, color, false, err);
}

tl_lab *tl_lab_open(const char *path, bool color, bool follow_links, tl_lab_err *err)
{
    memset(err, 0, sizeof *err);
    char *text;
    size_t len;
    tl_read_status st =
        tl_read_regular_file(path, TL_LAB_MAX_BYTES, follow_links, &text, &len);
    switch (st) {
    case TL_READ_OK:
        break;
    case TL_READ_LINK:
        snprintf(err->msg, sizeof err->msg,
                 "is a symbolic link: tlab does not follow links in submissions "
                 "(--follow-links reads through them)");
        render_err(err, path, NULL, 0, color);
        return NULL;
    case TL_READ_NOT_REGULAR:
        snprintf(err->msg, sizeof err->msg, "not a regular file%s",
                 errno == EISDIR ? " (a directory)" : "");
        render_err(err, path, NULL, 0, color);
        return NULL;
    case TL_READ_OPEN:
    case TL_READ_IO: {
        char eb[128]; /* grading threads load labs: no strerror() */
        snprintf(err->msg, sizeof err->msg, "cannot %s lab file: %s",
                 st == TL_READ_OPEN ? "open" : "read",
                 tl_strerror(errno, eb, sizeof eb));
        render_err(err, path, NULL, 0, color);
        return NULL;
    }
    case TL_READ_TOO_BIG:
        err->line = 1;
        err->col = 1;
        snprintf(err->msg, sizeof err->msg,
                 "lab file is larger than 1 MiB (%zu bytes)", TL_LAB_MAX_BYTES);
        render_err(err, path, NULL, 0, color);
        return NULL;
    }
    /* text (NUL-terminated by tl_read_regular_file) goes to the lab */
    return parse_lab(path, text, len, color, err, default_yaml, false, text);
}

/* text of the lab file, found at line/col (block_col: see tl_source) */
static void lab_source(const tl_lab *lab, const char *text, int line, int col,
                       int block_col, tl_source *src)
{
    memset(src, 0, sizeof *src);
    src->text = text;
    src->len = strlen(text);
    src->file = lab->file;
    src->line = line;
    src->col = col;
    src->block_col = block_col;
    src->file_text = lab->text;
    src->file_len = lab->len;
}

void tl_lab_setup_source(const tl_lab *lab, tl_source *src)
{
    lab_source(lab, lab->setup, lab->setup_line, lab->setup_col, lab->setup_block_col, src);
}

void tl_lab_op_source(const tl_lab *lab, const tl_lab_op *op, tl_source *src)
{
    lab_source(lab, op->op, op->op_line, op->op_col, op->op_block_col, src);
}

void tl_lab_classify_source(const tl_lab *lab, tl_source *src)
{
    lab_source(lab, lab->classify, lab->classify_line, lab->classify_col,
               lab->classify_block_col, src);
}

int64_t tl_lab_threshold_count(const tl_lab *lab)
{
    if (!lab->has_threshold)
        return (int64_t)lab->nops;
    if (!lab->threshold_pct)
        return (int64_t)lab->threshold_value;
    double need = lab->threshold_value * (double)lab->nops / 100.0;
    int64_t c = (int64_t)ceil(need - 1e-9);
    return c < 0 ? 0 : c;
}
