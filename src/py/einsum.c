/* einsum.c - torch.einsum(equation, *operands) (issue #27).
 *
 * Design: the equation is parsed the way aten/src/ATen/native/Linear.cpp
 * does (labels [a-zA-Z], '...', '->', the implicit output: the ellipsis
 * dims, then the labels seen once, uppercase before lowercase), with its
 * checks and texts. Each operand becomes ONE view over its own storage
 * with the full dims [output..., contracted...]: a repeated label takes
 * the sum of its dims' strides (torch's diagonal), a missing label or
 * ellipsis dim is size 1, stride 0. One operand with nothing to sum comes
 * back as a view built as torch builds it (diagonal for each repeated
 * label, then permute, through the view bindings: _base is the operand's
 * base, grad_fn PermuteBackward0); a sum is a new contiguous tensor. Several operands are multiplied (broadcast)
 * and summed over the contracted dims in their dtype (a new contiguous
 * tensor, the layout torch's bmm path gives the cases of ops27b.json).
 * Operands of different dtypes raise bmm's error, as torch does. With an
 * operand that requires grad the same steps go through the autograd
 * bindings (as_strided, mul, sum), so backward reaches the operands.
 */
#include "einsum.h"

#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "ops.h"
#include "tensor.h"
#include "util.h"
#include "value.h"

#define NLAB 52
#define MAXOPS 64

static int lab_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    return -1;
}

static char char_of(int l)
{
    return (char)(l < 26 ? 'A' + l : 'a' + l - 26);
}

typedef struct term {
    int lab[TL_MAX_DIMS + 1]; /* -1: the ellipsis */
    int n;                    /* entries, the ellipsis counting one */
    bool ell;
} term;

static int too_many(tl_error *err)
{
    return tl_error_set(err, TL_ERR_LIMIT, "einsum(): more than %d subscripts in a term",
                        TL_MAX_DIMS);
}

/* one term from eq[*i..] up to ',' / '-' / end; op is its number (-1: output) */
static int parse_term(const char *eq, size_t *i, int op, term *t, tl_error *err)
{
    t->n = 0;
    t->ell = false;
    int dots = 0;
    for (; eq[*i] && eq[*i] != ',' && eq[*i] != '-'; (*i)++) {
        char c = eq[*i];
        if (c == ' ')
            continue;
        if (c == '.') {
            if (t->ell && op < 0)
                return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): found '.' for output for "
                                    "which an ellipsis was already found");
            if (t->ell)
                return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): found '.' for operand %d "
                                    "for which an ellipsis was already found", op);
            if (++dots == 3) {
                if (t->n > TL_MAX_DIMS)
                    return too_many(err);
                t->lab[t->n++] = -1;
                t->ell = true;
                dots = 0;
            }
            continue;
        }
        if (dots)
            break;
        int l = lab_of(c);
        if (l < 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): invalid subscript given at "
                                "index %zu in the equation string, subscripts must be in "
                                "[a-zA-Z]", *i);
        if (t->n > TL_MAX_DIMS)
            return too_many(err);
        t->lab[t->n++] = l;
    }
    if (dots) {
        if (op < 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): found '.' for output that is "
                                "not part of any ellipsis");
        return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): found '.' for operand %d that is "
                            "not part of any ellipsis", op);
    }
    return 0;
}

/* The differentiable path (an operand requires grad, grad mode on): the
 * same views as as_strided calls, the product and the sum as mul and sum,
 * each through its autograd binding, so the graph records them (PyTorch
 * names other nodes, from its bmm path; the gradients are the same). */
static tl_value *einsum_grad(tl_value *const *vals, tl_tensor **views, int nops, int nfull,
                             int out_nd, tl_error *err)
{
    const tl_binding *as = tl_bind_find(TL_BIND_METHOD, "as_strided");
    const tl_binding *mul = tl_bind_find(TL_BIND_METHOD, "mul");
    const tl_binding *sum = tl_bind_find(TL_BIND_METHOD, "sum");
    if (!as || !mul || !sum)
        return tl_error_set(err, TL_ERR_INTERNAL, "einsum: a binding is missing"), NULL;
    tl_value *prod = NULL;
    for (int k = 0; k < nops; k++) {
        const tl_tensor *v = views[k];
        tl_value *sz = tl_tuple_new((size_t)v->ndim), *st = tl_tuple_new((size_t)v->ndim);
        for (int d = 0; d < v->ndim; d++) {
            tl_seq_set(sz, (size_t)d, tl_int(v->sizes[d]));
            tl_seq_set(st, (size_t)d, tl_int(v->strides[d]));
        }
        tl_value *args[3] = {sz, st, tl_int(v->offset)};
        tl_args a = {3, args, 0, NULL, NULL};
        tl_value *w = as->fn(vals[k], &a, err);
        for (int i = 0; i < 3; i++)
            tl_value_release(args[i]);
        if (w && prod) {
            tl_args m = {1, &w, 0, NULL, NULL};
            tl_value *p = mul->fn(prod, &m, err);
            tl_value_release(w);
            w = p;
        }
        tl_value_release(prod);
        prod = w;
        if (!prod)
            return NULL;
    }
    if (nfull > out_nd) {
        tl_value *dims = tl_tuple_new((size_t)(nfull - out_nd));
        for (int f = out_nd; f < nfull; f++)
            tl_seq_set(dims, (size_t)(f - out_nd), tl_int(f));
        tl_args a = {1, &dims, 0, NULL, NULL};
        tl_value *r = sum->fn(prod, &a, err);
        tl_value_release(dims);
        tl_value_release(prod);
        prod = r;
    }
    return prod;
}

/* One operand, nothing summed: torch's view of it, made the way torch
 * makes it (a diagonal for each repeated label, then one permute), through
 * the view bindings, so _base is the operand's base and grad_fn is
 * PermuteBackward0. tgt[d]: the output dim of the operand's dim d. */
static tl_value *single_view(tl_value *v, const int *tgt_in, int nd, int nout,
                             tl_error *err)
{
    const tl_binding *diag = tl_bind_find(TL_BIND_METHOD, "diagonal");
    const tl_binding *perm = tl_bind_find(TL_BIND_METHOD, "permute");
    if (!diag || !perm)
        return tl_error_set(err, TL_ERR_INTERNAL, "einsum: a binding is missing"), NULL;
    int tgt[TL_MAX_DIMS];
    memcpy(tgt, tgt_in, sizeof(int) * (size_t)nd);
    tl_value *cur = tl_value_retain(v);
    for (;;) {
        int i = -1, j = -1;
        for (int a = 0; a < nd && i < 0; a++)
            for (int b = a + 1; b < nd; b++)
                if (tgt[a] == tgt[b]) {
                    i = a;
                    j = b;
                    break;
                }
        if (i < 0)
            break;
        /* diagonal(0, i, j): dims i and j go, their diagonal comes last */
        tl_value *args[3] = {tl_int(0), tl_int(i), tl_int(j)};
        tl_args a = {3, args, 0, NULL, NULL};
        tl_value *w = diag->fn(cur, &a, err);
        for (int q = 0; q < 3; q++)
            tl_value_release(args[q]);
        tl_value_release(cur);
        if (!w)
            return NULL;
        cur = w;
        int t = tgt[i], m = 0;
        for (int d = 0; d < nd; d++)
            if (d != i && d != j)
                tgt[m++] = tgt[d];
        tgt[m++] = t;
        nd = m;
    }
    if (nd != nout) {
        tl_value_release(cur);
        return tl_error_set(err, TL_ERR_INTERNAL, "einsum: %d dims for %d outputs", nd, nout),
               NULL;
    }
    tl_value *dims = tl_tuple_new((size_t)nd);
    for (int f = 0; f < nd; f++)
        for (int d = 0; d < nd; d++)
            if (tgt[d] == f)
                tl_seq_set(dims, (size_t)f, tl_int(d));
    tl_args a = {1, &dims, 0, NULL, NULL};
    tl_value *r = perm->fn(cur, &a, err);
    tl_value_release(dims);
    tl_value_release(cur);
    return r;
}

static tl_tensor *einsum(const char *eq, tl_tensor **ops, int nops, tl_value *const *vals,
                         tl_value **vres, tl_error *err)
{
    if (nops == 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): must provide at least one operand"),
               NULL;
    term in[MAXOPS], out;
    size_t i = 0;
    int k = 0;
    for (;;) {
        if (k >= nops)
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): fewer operands were provided "
                                "than specified in the equation"), NULL;
        if (parse_term(eq, &i, k, &in[k], err))
            return NULL;
        k++;
        if (eq[i] == ',') {
            i++;
            continue;
        }
        break;
    }
    bool arrow = false;
    if (eq[i] == '-') {
        if (eq[i + 1] != '>')
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): invalid subscript given at "
                                "index %zu in the equation string, subscripts must be in "
                                "[a-zA-Z]", i), NULL;
        i += 2;
        arrow = true;
    }
    if (k < nops)
        return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): more operands were provided than "
                            "specified in the equation"), NULL;
    /* dims of the labels and of the ellipsis */
    int count[NLAB] = {0};
    int64_t lsize[NLAB];
    int ell_nd = 0;
    for (k = 0; k < nops; k++) {
        int nl = in[k].n - (in[k].ell ? 1 : 0);
        int nd = ops[k]->ndim;
        if (!in[k].ell && nl != nd)
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): the number of subscripts in "
                                "the equation (%d) does not match the number of dimensions "
                                "(%d) for operand %d and no ellipsis was given", nl, nd, k),
                   NULL;
        if (in[k].ell && nl > nd)
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): the number of subscripts in "
                                "the equation (%d) is more than the number of dimensions "
                                "(%d) for operand %d", nl, nd, k), NULL;
        if (in[k].ell && nd - nl > ell_nd)
            ell_nd = nd - nl;
        for (int j = 0; j < in[k].n; j++)
            if (in[k].lab[j] >= 0)
                count[in[k].lab[j]]++;
    }
    bool any_ell = false;
    for (k = 0; k < nops; k++)
        any_ell |= in[k].ell;
    if (arrow) {
        if (parse_term(eq, &i, -1, &out, err))
            return NULL;
        if (eq[i])
            return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): invalid subscript given at "
                                "index %zu in the equation string, subscripts must be in "
                                "[a-zA-Z]", i), NULL;
        bool seen[NLAB] = {false};
        for (int j = 0; j < out.n; j++) {
            int l = out.lab[j];
            if (l < 0)
                continue;
            if (seen[l])
                return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): output subscript %c "
                                    "appears more than once in the output", char_of(l)), NULL;
            seen[l] = true;
            if (!count[l])
                return tl_error_set(err, TL_ERR_RUNTIME, "einsum(): output subscript %c does "
                                    "not appear in the equation for any input operand",
                                    char_of(l)), NULL;
        }
    } else {
        out.n = 0;
        out.ell = any_ell;
        if (any_ell)
            out.lab[out.n++] = -1;
        for (int l = 0; l < NLAB; l++)
            if (count[l] == 1 && out.n <= TL_MAX_DIMS)
                out.lab[out.n++] = l;
    }
    /* the full dims: output (ellipsis expanded), then the contracted labels */
    int nfull = 0, pos_of[NLAB], ell_at = -1;
    bool in_out[NLAB] = {false};
    for (int l = 0; l < NLAB; l++)
        pos_of[l] = -1;
    for (int j = 0; j < out.n; j++) {
        if (out.lab[j] < 0) {
            ell_at = nfull;
            for (int e = 0; e < ell_nd; e++)
                nfull++;
        } else {
            in_out[out.lab[j]] = true;
            pos_of[out.lab[j]] = nfull;
            nfull++;
        }
    }
    int out_nd = nfull;
    if (any_ell && ell_at < 0) { /* an ellipsis not in the output is summed */
        ell_at = nfull;
        for (int e = 0; e < ell_nd; e++)
            nfull++;
    }
    for (int l = 0; l < NLAB; l++)
        if (count[l] && !in_out[l]) {
            pos_of[l] = nfull;
            nfull++;
        }
    if (nfull > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT, "einsum(): more than %d dimensions",
                            TL_MAX_DIMS), NULL;
    /* sizes: repeated labels within an operand must agree; across operands
     * they broadcast */
    for (int l = 0; l < NLAB; l++)
        lsize[l] = -1;
    int64_t ell_size[TL_MAX_DIMS];
    for (int e = 0; e < ell_nd; e++)
        ell_size[e] = 1;
    tl_tensor *views[MAXOPS] = {0};
    tl_tensor *res = NULL;
    int tgt0[TL_MAX_DIMS]; /* operand 0's dims: their full dims */
    for (k = 0; k < nops; k++) {
        const tl_tensor *t = ops[k];
        int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
        for (int f = 0; f < nfull; f++) {
            sz[f] = 1;
            st[f] = 0;
        }
        int64_t opsize[NLAB];
        bool have[NLAB] = {false};
        int nl = in[k].n - (in[k].ell ? 1 : 0), d = 0;
        for (int j = 0; j < in[k].n; j++) {
            int l = in[k].lab[j];
            if (l < 0) {
                int ne = t->ndim - nl;
                for (int e = 0; e < ne; e++, d++) {
                    int f = ell_at + ell_nd - ne + e;
                    if (k == 0)
                        tgt0[d] = f;
                    sz[f] = t->sizes[d];
                    st[f] = t->strides[d];
                    int64_t *es = &ell_size[f - ell_at];
                    if (*es == 1)
                        *es = sz[f];
                    else if (sz[f] != 1 && sz[f] != *es) {
                        tl_error_set(err, TL_ERR_RUNTIME, "einsum(): operands do not "
                                     "broadcast with remapped shapes (original->remapped)");
                        goto fail;
                    }
                }
                continue;
            }
            int64_t s = t->sizes[d];
            if (k == 0)
                tgt0[d] = pos_of[l];
            if (have[l]) {
                if (opsize[l] != s) {
                    tl_error_set(err, TL_ERR_RUNTIME, "einsum(): subscript %c is repeated for "
                                 "operand %d but the sizes don't match, %lld != %lld",
                                 char_of(l), k, (long long)s, (long long)opsize[l]);
                    goto fail;
                }
                st[pos_of[l]] += t->strides[d];
            } else {
                have[l] = true;
                opsize[l] = s;
                sz[pos_of[l]] = s;
                st[pos_of[l]] = t->strides[d];
                if (lsize[l] < 0 || lsize[l] == 1)
                    lsize[l] = s;
                else if (s != 1 && s != lsize[l]) {
                    tl_error_set(err, TL_ERR_RUNTIME, "einsum(): subscript %c has size %lld "
                                 "for operand %d which does not broadcast with previously "
                                 "seen size %lld", char_of(l), (long long)s, k,
                                 (long long)lsize[l]);
                    goto fail;
                }
            }
            d++;
        }
        views[k] = tl_tensor_view(t, nfull, sz, st, t->offset);
        if (!views[k]) {
            tl_error_set(err, TL_ERR_LIMIT, "out of memory");
            goto fail;
        }
    }
    for (k = 1; k < nops; k++)
        if (ops[k]->dtype != ops[0]->dtype) {
            tl_error_set(err, TL_ERR_RUNTIME, "expected scalar type %s but found %s",
                         tl_dtype_scalar_name(ops[0]->dtype),
                         tl_dtype_scalar_name(ops[k]->dtype));
            goto fail;
        }
    if (nops == 1 && nfull == out_nd) {
        /* nothing to multiply or sum: a view */
        *vres = single_view(vals[0], tgt0, ops[0]->ndim, nfull, err);
        goto fail; /* the views are released there */
    }
    bool grad = false;
    for (k = 0; k < nops; k++)
        grad |= ops[k]->requires_grad;
    if (grad && tl_tensor_grad_mode()) {
        *vres = einsum_grad(vals, views, nops, nfull, out_nd, err);
        goto fail; /* the views are released there */
    }
    tl_tensor *prod = tl_tensor_retain(views[0]);
    for (k = 1; k < nops; k++) {
        tl_operand a = tl_ops_operand_tensor(prod), b = tl_ops_operand_tensor(views[k]);
        tl_tensor *p = tl_ops_binop(TL_BIN_MUL, &a, &b, err);
        tl_tensor_release(prod);
        prod = p;
        if (!prod)
            goto fail;
    }
    if (nfull > out_nd) {
        int64_t dims[TL_MAX_DIMS];
        for (int f = out_nd; f < nfull; f++)
            dims[f - out_nd] = f;
        tl_dtype dt = prod->dtype;
        res = tl_ops_reduce(TL_RED_SUM, "einsum", prod, nfull - out_nd, dims, false, &dt, err);
        tl_tensor_release(prod);
    } else {
        res = prod;
    }
fail:
    for (k = 0; k < nops; k++)
        if (views[k])
            tl_tensor_release(views[k]);
    return res;
}

static tl_value *t_einsum(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->nkw)
        return tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support keyword "
                            "arguments of torch.einsum"), NULL;
    if (a->npos < 1 || a->pos[0]->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE, "einsum(): argument 'equation' (position 1) "
                            "must be str"), NULL;
    tl_value *const *vals = a->pos + 1;
    size_t n = a->npos - 1;
    if (n == 1 && tl_value_is_seq(a->pos[1])) {
        vals = a->pos[1]->u.seq.items;
        n = a->pos[1]->u.seq.n;
    }
    if (n > MAXOPS)
        return tl_error_set(err, TL_ERR_LIMIT, "einsum(): more than %d operands", MAXOPS),
               NULL;
    tl_tensor *ops[MAXOPS];
    for (size_t j = 0; j < n; j++) {
        if (vals[j]->kind != TL_V_TENSOR)
            return tl_error_set(err, TL_ERR_TYPE, "einsum(): argument 'operands' must be "
                                "tuple of Tensors, not %s", tl_value_type_name(vals[j])),
                   NULL;
        ops[j] = vals[j]->u.tensor;
    }
    tl_value *vr = NULL;
    tl_tensor *r = einsum(a->pos[0]->u.str.s, ops, (int)n, vals, &vr, err);
    return r ? tl_value_tensor(r) : vr;
}

static const tl_binding torch_entries[] = {
    {"einsum", t_einsum, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_einsum_tables[] = {
    {TL_BIND_TORCH, torch_entries},
    {TL_BIND_TORCH, NULL},
};
