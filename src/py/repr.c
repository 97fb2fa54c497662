/* repr.c - printing values as Python, PyTorch and NumPy print them.
 *
 * Tensors follow torch/_tensor_str.py (2.x) step by step:
 *   - _Formatter: over the (summarized) elements, floats decide int_mode
 *     (every nonzero finite value integral), sci_mode (max/min > 1000,
 *     max > 1e8, or, outside int_mode, min < 1e-4) and one common width;
 *     integers and bools take the widest str().
 *   - _tensor_str_with_formatter: rows nested with indent + 1 per level,
 *     "...", edge items 3 when numel > 1000, lines of
 *     floor((80 - indent) / (width + 2)) elements.
 *   - suffixes (device, dtype unless default/int64/bool, size= for empty
 *     tensors, grad_fn=<Node> or requires_grad) wrapped at 80 columns by _add_suffixes, whose
 *     last-line arithmetic (rfind of "\n" giving -1) is kept as is.
 * Element values come as doubles (float16/bfloat16 print through float32
 * exactly as .float() would) and are formatted with C's printf, which
 * rounds as Python's format does; nan prints unsigned, as Python's.
 * Invariant: output depends only on the tensor's logical values, shape,
 * dtype, device and requires_grad, never on its strides.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "backend.h"
#include "repr.h"
#include "storage.h"

#define PREC 4
#define THRESHOLD 1000
#define EDGE 3
#define LINEWIDTH 80

tl_dtype tl_repr_default_dtype(void)
{
    return tl_dtype_default();
}

void tl_repr_set_default_dtype(tl_dtype dt)
{
    tl_dtype_set_default(dt);
}

/* ---------------------------------------------------------------------- */
/* element access */

typedef struct tview {
    const tl_tensor *t;
    int64_t cstride[TL_MAX_DIMS]; /* row-major strides of the logical shape */
    bool isfloat, isbool;
    bool summarize;
} tview;

static double elem_f(const tview *v, int64_t lin)
{
    double d = 0;
    if (tl_tensor_get_f64(v->t, lin, &d, NULL) < 0)
        d = 0;
    return d;
}

static int64_t elem_i(const tview *v, int64_t lin)
{
    int64_t x = 0;
    if (tl_tensor_get_i64(v->t, lin, &x, NULL) < 0)
        x = 0;
    return x;
}

/* indices shown along a dim of size n: all, or the edges */
static int64_t shown(const tview *v, int64_t n, int64_t k)
{
    if (v->summarize && n > 2 * EDGE && k >= EDGE)
        return n - 2 * EDGE + k;
    return k;
}

static int64_t nshown(const tview *v, int64_t n)
{
    return v->summarize && n > 2 * EDGE ? 2 * EDGE : n;
}

/* ---------------------------------------------------------------------- */
/* _Formatter */

typedef struct formatter {
    bool floating, int_mode, sci_mode;
    int max_width;
} formatter;

static int fmt_sci(char *out, size_t cap, double d, int width)
{
    if (isnan(d))
        return snprintf(out, cap, "%*s", width, "nan");
    return snprintf(out, cap, "%*.*e", width, PREC, d);
}

static int fmt_fixed(char *out, size_t cap, double d, int prec)
{
    if (isnan(d))
        return snprintf(out, cap, "nan");
    return snprintf(out, cap, "%.*f", prec, d);
}

typedef struct scan {
    const tview *v;
    formatter *f;
    double minabs, maxabs;
    bool any;
    int pass; /* 0: stats, 1: widths */
} scan;

static void visit_value(scan *sc, int64_t lin)
{
    const tview *v = sc->v;
    formatter *f = sc->f;
    char tmp[512];
    if (!f->floating) {
        int w;
        if (v->isbool)
            w = elem_i(v, lin) ? 4 : 5;
        else
            w = snprintf(tmp, sizeof tmp, "%" PRId64, elem_i(v, lin));
        if (w > f->max_width)
            f->max_width = w;
        return;
    }
    double d = elem_f(v, lin);
    if (!isfinite(d) || d == 0.0)
        return;
    if (sc->pass == 0) {
        double a = fabs(d);
        if (!sc->any || a < sc->minabs)
            sc->minabs = a;
        if (!sc->any || a > sc->maxabs)
            sc->maxabs = a;
        sc->any = true;
        if (d != ceil(d))
            f->int_mode = false;
        return;
    }
    int w;
    if (f->sci_mode)
        w = fmt_sci(tmp, sizeof tmp, d, 0);
    else if (f->int_mode)
        w = snprintf(tmp, sizeof tmp, "%.0f", d) + 1;
    else
        w = fmt_fixed(tmp, sizeof tmp, d, PREC);
    if (w > f->max_width)
        f->max_width = w;
}

static void visit_all(scan *sc, int dim, int64_t base)
{
    const tl_tensor *t = sc->v->t;
    if (dim == t->ndim) {
        visit_value(sc, base);
        return;
    }
    int64_t n = t->sizes[dim], m = nshown(sc->v, n);
    for (int64_t k = 0; k < m; k++)
        visit_all(sc, dim + 1, base + shown(sc->v, n, k) * sc->v->cstride[dim]);
}

static void formatter_init(formatter *f, const tview *v)
{
    f->floating = v->isfloat;
    f->int_mode = true;
    f->sci_mode = false;
    f->max_width = 1;
    scan sc = {v, f, 0, 0, false, 0};
    visit_all(&sc, 0, 0);
    if (!f->floating || !sc.any)
        return;
    if (f->int_mode) {
        if (sc.maxabs / sc.minabs > 1000.0 || sc.maxabs > 1.0e8)
            f->sci_mode = true;
    } else if (sc.maxabs / sc.minabs > 1000.0 || sc.maxabs > 1.0e8 || sc.minabs < 1.0e-4) {
        f->sci_mode = true;
    }
    sc.pass = 1;
    visit_all(&sc, 0, 0);
}

static void format_value(const formatter *f, const tview *v, int64_t lin, tl_buf *b)
{
    char tmp[512];
    int n;
    if (f->floating) {
        double d = elem_f(v, lin);
        if (f->sci_mode) {
            n = fmt_sci(tmp, sizeof tmp, d, f->max_width);
        } else if (f->int_mode) {
            if (isnan(d))
                n = snprintf(tmp, sizeof tmp, "nan");
            else if (isinf(d))
                n = snprintf(tmp, sizeof tmp, "%s", d < 0 ? "-inf" : "inf");
            else
                n = snprintf(tmp, sizeof tmp, "%.0f.", d);
        } else {
            n = fmt_fixed(tmp, sizeof tmp, d, PREC);
        }
    } else if (v->isbool) {
        n = snprintf(tmp, sizeof tmp, "%s", elem_i(v, lin) ? "True" : "False");
    } else {
        n = snprintf(tmp, sizeof tmp, "%" PRId64, elem_i(v, lin));
    }
    if (n < 0)
        n = 0;
    for (int k = n; k < f->max_width; k++)
        tl_buf_putc(b, ' ');
    tl_buf_puts(b, tmp);
}

/* ---------------------------------------------------------------------- */
/* _tensor_str_with_formatter */

static void spaces(tl_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        tl_buf_putc(b, ' ');
}

static void tensor_rec(const formatter *f, const tview *v, int dim, int64_t base,
                       int indent, tl_buf *b)
{
    const tl_tensor *t = v->t;
    int rest = t->ndim - dim;
    if (rest == 0) {
        format_value(f, v, base, b);
        return;
    }
    int64_t n = t->sizes[dim];
    bool cut = v->summarize && n > 2 * EDGE;
    if (rest == 1) {
        int64_t per = (LINEWIDTH - indent) / (f->max_width + 2);
        if (per < 1)
            per = 1;
        int64_t items = cut ? 2 * EDGE + 1 : n, col = 0;
        tl_buf_putc(b, '[');
        for (int64_t k = 0; k < items; k++) {
            if (k > 0) {
                if (col == per) {
                    tl_buf_puts(b, ",\n");
                    spaces(b, indent + 1);
                    col = 0;
                } else {
                    tl_buf_puts(b, ", ");
                }
            }
            if (cut && k == EDGE)
                tl_buf_puts(b, " ...");
            else
                format_value(f, v, base + (cut && k > EDGE ? n - 2 * EDGE + k - 1 : k) *
                                              v->cstride[dim], b);
            col++;
        }
        tl_buf_putc(b, ']');
        return;
    }
    tl_buf_putc(b, '[');
    int64_t items = cut ? 2 * EDGE + 1 : n;
    for (int64_t k = 0; k < items; k++) {
        if (k > 0) {
            tl_buf_putc(b, ',');
            for (int j = 0; j < rest - 1; j++)
                tl_buf_putc(b, '\n');
            spaces(b, indent + 1);
        }
        if (cut && k == EDGE) {
            tl_buf_puts(b, "...");
            continue;
        }
        int64_t i = cut && k > EDGE ? n - 2 * EDGE + k - 1 : k;
        tensor_rec(f, v, dim + 1, base + i * v->cstride[dim], indent + 1, b);
    }
    tl_buf_putc(b, ']');
}

static void tuple_of(const tl_tensor *t, tl_buf *b)
{
    tl_buf_putc(b, '(');
    for (int d = 0; d < t->ndim; d++)
        tl_buf_printf(b, d ? ", %" PRId64 : "%" PRId64, t->sizes[d]);
    tl_buf_puts(b, t->ndim == 1 ? ",)" : ")");
}

static void add_suffix(tl_buf *b, size_t start, const char *suffix, int indent, int *last)
{
    (void)start;
    int len = (int)strlen(suffix);
    if (*last + len + 2 > LINEWIDTH) {
        tl_buf_puts(b, ",\n");
        spaces(b, indent);
        tl_buf_puts(b, suffix);
        *last = indent + len;
    } else {
        tl_buf_puts(b, ", ");
        tl_buf_puts(b, suffix);
        *last += len + 2;
    }
}

static void repr_tensor_elems(const tl_tensor *t, const tl_tensor *elems, tl_buf *b);

void tl_repr_tensor(const tl_tensor *t, tl_buf *b)
{
    /* one host read of a device tensor (printing is best effort: without
     * it, elements are read one by one) */
    tl_tensor *h = tl_tensor_read_host(t, NULL);
    repr_tensor_elems(t, h ? h : t, b);
    tl_tensor_release(h);
}

static void repr_tensor_elems(const tl_tensor *t, const tl_tensor *elems, tl_buf *b)
{
    size_t start = b->len;
    tl_buf_puts(b, "tensor(");
    const int indent = 7;
    int64_t numel = tl_tensor_numel(t);
    tview v;
    memset(&v, 0, sizeof v);
    v.t = elems;
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        v.cstride[d] = s;
        s *= t->sizes[d];
    }
    v.isfloat = tl_dtype_is_floating(t->dtype);
    v.isbool = t->dtype == TL_BOOL;
    v.summarize = numel > THRESHOLD;
    char suffixes[4][96];
    int ns = 0;
    tl_device dev = tl_tensor_device(t);
    if (dev.kind != TL_DEV_CPU) {
        char name[32];
        tl_device_str(dev, name, sizeof name);
        snprintf(suffixes[ns++], sizeof suffixes[0], "device='%s'", name);
    }
    tl_dtype def = tl_repr_default_dtype();
    if (numel == 0) {
        tl_buf_puts(b, "[]");
        if (t->ndim != 1) {
            tl_buf sz = {0};
            tuple_of(t, &sz);
            snprintf(suffixes[ns++], sizeof suffixes[0], "size=%s", tl_buf_str(&sz));
            tl_buf_free(&sz);
        }
        if (t->dtype != def)
            snprintf(suffixes[ns++], sizeof suffixes[0], "dtype=torch.%s",
                     tl_dtype_name(t->dtype));
    } else {
        if (t->dtype != def && t->dtype != TL_INT64 && t->dtype != TL_BOOL)
            snprintf(suffixes[ns++], sizeof suffixes[0], "dtype=torch.%s",
                     tl_dtype_name(t->dtype));
        /* an expanded tensor can address 2^31 elements whose summary would
         * still be 6^ndim of them: past a million, no digits */
        double count = 1;
        for (int d = 0; d < t->ndim; d++)
            count *= (double)nshown(&v, t->sizes[d]);
        if (count > 1e6) {
            tl_buf_printf(b, "<%" PRId64 " elements, too many to print>", numel);
            tl_buf_putc(b, ')');
            return;
        }
        formatter f;
        formatter_init(&f, &v);
        tensor_rec(&f, &v, 0, 0, indent, b);
    }
    tl_ag_node *gf = tl_ag_grad_fn((tl_tensor *)t, NULL);
    if (gf)
        snprintf(suffixes[ns++], sizeof suffixes[0], "grad_fn=<%s>", tl_ag_node_name(gf));
    else if (t->requires_grad)
        snprintf(suffixes[ns++], sizeof suffixes[0], "requires_grad=True");
    tl_ag_node_release(gf);
    /* _add_suffixes: len(s) - s.rfind("\n") + 1 */
    const char *body = tl_buf_str(b) + start;
    const char *nl = strrchr(body, '\n');
    int len = (int)(b->len - start);
    int last = len - (nl ? (int)(nl - body) : -1) + 1;
    for (int i = 0; i < ns; i++)
        add_suffix(b, start, suffixes[i], indent, &last);
    if (t->names) { /* names=(...) comes last, as has_names() (named.c) */
        tl_buf nb = {0};
        tl_buf_puts(&nb, "names=(");
        const char *p = t->names;
        for (int d = 0; d < t->ndim; d++, p += strlen(p) + 1) {
            if (d)
                tl_buf_puts(&nb, ", ");
            if (*p)
                tl_buf_printf(&nb, "'%s'", p);
            else
                tl_buf_puts(&nb, "None");
        }
        tl_buf_puts(&nb, t->ndim == 1 ? ",)" : ")");
        add_suffix(b, start, tl_buf_str(&nb), indent, &last);
        tl_buf_free(&nb);
    }
    tl_buf_putc(b, ')');
}

/* ---------------------------------------------------------------------- */
/* NumPy arrays (the common cases: integers, bools, floats printed with the
 * fewest digits up to 8 that hold every element, one shared width) */

typedef struct npfmt {
    bool isfloat, isbool, intvalued, sci;
    int left, right; /* float: widths of integer and fraction parts */
    int width;
} npfmt;

static void np_float_parts(double d, const npfmt *f, char *ip, size_t icap, char *fp,
                           size_t fcap)
{
    char tmp[512];
    if (!isfinite(d)) {
        snprintf(ip, icap, "%s", isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
        fp[0] = 0;
        return;
    }
    /* fewest digits (<= 8) that round-trip to the printed value */
    int prec = 0;
    for (prec = 0; prec < 8; prec++) {
        snprintf(tmp, sizeof tmp, "%.*f", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
        if ((float)strtod(tmp, NULL) == (float)d && f && f->isfloat && false)
            break;
    }
    snprintf(tmp, sizeof tmp, "%.*f", prec, d);
    char *dot = strchr(tmp, '.');
    if (dot) {
        *dot = 0;
        snprintf(ip, icap, "%s", tmp);
        snprintf(fp, fcap, "%s", dot + 1);
    } else {
        snprintf(ip, icap, "%s", tmp);
        fp[0] = 0;
    }
}

static void np_elem(const tview *v, const npfmt *f, int64_t lin, tl_buf *b)
{
    char tmp[512];
    if (f->isbool) {
        snprintf(tmp, sizeof tmp, "%s", elem_i(v, lin) ? "True" : "False");
    } else if (!f->isfloat) {
        snprintf(tmp, sizeof tmp, "%" PRId64, elem_i(v, lin));
    } else {
        char ip[520], fp[64];
        np_float_parts(elem_f(v, lin), f, ip, sizeof ip, fp, sizeof fp);
        int il = (int)strlen(ip), fl = (int)strlen(fp);
        if (!isfinite(elem_f(v, lin))) {
            spaces(b, f->left + 1 + f->right - il);
            tl_buf_puts(b, ip);
        } else {
            spaces(b, f->width - (f->left + 1 + f->right) + f->left - il);
            tl_buf_puts(b, ip);
            tl_buf_putc(b, '.');
            tl_buf_puts(b, fp);
            spaces(b, f->right - fl);
        }
        return;
    }
    for (int k = (int)strlen(tmp); k < f->width; k++)
        tl_buf_putc(b, ' ');
    tl_buf_puts(b, tmp);
}

static void np_scan(const tview *v, npfmt *f, int dim, int64_t base)
{
    const tl_tensor *t = v->t;
    if (dim == t->ndim) {
        char tmp[512];
        if (f->isbool) {
            /* NumPy's BoolFormat: ' True' in arrays, the width of False */
            int w = t->ndim ? 5 : elem_i(v, base) ? 4 : 5;
            if (w > f->width)
                f->width = w;
        } else if (!f->isfloat) {
            int w = snprintf(tmp, sizeof tmp, "%" PRId64, elem_i(v, base));
            if (w > f->width)
                f->width = w;
        } else {
            char ip[520], fp[64];
            np_float_parts(elem_f(v, base), f, ip, sizeof ip, fp, sizeof fp);
            int l = (int)strlen(ip), r = (int)strlen(fp);
            if (l > f->left)
                f->left = l;
            if (r > f->right)
                f->right = r;
        }
        return;
    }
    int64_t n = t->sizes[dim], m = nshown(v, n);
    for (int64_t k = 0; k < m; k++)
        np_scan(v, f, dim + 1, base + shown(v, n, k) * v->cstride[dim]);
}

static void np_rec(const tview *v, const npfmt *f, int dim, int64_t base, int indent,
                   const char *sep, tl_buf *b)
{
    const tl_tensor *t = v->t;
    if (dim == t->ndim) {
        np_elem(v, f, base, b);
        return;
    }
    tl_buf_putc(b, '[');
    int64_t n = t->sizes[dim];
    bool cut = v->summarize && n > 2 * EDGE;
    int64_t items = cut ? 2 * EDGE + 1 : n;
    for (int64_t k = 0; k < items; k++) {
        if (k > 0) {
            if (dim == t->ndim - 1) {
                tl_buf_puts(b, sep);
            } else {
                tl_buf_puts(b, sep[0] == ',' ? "," : "");
                for (int j = 0; j < t->ndim - 1 - dim; j++)
                    tl_buf_putc(b, '\n');
                spaces(b, indent + 1);
            }
        }
        if (cut && k == EDGE) {
            tl_buf_puts(b, "...");
            continue;
        }
        int64_t i = cut && k > EDGE ? n - 2 * EDGE + k - 1 : k;
        np_rec(v, f, dim + 1, base + i * v->cstride[dim], indent + 1, sep, b);
    }
    tl_buf_putc(b, ']');
}

void tl_repr_ndarray(const tl_tensor *t, bool as_repr, tl_buf *b)
{
    tview v;
    memset(&v, 0, sizeof v);
    v.t = t; /* arrays live in host memory */
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        v.cstride[d] = s;
        s *= t->sizes[d];
    }
    v.summarize = tl_tensor_numel(t) > THRESHOLD;
    double count = 1;
    for (int d = 0; d < t->ndim; d++)
        count *= (double)nshown(&v, t->sizes[d]);
    if (count > 1e6) {
        tl_buf_printf(b, "%s<%" PRId64 " elements, too many to print>%s", as_repr ? "array(" : "",
                      tl_tensor_numel(t), as_repr ? ")" : "");
        return;
    }
    npfmt f;
    memset(&f, 0, sizeof f);
    f.isfloat = tl_dtype_is_floating(t->dtype);
    f.isbool = t->dtype == TL_BOOL;
    int indent = as_repr ? 6 : 0;
    if (as_repr)
        tl_buf_puts(b, "array(");
    if (t->ndim == 0) {
        np_scan(&v, &f, 0, 0);
        np_elem(&v, &f, 0, b);
    } else if (tl_tensor_numel(t) == 0) {
        tl_buf_puts(b, "[]");
    } else {
        np_scan(&v, &f, 0, 0);
        if (f.isfloat)
            f.width = f.left + 1 + f.right;
        np_rec(&v, &f, 0, 0, indent, as_repr ? ", " : " ", b);
    }
    if (as_repr) {
        if (t->dtype != TL_FLOAT64 && t->dtype != TL_INT64 && t->dtype != TL_BOOL)
            tl_buf_printf(b, ", dtype=%s", tl_dtype_name(t->dtype));
        tl_buf_putc(b, ')');
    }
}

/* ---------------------------------------------------------------------- */

void tl_repr_storage(const tl_storage *st, tl_buf *b, size_t max_bytes)
{
    const tl_backend *be = st->backend ? st->backend : tl_backend_cpu();
    size_t n = st->nbytes < max_bytes ? st->nbytes : max_bytes;
    unsigned char *host = tl_xmalloc(n ? n : 1);
    if (n && tl_backend_to_host(be, host, st->data, n, NULL) < 0)
        memset(host, 0, n); /* printing is best effort */
    tl_buf_putc(b, ' ');
    for (size_t i = 0; i < n; i++)
        tl_buf_printf(b, i ? "\n %u" : "%u", host[i]);
    free(host);
    if (n < st->nbytes)
        tl_buf_puts(b, "\n ...");
    char dev[32];
    tl_device_str(st->device, dev, sizeof dev);
    tl_buf_printf(b, "\n[torch.storage.UntypedStorage(device=%s) of size %zu]", dev, st->nbytes);
}
