/* blank.c - `tlab new`: the blank sheet of a lab (SPEC 3), and what in a
 * lab would give an answer away (tl_lab_filled).
 *
 * The sheet is the lab's own text with the value of every `predict:`,
 * `rule:`, (question) `answer:` and `classify:` replaced by `~`, and every
 * op's `explanation:` (unless asked to keep it), `accept:` and
 * `misconceptions:` dropped, and the lab's `misconceptions:`: the
 * explanation is instructor text shown after grading, an accept list
 * names the answers that score, and a misconception tag names the belief
 * an op tests (grading takes them all from the master). When
 * the lab is itself filled in (a reference sheet such as answers/lab01.yaml,
 * tl_lab_has_answers), every comment is dropped as well: comments written
 * beside the answers ("the reference sheet: every prediction right", a hint
 * above classify:) would give them away. Every other byte is kept, so
 * comments, order, quoting and line breaks (LF, CR LF or CR) stay as the
 * instructor wrote them.
 *
 * An edit replaces the bytes from the key's `:` to the end of its value
 * (the node tree's byte ranges; a block collection ends at its last
 * child). A drop removes the key's whole lines (from the start of the
 * key's line to the end of its value's last line) when the key starts its
 * line in a block mapping; anywhere else (a flow mapping, `- accept:`) the
 * value is blanked instead (`accept: ~` loads as no accept list). Comments
 * are dropped in a second pass over the result's own node tree (a `#`
 * outside every scalar): a comment line goes whole, a trailing comment
 * with the blanks before it. Invariants, so that the blank sheet loads
 * again with nothing answered (tests/fuzz/fuzz_lab.c checks this on every
 * input the loader accepts):
 *   - `~` is followed by a space when the next byte would glue onto it
 *     (`predict: {kind: view}# c` becomes `predict: ~ # c`, not the plain
 *     scalar `~#`);
 *   - a comment inside a replaced value goes with it when the lab is filled
 *     in (always, but for a value that loads as blank, e.g. `rule: "  "`);
 *     otherwise it is kept, each on a line of its own below the key
 *     (indented deeper than the key's line), and when the rest of the
 *     key's line follows it (inside a flow collection) that rest moves to
 *     a new line at the same indentation;
 *   - the edits of one mapping never overlap (distinct keys).
 */
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct edit {
    size_t start, end;
    const tl_ynode *v; /* the value replaced */
    bool drop;         /* remove [start, end) outright */
} edit;

typedef struct range {
    size_t start, end;
} range;

typedef struct ranges {
    range *r;
    size_t n, cap;
} ranges;

static size_t content_end(const tl_ynode *n)
{
    if (n->kind != TL_Y_SCALAR && !n->flow && n->n > 0) {
        size_t cnt = n->kind == TL_Y_MAP ? 2 * n->n : n->n;
        return content_end(n->items[cnt - 1]);
    }
    return n->end;
}

static bool is_break(char c) { return c == '\n' || c == '\r'; }
static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* The scalars of a subtree, in document order: a `#` inside one is text. */
static void scalar_ranges(const tl_ynode *n, ranges *out)
{
    if (n->kind == TL_Y_SCALAR) {
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 16;
            out->r = tl_xrealloc(out->r, out->cap * sizeof *out->r);
        }
        out->r[out->n++] = (range){n->start, n->end};
        return;
    }
    size_t cnt = n->kind == TL_Y_MAP ? 2 * n->n : n->n;
    for (size_t i = 0; i < cnt; i++)
        scalar_ranges(n->items[i], out);
}

/* The `:` after key k (skipping blanks, breaks and comments: the explicit
 * `? key` form puts it on the next line); k->end when none is found. */
static size_t colon_after(const tl_lab *lab, const tl_ynode *k, size_t limit)
{
    const char *t = lab->text;
    size_t i = k->end;
    while (i < limit) {
        if (t[i] == ':')
            return i;
        if (is_space(t[i]) || is_break(t[i])) {
            i++;
        } else if (t[i] == '#') {
            while (i < limit && !is_break(t[i]))
                i++;
        } else {
            break;
        }
    }
    return k->end;
}

static void add_edit_as(const tl_lab *lab, const tl_ynode *map, const char *key, bool drop,
                        edit **ed, size_t *ned, size_t *cap)
{
    for (size_t i = 0; i < map->n; i++) {
        const tl_ynode *k = map->items[2 * i];
        const tl_ynode *v = map->items[2 * i + 1];
        if (k->kind != TL_Y_SCALAR || strcmp(k->value, key) != 0)
            continue;
        if (tl_ynode_is_null(v) || (v->kind == TL_Y_SCALAR && v->len == 0))
            return;
        size_t s = colon_after(lab, k, v->start), e = content_end(v);
        while (e > v->start && e > s &&
               (is_space(lab->text[e - 1]) || is_break(lab->text[e - 1])))
            e--;
        if (e <= s || e > lab->len)
            return;
        size_t ls = k->start;
        while (ls > 0 && lab->text[ls - 1] == ' ')
            ls--;
        drop = drop && !map->flow && (ls == 0 || is_break(lab->text[ls - 1]));
        if (drop) {
            /* the key's lines: from its line's start to past the break
             * that ends the value's last line */
            s = ls;
            while (e < lab->len && !is_break(lab->text[e]))
                e++;
            if (e < lab->len)
                e += lab->text[e] == '\r' && e + 1 < lab->len && lab->text[e + 1] == '\n' ? 2 : 1;
        }
        if (*ned == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *ed = tl_xrealloc(*ed, *cap * sizeof **ed);
        }
        (*ed)[(*ned)++] = (edit){s, e, v, drop};
        return;
    }
}

static void add_edit(const tl_lab *lab, const tl_ynode *map, const char *key, edit **ed,
                     size_t *ned, size_t *cap)
{
    add_edit_as(lab, map, key, false, ed, ned, cap);
}

static int cmp_edit(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Indentation (spaces) of the line holding byte at. */
static size_t line_indent(const tl_lab *lab, size_t at)
{
    size_t ls = at;
    while (ls > 0 && !is_break(lab->text[ls - 1]))
        ls--;
    size_t n = 0;
    while (ls + n < lab->len && lab->text[ls + n] == ' ')
        n++;
    return n;
}

/* The line break the file uses (first one; LF when none). */
static const char *file_break(const tl_lab *lab)
{
    const char *t = lab->text;
    for (size_t i = 0; i < lab->len; i++) {
        if (t[i] == '\n')
            return "\n";
        if (t[i] == '\r')
            return i + 1 < lab->len && t[i + 1] == '\n' ? "\r\n" : "\r";
    }
    return "\n";
}

/* Replace bytes [s, e) (a key's `: value`) by `: ~`, keeping its comments
 * when `keep` (else they go with the value).
 * Returns where copying the lab's text resumes: e, or past the blanks
 * after e when the rest of the line moved to a new line (its own
 * indentation; a tab there would be a tab in indentation). */
static size_t blank_one(const tl_lab *lab, const tl_ynode *v, size_t s, size_t e,
                      const char *nl, bool keep, tl_buf *b)
{
    const char *t = lab->text;
    ranges sc = {0};
    scalar_ranges(v, &sc);
    tl_buf_puts(b, ": ~");
    size_t ind = line_indent(lab, s) + 2;
    bool any = false;
    size_t r = 0;
    for (size_t i = s + 1; i < e;) {
        while (r < sc.n && sc.r[r].end <= i)
            r++;
        if (r < sc.n && sc.r[r].start <= i) { /* inside a scalar */
            i = sc.r[r].end;
            continue;
        }
        if (keep && t[i] == '#' && (is_space(t[i - 1]) || is_break(t[i - 1]))) {
            size_t c0 = i;
            while (i < lab->len && !is_break(t[i]))
                i++;
            tl_buf_puts(b, nl);
            for (size_t k = 0; k < ind; k++)
                tl_buf_putc(b, ' ');
            tl_buf_append(b, t + c0, i - c0);
            any = true;
            /* a comment ends its line: nothing of the value follows on it */
            continue;
        }
        i++;
    }
    free(sc.r);
    /* what follows the value on its line */
    size_t j = e;
    while (j < lab->len && is_space(t[j]))
        j++;
    bool line_ends = j >= lab->len || is_break(t[j]);
    if (any && !line_ends) {
        /* the rest of the line (more of a flow collection, or a comment)
         * follows the kept comments on a line of its own */
        tl_buf_puts(b, nl);
        for (size_t k = 0; k < ind; k++)
            tl_buf_putc(b, ' ');
        return j;
    }
    if (!any && e < lab->len && !is_space(t[e]) && !is_break(t[e]) && t[e] != ',' &&
        t[e] != ']' && t[e] != '}')
        tl_buf_putc(b, ' '); /* `~#` or `~x` would be one plain scalar */
    return e;
}

/* Drop every comment of text (a `#` outside the scalars of its node tree,
 * after a blank or at a line's start): a line that holds only a comment
 * goes with its break, a trailing comment with the blanks before it.
 * Returns text itself when its tree cannot be built (never for a sheet the
 * loader accepted). */
static char *drop_comments(const tl_lab *lab, char *text)
{
    size_t len = strlen(text);
    tl_lab_err err = {0};
    tl_lab *t = tl_lab_parse_tree(lab->file, text, len, TL_LAB_YAML_AUTO, &err);
    tl_lab_err_free(&err);
    if (!t)
        return text;
    ranges sc = {0};
    if (t->root)
        scalar_ranges(t->root, &sc);
    tl_buf b = {0};
    size_t r = 0, pos = 0;
    for (size_t i = 0; i < len;) {
        while (r < sc.n && sc.r[r].end <= i)
            r++;
        if (r < sc.n && sc.r[r].start <= i) {
            i = sc.r[r].end;
            continue;
        }
        if (text[i] != '#' || (i > 0 && !is_space(text[i - 1]) && !is_break(text[i - 1]))) {
            i++;
            continue;
        }
        size_t cs = i; /* back over the blanks before it */
        while (cs > pos && is_space(text[cs - 1]))
            cs--;
        size_t ce = i;
        while (ce < len && !is_break(text[ce]))
            ce++;
        bool whole = cs == 0 || is_break(text[cs - 1]);
        if (whole && ce < len)
            ce += text[ce] == '\r' && ce + 1 < len && text[ce + 1] == '\n' ? 2 : 1;
        tl_buf_append(&b, text + pos, cs - pos);
        pos = i = ce;
    }
    tl_buf_append(&b, text + pos, len - pos);
    free(sc.r);
    tl_lab_free(t);
    free(text);
    return tl_buf_steal(&b);
}

char *tl_lab_blank_text_opts(const tl_lab *lab, unsigned flags)
{
    edit *ed = NULL;
    size_t ned = 0, cap = 0;
    for (size_t i = 0; i < lab->nops; i++) {
        add_edit(lab, lab->ops[i].node, "predict", &ed, &ned, &cap);
        add_edit(lab, lab->ops[i].node, "rule", &ed, &ned, &cap);
        add_edit_as(lab, lab->ops[i].node, "accept", true, &ed, &ned, &cap);
        add_edit_as(lab, lab->ops[i].node, "misconceptions", true, &ed, &ned, &cap);
        if (!(flags & TL_BLANK_KEEP_EXPLANATIONS))
            add_edit_as(lab, lab->ops[i].node, "explanation", true, &ed, &ned, &cap);
    }
    for (size_t i = 0; i < lab->nquestions; i++)
        add_edit(lab, lab->questions[i].node, "answer", &ed, &ned, &cap);
    /* the stretch goal's code (classify:) is an answer too */
    add_edit(lab, lab->root, "classify", &ed, &ned, &cap);
    /* the lab's misconceptions and op tags name the beliefs the ops test */
    add_edit_as(lab, lab->root, "misconceptions", true, &ed, &ned, &cap);
    if (ned)
        qsort(ed, ned, sizeof *ed, cmp_edit);
    const char *nl = file_break(lab);
    bool filled = tl_lab_has_answers(lab);
    tl_buf b = {0};
    size_t pos = 0;
    for (size_t i = 0; i < ned; i++) {
        if (ed[i].start < pos)
            continue; /* overlapping (cannot happen for distinct keys) */
        tl_buf_append(&b, lab->text + pos, ed[i].start - pos);
        pos = ed[i].drop ? ed[i].end : blank_one(lab, ed[i].v, ed[i].start, ed[i].end, nl, !filled, &b);
    }
    tl_buf_append(&b, lab->text + pos, lab->len - pos);
    free(ed);
    char *out = tl_buf_steal(&b);
    if (filled)
        out = drop_comments(lab, out);
    return out;
}

char *tl_lab_blank_text(const tl_lab *lab) { return tl_lab_blank_text_opts(lab, 0); }

unsigned tl_lab_filled(const tl_lab *lab)
{
    unsigned f = 0;
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_lab_op *op = &lab->ops[i];
        if (!op->predict.blank)
            f |= TL_LAB_FILLED_PREDICT;
        if (op->rule)
            f |= TL_LAB_FILLED_RULE;
        if (op->explanation && *op->explanation)
            f |= TL_LAB_FILLED_EXPLANATION;
        if (op->has_accept)
            f |= TL_LAB_FILLED_ACCEPT;
    }
    for (size_t i = 0; i < lab->nquestions; i++)
        if (lab->questions[i].answer)
            f |= TL_LAB_FILLED_ANSWER;
    if (lab->classify && *lab->classify)
        f |= TL_LAB_FILLED_CLASSIFY;
    return f;
}

bool tl_lab_has_answers(const tl_lab *lab)
{
    return (tl_lab_filled(lab) & (TL_LAB_FILLED_PREDICT | TL_LAB_FILLED_RULE |
                                  TL_LAB_FILLED_ANSWER | TL_LAB_FILLED_CLASSIFY)) != 0;
}

const char *tl_lab_filled_text(unsigned filled, char *buf, size_t cap)
{
    static const char *const names[] = {"predictions", "rules", "answers",
                                        "classify", "explanations", "accept lists"};
    size_t n = 0;
    if (cap)
        buf[0] = 0;
    for (size_t k = 0; k < TL_ARRAY_LEN(names); k++) {
        if (!(filled & (1u << k)))
            continue;
        int w = snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", n ? ", " : "", names[k]);
        if (w < 0 || (size_t)w >= (cap > n ? cap - n : 0))
            break;
        n += (size_t)w;
    }
    return buf;
}
