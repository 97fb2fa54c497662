/* sheetvar.c - per-student lab variants (issue #29; sheetvar.h).
 *
 * A variant's setup runs after the master's (lab.h: full_setup, the two
 * joined): a student's sheet holds that text as its `setup:` (a literal
 * block, or a double-quoted scalar when a literal cannot hold it exactly)
 * and grading runs the master's copy of it, never the sheet's
 * (tl_sheetvar_lab, then tl_grade_tamper flags a sheet whose setup differs
 * from its variant's). Invariants: the sheet is made from the
 * blank text by splicing byte ranges of its YAML tree (everything else as
 * written), and is loaded back before it is returned, so `tlab new` never
 * writes a sheet that does not load or names another variant.
 */
#include "sheetvar.h"

#include "escape.h"
#include "hmac.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tl_sheetvar_read_key(const char *path, size_t *len, char *msg, size_t cap)
{
    char *text = NULL;
    size_t n = 0;
    if (tl_read_file(path, (size_t)1 << 20, &text, &n) != TL_READ_OK) {
        snprintf(msg, cap, "tlab: cannot read the key file '%s'", path);
        free(text);
        return NULL;
    }
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' ||
                 text[n - 1] == '\t'))
        n--;
    if (n == 0) {
        snprintf(msg, cap, "tlab: the key file '%s' is empty", path);
        free(text);
        return NULL;
    }
    text[n] = 0;
    *len = n;
    return text;
}

const char *tl_sheetvar_bad_student(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return "the student id is empty";
    if (n > 200)
        return "the student id is longer than 200 bytes";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return "the student id has a control character";
    return NULL;
}

/* prefix NUL part NUL part ... into b (lengths explicit: NULs inside) */
static void message(tl_buf *b, const char *prefix, const char *const *parts, size_t n)
{
    tl_buf_puts(b, prefix);
    for (size_t i = 0; i < n; i++) {
        tl_buf_putc(b, '\0');
        tl_buf_puts(b, parts[i] ? parts[i] : "");
    }
}

size_t tl_sheetvar_pick(const tl_lab *m, const void *key, size_t keylen, const char *student)
{
    const char *parts[] = {m->id, student};
    tl_buf b = {0};
    message(&b, "tlab-variant", parts, 2);
    unsigned char mac[32];
    tl_hmac_sha256(key, keylen, b.data, b.len, mac);
    tl_buf_free(&b);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | mac[i];
    return m->nvariants ? (size_t)(v % m->nvariants) : 0;
}

void tl_sheetvar_tag(const tl_lab *m, const void *key, size_t keylen, const char *student,
                     const char *variant, char tag[TL_SHEETVAR_TAG_HEX + 1])
{
    const char *parts[] = {m->id, student, variant};
    tl_buf b = {0};
    message(&b, "tlab-tag", parts, 3);
    tl_hmac_sha256_hex(key, keylen, b.data, b.len, tag, TL_SHEETVAR_TAG_HEX);
    tl_buf_free(&b);
}

const tl_lab_variant *tl_sheetvar_find(const tl_lab *m, const char *name)
{
    for (size_t i = 0; name && i < m->nvariants; i++)
        if (!strcmp(m->variants[i].name, name))
            return &m->variants[i];
    return NULL;
}

void tl_sheetvar_lab(const tl_lab *m, const tl_lab_variant *var, tl_lab *out)
{
    *out = *m;
    out->setup = var->full_setup;
    out->setup_line = var->setup_line;
    out->setup_col = var->setup_col;
    /* the lab's setup comes first: offsets into the joined text do not
     * map to the file, so every position is the variant's setup's */
    out->setup_block_col = m->setup[0] ? -1 : var->setup_block_col;
}

/* s as a YAML double-quoted scalar */
static void quote(tl_buf *b, const char *s)
{
    tl_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            tl_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            tl_buf_puts(b, "\\n");
        else if (*p == '\t')
            tl_buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            tl_buf_printf(b, "\\x%02x", *p);
        else
            tl_buf_putc(b, (char)*p);
    }
    tl_buf_putc(b, '"');
}

typedef struct edit {
    size_t start, end;
    char *with;
} edit;

static size_t line_start(const char *t, size_t i)
{
    while (i > 0 && t[i - 1] != '\n')
        i--;
    return i;
}

static bool fail(tl_lab_err *err, int line, int col, const char *msg)
{
    memset(err, 0, sizeof *err);
    err->line = line;
    err->col = col;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return false;
}

/* s as a YAML literal block (`|` or `|-`, indented two spaces, ending
 * with a line break), or false when a literal cannot hold it exactly */
static bool literal(tl_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || s[0] == ' ' || s[0] == '\n' || (n >= 2 && s[n - 1] == '\n' && s[n - 2] == '\n'))
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            return false;
    for (const char *l = s; *l;) { /* a line of blanks only would lose them */
        const char *e = strchr(l, '\n');
        size_t k = e ? (size_t)(e - l) : strlen(l);
        size_t sp = strspn(l, " \t");
        if (k && sp >= k)
            return false;
        if (!e)
            break;
        l = e + 1;
    }
    tl_buf_puts(b, s[n - 1] == '\n' ? "|\n" : "|-\n");
    for (const char *l = s; *l;) {
        const char *e = strchr(l, '\n');
        size_t k = e ? (size_t)(e - l) : strlen(l);
        if (k)
            tl_buf_puts(b, "  ");
        tl_buf_append(b, l, k);
        tl_buf_putc(b, '\n');
        if (!e)
            break;
        l = e + 1;
    }
    return true;
}

/* the value of `setup:`: a literal block when one holds it, else quoted
 * (then followed by a line break too) */
static void setup_value(tl_buf *b, const char *s, bool lit)
{
    if (!(lit && literal(b, s))) {
        quote(b, s);
        tl_buf_putc(b, '\n');
    }
}

static char *splice(const char *blank, const tl_ynode *root,
                    const tl_lab_variant *var, const char *student, const char *tag, bool lit)
{
    size_t len = strlen(blank);
    edit ed[2];
    size_t ned = 0;
    bool have_setup = false;
    for (size_t i = 0; i < root->n; i++) {
        const tl_ynode *k = root->items[2 * i], *v = root->items[2 * i + 1];
        if (k->kind != TL_Y_SCALAR)
            continue;
        if (!strcmp(k->value, "setup")) {
            /* the value up to its line's end */
            size_t end = v->end;
            while (end < len && blank[end - 1] != '\n' && blank[end] != '\n')
                end++;
            if (end < len && blank[end] == '\n' && (end == 0 || blank[end - 1] != '\n'))
                end++;
            tl_buf b = {0};
            setup_value(&b, var->full_setup, lit);
            ed[ned++] = (edit){v->start, end, tl_buf_steal(&b)};
            have_setup = true;
        } else if (!strcmp(k->value, "variants")) {
            size_t end = i + 1 < root->n ? line_start(blank, root->items[2 * (i + 1)]->start)
                                         : len;
            ed[ned++] = (edit){line_start(blank, k->start), end, tl_xstrdup("")};
        }
    }
    if (ned == 2 && ed[0].start > ed[1].start) {
        edit e = ed[0];
        ed[0] = ed[1];
        ed[1] = e;
    }
    tl_buf b = {0};
    size_t at = 0;
    for (size_t i = 0; i < ned; i++) {
        tl_buf_append(&b, blank + at, ed[i].start - at);
        tl_buf_puts(&b, ed[i].with);
        at = ed[i].end;
        free(ed[i].with);
    }
    tl_buf_append(&b, blank + at, len - at);
    if (b.len && b.data[b.len - 1] != '\n')
        tl_buf_putc(&b, '\n');
    if (!have_setup) {
        tl_buf_puts(&b, "setup: ");
        setup_value(&b, var->full_setup, lit);
    }
    tl_buf_puts(&b, "student: ");
    quote(&b, student);
    tl_buf_printf(&b, "\nvariant: %s\ntag: %s\n", var->name, tag);
    return tl_buf_steal(&b);
}

/* text loads back with var's full setup, its name and student */
static bool loads_back(const tl_lab *m, const char *text, const tl_lab_variant *var,
                       const char *student)
{
    tl_lab_err e;
    tl_lab *back = tl_lab_parse(m->file, text, strlen(text), false, &e);
    bool same = back && back->nvariants == 0 && !strcmp(back->setup, var->full_setup) &&
                back->variant && !strcmp(back->variant, var->name) && back->student &&
                !strcmp(back->student, student);
    tl_lab_free(back);
    tl_lab_err_free(&e);
    return same;
}

char *tl_sheetvar_sheet(const tl_lab *m, const char *blank, const tl_lab_variant *var,
                        const char *student, const char *tag, tl_lab_err *err)
{
    tl_lab *t = tl_lab_parse_tree(m->file, blank, strlen(blank), TL_LAB_YAML_AUTO, err);
    if (!t)
        return NULL;
    const tl_ynode *root = t->root;
    char *out = NULL;
    if (!root || root->kind != TL_Y_MAP || root->flow) {
        fail(err, 1, 1, "a lab with variants must be a block mapping at the top level to "
             "make a student's sheet");
        tl_lab_free(t);
        return NULL;
    }
    for (size_t i = 0; i < root->n; i++) {
        const tl_ynode *k = root->items[2 * i];
        if (k->kind == TL_Y_SCALAR && (!strcmp(k->value, "student") ||
                                       !strcmp(k->value, "variant") || !strcmp(k->value, "tag"))) {
            fail(err, k->line, k->col, "a master with variants must not have its own "
                 "'student', 'variant' or 'tag'");
            tl_lab_free(t);
            return NULL;
        }
    }
    /* a literal block reads best; the quoted form holds any text */
    for (int lit = 1; lit >= 0 && !out; lit--) {
        out = splice(blank, root, var, student, tag, lit);
        if (!loads_back(m, out, var, student)) {
            free(out);
            out = NULL;
        }
    }
    tl_lab_free(t);
    if (!out)
        fail(err, 0, 0, "internal error: the student's sheet does not load back as written");
    return out;
}

static char *located(const tl_lab *sheet, int line, int col, const char *what)
{
    tl_buf b = {0};
    tl_escape_line(&b, sheet->file);
    tl_buf_printf(&b, ":%d:%d: error: ", line, col);
    tl_escape_line(&b, what);
    return tl_buf_steal(&b);
}

char *tl_sheetvar_select(const tl_lab *m, const tl_lab *sheet, size_t *vi, int *line,
                         int *col)
{
    *line = *col = 0;
    if (!sheet->variant)
        return NULL;
    for (size_t i = 0; i < m->nvariants; i++)
        if (!strcmp(m->variants[i].name, sheet->variant)) {
            *vi = i;
            return NULL;
        }
    *line = sheet->variant_line;
    *col = sheet->variant_col;
    tl_buf w = {0};
    tl_buf_puts(&w, "this sheet is for variant '");
    tl_buf_puts(&w, sheet->variant);
    tl_buf_puts(&w, m->nvariants ? "', which the master does not have: it scores 0"
                                 : "', but the master has no variants: it scores 0");
    char *r = located(sheet, *line, *col, tl_buf_str(&w));
    tl_buf_free(&w);
    return r;
}

char *tl_sheetvar_check(const tl_lab *m, const tl_lab *sheet, const void *key, size_t keylen,
                        int *line, int *col)
{
    *line = sheet->variant_line > 0 ? sheet->variant_line : 1;
    *col = sheet->variant_col > 0 ? sheet->variant_col : 1;
    if (!sheet->student || !sheet->variant || !sheet->tag)
        return located(sheet, *line, *col,
                       "this sheet has no student:, variant: and tag: record (it was not "
                       "made by `tlab new --student`): it scores 0");
    char tag[TL_SHEETVAR_TAG_HEX + 1];
    tl_sheetvar_tag(m, key, keylen, sheet->student, sheet->variant, tag);
    const tl_ynode *tn = sheet->root ? tl_ynode_get(sheet->root, "tag") : NULL;
    if (tn) {
        *line = tn->line;
        *col = tn->col;
    }
    tl_buf w = {0};
    char *r = NULL;
    if (strcmp(tag, sheet->tag) != 0) {
        tl_buf_puts(&w, "the tag does not match student '");
        tl_buf_puts(&w, sheet->student);
        tl_buf_puts(&w, "' and variant '");
        tl_buf_puts(&w, sheet->variant);
        tl_buf_puts(&w, "' (a sheet of another student or variant, or an edited one): "
                        "it scores 0");
        r = located(sheet, *line, *col, tl_buf_str(&w));
    } else if (m->nvariants &&
               strcmp(m->variants[tl_sheetvar_pick(m, key, keylen, sheet->student)].name,
                      sheet->variant) != 0) {
        tl_buf_puts(&w, "variant '");
        tl_buf_puts(&w, sheet->variant);
        tl_buf_puts(&w, "' is not the variant of student '");
        tl_buf_puts(&w, sheet->student);
        tl_buf_puts(&w, "' under this key: it scores 0");
        r = located(sheet, *line, *col, tl_buf_str(&w));
    }
    tl_buf_free(&w);
    return r;
}

char *tl_sheetvar_check_student(const tl_lab *sheet, const char *student, int *line, int *col)
{
    if (sheet->student && !strcmp(sheet->student, student))
        return NULL;
    const tl_ynode *n = sheet->root && sheet->root->kind == TL_Y_MAP
                            ? tl_ynode_get(sheet->root, "student") : NULL;
    *line = n ? n->line : 1;
    *col = n ? n->col : 1;
    tl_buf w = {0};
    if (sheet->student) {
        tl_buf_puts(&w, "this is the sheet of student '");
        tl_buf_puts(&w, sheet->student);
        tl_buf_puts(&w, "', handed in by '");
    } else {
        tl_buf_puts(&w, "this sheet names no student (student: with variant:), handed in by '");
    }
    tl_buf_puts(&w, student);
    tl_buf_puts(&w, "': it scores 0");
    char *r = located(sheet, *line, *col, tl_buf_str(&w));
    tl_buf_free(&w);
    return r;
}
