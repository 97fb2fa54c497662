/* bind_create.c - the op-language face of create.c: torch.* factories,
 * Tensor queries/attributes, and the registry of the numpy tables
 * (bind_numpy.c). Python data and values convert through convert.c.
 *
 * Each binding validates its arguments the way PyTorch's argument parser
 * does (unknown keywords and wrong types give "NAME() received an invalid
 * combination of arguments" TypeErrors; sizes give the "must be tuple of
 * SymInts" wording) and then calls a C-level function of create.c.
 * Factory options shared by all: dtype=, device=, requires_grad=,
 * pin_memory= (accepted, no effect) and, for *_like and empty,
 * memory_format=.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "autograd.h"
#include "bind.h"
#include "convert.h"
#include "create.h"
#include "named.h"
#include "bind_numpy.h"
#include "ops.h"
#include "util.h"

/* ------------------------------------------------------------------------
 * Shared argument handling
 * ---------------------------------------------------------------------- */

#define SIG_TAIL                                                               \
    "torch.dtype dtype, torch.layout layout, torch.device device, bool "       \
    "pin_memory, bool requires_grad)"

typedef struct fopts {
    bool has_dtype;
    tl_dtype dtype;
    const tl_backend *be; /* NULL: default / like-input */
    bool requires_grad;
    tl_memfmt memfmt;
    const tl_value *names; /* names= (borrowed), NULL: none */
} fopts;

static int parse_opts(const tl_args *a, fopts *o, tl_error *err)
{
    memset(o, 0, sizeof *o);
    o->memfmt = TL_MEMFMT_PRESERVE;
    for (size_t k = 0; k < a->nkw; k++) {
        const char *n = a->kwnames[k];
        tl_value *v = a->kwvals[k];
        if (strcmp(n, "dtype") == 0) {
            if (tl_convert_opt_dtype(v, &o->has_dtype, &o->dtype, err) < 0)
                return -1;
        } else if (strcmp(n, "device") == 0) {
            if (tl_convert_opt_device(v, &o->be, err) < 0)
                return -1;
        } else if (strcmp(n, "requires_grad") == 0) {
            if (tl_to_bool(v, "requires_grad", &o->requires_grad, err) < 0)
                return -1;
        } else if (strcmp(n, "pin_memory") == 0) {
            bool pin;
            if (v->kind != TL_V_NONE && tl_to_bool(v, "pin_memory", &pin, err) < 0)
                return -1;
        } else if (strcmp(n, "names") == 0) {
            o->names = v->kind == TL_V_NONE ? NULL : v;
        } else if (strcmp(n, "memory_format") == 0) {
            if (v->kind == TL_V_MEMFMT)
                o->memfmt = v->u.memfmt;
            else if (v->kind != TL_V_NONE)
                return tl_error_set(err, TL_ERR_TYPE,
                                    "memory_format must be torch.memory_format, "
                                    "not %s",
                                    tl_value_type_name(v));
        }
    }
    return 0;
}

static tl_value *finish(tl_tensor *t, const fopts *o, tl_error *err)
{
    if (!t)
        return NULL;
    if (o->names && tl_named_set_value(t, o->names, err) < 0) {
        tl_tensor_release(t);
        return NULL;
    }
    if (o->requires_grad && tl_create_set_requires_grad(t, true, err) < 0) {
        tl_tensor_release(t);
        return NULL;
    }
    return tl_value_tensor(t);
}

static bool is_int_like(const tl_value *v)
{
    int64_t dummy;
    return v->kind != TL_V_BOOL && v->kind != TL_V_FLOAT &&
           tl_value_as_index(v, &dummy);
}

/* The size parameter of factory fname (at position pos). PyTorch overloads
 * the factories on names=/out=/generator=, and those overloads become
 * plausible only from the (required+1)-th argument on: with fewer, the
 * parser words a bad size itself ("argument 'size' (position 1) must be
 * ..."); with more, it raises the invalid-combination TypeError with sig.
 * zeros/ones/empty/full/new_* declare SymInt[] size, rand/randn/randint
 * int[]. Returns the count, TL_SHAPE_ABSENT or -1. */
static int factory_size(const tl_args *a, const char *fname, size_t pos,
                        bool symint, bool varargs, size_t required,
                        const char *sig, int64_t *out, tl_error *err)
{
    const tl_shape_param p = {.fname = fname, .name = "size", .pos = pos,
                              .symint = symint, .varargs = varargs,
                              .kwonly_follow = true,
                              .sig = a->npos + a->nkw > required ? sig : NULL};
    return tl_to_shape(a, &p, out, err);
}

/* The common head of zeros/ones/empty/rand/randn(*size, ...): arguments
 * checked against kw and sig, the size read (a missing one is sig's
 * TypeError), the options parsed. Returns the size's length or -1. */
static int varargs_factory_head(const tl_args *a, const char *fname,
                                const char *const *kw, const char *sig,
                                bool symint, int64_t *sizes, fopts *o,
                                tl_error *err)
{
    if (tl_args_check(a, fname, TL_MAX_DIMS, kw, sig, err) < 0)
        return -1;
    int n = factory_size(a, fname, 0, symint, true, 1, sig, sizes, err);
    if (n == TL_SHAPE_ABSENT)
        return tl_args_type_error(a, fname, sig, err);
    if (n < 0 || parse_opts(a, o, err) < 0)
        return -1;
    return n;
}

/* A Python number (or one-element tensor) as a tl_scalar; dtype inferred
 * the way torch.full does (bool, int64, float32). */
static int number_arg(const tl_value *v, const char *fname, const char *what,
                      size_t pos, tl_scalar *s, tl_dtype *dt, tl_error *err)
{
    memset(s, 0, sizeof *s);
    switch (v ? v->kind : TL_V_NONE) {
    case TL_V_BOOL: s->i = v->u.b; *dt = TL_BOOL; return 0;
    case TL_V_INT: s->i = v->u.i; *dt = TL_INT64; return 0;
    case TL_V_FLOAT: s->is_float = true; s->f = v->u.f; *dt = tl_dtype_default(); return 0;
    case TL_V_TENSOR:
        if (tl_tensor_numel(v->u.tensor) == 1) {
            const tl_tensor *t = v->u.tensor;
            if (tl_dtype_is_floating(t->dtype)) {
                s->is_float = true;
                *dt = TL_FLOAT32;
                return tl_tensor_get_f64(t, 0, &s->f, err);
            }
            *dt = t->dtype == TL_BOOL ? TL_BOOL : TL_INT64;
            return tl_tensor_get_i64(t, 0, &s->i, err);
        }
        /* fall through */
    default:
        return tl_error_set(err, TL_ERR_TYPE,
                            "%s(): argument '%s' (position %zu) must be "
                            "Number, not %s",
                            fname, what, pos, v ? tl_value_type_name(v) : "None");
    }
}

static const tl_backend *pick_be(const fopts *o)
{
    return o->be ? o->be : tl_create_default_backend();
}

/* strides for a new tensor shaped like t under memory_format */
static int like_strides(const tl_tensor *t, tl_memfmt f, int64_t *strides,
                        tl_error *err)
{
    switch (f) {
    case TL_MEMFMT_PRESERVE: tl_tensor_preserve_strides(t, strides); return 0;
    case TL_MEMFMT_CONTIGUOUS: tl_shape_contiguous_strides(t->ndim, t->sizes, strides); return 0;
    case TL_MEMFMT_CHANNELS_LAST:
        if (t->ndim != 4)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "required rank 4 tensor to use channels_last "
                                "format");
        tl_shape_channels_last_strides(4, t->sizes, strides);
        return 0;
    case TL_MEMFMT_CHANNELS_LAST_3D:
        if (t->ndim != 5)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "required rank 5 tensor to use "
                                "channels_last_3d format");
        tl_shape_channels_last_strides(5, t->sizes, strides);
        return 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * torch.zeros / ones / empty / full / rand / randn / eye / empty_strided
 * ---------------------------------------------------------------------- */

static const char *const kw_factory[] = {"size", "dtype", "layout", "device",
                                         "pin_memory", "requires_grad",
                                         "names", NULL};
static const char *const kw_empty[] = {"size", "dtype", "layout", "device",
                                       "pin_memory", "requires_grad",
                                       "memory_format", "names", NULL};

#define SIG_SIZE(extra)                                                        \
    "(tuple of ints size, *, " extra "tuple of names names, " SIG_TAIL "\n"    \
    "(tuple of SymInts size, *, " extra "Tensor out, " SIG_TAIL

static tl_value *const_factory(const tl_args *a, const char *fname, int64_t v,
                               bool empty, tl_error *err)
{
    const char *sig = empty ? SIG_SIZE("torch.memory_format memory_format, ")
                            : SIG_SIZE("");
    int64_t sizes[TL_MAX_DIMS];
    fopts o;
    int n = varargs_factory_head(a, fname, empty ? kw_empty : kw_factory, sig,
                                 true, sizes, &o, err);
    if (n < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : tl_dtype_default();
    tl_scalar s = {.is_float = false, .i = v};
    if (empty && o.memfmt != TL_MEMFMT_PRESERVE && o.memfmt != TL_MEMFMT_CONTIGUOUS) {
        int64_t strides[TL_MAX_DIMS];
        int need = o.memfmt == TL_MEMFMT_CHANNELS_LAST ? 4 : 5;
        if (n != need) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         need == 4 ? "required rank 4 tensor to use "
                                     "channels_last format"
                                   : "required rank 5 tensor to use "
                                     "channels_last_3d format");
            return NULL;
        }
        tl_shape_channels_last_strides(n, sizes, strides);
        return finish(tl_tensor_new_strided(pick_be(&o), dt, n, sizes, strides,
                                            err),
                      &o, err);
    }
    return finish(tl_create_full(pick_be(&o), dt, n, sizes, s, err), &o, err);
}

static tl_value *b_zeros(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return const_factory(a, "zeros", 0, false, err);
}

static tl_value *b_ones(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return const_factory(a, "ones", 1, false, err);
}

static tl_value *b_empty(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return const_factory(a, "empty", 0, true, err);
}

static tl_value *b_full(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"size", "fill_value", "dtype", "layout",
                                     "device", "pin_memory", "requires_grad",
                                     "names", NULL};
    static const char *sig =
        "(tuple of ints size, Number fill_value, *, tuple of names names, "
        SIG_TAIL "\n(tuple of SymInts size, Number fill_value, *, Tensor out, "
        SIG_TAIL;
    (void)self;
    if (tl_args_check(a, "full", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *size = tl_arg(a, 0, "size"), *fill = tl_arg(a, 1, "fill_value");
    if (!size || !fill)
        return tl_args_type_error(a, "full", sig, err), NULL;
    int64_t sizes[TL_MAX_DIMS];
    int n = factory_size(a, "full", 0, true, false, 2, sig, sizes, err);
    fopts o;
    if (n < 0 || parse_opts(a, &o, err) < 0)
        return NULL;
    tl_scalar s;
    tl_dtype inferred;
    if (number_arg(fill, "full", "fill_value", 2, &s, &inferred, err) < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : inferred;
    if (tl_create_check_scalar(dt, s, err) < 0)
        return NULL;
    return finish(tl_create_full(pick_be(&o), dt, n, sizes, s, err), &o, err);
}

static tl_value *random_factory(const tl_args *a, const char *fname, bool normal,
                                tl_error *err)
{
    static const char *const kw[] = {"size", "dtype", "layout", "device",
                                     "pin_memory", "requires_grad", "names",
                                     "generator", NULL};
    const char *sig = SIG_SIZE("torch.Generator generator, ");
    int64_t sizes[TL_MAX_DIMS];
    fopts o;
    int n = varargs_factory_head(a, fname, kw, sig, false, sizes, &o, err);
    if (n < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : tl_dtype_default();
    return finish(tl_create_random(pick_be(&o), dt, n, sizes, normal, err), &o,
                  err);
}

static tl_value *b_rand(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return random_factory(a, "rand", false, err);
}

static tl_value *b_randn(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return random_factory(a, "randn", true, err);
}

static tl_value *b_randint(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"low", "high", "size", "dtype", "layout",
                                     "device", "pin_memory", "requires_grad",
                                     "generator", NULL};
    static const char *sig =
        "(int high, tuple of ints size, *, torch.Generator generator, Tensor "
        "out, " SIG_TAIL "\n(int low, int high, tuple of ints size, *, "
        "torch.Generator generator, Tensor out, " SIG_TAIL;
    (void)self;
    if (tl_args_check(a, "randint", 3, kw, sig, err) < 0)
        return NULL;
    int64_t low = 0, high;
    const tl_value *size;
    if (a->npos == 3) {
        if (!is_int_like(a->pos[0]) || !is_int_like(a->pos[1]))
            return tl_args_type_error(a, "randint", sig, err), NULL;
        tl_value_as_index(a->pos[0], &low);
        tl_value_as_index(a->pos[1], &high);
        size = a->pos[2];
    } else if (a->npos == 2) {
        if (!is_int_like(a->pos[0]))
            return tl_args_type_error(a, "randint", sig, err), NULL;
        tl_value_as_index(a->pos[0], &high);
        size = a->pos[1];
    } else {
        tl_value *h = tl_arg(a, 0, "high"), *l = tl_arg(a, 99, "low");
        size = tl_arg(a, 99, "size");
        if (!h || !size || !is_int_like(h) || (l && !is_int_like(l)))
            return tl_args_type_error(a, "randint", sig, err), NULL;
        tl_value_as_index(h, &high);
        if (l)
            tl_value_as_index(l, &low);
    }
    if (!size)
        return tl_args_type_error(a, "randint", sig, err), NULL;
    int64_t sizes[TL_MAX_DIMS];
    int n = factory_size(a, "randint", a->npos == 3 ? 2 : 1, false, false, 2,
                         sig, sizes, err);
    fopts o;
    if (n < 0 || parse_opts(a, &o, err) < 0)
        return NULL;
    if (low >= high) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "random_ expects 'from' to be less than 'to', but got "
                     "from=%" PRId64 " >= to=%" PRId64,
                     low, high);
        return NULL;
    }
    tl_dtype dt = o.has_dtype ? o.dtype : TL_INT64;
    /* uniform doubles in [0,1) scaled to the integer range */
    tl_tensor *u = tl_create_random(tl_backend_cpu(), TL_FLOAT64, n, sizes,
                                    false, err);
    if (!u)
        return NULL;
    int64_t numel = tl_tensor_numel(u);
    double *pu = u->storage->data;
    tl_tensor *h = tl_tensor_new(tl_backend_cpu(), dt, n, sizes, err);
    if (!h) {
        tl_tensor_release(u);
        return NULL;
    }
    size_t isz = tl_dtype_size(dt);
    double range = (double)high - (double)low;
    for (int64_t i = 0; i < numel; i++) {
        int64_t v = low + (int64_t)(pu[i] * range);
        if (v >= high)
            v = high - 1;
        tl_dtype_store_i64(dt, (char *)h->storage->data + (size_t)i * isz, v);
    }
    tl_tensor_release(u);
    tl_tensor *t = tl_create_copy_to(h, pick_be(&o), dt, err);
    tl_tensor_release(h);
    return finish(t, &o, err);
}

static tl_value *b_eye(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"n", "m", "dtype", "layout", "device",
                                     "pin_memory", "requires_grad", NULL};
    static const char *sig = "(int n, *, Tensor out, " SIG_TAIL
                             "\n(int n, int m, *, Tensor out, " SIG_TAIL;
    (void)self;
    if (tl_args_check(a, "eye", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *nv = tl_arg(a, 0, "n"), *mv = tl_arg(a, 1, "m");
    if (!nv)
        return tl_args_type_error(a, "eye", sig, err), NULL;
    int64_t n, m;
    if (!is_int_like(nv)) {
        tl_error_set(err, TL_ERR_TYPE,
                     "eye(): argument 'n' (position 1) must be int, not %s",
                     tl_value_type_name(nv));
        return NULL;
    }
    tl_value_as_index(nv, &n);
    m = n;
    if (mv && mv->kind != TL_V_NONE) {
        if (!is_int_like(mv)) {
            tl_error_set(err, TL_ERR_TYPE,
                         "eye(): argument 'm' (position 2) must be int, not %s",
                         tl_value_type_name(mv));
            return NULL;
        }
        tl_value_as_index(mv, &m);
    }
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    return finish(tl_create_eye(pick_be(&o), o.has_dtype ? o.dtype : tl_dtype_default(),
                                n, m, err),
                  &o, err);
}

static tl_value *b_empty_strided(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"size", "stride", "dtype", "layout",
                                     "device", "pin_memory", "requires_grad",
                                     NULL};
    static const char *sig = "(tuple of SymInts size, tuple of SymInts stride, "
                             "*, " SIG_TAIL;
    (void)self;
    if (tl_args_check(a, "empty_strided", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *sz = tl_arg(a, 0, "size"), *st = tl_arg(a, 1, "stride");
    if (!sz || !st)
        return tl_args_type_error(a, "empty_strided", sig, err), NULL;
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    static const tl_shape_param psize = {.fname = "empty_strided",
                                         .name = "size", .symint = true};
    static const tl_shape_param pstride = {.fname = "empty_strided",
                                           .name = "stride", .pos = 1,
                                           .symint = true};
    int n = tl_to_shape(a, &psize, sizes, err);
    if (n < 0)
        return NULL;
    int m = tl_to_shape(a, &pstride, strides, err);
    if (m < 0)
        return NULL;
    if (n != m) {
        tl_error_set(err, TL_ERR_RUNTIME, "mismatch in length of strides and shape");
        return NULL;
    }
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    return finish(tl_tensor_new_strided(pick_be(&o),
                                        o.has_dtype ? o.dtype : tl_dtype_default(), n,
                                        sizes, strides, err),
                  &o, err);
}

/* ------------------------------------------------------------------------
 * torch.arange / linspace / tensor / manual_seed / device
 * ---------------------------------------------------------------------- */

static tl_value *b_arange(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"start", "end", "step", "dtype", "layout",
                                     "device", "pin_memory", "requires_grad",
                                     NULL};
    static const char *sig =
        "(Number end, *, Tensor out, " SIG_TAIL
        "\n(Number start, Number end, *, " SIG_TAIL
        "\n(Number start, Number end, Number step, *, Tensor out, " SIG_TAIL;
    static const char *names[3] = {"start", "end", "step"};
    (void)self;
    if (tl_args_check(a, "arange", 3, kw, sig, err) < 0)
        return NULL;
    tl_value *v[3] = {NULL, NULL, NULL};
    if (a->npos == 1) {
        v[1] = a->pos[0];
    } else {
        for (size_t i = 0; i < a->npos; i++)
            v[i] = a->pos[i];
    }
    for (int i = 0; i < 3; i++)
        if (!v[i])
            v[i] = tl_arg(a, 99, names[i]);
    if (!v[1])
        return tl_args_type_error(a, "arange", sig, err), NULL;
    double d[3] = {0, 0, 1};
    bool any_float = false;
    for (int i = 0; i < 3; i++) {
        if (!v[i])
            continue;
        tl_scalar s;
        tl_dtype dt;
        size_t pos = a->npos == 1 ? 1 : (size_t)i + 1;
        if (number_arg(v[i], "arange", names[i], pos, &s, &dt, err) < 0)
            return NULL;
        if (s.is_float)
            any_float = true;
        d[i] = s.is_float ? s.f : (double)s.i;
    }
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : (any_float ? tl_dtype_default() : TL_INT64);
    return finish(tl_create_arange(pick_be(&o), dt, d[0], d[1], d[2], err), &o,
                  err);
}

static tl_value *b_linspace(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"start", "end", "steps", "dtype", "layout",
                                     "device", "pin_memory", "requires_grad",
                                     NULL};
    static const char *sig = "(Number start, Number end, int steps, *, Tensor "
                             "out, " SIG_TAIL;
    (void)self;
    if (tl_args_check(a, "linspace", 3, kw, sig, err) < 0)
        return NULL;
    tl_value *sv = tl_arg(a, 0, "start"), *ev = tl_arg(a, 1, "end"),
             *nv = tl_arg(a, 2, "steps");
    if (!sv || !ev)
        return tl_args_type_error(a, "linspace", sig, err), NULL;
    if (!nv) {
        tl_error_set(err, TL_ERR_TYPE,
                     "linspace() missing 1 required positional arguments: "
                     "\"steps\"");
        return NULL;
    }
    tl_scalar s, e;
    tl_dtype d1, d2;
    if (number_arg(sv, "linspace", "start", 1, &s, &d1, err) < 0 ||
        number_arg(ev, "linspace", "end", 2, &e, &d2, err) < 0)
        return NULL;
    if (!is_int_like(nv)) {
        tl_error_set(err, TL_ERR_TYPE,
                     "linspace(): argument 'steps' (position 3) must be int, "
                     "not %s",
                     tl_value_type_name(nv));
        return NULL;
    }
    int64_t steps;
    tl_value_as_index(nv, &steps);
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    return finish(tl_create_linspace(pick_be(&o),
                                     o.has_dtype ? o.dtype : tl_dtype_default(),
                                     s.is_float ? s.f : (double)s.i,
                                     e.is_float ? e.f : (double)e.i, steps, err),
                  &o, err);
}

static tl_value *b_tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"data", "dtype", "device", "requires_grad",
                                     "pin_memory", "names", NULL};
    static const char *sig = "(PyObject * data, *, torch.dtype dtype = None, "
                             "torch.device device = None, bool pin_memory = "
                             "False, bool requires_grad = False, DimnameList? "
                             "names = None)";
    (void)self;
    if (tl_args_check(a, "tensor", 1, kw, sig, err) < 0)
        return NULL;
    tl_value *data = tl_arg(a, 0, "data");
    if (!data)
        return tl_args_type_error(a, "tensor", sig, err), NULL;
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    const tl_backend *be = o.be;
    if (!be)
        be = data->kind == TL_V_TENSOR ? tl_tensor_backend(data->u.tensor)
                                       : tl_create_default_backend();
    return finish(tl_convert_from_data(data, o.has_dtype, o.dtype, be, err), &o,
                  err);
}

static tl_value *b_manual_seed(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"seed", NULL};
    (void)self;
    if (tl_args_check(a, "manual_seed", 1, kw, "(int seed)", err) < 0)
        return NULL;
    tl_value *s = tl_arg(a, 0, "seed");
    int64_t seed;
    if (!s || tl_to_int(s, "seed", &seed, err) < 0)
        return NULL;
    tl_create_manual_seed((uint64_t)seed);
    return tl_none();
}

static tl_value *b_device(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"type", "index", NULL};
    static const char *sig = "(torch.device device)\n(str type, int index = -1)";
    (void)self;
    if (tl_args_check(a, "device", 2, kw, sig, err) < 0)
        return NULL;
    tl_value *t = tl_arg(a, 0, "type"), *i = tl_arg(a, 1, "index");
    if (!t)
        return tl_args_type_error(a, "device", sig, err), NULL;
    tl_device dev;
    if (tl_convert_device(t, &dev, err) < 0)
        return NULL;
    if (i && i->kind != TL_V_NONE) {
        int64_t idx;
        if (t->kind != TL_V_STR || strchr(t->u.str.s, ':'))
            return tl_args_type_error(a, "device", sig, err), NULL;
        if (tl_to_int(i, "index", &idx, err) < 0)
            return NULL;
        if (idx < 0) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Device index must not be negative");
            return NULL;
        }
        dev.index = idx > 1000000 ? 1000000 : (int)idx;
    }
    return tl_value_device(dev);
}

/* ------------------------------------------------------------------------
 * *_like
 * ---------------------------------------------------------------------- */

static const char *const kw_like[] = {"input", "dtype", "layout", "device",
                                      "pin_memory", "requires_grad",
                                      "memory_format", NULL};
#define SIG_LIKE(extra)                                                        \
    "(Tensor input, " extra "*, torch.memory_format memory_format, " SIG_TAIL

typedef enum like_kind { LIKE_ZEROS, LIKE_ONES, LIKE_EMPTY, LIKE_FULL,
                         LIKE_RAND, LIKE_RANDN } like_kind;

static tl_value *like_factory(tl_value *self, const tl_args *a,
                              const char *fname, like_kind kind, tl_error *err)
{
    static const char *const kw_full[] = {"input", "fill_value", "dtype",
                                          "layout", "device", "pin_memory",
                                          "requires_grad", "memory_format",
                                          NULL};
    const char *sig = kind == LIKE_FULL ? SIG_LIKE("Number fill_value, ")
                                        : SIG_LIKE("");
    /* called as torch.zeros_like(x) (self = x) or x.zeros_like() */
    tl_value *pos[2];
    size_t npos = 0;
    if (self)
        pos[npos++] = self;
    for (size_t i = 0; i < a->npos && npos < 2; i++)
        pos[npos++] = a->pos[i];
    if (a->npos + (self ? 1 : 0) > (kind == LIKE_FULL ? 2u : 1u))
        return tl_args_type_error(a, fname, sig, err), NULL;
    tl_args full = {npos, pos, a->nkw, a->kwnames, a->kwvals};
    if (tl_args_check(&full, fname, kind == LIKE_FULL ? 2 : 1,
                      kind == LIKE_FULL ? kw_full : kw_like, sig, err) < 0)
        return NULL;
    tl_value *in = tl_arg(&full, 0, "input");
    tl_tensor *t;
    if (!in)
        return tl_args_type_error(a, fname, sig, err), NULL;
    if (tl_to_tensor(in, "input", &t, err) < 0)
        return NULL;
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : t->dtype;
    const tl_backend *be = o.be ? o.be : tl_tensor_backend(t);
    int64_t strides[TL_MAX_DIMS];
    if (like_strides(t, o.memfmt, strides, err) < 0)
        return NULL;
    tl_scalar s = {0};
    if (kind == LIKE_FULL) {
        tl_value *fv = tl_arg(&full, 1, "fill_value");
        tl_dtype inferred;
        if (!fv)
            return tl_args_type_error(a, fname, sig, err), NULL;
        if (number_arg(fv, fname, "fill_value", 2, &s, &inferred, err) < 0 ||
            tl_create_check_scalar(dt, s, err) < 0)
            return NULL;
    } else if (kind == LIKE_ONES) {
        s.i = 1;
    }
    tl_tensor *out;
    if (kind == LIKE_RAND || kind == LIKE_RANDN) {
        tl_tensor *r = tl_create_random(be, dt, t->ndim, t->sizes,
                                        kind == LIKE_RANDN, err);
        if (!r)
            return NULL;
        out = tl_tensor_new_strided(be, dt, t->ndim, t->sizes, strides, err);
        if (out && tl_tensor_numel(r) > 0) {
            tl_strided d = tl_tensor_strided(out), sr = tl_tensor_strided(r);
            if (tl_backend_copy_strided(be, &d, &sr, err) < 0) {
                tl_tensor_release(out);
                out = NULL;
            }
        }
        tl_tensor_release(r);
    } else {
        out = tl_tensor_new_strided(be, dt, t->ndim, t->sizes, strides, err);
        if (out && (s.i != 0 || (s.is_float && (s.f != 0.0 || signbit(s.f)))) &&
            tl_tensor_numel(out) > 0) {
            tl_strided d = tl_tensor_strided(out);
            if (tl_backend_fill(be, &d, s, err) < 0) {
                tl_tensor_release(out);
                out = NULL;
            }
        }
    }
    return finish(out, &o, err);
}

static tl_value *b_zeros_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "zeros_like", LIKE_ZEROS, err);
}

static tl_value *b_ones_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "ones_like", LIKE_ONES, err);
}

static tl_value *b_empty_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "empty_like", LIKE_EMPTY, err);
}

static tl_value *b_full_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "full_like", LIKE_FULL, err);
}

static tl_value *b_rand_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "rand_like", LIKE_RAND, err);
}

static tl_value *b_randn_like(tl_value *self, const tl_args *a, tl_error *err)
{
    return like_factory(self, a, "randn_like", LIKE_RANDN, err);
}

/* ------------------------------------------------------------------------
 * new_* methods
 * ---------------------------------------------------------------------- */

static tl_value *new_factory(tl_value *self, const tl_args *a, const char *fname,
                             like_kind kind, tl_error *err)
{
    static const char *const kw_full[] = {"size", "fill_value", "dtype",
                                          "layout", "device", "pin_memory",
                                          "requires_grad", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, fname, err);
    if (!t)
        return NULL;
    const char *sig = kind == LIKE_FULL
                          ? "(tuple of ints size, Number fill_value, *, " SIG_TAIL
                          : "(tuple of ints size, *, " SIG_TAIL;
    if (tl_args_check(a, fname, kind == LIKE_FULL ? 2 : TL_MAX_DIMS,
                      kind == LIKE_FULL ? kw_full : kw_factory, sig, err) < 0)
        return NULL;
    int64_t sizes[TL_MAX_DIMS];
    int n;
    tl_scalar s = {0};
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    tl_dtype dt = o.has_dtype ? o.dtype : t->dtype;
    if (kind == LIKE_FULL) {
        tl_value *size = tl_arg(a, 0, "size"), *fill = tl_arg(a, 1, "fill_value");
        if (!size || !fill)
            return tl_args_type_error(a, fname, sig, err), NULL;
        n = factory_size(a, fname, 0, true, false, 2, NULL, sizes, err);
        tl_dtype inferred;
        if (n < 0 || number_arg(fill, fname, "fill_value", 2, &s, &inferred, err) < 0 ||
            tl_create_check_scalar(dt, s, err) < 0)
            return NULL;
    } else {
        n = factory_size(a, fname, 0, true, true, 1, NULL, sizes, err);
        if (n == TL_SHAPE_ABSENT)
            return tl_args_type_error(a, fname, sig, err), NULL;
        if (n < 0)
            return NULL;
        s.i = kind == LIKE_ONES;
    }
    const tl_backend *be = o.be ? o.be : tl_tensor_backend(t);
    return finish(tl_create_full(be, dt, n, sizes, s, err), &o, err);
}

static tl_value *b_new_zeros(tl_value *self, const tl_args *a, tl_error *err)
{
    return new_factory(self, a, "new_zeros", LIKE_ZEROS, err);
}

static tl_value *b_new_ones(tl_value *self, const tl_args *a, tl_error *err)
{
    return new_factory(self, a, "new_ones", LIKE_ONES, err);
}

static tl_value *b_new_empty(tl_value *self, const tl_args *a, tl_error *err)
{
    return new_factory(self, a, "new_empty", LIKE_EMPTY, err);
}

static tl_value *b_new_full(tl_value *self, const tl_args *a, tl_error *err)
{
    return new_factory(self, a, "new_full", LIKE_FULL, err);
}

static tl_value *b_new_tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"data", "dtype", "device", "requires_grad",
                                     "pin_memory", NULL};
    static const char *sig = "(PyObject * data, *, torch.dtype dtype = None, "
                             "torch.device device = None, bool requires_grad "
                             "= False)";
    tl_tensor *t = tl_bind_self_tensor(self, "new_tensor", err);
    if (!t || tl_args_check(a, "new_tensor", 1, kw, sig, err) < 0)
        return NULL;
    tl_value *data = tl_arg(a, 0, "data");
    if (!data)
        return tl_args_type_error(a, "new_tensor", sig, err), NULL;
    fopts o;
    if (parse_opts(a, &o, err) < 0)
        return NULL;
    const tl_backend *be = o.be ? o.be : tl_tensor_backend(t);
    tl_dtype dt = o.has_dtype ? o.dtype : t->dtype;
    tl_tensor *out;
    if (data->kind == TL_V_TENSOR && !o.has_dtype)
        out = tl_create_copy_to(data->u.tensor, be, data->u.tensor->dtype, err);
    else
        out = tl_convert_from_data(data, true, dt, be, err);
    return finish(out, &o, err);
}

/* ------------------------------------------------------------------------
 * Tensor queries (methods) and attributes
 * ---------------------------------------------------------------------- */

#define SELF(name)                                                             \
    tl_tensor *t = tl_bind_self_tensor(self, name, err);                            \
    if (!t)                                                                    \
        return NULL

static int no_args(const tl_args *a, const char *fname, tl_error *err)
{
    return tl_args_check(a, fname, 0, NULL, "()", err);
}

static tl_value *int_tuple(int n, const int64_t *v)
{
    tl_value *tup = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++)
        tl_seq_set(tup, (size_t)i, tl_int(v[i]));
    return tup;
}

/* size()/stride() with an optional dim */
static tl_value *dim_query(tl_value *self, const tl_args *a, const char *fname,
                           bool stride, tl_error *err)
{
    static const char *const kw[] = {"dim", NULL};
    SELF(fname);
    if (tl_args_check(a, fname, 1, kw, "()\n(int dim)", err) < 0)
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim");
    const int64_t *v = stride ? t->strides : t->sizes;
    if (!d || d->kind == TL_V_NONE)
        return stride ? int_tuple(t->ndim, v) : tl_size_new(t->ndim, v);
    int64_t dim;
    if (d->kind == TL_V_BOOL || !tl_value_as_index(d, &dim))
        return tl_args_type_error(a, fname, "()\n(int dim)", err), NULL;
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_INDEX,
                     "Dimension specified as %" PRId64 " but tensor has no "
                     "dimensions",
                     dim);
        return NULL;
    }
    int w;
    if (tl_shape_wrap_dim(dim, t->ndim, &w, err) < 0)
        return NULL;
    return tl_int(v[w]);
}

static tl_value *m_size(tl_value *self, const tl_args *a, tl_error *err)
{
    return dim_query(self, a, "size", false, err);
}

static tl_value *m_stride(tl_value *self, const tl_args *a, tl_error *err)
{
    return dim_query(self, a, "stride", true, err);
}

static tl_value *m_storage_offset(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("storage_offset");
    if (no_args(a, "storage_offset", err) < 0)
        return NULL;
    return tl_int(t->offset);
}

static tl_value *m_is_contiguous(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"memory_format", NULL};
    SELF("is_contiguous");
    if (tl_args_check(a, "is_contiguous", 1, kw,
                      "(*, torch.memory_format memory_format=torch."
                      "contiguous_format)",
                      err) < 0)
        return NULL;
    tl_value *f = tl_arg(a, 0, "memory_format");
    tl_memfmt fmt = TL_MEMFMT_CONTIGUOUS;
    if (f && f->kind != TL_V_NONE) {
        if (f->kind != TL_V_MEMFMT) {
            tl_error_set(err, TL_ERR_TYPE,
                         "is_contiguous(): argument 'memory_format' must be "
                         "torch.memory_format, not %s",
                         tl_value_type_name(f));
            return NULL;
        }
        fmt = f->u.memfmt;
    }
    switch (fmt) {
    case TL_MEMFMT_CHANNELS_LAST: return tl_bool(tl_tensor_is_channels_last(t));
    case TL_MEMFMT_CHANNELS_LAST_3D:
        return tl_bool(tl_tensor_is_channels_last_3d(t));
    default: return tl_bool(tl_tensor_is_contiguous(t));
    }
}

static tl_value *m_numel(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("numel");
    if (no_args(a, "numel", err) < 0)
        return NULL;
    return tl_int(tl_tensor_numel(t));
}

static tl_value *m_nelement(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("nelement");
    if (no_args(a, "nelement", err) < 0)
        return NULL;
    return tl_int(tl_tensor_numel(t));
}

static tl_value *m_dim(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("dim");
    if (no_args(a, "dim", err) < 0)
        return NULL;
    return tl_int(t->ndim);
}

static tl_value *m_ndimension(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("ndimension");
    if (no_args(a, "ndimension", err) < 0)
        return NULL;
    return tl_int(t->ndim);
}

static tl_value *m_element_size(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("element_size");
    if (no_args(a, "element_size", err) < 0)
        return NULL;
    return tl_int((int64_t)tl_dtype_size(t->dtype));
}

static tl_value *m_item(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("item");
    if (no_args(a, "item", err) < 0)
        return NULL;
    return tl_convert_item(t, err);
}

static tl_value *m_tolist(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("tolist");
    if (no_args(a, "tolist", err) < 0)
        return NULL;
    return tl_convert_tolist(t, err);
}

static tl_value *m_data_ptr(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("data_ptr");
    if (no_args(a, "data_ptr", err) < 0)
        return NULL;
    return tl_int((int64_t)tl_tensor_data_ptr(t));
}

static tl_value *m_untyped_storage(tl_value *self, const tl_args *a,
                                   tl_error *err)
{
    SELF("untyped_storage");
    if (no_args(a, "untyped_storage", err) < 0)
        return NULL;
    return tl_value_storage(t->storage);
}

static tl_value *m_storage(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("storage");
    if (no_args(a, "storage", err) < 0)
        return NULL;
    return tl_value_typed_storage(t->storage, t->dtype);
}

static tl_value *m_requires_grad_(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"requires_grad", NULL};
    SELF("requires_grad_");
    if (tl_args_check(a, "requires_grad_", 1, kw, "(bool requires_grad=True)",
                      err) < 0)
        return NULL;
    tl_value *v = tl_arg(a, 0, "requires_grad");
    bool rg = true;
    if (v) {
        if (v->kind != TL_V_BOOL) {
            tl_error_set(err, TL_ERR_TYPE,
                         "requires_grad_(): argument 'requires_grad' "
                         "(position 1) must be bool, not %s",
                         tl_value_type_name(v));
            return NULL;
        }
        rg = v->u.b;
    }
    if (!t->is_leaf && !rg && t->requires_grad) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "you can only change requires_grad flags of leaf "
                     "variables. If you want to use a computed variable in a "
                     "subgraph that doesn't require differentiation use "
                     "var_no_grad = var.detach().");
        return NULL;
    }
    if (rg && !tl_dtype_is_floating(t->dtype)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "only Tensors of floating point dtype can require "
                     "gradients");
        return NULL;
    }
    if (t->is_leaf)
        t->requires_grad = rg;
    /* a differentiable view of a leaf (whatever the base's requires_grad)
     * that now requires grad: check_inplace names the view in every
     * in-place op, those the runtime checks on its own included */
    tl_tensor *base = tl_ag_base(t);
    if (rg && t->requires_grad && base && base->is_leaf)
        t->is_view_of_grad_leaf = true;
    else if (!rg && t->is_leaf)
        t->is_view_of_grad_leaf = false;
    return tl_value_retain(self);
}

static tl_value *m_is_floating_point(tl_value *self, const tl_args *a,
                                     tl_error *err)
{
    SELF("is_floating_point");
    if (no_args(a, "is_floating_point", err) < 0)
        return NULL;
    return tl_bool(tl_dtype_is_floating(t->dtype));
}

static tl_value *m_is_complex(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("is_complex");
    if (no_args(a, "is_complex", err) < 0)
        return NULL;
    (void)t;
    return tl_bool(false);
}

static tl_value *m_get_device(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("get_device");
    if (no_args(a, "get_device", err) < 0)
        return NULL;
    tl_device d = tl_tensor_device(t);
    return tl_int(d.kind == TL_DEV_CPU ? -1 : d.index);
}

static tl_value *m_is_pinned(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("is_pinned");
    if (no_args(a, "is_pinned", err) < 0)
        return NULL;
    return tl_bool(t->storage->pinned);
}


/* x.pin_memory(): self when already pinned; else a copy into a pinned
 * storage keeping sizes and strides, offset 0 (reference sheet 9, row 63). */
static tl_value *m_pin_memory(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"device", NULL};
    SELF("pin_memory");
    if (tl_args_check(a, "pin_memory", 1, kw, "(Device device = None)", err) < 0)
        return NULL;
    if (t->storage->pinned)
        return tl_value_retain(self);
    if (tl_tensor_device(t).kind != TL_DEV_CPU) {
        const char *name = tl_dtype_tensor_type(t->dtype); /* torch.FloatTensor */
        tl_error_set(err, TL_ERR_RUNTIME, "cannot pin 'torch.cuda.%s' only "
                     "dense CPU tensors can be pinned",
                     strncmp(name, "torch.", 6) == 0 ? name + 6 : name);
        return NULL;
    }
    tl_tensor *p = tl_tensor_new_strided(tl_tensor_backend(t), t->dtype, t->ndim,
                                         t->sizes, t->strides, err);
    if (!p)
        return NULL;
    if (tl_storage_pin(p->storage, err) < 0) { /* cudaHostAlloc on a GPU */
        tl_tensor_release(p);
        return NULL;
    }
    /* PyTorch copies with copy_ (same overlap check); the fresh tensor's
     * version counter then reads 0 again, as pin_memory's result does */
    if (tl_ops_copy_(p, t, err) < 0) {
        tl_tensor_release(p);
        return NULL;
    }
    p->version->value = 0;
    return tl_value_tensor(p);
}

/* torch.Tensor(...), the legacy constructor (reference sheet 9):
 * Tensor(t) is an alias view of t; Tensor(float32 ndarray) shares it;
 * Tensor(other ndarray / list / tuple) is a float32 copy; Tensor(*sizes)
 * an uninitialised float32 tensor. */
static tl_value *call_torch(const char *name, const tl_args *a, bool f32,
                            tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_TORCH, name);
    TL_ASSERT(b != NULL);
    if (!f32)
        return b->fn(NULL, a, err);
    const char *kn[] = {"dtype"};
    tl_value *dv = tl_value_dtype(TL_FLOAT32);
    tl_args na = {.npos = a->npos, .pos = a->pos, .nkw = 1, .kwnames = kn,
                  .kwvals = &dv};
    tl_value *r = b->fn(NULL, &na, err);
    tl_value_release(dv);
    return r;
}

static tl_value *b_Tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char sig[] = "(*, torch.device device)\n"
                              "(Storage storage)\n"
                              "(Tensor other)\n"
                              "(tuple of ints size, *, torch.device device)\n"
                              "(object data, *, torch.device device)";
    if (a->nkw)
        return tl_args_type_error(a, "Tensor", sig, err), NULL;
    tl_value *v = a->npos ? a->pos[0] : NULL;
    if (v && a->npos == 1 && v->kind == TL_V_TENSOR)
        return tl_value_tensor(tl_tensor_alias(v->u.tensor));
    if (v && a->npos == 1 && v->kind == TL_V_NDARRAY) {
        if (v->u.tensor->dtype == TL_FLOAT32)
            return call_torch("from_numpy", a, false, err);
        return call_torch("tensor", a, true, err);
    }
    if (v && a->npos == 1 && (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE))
        return call_torch("tensor", a, true, err);
    for (size_t i = 0; i < a->npos; i++)
        if (a->pos[i]->kind != TL_V_INT && a->pos[i]->kind != TL_V_SIZE)
            return tl_args_type_error(a, "Tensor", sig, err), NULL;
    if (a->npos == 0) { /* Tensor(): an empty float32 tensor */
        int64_t zero = 0;
        tl_tensor *e = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &zero, err);
        return e ? tl_value_tensor(e) : NULL;
    }
    return call_torch("empty", a, true, err);
}

/* attributes: called with empty args */
static tl_value *a_shape(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("shape");
    (void)a;
    return tl_size_new(t->ndim, t->sizes);
}

static tl_value *a_ndim(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("ndim");
    (void)a;
    return tl_int(t->ndim);
}

static tl_value *a_dtype(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("dtype");
    (void)a;
    return tl_value_dtype(t->dtype);
}

static tl_value *a_device(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("device");
    (void)a;
    return tl_value_device(tl_tensor_device(t));
}

static tl_value *a_is_cuda(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("is_cuda");
    (void)a;
    return tl_bool(tl_tensor_device(t).kind == TL_DEV_CUDA);
}

static tl_value *a_is_cpu(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("is_cpu");
    (void)a;
    return tl_bool(tl_tensor_device(t).kind == TL_DEV_CPU);
}

static tl_value *a_is_leaf(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("is_leaf");
    (void)a;
    return tl_bool(t->is_leaf);
}

static tl_value *a_requires_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("requires_grad");
    (void)a;
    return tl_bool(t->requires_grad);
}

static tl_value *a_version(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("_version");
    (void)a;
    return tl_int(t->version->value);
}

static tl_value *a_nbytes(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("nbytes");
    (void)a;
    return tl_int(tl_tensor_numel(t) * (int64_t)tl_dtype_size(t->dtype));
}

static tl_value *a_itemsize(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("itemsize");
    (void)a;
    return tl_int((int64_t)tl_dtype_size(t->dtype));
}

static tl_value *a_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("grad");
    (void)a;
    (void)t;
    return tl_none();
}

static tl_value *a_false(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("attribute");
    (void)a;
    (void)t;
    return tl_bool(false);
}

/* ------------------------------------------------------------------------
 * Tables
 * ---------------------------------------------------------------------- */

static const tl_binding torch_entries[] = {
    {"tensor", b_tensor, false, false},
    {"Tensor", b_Tensor, false, false},
    {"zeros", b_zeros, false, false},
    {"ones", b_ones, false, false},
    {"empty", b_empty, false, false},
    {"full", b_full, false, false},
    {"arange", b_arange, false, false},
    {"linspace", b_linspace, false, false},
    {"eye", b_eye, false, false},
    {"rand", b_rand, false, false},
    {"randn", b_randn, false, false},
    {"randint", b_randint, false, false},
    {"empty_strided", b_empty_strided, false, false},
    {"zeros_like", b_zeros_like, false, false},
    {"ones_like", b_ones_like, false, false},
    {"empty_like", b_empty_like, false, false},
    {"full_like", b_full_like, false, false},
    {"rand_like", b_rand_like, false, false},
    {"randn_like", b_randn_like, false, false},
    {"manual_seed", b_manual_seed, false, false},
    {"device", b_device, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding method_entries[] = {
    {"size", m_size, false, false},
    {"stride", m_stride, false, false},
    {"storage_offset", m_storage_offset, false, false},
    {"is_contiguous", m_is_contiguous, false, false},
    {"numel", m_numel, false, false},
    {"nelement", m_nelement, false, false},
    {"dim", m_dim, false, false},
    {"ndimension", m_ndimension, false, false},
    {"element_size", m_element_size, false, false},
    {"item", m_item, false, false},
    {"tolist", m_tolist, false, false},
    {"data_ptr", m_data_ptr, false, false},
    {"untyped_storage", m_untyped_storage, false, false},
    {"storage", m_storage, false, false},
    {"_storage", m_storage, false, false},
    {"requires_grad_", m_requires_grad_, false, false},
    {"is_floating_point", m_is_floating_point, false, false},
    {"is_complex", m_is_complex, false, false},
    {"get_device", m_get_device, false, false},
    {"is_pinned", m_is_pinned, false, false},
    {"pin_memory", m_pin_memory, false, false},
    {"new_zeros", b_new_zeros, false, false},
    {"new_ones", b_new_ones, false, false},
    {"new_empty", b_new_empty, false, false},
    {"new_full", b_new_full, false, false},
    {"new_tensor", b_new_tensor, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding attr_entries[] = {
    {"shape", a_shape, true, false},
    {"ndim", a_ndim, true, false},
    {"dtype", a_dtype, true, false},
    {"device", a_device, true, false},
    {"is_cuda", a_is_cuda, true, false},
    {"is_cpu", a_is_cpu, true, false},
    {"is_leaf", a_is_leaf, true, false},
    {"requires_grad", a_requires_grad, true, false},
    {"_version", a_version, true, false},
    {"nbytes", a_nbytes, true, false},
    {"itemsize", a_itemsize, true, false},
    {"grad", a_grad, true, false},
    {"is_sparse", a_false, true, false},
    {"is_quantized", a_false, true, false},
    {"is_meta", a_false, true, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_create_tables[] = {
    {TL_BIND_TORCH, torch_entries},
    {TL_BIND_METHOD, method_entries},
    {TL_BIND_ATTR, attr_entries},
    {TL_BIND_TORCH, tl_bind_numpy_torch_bindings},
    {TL_BIND_METHOD, tl_bind_numpy_method_bindings},
    {TL_BIND_NUMPY, tl_bind_numpy_np_bindings},
    {TL_BIND_NDARRAY, tl_bind_numpy_ndarray_bindings},
    {TL_BIND_METHOD, NULL},
};
