/* golden.c - `tlab --run-tests FILE`: golden-file tests for the op language
 * (in the spirit of jq's --run-tests). Each record runs in a fresh
 * interpreter on the CPU backend with default limits.
 *
 * File format. Records are separated by blank lines; lines starting with
 * '#' are comments (outside a record's expected text):
 *
 *   x = torch.arange(24.).reshape(4, 6)     setup statements (zero or more)
 *   @parent y                               optional: parent tensor (default x)
 *   @option max_depth=8                     optional limits: max_depth,
 *                                           max_source, max_seq, timeout
 *   ? x.t()                                 the op: one or more "? " lines,
 *                                           statements whose last is an
 *                                           expression
 *   view shape=(6, 4) stride=(1, 6) offset=0 contiguous=False dtype=float32
 *
 * Expected result lines:
 *   alias|view|copy|tensor KEY=VALUE...  a tensor/ndarray result: alias if it
 *                        is the parent object, view if it shares the parent's
 *                        storage, copy otherwise (tensor: no parent). Only the
 *                        keys written are compared; keys: shape stride offset
 *                        contiguous dtype device version values (tolist()).
 *   value REPR           any other result, by repr()
 *   error TYPE: MESSAGE  a Python exception (newlines in the message are
 *                        written \n); a MESSAGE ending in "..." is a prefix
 *   tuple N / list N     a tuple/list holding tensors, followed by N element
 *                        lines, each indented by two spaces
 *
 *   %%FAIL               first line of a record whose op must fail; after the
 *                        setup/@/? lines comes the exact diagnostic rendered by
 *                        tl_diag_render for the op source ("<test>", line 1,
 *                        column 1), several lines (message, source, caret).
 *   %%EXEC               first line of a record whose remaining lines are
 *                        statements that must run without error.
 *
 * A FILE whose name ends in ".py" is run as a single %%EXEC record (the
 * lesson code samples in tests/seeds/ are such scripts).
 *
 * Output: one "*** ..." block per failing record, then "N of M tests
 * passed". Exit status 0 when all pass, 1 when some fail, 2 when FILE is
 * unreadable.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "golden.h"
#include "interp.h"
#include "util.h"
#include "value.h"

/* a test file larger than this is refused (the biggest is ~30 KiB) */
#define TL_GOLDEN_MAX_BYTES ((size_t)16 << 20)

typedef struct line {
    const char *s;
    size_t n;
    int lineno;
} line;

typedef struct record {
    enum { REC_EXPR, REC_FAIL, REC_EXEC } kind;
    line *lines;
    size_t nlines;
    int first_line;
} record;

typedef struct runner {
    const char *path;
    const char *text;
    size_t len;
    int pass, fail;
} runner;

/* ---------------------------------------------------------------------- */
/* helpers */

static bool starts_with(const line *l, const char *p)
{
    size_t n = strlen(p);
    return l->n >= n && memcmp(l->s, p, n) == 0;
}

static void line_text(tl_buf *b, const line *l, size_t skip)
{
    if (l->n > skip)
        tl_buf_append(b, l->s + skip, l->n - skip);
}

static void shape_repr(tl_buf *b, int ndim, const int64_t *v)
{
    tl_buf_putc(b, '(');
    for (int d = 0; d < ndim; d++) {
        if (d)
            tl_buf_puts(b, ", ");
        tl_buf_printf(b, "%" PRId64, v[d]);
    }
    if (ndim == 1)
        tl_buf_putc(b, ',');
    tl_buf_putc(b, ')');
}

/* tolist() of a tensor (Python repr of nested lists), bounded; t is one
 * the host may read (values_repr reads a device tensor once). */
static int values_repr_host(tl_buf *b, const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n > 100000) {
        tl_buf_puts(b, "<too many values>");
        return 0;
    }
    int64_t idx[TL_MAX_DIMS] = {0};
    bool isf = tl_dtype_is_floating(t->dtype);
    if (t->ndim == 0) {
        n = 1;
    }
    for (int d = 0; d < t->ndim; d++)
        tl_buf_putc(b, '[');
    if (n == 0) {
        for (int d = 0; d < t->ndim; d++)
            tl_buf_putc(b, ']');
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        tl_value *v;
        if (isf) {
            double f;
            if (tl_tensor_get_f64(t, i, &f, err) < 0)
                return -1;
            v = tl_float(f);
        } else {
            int64_t x;
            if (tl_tensor_get_i64(t, i, &x, err) < 0)
                return -1;
            v = t->dtype == TL_BOOL ? tl_bool(x != 0) : tl_int(x);
        }
        tl_value_repr(v, b);
        tl_value_release(v);
        /* advance the multi-index, closing/opening brackets */
        int d = t->ndim - 1;
        int closed = 0;
        while (d >= 0) {
            idx[d]++;
            if (idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
            d--;
            closed++;
        }
        for (int k = 0; k < closed; k++)
            tl_buf_putc(b, ']');
        if (i + 1 < n) {
            tl_buf_puts(b, ", ");
            for (int k = 0; k < closed; k++)
                tl_buf_putc(b, '[');
        }
    }
    return 0;
}

static int values_repr(tl_buf *b, const tl_tensor *t, tl_error *err)
{
    if (tl_tensor_numel(t) > 100000)
        return values_repr_host(b, t, err);
    tl_tensor *h = tl_tensor_read_host(t, err);
    if (!h)
        return -1;
    int rc = values_repr_host(b, h, err);
    tl_tensor_release(h);
    return rc;
}

static const char *const keys[] = {"shape", "stride", "offset", "contiguous",
                                   "dtype", "device", "version", "values"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* The value of one key for tensor t. */
static void key_value(tl_buf *b, size_t k, const tl_tensor *t)
{
    switch (k) {
    case 0: shape_repr(b, t->ndim, t->sizes); break;
    case 1: shape_repr(b, t->ndim, t->strides); break;
    case 2: tl_buf_printf(b, "%" PRId64, t->offset); break;
    case 3: tl_buf_puts(b, tl_tensor_is_contiguous(t) ? "True" : "False"); break;
    case 4: tl_buf_puts(b, tl_dtype_name(t->dtype)); break;
    case 5: {
        tl_device d = tl_tensor_device(t);
        if (d.kind == TL_DEV_CPU)
            tl_buf_puts(b, "cpu");
        else
            tl_buf_printf(b, "cuda:%d", d.index);
        break;
    }
    case 6: tl_buf_printf(b, "%" PRId64, t->version ? t->version->value : 0); break;
    case 7: {
        tl_error e;
        tl_error_clear(&e);
        if (values_repr(b, t, &e) < 0)
            tl_buf_printf(b, "<error: %s>", e.msg);
        break;
    }
    default: break;
    }
}

/* Split "view shape=(2, 3) dtype=float32" into kind and key values.
 * vals[k] is NULL for keys not present. Returns false if malformed. */
static bool parse_expected(const char *s, char **kind, char *vals[NKEYS])
{
    for (size_t k = 0; k < NKEYS; k++)
        vals[k] = NULL;
    const char *sp = strchr(s, ' ');
    *kind = sp ? tl_xstrndup(s, (size_t)(sp - s)) : tl_xstrdup(s);
    if (!sp)
        return true;
    /* find every " key=" occurrence */
    size_t pos[NKEYS];
    size_t which[NKEYS];
    size_t m = 0;
    for (size_t k = 0; k < NKEYS; k++) {
        char pat[32];
        snprintf(pat, sizeof pat, " %s=", keys[k]);
        const char *f = strstr(s, pat);
        if (f) {
            pos[m] = (size_t)(f - s);
            which[m++] = k;
        }
    }
    /* sort by position */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && pos[j] < pos[j - 1]; j--) {
            size_t tp = pos[j], tw = which[j];
            pos[j] = pos[j - 1];
            which[j] = which[j - 1];
            pos[j - 1] = tp;
            which[j - 1] = tw;
        }
    if (m == 0 || pos[0] != (size_t)(sp - s))
        return false;
    for (size_t i = 0; i < m; i++) {
        size_t start = pos[i] + strlen(keys[which[i]]) + 2;
        size_t end = i + 1 < m ? pos[i + 1] : strlen(s);
        vals[which[i]] = tl_xstrndup(s + start, end - start);
    }
    return true;
}

/* The actual line for a tensor result, restricted to the expected keys
 * (or all but values when want is NULL). */
static void tensor_line(tl_buf *b, const char *kind, const tl_tensor *t,
                        char *const *want)
{
    tl_buf_puts(b, kind);
    for (size_t k = 0; k < NKEYS; k++) {
        if (want ? !want[k] : k == 7)
            continue;
        tl_buf_printf(b, " %s=", keys[k]);
        key_value(b, k, t);
    }
}

static const char *classify(const tl_value *v, const tl_value *parent)
{
    if (!parent || !tl_value_is_tensorlike(parent))
        return "tensor";
    if (v->u.tensor == parent->u.tensor)
        return "alias";
    if (tl_storage_same(v->u.tensor->storage, parent->u.tensor->storage))
        return "view";
    return "copy";
}

static bool holds_tensor(const tl_value *v)
{
    if (v->kind != TL_V_TUPLE && v->kind != TL_V_LIST)
        return false;
    for (size_t i = 0; i < v->u.seq.n; i++)
        if (tl_value_is_tensorlike(v->u.seq.items[i]))
            return true;
    return false;
}

/* Compare one result value against expected lines[*i...]; appends the
 * actual text to `actual`. */
static bool match_value(const tl_value *v, const tl_value *parent, const line *exp,
                        size_t nexp, size_t *i, const char *indent, tl_buf *actual)
{
    if (*i >= nexp) {
        tl_buf_printf(actual, "%s<missing expected line>\n", indent);
        return false;
    }
    tl_buf e = {0};
    line_text(&e, &exp[*i], strlen(indent));
    (*i)++;
    const char *es = tl_buf_str(&e);
    bool ok;
    if (tl_value_is_tensorlike(v)) {
        char *kind, *vals[NKEYS];
        bool wellformed = parse_expected(es, &kind, vals);
        const char *k = classify(v, parent);
        tl_buf a = {0};
        tensor_line(&a, k, v->u.tensor, wellformed ? vals : NULL);
        ok = wellformed && strcmp(tl_buf_str(&a), es) == 0;
        if (!ok && wellformed) {
            /* same keys in a different order still match */
            ok = strcmp(kind, k) == 0;
            for (size_t q = 0; q < NKEYS && ok; q++) {
                if (!vals[q])
                    continue;
                tl_buf one = {0};
                key_value(&one, q, v->u.tensor);
                ok = strcmp(tl_buf_str(&one), vals[q]) == 0;
                tl_buf_free(&one);
            }
        }
        tl_buf_printf(actual, "%s%s\n", indent, tl_buf_str(&a));
        tl_buf_free(&a);
        free(kind);
        for (size_t q = 0; q < NKEYS; q++)
            free(vals[q]);
    } else if (holds_tensor(v)) {
        const char *word = v->kind == TL_V_LIST ? "list" : "tuple";
        tl_buf a = {0};
        tl_buf_printf(&a, "%s %zu", word, v->u.seq.n);
        ok = strcmp(tl_buf_str(&a), es) == 0;
        tl_buf_printf(actual, "%s%s\n", indent, tl_buf_str(&a));
        tl_buf_free(&a);
        char sub[64];
        snprintf(sub, sizeof sub, "%s  ", indent);
        for (size_t k = 0; k < v->u.seq.n; k++)
            if (!match_value(v->u.seq.items[k], parent, exp, nexp, i, sub, actual))
                ok = false;
    } else {
        tl_buf a = {0};
        tl_buf_puts(&a, "value ");
        tl_value_repr(v, &a);
        ok = strcmp(tl_buf_str(&a), es) == 0;
        tl_buf_printf(actual, "%s%s\n", indent, tl_buf_str(&a));
        tl_buf_free(&a);
    }
    tl_buf_free(&e);
    return ok;
}

static void escape_newlines(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n')
            tl_buf_puts(b, "\\n");
        else
            tl_buf_putc(b, *s);
    }
}

static bool match_error(const tl_error *err, const line *exp, size_t nexp, tl_buf *actual)
{
    tl_buf a = {0};
    tl_buf_printf(&a, "error %s: ", tl_error_kind_name(err->kind));
    escape_newlines(&a, err->msg);
    tl_buf_printf(actual, "%s\n", tl_buf_str(&a));
    bool ok = false;
    if (nexp == 1) {
        tl_buf e = {0};
        line_text(&e, &exp[0], 0);
        const char *es = tl_buf_str(&e);
        size_t el = strlen(es);
        if (el >= 3 && strcmp(es + el - 3, "...") == 0)
            ok = strncmp(tl_buf_str(&a), es, el - 3) == 0;
        else
            ok = strcmp(tl_buf_str(&a), es) == 0;
        tl_buf_free(&e);
    }
    tl_buf_free(&a);
    return ok;
}

/* ---------------------------------------------------------------------- */
/* running records */

static void report(runner *R, const record *rec, const char *why, const char *expected,
                   const char *actual)
{
    R->fail++;
    printf("*** test at %s:%d failed: %s\n", R->path, rec->first_line, why);
    for (size_t i = 0; i < rec->nlines; i++)
        printf("***   | %.*s\n", (int)rec->lines[i].n, rec->lines[i].s);
    if (expected) {
        printf("*** expected:\n%s", expected);
        if (*expected && expected[strlen(expected) - 1] != '\n')
            putchar('\n');
    }
    if (actual) {
        printf("*** actual:\n%s", actual);
        if (*actual && actual[strlen(actual) - 1] != '\n')
            putchar('\n');
    }
}

/* Interpreter options of a record: the defaults, on the emulated CUDA
 * device when TLAB_GOLDEN_DEVICE=cuda (tests/device_cuda.sh: the golden
 * files on the GPU backend's grid simulator), on the GPU for =gpu (when
 * one is usable; tests/gpu/run.sh). */
static void golden_opts_default(tl_interp_opts *o)
{
    tl_interp_opts_default(o);
    const char *dev = getenv("TLAB_GOLDEN_DEVICE");
    const tl_backend *gpu = dev && !strcmp(dev, "gpu") ? tl_backend_cuda() : NULL;
    if (gpu) { /* tests/gpu/run.sh: the real device */
        o->default_backend = gpu;
        o->cuda_backend = gpu;
        o->cuda_available = true;
    } else if (dev && !strcmp(dev, "cuda")) {
        o->default_backend = tl_backend_cuda_emulated();
        o->cuda_backend = o->default_backend;
        o->cuda_available = true;
    }
}

static void apply_option(tl_interp_opts *o, const char *opt)
{
    const char *eq = strchr(opt, '=');
    if (!eq)
        return;
    double v = atof(eq + 1);
    size_t kl = (size_t)(eq - opt);
    if (kl == 9 && strncmp(opt, "max_depth", kl) == 0)
        o->max_depth = (int)v;
    else if (kl == 10 && strncmp(opt, "max_source", kl) == 0)
        o->max_source = (size_t)v;
    else if (kl == 7 && strncmp(opt, "max_seq", kl) == 0)
        o->max_seq = (int64_t)v;
    else if (kl == 7 && strncmp(opt, "timeout", kl) == 0)
        o->timeout = v;
}

static void run_exec(runner *R, const record *rec, size_t from, tl_source *src_override)
{
    tl_interp_opts o;
    golden_opts_default(&o);
    tl_interp *I = tl_interp_new(&o);
    tl_buf text = {0};
    tl_source src;
    if (src_override) {
        src = *src_override;
    } else {
        for (size_t i = from; i < rec->nlines; i++) {
            line_text(&text, &rec->lines[i], 0);
            tl_buf_putc(&text, '\n');
        }
        memset(&src, 0, sizeof src);
        src.text = tl_buf_str(&text);
        src.len = text.len;
        src.file = R->path;
        src.line = from < rec->nlines ? rec->lines[from].lineno : rec->first_line;
        src.col = 1;
        src.block_col = 1;
        src.file_text = R->text;
        src.file_len = R->len;
    }
    tl_error err;
    tl_error_clear(&err);
    if (tl_interp_exec(I, &src, &err) < 0) {
        tl_buf d = {0};
        tl_diag_render(&d, &src, &err, false);
        report(R, rec, "statements raised", NULL, tl_buf_str(&d));
        tl_buf_free(&d);
    } else {
        R->pass++;
    }
    tl_buf_free(&text);
    tl_interp_free(I);
}

static void run_record(runner *R, const record *rec)
{
    if (rec->kind == REC_EXEC) {
        run_exec(R, rec, 1, NULL);
        return;
    }
    size_t i = rec->kind == REC_FAIL ? 1 : 0;
    tl_interp_opts o;
    golden_opts_default(&o);
    const char *parent_name = "x";
    char parent_buf[128];
    tl_buf setup = {0};
    int setup_line = 0;
    for (; i < rec->nlines && !starts_with(&rec->lines[i], "?"); i++) {
        const line *l = &rec->lines[i];
        if (starts_with(l, "@parent ")) {
            snprintf(parent_buf, sizeof parent_buf, "%.*s", (int)(l->n - 8), l->s + 8);
            parent_name = parent_buf;
        } else if (starts_with(l, "@option ")) {
            char opt[128];
            snprintf(opt, sizeof opt, "%.*s", (int)(l->n - 8), l->s + 8);
            apply_option(&o, opt);
        } else if (starts_with(l, "#")) {
            continue;
        } else {
            if (!setup_line)
                setup_line = l->lineno;
            line_text(&setup, l, 0);
            tl_buf_putc(&setup, '\n');
        }
    }
    tl_buf prog = {0};
    for (; i < rec->nlines && starts_with(&rec->lines[i], "?"); i++) {
        size_t skip = rec->lines[i].n >= 2 && rec->lines[i].s[1] == ' ' ? 2 : 1;
        if (prog.len)
            tl_buf_putc(&prog, '\n');
        line_text(&prog, &rec->lines[i], skip);
    }
    const line *exp = rec->lines + i;
    size_t nexp = rec->nlines - i;
    if (!prog.data) {
        report(R, rec, "malformed record (no '? ' line)", NULL, NULL);
        tl_buf_free(&setup);
        return;
    }

    tl_interp *I = tl_interp_new(&o);
    tl_error err;
    tl_error_clear(&err);
    tl_source ssrc = {tl_buf_str(&setup), setup.len, R->path, setup_line ? setup_line : 1,
                      1, 1, R->text, R->len};
    if (setup.len && tl_interp_exec(I, &ssrc, &err) < 0) {
        tl_buf d = {0};
        tl_diag_render(&d, &ssrc, &err, false);
        report(R, rec, "setup raised", NULL, tl_buf_str(&d));
        tl_buf_free(&d);
        goto done;
    }
    tl_value *parent = tl_interp_get(I, parent_name);
    tl_source psrc = {tl_buf_str(&prog), prog.len, "<test>", 1, 1, 1, NULL, 0};
    tl_error_clear(&err);
    tl_value *v = tl_interp_eval(I, &psrc, &err);

    tl_buf expected = {0};
    for (size_t k = 0; k < nexp; k++) {
        line_text(&expected, &exp[k], 0);
        tl_buf_putc(&expected, '\n');
    }
    tl_buf actual = {0};
    if (rec->kind == REC_FAIL) {
        if (v) {
            tl_buf_puts(&actual, "(no error)\n");
            report(R, rec, "expected a diagnostic", tl_buf_str(&expected), tl_buf_str(&actual));
        } else {
            tl_diag_render(&actual, &psrc, &err, false);
            if (strcmp(tl_buf_str(&actual), tl_buf_str(&expected)) == 0)
                R->pass++;
            else
                report(R, rec, "diagnostic differs", tl_buf_str(&expected), tl_buf_str(&actual));
        }
    } else if (!v) {
        if (tl_error_is_python(err.kind)) {
            if (match_error(&err, exp, nexp, &actual))
                R->pass++;
            else
                report(R, rec, "wrong result", tl_buf_str(&expected), tl_buf_str(&actual));
        } else {
            tl_diag_render(&actual, &psrc, &err, false);
            report(R, rec, "tlab error", tl_buf_str(&expected), tl_buf_str(&actual));
        }
    } else {
        size_t k = 0;
        bool ok = match_value(v, parent, exp, nexp, &k, "", &actual);
        if (ok && k != nexp)
            ok = false;
        if (ok)
            R->pass++;
        else
            report(R, rec, "wrong result", tl_buf_str(&expected), tl_buf_str(&actual));
    }
    tl_buf_free(&expected);
    tl_buf_free(&actual);
    tl_value_release(v);
    tl_value_release(parent);
done:
    tl_interp_free(I);
    tl_buf_free(&setup);
    tl_buf_free(&prog);
}

/* ---------------------------------------------------------------------- */

static bool blank(const line *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->s[i] != ' ' && l->s[i] != '\t' && l->s[i] != '\r')
            return false;
    return true;
}

int tl_golden_run(const char *path)
{
    size_t len = 0;
    char *text;
    if (tl_read_file(path, TL_GOLDEN_MAX_BYTES, &text, &len) != TL_READ_OK) {
        fprintf(stderr, "tlab: %s: cannot read test file\n", path);
        return 2;
    }
    runner R = {path, text, len, 0, 0};
    size_t plen = strlen(path);
    if (plen > 3 && strcmp(path + plen - 3, ".py") == 0) {
        record rec = {REC_EXEC, NULL, 0, 1};
        tl_source src = {text, len, path, 1, 1, 1, text, len};
        run_exec(&R, &rec, 0, &src);
    } else {
        /* split into lines */
        size_t cap = 256, n = 0;
        line *lines = tl_xmalloc(cap * sizeof *lines);
        int lineno = 1;
        for (size_t p = 0; p < len;) {
            size_t e = p;
            while (e < len && text[e] != '\n')
                e++;
            size_t l = e - p;
            if (l && text[p + l - 1] == '\r')
                l--;
            if (n == cap) {
                cap *= 2;
                lines = tl_xrealloc(lines, cap * sizeof *lines);
            }
            lines[n++] = (line){text + p, l, lineno++};
            p = e + 1;
        }
        size_t i = 0;
        while (i < n) {
            /* skip blank lines and comment lines between records */
            if (blank(&lines[i]) || starts_with(&lines[i], "#")) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < n && !blank(&lines[j]))
                j++;
            record rec;
            rec.lines = lines + i;
            rec.nlines = j - i;
            rec.first_line = lines[i].lineno;
            rec.kind = starts_with(&lines[i], "%%FAIL") ? REC_FAIL
                       : starts_with(&lines[i], "%%EXEC") ? REC_EXEC
                                                          : REC_EXPR;
            run_record(&R, &rec);
            i = j;
        }
        free(lines);
    }
    printf("%d of %d tests passed\n", R.pass, R.pass + R.fail);
    free(text);
    return R.fail ? 1 : 0;
}
