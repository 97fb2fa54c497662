/* bind_scan.c - Tensor methods (and through them torch.* functions) of
 * scan.h: argsort, msort, kthvalue, take_along_dim, cumsum/cumsum_,
 * cumprod/cumprod_, lerp/lerp_ (issue #27).
 *
 * Argument parsing only, in PyTorch's signatures (keyword-only stable= of
 * argsort and dtype= of cumsum/cumprod; lerp's Number or Tensor weight);
 * the work and the op's own errors are in runtime/scan.c and sort.c.
 * out= is refused by tl_args_check for every op, as elsewhere in tlab.
 * In-place bindings return self itself.
 */
#include <string.h>

#include "bind.h"
#include "scan.h"
#include "util.h"

static tl_value *ret(tl_tensor *t)
{
    return t ? tl_value_tensor(t) : NULL;
}

static tl_value *ret_self(tl_value *self, int rc)
{
    return rc < 0 ? NULL : tl_value_retain(self);
}

/* an int argument: not bool (PyTorch's parser refuses True for int) */
static bool int_arg(const tl_value *v, int64_t *out)
{
    return v && v->kind != TL_V_BOOL && tl_value_as_index(v, out);
}

static int opt_bool(const tl_args *a, size_t i, const char *kw, bool dflt,
                    bool *out, tl_error *err)
{
    tl_value *v = tl_arg(a, i, kw);
    *out = dflt;
    return v ? tl_to_bool(v, kw, out, err) : 0;
}

/* ---- argsort / msort / kthvalue ---- */

static tl_value *b_argsort(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"dim", "descending", "stable", NULL};
    static const char sig[] = "(*, bool stable, int dim, bool descending)\n"
                              "(int dim, bool descending)";
    tl_tensor *t = tl_bind_self_tensor(self, "argsort", err);
    if (!t || tl_args_check(a, "argsort", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *sv = tl_arg(a, (size_t)-1, "stable");
    if (sv && a->npos > 0) /* stable= only in the keyword-only overload */
        return tl_args_type_error(a, "argsort", sig, err), NULL;
    tl_value *dv = tl_arg(a, 0, "dim");
    int64_t dim = -1;
    bool desc, stable;
    if (dv && !int_arg(dv, &dim))
        return tl_args_type_error(a, "argsort", sig, err), NULL;
    if (opt_bool(a, 1, "descending", false, &desc, err) < 0 ||
        (sv && tl_to_bool(sv, "stable", &stable, err) < 0))
        return NULL;
    /* always stable: stable=False may order ties either way */
    return ret(tl_ops_argsort(t, dim, desc, err));
}

static tl_value *b_msort(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "msort", err);
    if (!t || tl_args_check(a, "msort", 0, NULL, "()", err) < 0)
        return NULL;
    return ret(tl_ops_msort(t, err));
}

static tl_value *b_kthvalue(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"k", "dim", "keepdim", "*", NULL};
    static const char sig[] = "(int k, int dim, bool keepdim)";
    tl_tensor *t = tl_bind_self_tensor(self, "kthvalue", err);
    if (!t || tl_args_check(a, "kthvalue", 3, kw, sig, err) < 0)
        return NULL;
    tl_value *kv = tl_arg(a, 0, "k"), *dv = tl_arg(a, 1, "dim");
    int64_t k, dim = -1;
    bool keepdim;
    if (!int_arg(kv, &k) || (dv && !int_arg(dv, &dim)))
        return tl_args_type_error(a, "kthvalue", sig, err), NULL;
    if (opt_bool(a, 2, "keepdim", false, &keepdim, err) < 0)
        return NULL;
    tl_tensor *v = NULL, *ix = NULL;
    if (tl_ops_kthvalue(t, k, dim, keepdim, &v, &ix, err) < 0)
        return NULL;
    return tl_return_pair("kthvalue", tl_value_tensor(v), tl_value_tensor(ix));
}

/* ---- take_along_dim ---- */

static tl_value *b_take_along_dim(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"indices", "dim", "*", NULL};
    static const char sig[] = "(Tensor indices, int? dim=None)";
    tl_tensor *t = tl_bind_self_tensor(self, "take_along_dim", err);
    if (!t || tl_args_check(a, "take_along_dim", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *iv = tl_arg(a, 0, "indices"), *dv = tl_arg(a, 1, "dim");
    if (!iv)
        return tl_error_set(err, TL_ERR_TYPE, "take_along_dim() missing 1 required "
                            "positional arguments: \"indices\""), NULL;
    int64_t dim = 0;
    bool has_dim = dv && dv->kind != TL_V_NONE;
    if (iv->kind != TL_V_TENSOR || (has_dim && !int_arg(dv, &dim)))
        return tl_args_type_error(a, "take_along_dim", sig, err), NULL;
    return ret(tl_scan_take_along_dim(t, iv->u.tensor, has_dim, dim, err));
}

/* ---- cumsum / cumprod ---- */

static int cum_args(const char *fn, const tl_args *a, int64_t *dim, bool *has_dt,
                    tl_dtype *dt, tl_error *err)
{
    static const char *const kw[] = {"dim", "*", "dtype", NULL};
    static const char sig[] = "(int dim, *, torch.dtype dtype)";
    if (tl_args_check(a, fn, 1, kw, sig, err) < 0)
        return -1;
    tl_value *dv = tl_arg(a, 0, "dim"), *tv = tl_arg(a, (size_t)-1, "dtype");
    if (!int_arg(dv, dim) || (tv && tv->kind != TL_V_NONE && tv->kind != TL_V_DTYPE))
        return tl_args_type_error(a, fn, sig, err);
    *has_dt = tv && tv->kind == TL_V_DTYPE;
    return *has_dt ? tl_to_dtype(tv, "dtype", dt, err) : 0;
}

static tl_value *cum_method(const char *fn, bool prod, tl_value *self,
                            const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, fn, err);
    int64_t dim;
    bool has_dt;
    tl_dtype dt;
    if (!t || cum_args(fn, a, &dim, &has_dt, &dt, err) < 0)
        return NULL;
    return ret(tl_scan_cum(prod, t, dim, has_dt ? &dt : NULL, err));
}

static tl_value *cum_inplace(const char *fn, bool prod, tl_value *self,
                             const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, fn, err);
    int64_t dim;
    bool has_dt;
    tl_dtype dt;
    if (!t || cum_args(fn, a, &dim, &has_dt, &dt, err) < 0)
        return NULL;
    return ret_self(self, tl_scan_cum_(prod, t, dim, has_dt ? &dt : NULL, err));
}

static tl_value *b_cumsum(tl_value *self, const tl_args *a, tl_error *err)
{
    return cum_method("cumsum", false, self, a, err);
}
static tl_value *b_cumprod(tl_value *self, const tl_args *a, tl_error *err)
{
    return cum_method("cumprod", true, self, a, err);
}
static tl_value *b_cumsum_(tl_value *self, const tl_args *a, tl_error *err)
{
    return cum_inplace("cumsum_", false, self, a, err);
}
static tl_value *b_cumprod_(tl_value *self, const tl_args *a, tl_error *err)
{
    return cum_inplace("cumprod_", true, self, a, err);
}

/* ---- lerp ---- */

/* (end, weight): weight a tensor (*wt) or a Python number (*w) */
static int lerp_args(const char *fn, const tl_args *a, tl_tensor **end,
                     tl_tensor **wt, double *w, tl_error *err)
{
    static const char *const kw[] = {"end", "weight", "*", NULL};
    static const char sig[] = "(Tensor end, Tensor weight)\n(Tensor end, Number weight)";
    if (tl_args_check(a, fn, 2, kw, sig, err) < 0)
        return -1;
    tl_value *ev = tl_arg(a, 0, "end"), *wv = tl_arg(a, 1, "weight");
    if (!ev || !wv || ev->kind != TL_V_TENSOR)
        return tl_args_type_error(a, fn, sig, err);
    *end = ev->u.tensor;
    *wt = NULL;
    if (wv->kind == TL_V_TENSOR) {
        *wt = wv->u.tensor;
        return 0;
    }
    if (wv->kind == TL_V_FLOAT) {
        *w = wv->u.f;
        return 0;
    }
    int64_t i;
    if (wv->kind == TL_V_INT && tl_value_as_index(wv, &i)) {
        *w = (double)i;
        return 0;
    }
    if (wv->kind == TL_V_BOOL) {
        *w = wv->u.b ? 1.0 : 0.0;
        return 0;
    }
    return tl_args_type_error(a, fn, sig, err);
}

static tl_value *b_lerp(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "lerp", err), *end, *wt;
    double w = 0;
    if (!t || lerp_args("lerp", a, &end, &wt, &w, err) < 0)
        return NULL;
    return ret(tl_scan_lerp(t, end, wt, w, err));
}

static tl_value *b_lerp_(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "lerp_", err), *end, *wt;
    double w = 0;
    if (!t || lerp_args("lerp_", a, &end, &wt, &w, err) < 0)
        return NULL;
    return ret_self(self, tl_scan_lerp_(t, end, wt, w, err));
}

static const tl_binding methods[] = {
    {"argsort", b_argsort, false, false},
    {"msort", b_msort, false, false},
    {"kthvalue", b_kthvalue, false, false},
    {"take_along_dim", b_take_along_dim, false, false},
    {"cumsum", b_cumsum, false, false},
    {"cumsum_", b_cumsum_, false, true},
    {"cumprod", b_cumprod, false, false},
    {"cumprod_", b_cumprod_, false, true},
    {"lerp", b_lerp, false, false},
    {"lerp_", b_lerp_, false, true},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_scan_tables[] = {
    {TL_BIND_METHOD, methods},
    {TL_BIND_METHOD, NULL},
};
