/* fuzz_lab.c - libFuzzer harness: the lab loader and `tlab new`.
 *
 * Any bytes go through tl_lab_parse (byte checks, libyaml, validation).
 * For every input the loader accepts, the blank sheet (tl_lab_blank_text)
 * is a property test of `tlab new`: it must load again, have the same ops
 * and questions (same ids, same op texts), and no prediction, rule or
 * answer left. A violation aborts (a finding). A rejected input must come
 * with one located message that holds no raw control character.
 *
 * The YAML front ends are compared on every input too: when the fast one
 * (yaml_fast.c) takes it, libyaml must build the same tree, field by
 * field (kind, value bytes, styles, counts, line/col, byte range).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blank_property.h"
#include "lab.h"

static void check_message(const tl_lab_err *err)
{
    const char *r = err->rendered;
    if (!r || !*r) {
        fprintf(stderr, "rejected without a message\n");
        abort();
    }
    /* the header line: one line, no control characters */
    const char *nl = strchr(r, '\n');
    size_t n = nl ? (size_t)(nl - r) : strlen(r);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)r[i];
        if (c < 0x20 || c == 0x7f) {
            fprintf(stderr, "control character 0x%02x in the error line: %s\n", c, r);
            abort();
        }
    }
}

static const char *tree_diff(const tl_ynode *a, const tl_ynode *b)
{
    if (!a || !b)
        return a == b ? NULL : "a node on one side only";
    if (a->kind != b->kind || a->len != b->len || a->plain != b->plain ||
        a->block_scalar != b->block_scalar || a->flow != b->flow || a->n != b->n ||
        a->nslots != b->nslots)
        return "kind, length, style or item count";
    if (a->line != b->line || a->col != b->col || a->start != b->start || a->end != b->end)
        return "position";
    if ((a->value == NULL) != (b->value == NULL) ||
        (a->value && memcmp(a->value, b->value, a->len + 1) != 0))
        return "value";
    for (size_t i = 0; i < a->nslots; i++) {
        const char *d = tree_diff(a->items[i], b->items[i]);
        if (d)
            return d;
    }
    return NULL;
}

static void check_front_ends(const uint8_t *data, size_t size)
{
    tl_lab_err ef, es;
    tl_lab *f = tl_lab_parse_tree("fuzz.yaml", (const char *)data, size, TL_LAB_YAML_FAST, &ef);
    if (f) {
        tl_lab *s = tl_lab_parse_tree("fuzz.yaml", (const char *)data, size,
                                      TL_LAB_YAML_LIBYAML, &es);
        if (!s) {
            fprintf(stderr, "the fast YAML path took a text libyaml refuses: %s\n", es.msg);
            abort();
        }
        const char *d = tree_diff(f->root, s->root);
        if (d) {
            fprintf(stderr, "the YAML front ends differ: %s\n", d);
            abort();
        }
        tl_lab_free(s);
        tl_lab_err_free(&es);
    }
    tl_lab_free(f);
    tl_lab_err_free(&ef);
}

static void check_blank(const tl_lab *lab)
{
    char *why = blank_violation(lab);
    if (why) {
        fprintf(stderr, "%s", why);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_front_ends(data, size);
    tl_lab_err err;
    tl_lab *lab = tl_lab_parse("fuzz.yaml", (const char *)data, size, false, &err);
    if (!lab) {
        check_message(&err);
        tl_lab_err_free(&err);
        return 0;
    }
    check_blank(lab);
    tl_lab_free(lab);
    tl_lab_err_free(&err);
    return 0;
}
