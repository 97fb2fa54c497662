/* vargen.c - variant generators: `variants: {generate: {...}}` expanded
 * into named variants with a generated setup (vargen.h).
 *
 * Every value is checked before anything is generated, and each error
 * names the node at fault (the loader locates it: FILE:LINE:COL, exit 2):
 * an unknown key, a value of the wrong type, a shape that is not 1 to 6
 * positive sizes (at most 2^20 elements, and 2^20 after the step), a
 * dtype tlab cannot arange, transposed with a 1-D shape, channels_last
 * with a shape that is not 4-D, duplicate values (they would make
 * duplicate names), and more combinations than the lab may have variants.
 * Expansion is the cross product in list order (first key slowest), so
 * names and order are the same on every run.
 */
#include "vargen.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { K_SHAPE, K_TRANSPOSED, K_STEP, K_DTYPE, K_CL, K_N };
static const char *const key_names[K_N] = {"shape", "transposed", "step", "dtype",
                                           "channels_last"};
static const char *const dtypes[] = {"float32", "float64", "float16", "bfloat16", "int64",
                                     "int32",   "int16",   "int8",    "uint8",    NULL};

#define MAX_DIMS 6
#define MAX_ELEMS ((int64_t)1 << 20)

typedef struct shape {
    int nd;
    int64_t d[MAX_DIMS];
    const tl_ynode *node;
} shape;

typedef struct axis {
    const tl_ynode *node; /* the key's value, NULL when absent */
    size_t n;             /* values */
    const tl_ynode *const *items; /* n nodes (a lone scalar: the node itself) */
} axis;

static bool fail(const tl_ynode *n, const tl_ynode **bad, char *msg, size_t cap,
                 const char *text)
{
    *bad = n;
    snprintf(msg, cap, "%s", text);
    return false;
}

static bool plain_is(const tl_ynode *n, const char *s)
{
    return n->kind == TL_Y_SCALAR && n->value && !strcmp(n->value, s);
}

static bool get_bool(const tl_ynode *n, bool *v)
{
    if (n->kind != TL_Y_SCALAR || !n->plain)
        return false;
    if (plain_is(n, "true")) {
        *v = true;
        return true;
    }
    if (plain_is(n, "false")) {
        *v = false;
        return true;
    }
    return false;
}

static bool get_int(const tl_ynode *n, int64_t lo, int64_t hi, int64_t *v)
{
    if (n->kind != TL_Y_SCALAR || !n->plain || !n->value || !*n->value)
        return false;
    char *e;
    long long x = strtoll(n->value, &e, 10);
    if (*e || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

static void shape_text(const shape *s, char *out, size_t cap, const char *sep)
{
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < s->nd && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%" PRId64, i ? sep : "", s->d[i]);
}

bool tl_vargen_expand(const tl_ynode *gen, const char *parent, size_t max,
                      tl_vargen_item **out, size_t *nout, const tl_ynode **bad, char *msg,
                      size_t cap)
{
    *out = NULL;
    *nout = 0;
    char m[400];
    if (!gen || gen->kind != TL_Y_MAP || gen->n == 0)
        return fail(gen, bad, msg, cap,
                    "'generate' must be a mapping of lists, e.g. {shape: [[4, 6], [6, 4]], "
                    "transposed: [false, true]}");
    axis ax[K_N] = {{0}};
    for (size_t i = 0; i < gen->n; i++) {
        const tl_ynode *k = gen->items[2 * i], *v = gen->items[2 * i + 1];
        int which = -1;
        for (int j = 0; j < K_N; j++)
            if (plain_is(k, key_names[j]))
                which = j;
        if (which < 0) {
            snprintf(m, sizeof m, "unknown key '%s' in a variant generator (expected shape, "
                     "transposed, step, dtype or channels_last)",
                     k->kind == TL_Y_SCALAR && k->value ? k->value : "?");
            return fail(k, bad, msg, cap, m);
        }
        if (ax[which].node) {
            snprintf(m, sizeof m, "duplicate key '%s' in a variant generator", key_names[which]);
            return fail(k, bad, msg, cap, m);
        }
        ax[which].node = v;
        /* a lone value for a list of one (not for shape: [4, 6] is a list) */
        if (v->kind == TL_Y_SEQ && (which != K_SHAPE || v->n == 0 ||
                                    v->items[0]->kind == TL_Y_SEQ)) {
            ax[which].n = v->n;
            ax[which].items = (const tl_ynode *const *)v->items;
        } else if (which == K_SHAPE) {
            return fail(v, bad, msg, cap,
                        "'shape' must be a list of shapes, e.g. [[4, 6], [6, 4]]");
        } else {
            ax[which].n = 1;
            ax[which].items = (const tl_ynode *const *)&ax[which].node;
        }
        if (ax[which].n == 0) {
            snprintf(m, sizeof m, "'%s' is an empty list (give at least one value)",
                     key_names[which]);
            return fail(v, bad, msg, cap, m);
        }
    }
    if (!ax[K_SHAPE].node)
        return fail(gen, bad, msg, cap, "a variant generator needs 'shape' (a list of shapes)");

    /* the values, checked */
    size_t ns = ax[K_SHAPE].n;
    shape *shapes = tl_xcalloc(ns, sizeof *shapes);
    bool ok = true;
    for (size_t i = 0; i < ns && ok; i++) {
        const tl_ynode *s = ax[K_SHAPE].items[i];
        shapes[i].node = s;
        if (s->kind != TL_Y_SEQ || s->n < 1 || s->n > MAX_DIMS) {
            ok = fail(s, bad, msg, cap, "a shape must be a list of 1 to 6 sizes, e.g. [4, 6]");
            break;
        }
        int64_t elems = 1;
        shapes[i].nd = (int)s->n;
        for (size_t d = 0; d < s->n && ok; d++) {
            if (!get_int(s->items[d], 1, MAX_ELEMS, &shapes[i].d[d]))
                ok = fail(s->items[d], bad, msg, cap, "a size must be a whole number from 1 to 1048576");
            else if ((elems *= shapes[i].d[d]) > MAX_ELEMS)
                ok = fail(s, bad, msg, cap, "a shape of more than 1048576 elements");
        }
        for (size_t j = 0; j < i && ok; j++)
            if (shapes[j].nd == shapes[i].nd &&
                !memcmp(shapes[j].d, shapes[i].d, sizeof(int64_t) * (size_t)shapes[i].nd))
                ok = fail(s, bad, msg, cap, "this shape is listed twice");
    }
    bool tr[2], cl[2];
    int64_t steps[16];
    const char *dts[16];
    for (int k = K_TRANSPOSED; k < K_N && ok; k++) {
        if (!ax[k].node)
            continue;
        if (ax[k].n > 16) {
            snprintf(m, sizeof m, "'%s' lists more than 16 values", key_names[k]);
            ok = fail(ax[k].node, bad, msg, cap, m);
            break;
        }
        for (size_t i = 0; i < ax[k].n && ok; i++) {
            const tl_ynode *v = ax[k].items[i];
            if (k == K_TRANSPOSED || k == K_CL) {
                bool b;
                if (ax[k].n > 2 || !get_bool(v, &b)) {
                    snprintf(m, sizeof m, "'%s' takes false, true or [false, true]", key_names[k]);
                    ok = fail(v, bad, msg, cap, m);
                } else {
                    (k == K_TRANSPOSED ? tr : cl)[i] = b;
                    if (i == 1 && (k == K_TRANSPOSED ? tr : cl)[0] == b) {
                        snprintf(m, sizeof m, "'%s' lists %s twice", key_names[k],
                                 b ? "true" : "false");
                        ok = fail(v, bad, msg, cap, m);
                    }
                }
            } else if (k == K_STEP) {
                if (!get_int(v, 1, 64, &steps[i]))
                    ok = fail(v, bad, msg, cap, "a step must be a whole number from 1 to 64");
                for (size_t j = 0; j < i && ok; j++)
                    if (steps[j] == steps[i])
                        ok = fail(v, bad, msg, cap, "this step is listed twice");
            } else {
                dts[i] = NULL;
                for (size_t j = 0; dtypes[j] && v->kind == TL_Y_SCALAR && v->value; j++)
                    if (!strcmp(v->value, dtypes[j]) ||
                        (!strncmp(v->value, "torch.", 6) && !strcmp(v->value + 6, dtypes[j])))
                        dts[i] = dtypes[j];
                if (!dts[i])
                    ok = fail(v, bad, msg, cap,
                              "unknown dtype (expected float32, float64, float16, bfloat16, "
                              "int64, int32, int16, int8 or uint8)");
                for (size_t j = 0; j < i && ok; j++)
                    if (dts[j] == dts[i])
                        ok = fail(v, bad, msg, cap, "this dtype is listed twice");
            }
        }
    }
    size_t n_tr = ax[K_TRANSPOSED].node ? ax[K_TRANSPOSED].n : 1;
    size_t n_st = ax[K_STEP].node ? ax[K_STEP].n : 1;
    size_t n_dt = ax[K_DTYPE].node ? ax[K_DTYPE].n : 1;
    size_t n_cl = ax[K_CL].node ? ax[K_CL].n : 1;
    if (!ax[K_TRANSPOSED].node)
        tr[0] = false;
    if (!ax[K_STEP].node)
        steps[0] = 1;
    if (!ax[K_DTYPE].node)
        dts[0] = "float32";
    if (!ax[K_CL].node)
        cl[0] = false;
    /* the combinations each value needs */
    for (size_t i = 0; i < ns && ok; i++) {
        for (size_t t = 0; t < n_tr && ok; t++)
            if (tr[t] && shapes[i].nd < 2)
                ok = fail(shapes[i].node, bad, msg, cap,
                          "transposed needs shapes of 2 or more dims (this one has 1)");
        for (size_t c = 0; c < n_cl && ok; c++)
            if (cl[c] && shapes[i].nd != 4)
                ok = fail(shapes[i].node, bad, msg, cap,
                          "channels_last needs 4-D shapes (N, C, H, W)");
        int64_t elems = 1;
        for (int d = 0; d < shapes[i].nd; d++)
            elems *= shapes[i].d[d];
        for (size_t s = 0; s < n_st && ok; s++)
            if (elems * steps[s] > MAX_ELEMS)
                ok = fail(shapes[i].node, bad, msg, cap,
                          "this shape times a step is more than 1048576 elements");
    }
    size_t total = ns * n_tr * n_st * n_dt * n_cl;
    if (ok && total > max) {
        snprintf(m, sizeof m, "this generator makes %zu variants (at most %zu)", total, max);
        ok = fail(gen, bad, msg, cap, m);
    }
    if (!ok) {
        free(shapes);
        return false;
    }

    tl_vargen_item *items = tl_xcalloc(total, sizeof *items);
    size_t n = 0;
    for (size_t a = 0; a < ns; a++)
        for (size_t t = 0; t < n_tr; t++)
            for (size_t s = 0; s < n_st; s++)
                for (size_t d = 0; d < n_dt; d++)
                    for (size_t c = 0; c < n_cl; c++) {
                        const shape *sh = &shapes[a];
                        int nd = sh->nd;
                        int64_t k = steps[s], elems = 1;
                        /* the storage's shape: the final dims, reversed
                         * when transposed, the last one k times longer */
                        shape st = *sh;
                        if (tr[t])
                            for (int i = 0; i < nd; i++)
                                st.d[i] = sh->d[nd - 1 - i];
                        st.d[nd - 1] *= k;
                        for (int i = 0; i < nd; i++)
                            elems *= st.d[i];
                        char dims[160];
                        shape_text(&st, dims, sizeof dims, ", ");
                        tl_buf b = {0};
                        tl_buf_printf(&b, "%s = torch.arange(%" PRId64 ", dtype=torch.%s)",
                                      parent, elems, dts[d]);
                        if (nd > 1 || k > 1)
                            tl_buf_printf(&b, ".reshape(%s)", dims);
                        if (k > 1)
                            tl_buf_printf(&b, "[..., ::%" PRId64 "]", k);
                        if (tr[t] && nd == 2)
                            tl_buf_puts(&b, ".t()");
                        else if (tr[t]) {
                            tl_buf_puts(&b, ".permute(");
                            for (int i = nd - 1; i >= 0; i--)
                                tl_buf_printf(&b, "%d%s", i, i ? ", " : ")");
                        }
                        if (cl[c])
                            tl_buf_puts(&b, ".contiguous(memory_format=torch.channels_last)");
                        items[n].setup = tl_buf_steal(&b);
                        tl_buf nm = {0};
                        if (ns > 1) {
                            char sx[160];
                            shape_text(sh, sx, sizeof sx, "x");
                            tl_buf_puts(&nm, sx);
                        }
                        if (n_tr > 1)
                            tl_buf_printf(&nm, "%s%s", nm.len ? "-" : "", tr[t] ? "t" : "n");
                        if (n_st > 1)
                            tl_buf_printf(&nm, "%ss%" PRId64, nm.len ? "-" : "", k);
                        if (n_dt > 1)
                            tl_buf_printf(&nm, "%s%s", nm.len ? "-" : "", dts[d]);
                        if (n_cl > 1)
                            tl_buf_printf(&nm, "%s%s", nm.len ? "-" : "", cl[c] ? "cl" : "cf");
                        if (!nm.len)
                            tl_buf_puts(&nm, "g");
                        items[n++].name = tl_buf_steal(&nm);
                    }
    free(shapes);
    *out = items;
    *nout = n;
    return true;
}

void tl_vargen_free(tl_vargen_item *items, size_t n)
{
    for (size_t i = 0; items && i < n; i++) {
        free(items[i].name);
        free(items[i].setup);
    }
    free(items);
}
