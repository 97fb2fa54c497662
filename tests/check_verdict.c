/* check_verdict.c - unit tests for verdict.c: the pointer verdict, the
 * write-through probe (including views outside the parent's window and a
 * forced disagreement), tuples, values, runs from a fresh setup, the
 * `sometimes` variants, and ops that pass a limit. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "interp.h"
#include "storage.h"
#include "tensor.h"
#include "value.h"
#include "verdict.h"

static tl_tensor *arange_f32(int64_t n)
{
    tl_error err;
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &n, &err);
    ck_assert_ptr_nonnull(t);
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(tl_tensor_set_f64(t, i, (double)i, &err), 0);
    return t;
}

START_TEST(test_alias_view_copy)
{
    tl_error err;
    tl_tensor *p = arange_f32(24);
    tl_value *pv = tl_value_tensor(tl_tensor_retain(p));
    tl_evidence ev;

    /* alias: the very same tensor object */
    tl_value *same = tl_value_tensor(tl_tensor_retain(p));
    ck_assert_int_eq(tl_verdict_classify(same, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_ALIAS);
    ck_assert(ev.same_object && ev.shares_storage);
    ck_assert_int_eq(ev.write_through, 1);
    tl_evidence_free(&ev);
    tl_value_release(same);

    /* view: x.view(4, 6)[1:] -> shape (3, 6), stride (6, 1), offset 6 */
    int64_t sz[2] = {3, 6}, st[2] = {6, 1};
    p->version->value = 7;
    tl_value *vv = tl_value_tensor(tl_tensor_view(p, 2, sz, st, 6));
    ck_assert_int_eq(tl_verdict_classify(vv, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_VIEW);
    ck_assert(!ev.same_object && ev.shares_storage);
    ck_assert_int_eq(ev.ndim, 2);
    ck_assert_int_eq(ev.shape[0], 3);
    ck_assert_int_eq(ev.stride[0], 6);
    ck_assert_int_eq(ev.offset, 6);
    ck_assert(ev.contiguous);
    ck_assert_str_eq(ev.device, "cpu");
    ck_assert_int_eq(ev.write_through, 1);
    tl_evidence_free(&ev);
    /* the probe restored the element and the shared version counter */
    double d;
    ck_assert_int_eq(tl_tensor_get_f64(p, 6, &d, &err), 0);
    ck_assert(d == 6.0);
    ck_assert_int_eq(p->version->value, 7);
    tl_value_release(vv);

    /* copy: new storage, parent untouched */
    int64_t n = 24;
    tl_tensor *c = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &n, &err);
    tl_value *cv = tl_value_tensor(c);
    ck_assert_int_eq(tl_verdict_classify(cv, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_COPY);
    ck_assert(!ev.shares_storage);
    ck_assert_int_eq(ev.write_through, 0);
    tl_evidence_free(&ev);
    tl_value_release(cv);
    tl_value_release(pv);
    tl_tensor_release(p);
}
END_TEST

START_TEST(test_view_outside_parent_window)
{
    /* base has 10 elements; the parent sees base[2:5]; the result is
     * as_strided over base[0:2]: same storage, but element 0 of the result
     * is outside every element of the parent */
    tl_error err;
    tl_tensor *base = arange_f32(10);
    int64_t s3 = 3, s2 = 2, one = 1;
    tl_tensor *p = tl_tensor_view(base, 1, &s3, &one, 2);
    tl_tensor *r = tl_tensor_view(base, 1, &s2, &one, 0);
    tl_value *pv = tl_value_tensor(p), *rv = tl_value_tensor(r);
    tl_evidence ev;
    ck_assert_int_eq(tl_verdict_classify(rv, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_VIEW);
    ck_assert_int_eq(ev.write_through, 0);
    tl_evidence_free(&ev);
    double d;
    ck_assert_int_eq(tl_tensor_get_f64(base, 0, &d, &err), 0);
    ck_assert(d == 0.0);
    tl_value_release(pv);
    tl_value_release(rv);
    tl_tensor_release(base);
}
END_TEST

/* write_through against a brute-force answer: random parents (dense in
 * any dim order, with size-1 dims, or strided with gaps and overlaps) over
 * a 64-element storage, and a one-element view at every storage slot: the
 * write shows in the parent exactly when some element of the parent reads
 * that slot. Dense parents take the range test, the others the bitmap. */
START_TEST(test_write_through_random)
{
    tl_error err;
    tl_tensor *base = arange_f32(64);
    unsigned seed = 99;
    int dense_seen = 0, sparse_seen = 0;
    for (int round = 0; round < 400; round++) {
        int nd = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
        int64_t sz[3], st[3];
        bool dense = ((seed >> 20) & 1) == 0;
        if (dense) { /* a permutation of contiguous strides */
            int64_t acc = 1;
            int order[3] = {0, 1, 2};
            for (int i = nd - 1; i > 0; i--) {
                seed = seed * 1103515245u + 12345u;
                int j = (int)((seed >> 16) % (unsigned)(i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int k = 0; k < nd; k++) {
                seed = seed * 1103515245u + 12345u;
                int d = order[k];
                sz[d] = 1 + (int64_t)((seed >> 16) % 3);
                st[d] = acc;
                acc *= sz[d];
            }
        } else {
            for (int d = 0; d < nd; d++) {
                seed = seed * 1103515245u + 12345u;
                sz[d] = 1 + (int64_t)((seed >> 16) % 3);
                st[d] = (int64_t)((seed >> 8) % 5); /* 0: overlap */
            }
        }
        int64_t hi = 0;
        for (int d = 0; d < nd; d++)
            hi += (sz[d] - 1) * st[d];
        seed = seed * 1103515245u + 12345u;
        int64_t off = (int64_t)((seed >> 16) % (unsigned)(64 - hi));
        bool reads[64] = {false};
        int64_t idx[3] = {0, 0, 0}, n = sz[0] * (nd > 1 ? sz[1] : 1) * (nd > 2 ? sz[2] : 1);
        for (int64_t i = 0; i < n; i++) {
            int64_t e = off;
            for (int d = 0; d < nd; d++)
                e += idx[d] * st[d];
            reads[e] = true;
            for (int d = nd - 1; d >= 0; d--) {
                if (++idx[d] < sz[d])
                    break;
                idx[d] = 0;
            }
        }
        tl_value *pv = tl_value_tensor(tl_tensor_view(base, nd, sz, st, off));
        for (int64_t k = 0; k < 64; k++) {
            int64_t one = 1;
            tl_value *rv = tl_value_tensor(tl_tensor_view(base, 1, &one, &one, k));
            tl_evidence ev;
            ck_assert_int_eq(tl_verdict_classify(rv, pv, &ev, &err), 0);
            ck_assert_msg(ev.write_through == (reads[k] ? 1 : 0),
                          "round %d slot %lld: write_through %d", round, (long long)k,
                          ev.write_through);
            tl_evidence_free(&ev);
            tl_value_release(rv);
        }
        tl_value_release(pv);
        dense ? dense_seen++ : sparse_seen++;
    }
    ck_assert(dense_seen > 100 && sparse_seen > 100);
    for (int64_t k = 0; k < 64; k++) { /* every probe put its byte back */
        double d;
        ck_assert_int_eq(tl_tensor_get_f64(base, k, &d, &err), 0);
        ck_assert(d == (double)k);
    }
    tl_tensor_release(base);
}
END_TEST

START_TEST(test_tuple_value_empty)
{
    tl_error err;
    tl_tensor *p = arange_f32(6);
    tl_value *pv = tl_value_tensor(tl_tensor_retain(p));
    int64_t n3 = 3, one = 1;
    tl_value *tup = tl_tuple_new(2);
    tl_seq_set(tup, 0, tl_value_tensor(tl_tensor_view(p, 1, &n3, &one, 0)));
    tl_seq_set(tup, 1, tl_value_tensor(tl_tensor_view(p, 1, &n3, &one, 3)));
    tl_evidence ev;
    ck_assert_int_eq(tl_verdict_classify(tup, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_VIEW);
    ck_assert(ev.is_tuple);
    ck_assert_uint_eq(ev.nitems, 2);
    ck_assert_int_eq(ev.items[1].offset, 3);
    char *sig = tl_evidence_signature(&ev);
    ck_assert_str_eq(sig, "(view,view)2");
    free(sig);
    tl_evidence_free(&ev);
    /* a copy in the tuple makes it mixed */
    tl_seq_set(tup, 1, tl_value_tensor(tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &n3, &err)));
    ck_assert_int_eq(tl_verdict_classify(tup, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_MIXED);
    tl_evidence_free(&ev);
    tl_value_release(tup);

    /* x.stride() -> (1,) is a value */
    tl_value *st = tl_tuple_new(1);
    tl_seq_set(st, 0, tl_int(1));
    ck_assert_int_eq(tl_verdict_classify(st, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_VALUE);
    char *js = cJSON_PrintUnformatted(ev.value);
    ck_assert_str_eq(js, "[1]");
    cJSON_free(js);
    tl_evidence_free(&ev);
    tl_value_release(st);

    /* an empty view: shares storage, nothing to probe */
    int64_t zero = 0;
    tl_value *ev0 = tl_value_tensor(tl_tensor_view(p, 1, &zero, &one, 0));
    ck_assert_int_eq(tl_verdict_classify(ev0, pv, &ev, &err), 0);
    ck_assert_int_eq(ev.kind, TL_KIND_VIEW);
    ck_assert_int_eq(ev.write_through, -1);
    tl_evidence_free(&ev);
    tl_value_release(ev0);
    tl_value_release(pv);
    tl_tensor_release(p);
}
END_TEST

START_TEST(test_probe_disagreement)
{
    /* A storage object that overlaps the parent's memory at another base
     * pointer: the pointer verdict says copy, but writing the result
     * changes the parent. That must be an internal error, never graded. */
    tl_error err;
    tl_error_clear(&err);
    tl_tensor *p = arange_f32(8);
    tl_tensor *r = tl_tensor_alias(p);
    /* a rogue, separately owned storage object aimed at p's memory */
    tl_storage *s2 = tl_storage_new(tl_backend_cpu(), p->storage->nbytes - 8, &err);
    ck_assert_ptr_nonnull(s2);
    void *own = s2->data;
    s2->data = (char *)p->storage->data + 8;
    tl_storage_release(r->storage);
    r->storage = s2;
    r->sizes[0] = 6;
    tl_value *pv = tl_value_tensor(p), *rv = tl_value_tensor(r);
    tl_evidence ev;
    ck_assert_int_eq(tl_verdict_classify(rv, pv, &ev, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "disagrees with the pointer verdict"));
    tl_evidence_free(&ev);
    s2->data = own; /* give the rogue storage its own memory back to free */
    tl_value_release(rv);
    tl_value_release(pv);
}
END_TEST

/* ---- runs through the interpreter ---- */

static const char *setup_text = "import torch\nx = torch.arange(24, dtype=torch.float32).reshape(4, 6)\n";

static int run_op(const char *optext, tl_op_verdict *v, tl_verdict_fail *fail)
{
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.default_backend = tl_backend_cpu();
    tl_source setup = {.text = setup_text, .len = strlen(setup_text), .file = "t.yaml",
                       .line = 1, .col = 1};
    tl_source op = {.text = optext, .len = strlen(optext), .file = "t.yaml", .line = 9,
                    .col = 9};
    tl_job job = {.setup = &setup, .nsetup = 1, .op = &op, .parent = "x", .variants = true};
    return tl_verdict_run(&r, &job, v, fail);
}

/* The pictures' data (job.trace): the storage map and, for a copy, which
 * parent slot each element was read from (tl_verdict_gather). */
static int trace_op(const char *setup_src, const char *optext, tl_op_verdict *v)
{
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.default_backend = tl_backend_cpu();
    tl_source setup = {.text = setup_src, .len = strlen(setup_src), .file = "t.yaml",
                       .line = 1, .col = 1};
    tl_source op = {.text = optext, .len = strlen(optext), .file = "t.yaml", .line = 9,
                    .col = 9};
    tl_job job = {.setup = &setup, .nsetup = 1, .op = &op, .parent = "x", .trace = true};
    tl_verdict_fail fail;
    int rc = tl_verdict_run(&r, &job, v, &fail);
    tl_verdict_fail_free(&fail);
    return rc;
}

START_TEST(test_gather_trace)
{
    tl_op_verdict v;
    const int64_t *src;
    int64_t n;
    /* a transpose copy reads slot (k % 4) * 6 + k / 4 into element k */
    ck_assert_int_eq(trace_op(setup_text, "x.t().contiguous()", &v), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_COPY);
    ck_assert(tl_verdict_gather(&v, &src, &n));
    ck_assert_int_eq(n, 24);
    for (int64_t k = 0; k < 24; k++)
        ck_assert_int_eq(src[k], (k % 4) * 6 + k / 4);
    ck_assert_int_eq(v.parent_nslots, 24);
    tl_storage_map m;
    ck_assert(tl_verdict_storage_map(&v, &m));
    ck_assert_int_eq(m.nslots, 24);
    for (int64_t k = 0; k < 24; k++) {
        ck_assert_int_eq(m.cell[k], k); /* the new buffer is contiguous */
        ck_assert_int_eq(m.reads[k], 1);
    }
    tl_storage_map_free(&m);
    tl_op_verdict_free(&v);

    /* dtype conversion and an index gather with repeats */
    ck_assert_int_eq(trace_op(setup_text, "x[[2, 0, 2]].long()", &v), 0);
    ck_assert(tl_verdict_gather(&v, &src, &n));
    ck_assert_int_eq(n, 18);
    for (int64_t k = 0; k < 18; k++)
        ck_assert_int_eq(src[k], (k / 6 == 1 ? 0 : 12) + k % 6);
    tl_op_verdict_free(&v);

    /* part from x, part from elsewhere: a zero is not slot 0 */
    ck_assert_int_eq(trace_op(setup_text, "torch.cat([x[0], torch.zeros(2)])", &v), 0);
    ck_assert(tl_verdict_gather(&v, &src, &n));
    ck_assert_int_eq(n, 8);
    for (int64_t k = 0; k < 6; k++)
        ck_assert_int_eq(src[k], k);
    ck_assert_int_eq(src[6], -1);
    ck_assert_int_eq(src[7], -1);
    tl_op_verdict_free(&v);

    /* arithmetic, a value-dependent order and a mask trace to nothing */
    const char *computed[] = {"x + 1", "x * 2", "x.flatten().sort(descending=True).values",
                              "x[x > 20]", "x.sum(0)", "-x"};
    for (size_t i = 0; i < sizeof computed / sizeof computed[0]; i++) {
        ck_assert_int_eq(trace_op(setup_text, computed[i], &v), 0);
        ck_assert_msg(!tl_verdict_gather(&v, &src, &n), "%s traced", computed[i]);
        tl_op_verdict_free(&v);
    }

    /* a view: the map counts the reads of an expand; no gather */
    ck_assert_int_eq(trace_op(setup_text, "x[0].expand(3, 6)", &v), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_VIEW);
    ck_assert(!tl_verdict_gather(&v, &src, &n));
    ck_assert(tl_verdict_storage_map(&v, &m));
    ck_assert_int_eq(m.reads[0], 3);
    ck_assert_int_eq(m.cell[0], -2);
    ck_assert_int_eq(m.reads[6], 0);
    tl_storage_map_free(&m);
    tl_op_verdict_free(&v);

    /* a bool parent is never traced; a parent that is a view of a larger
     * storage is traced in that storage's slots */
    ck_assert_int_eq(trace_op("import torch\nx = torch.tensor([True, False, True])\n",
                              "x.clone()", &v), 0);
    ck_assert(!tl_verdict_gather(&v, &src, &n));
    tl_op_verdict_free(&v);
    ck_assert_int_eq(trace_op("import torch\nx = torch.arange(10.)[2:8]\n", "x.flip(0)", &v),
                     0);
    ck_assert(tl_verdict_gather(&v, &src, &n));
    ck_assert_int_eq(n, 6);
    for (int64_t k = 0; k < 6; k++)
        ck_assert_int_eq(src[k], 7 - k);
    ck_assert_int_eq(v.parent_nslots, 10);
    tl_op_verdict_free(&v);
    /* a parent that requires grad is traced too (tagging is no in-place op) */
    ck_assert_int_eq(trace_op("import torch\nx = torch.arange(6.).requires_grad_()\n",
                              "x.flip(0)", &v), 0);
    ck_assert(tl_verdict_gather(&v, &src, &n));
    for (int64_t k = 0; k < 6; k++)
        ck_assert_int_eq(src[k], 5 - k);
    tl_op_verdict_free(&v);
}
END_TEST

START_TEST(test_run_verdicts)
{
    tl_op_verdict v;
    tl_verdict_fail f;
    ck_assert_int_eq(run_op("x.t()", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_VIEW);
    ck_assert_int_eq(v.ev.stride[0], 1);
    ck_assert_int_eq(v.ev.stride[1], 6);
    ck_assert(!v.sometimes);
    ck_assert_uint_eq(v.nvariants, 2);
    ck_assert_str_eq(v.variants[0].parent, "non-contiguous");
    ck_assert_str_eq(v.variants[1].parent, "float64");
    ck_assert_int_eq(v.ev.bytes_allocated, 0);
    tl_op_verdict_free(&v);

    /* reshape: a view of the row-major x, a copy of the column-major one */
    ck_assert_int_eq(run_op("x.reshape(6, 4)", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_VIEW);
    ck_assert(v.sometimes);
    ck_assert_int_eq(v.variants[0].kind, TL_KIND_COPY);
    tl_op_verdict_free(&v);

    ck_assert_int_eq(run_op("x.clone()", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_COPY);
    ck_assert_int_eq(v.ev.bytes_allocated, 96);
    ck_assert_int_eq(v.ev.write_through, 0);
    tl_op_verdict_free(&v);

    ck_assert_int_eq(run_op("x.contiguous()", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_ALIAS);
    tl_op_verdict_free(&v);

    /* ops never see each other's writes: each run starts from setup */
    ck_assert_int_eq(run_op("x.add_(100)", &v, &f), 0);
    tl_op_verdict_free(&v);
    ck_assert_int_eq(run_op("x.sum().item()", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_VALUE);
    ck_assert(cJSON_IsNumber(v.ev.value) && v.ev.value->valuedouble == 276.0);
    tl_op_verdict_free(&v);

    ck_assert_int_eq(run_op("x.t().view(24)", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_ERROR);
    ck_assert_str_eq(v.ev.err_type, "RuntimeError");
    ck_assert_ptr_nonnull(strstr(v.ev.err_msg, "view size is not compatible"));
    ck_assert_ptr_nonnull(strstr(v.ev.reason, "error: RuntimeError"));
    tl_op_verdict_free(&v);
}
END_TEST

START_TEST(test_run_failures)
{
    tl_op_verdict v;
    tl_verdict_fail f;
    /* syntax error in the op: exit 2 with a located message */
    ck_assert_int_eq(run_op("x.t(", &v, &f), -1);
    ck_assert_int_eq(f.exit_code, 2);
    ck_assert_ptr_nonnull(strstr(f.rendered, "t.yaml:9:"));
    tl_verdict_fail_free(&f);

    /* a failing setup names the setup line */
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.default_backend = tl_backend_cpu();
    const char *bad = "import torch\nx = torch.arange(6)\nassert x.shape[0] == 5\n";
    tl_source setup = {.text = bad, .len = strlen(bad), .file = "s.yaml", .line = 4, .col = 3,
                       .block_col = 3};
    tl_source op = {.text = "x.t()", .len = 5, .file = "s.yaml", .line = 9, .col = 9};
    tl_job job = {.setup = &setup, .nsetup = 1, .op = &op, .parent = "x"};
    ck_assert_int_eq(tl_verdict_run(&r, &job, &v, &f), -1);
    ck_assert_int_eq(f.exit_code, 2);
    ck_assert_msg(strstr(f.rendered, "s.yaml:6:") != NULL, "%s", f.rendered);
    tl_verdict_fail_free(&f);

    /* the parent must exist */
    const char *noparent = "import torch\ny = torch.arange(6)\n";
    setup.text = noparent;
    setup.len = strlen(noparent);
    ck_assert_int_eq(tl_verdict_run(&r, &job, &v, &f), -1);
    ck_assert_int_eq(f.exit_code, 2);
    ck_assert_ptr_nonnull(strstr(f.rendered, "does not define the parent tensor 'x'"));
    tl_verdict_fail_free(&f);
}
END_TEST

START_TEST(test_limits)
{
    tl_op_verdict v;
    tl_verdict_fail f;
    size_t old = tl_alloc_limit();
    tl_alloc_set_limit((size_t)1 << 20);
    /* past --max-bytes: that op's error, not a crash */
    ck_assert_int_eq(run_op("torch.zeros(10**7)", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_ERROR);
    ck_assert_ptr_nonnull(v.ev.err_where);
    ck_assert_str_eq(v.ev.err_where, "t.yaml:9:9");
    tl_op_verdict_free(&v);
    tl_alloc_set_limit(old);
    /* more elements than a tensor may hold */
    ck_assert_int_eq(run_op("torch.zeros(10**12)", &v, &f), 0);
    ck_assert_int_eq(v.ev.kind, TL_KIND_ERROR);
    tl_op_verdict_free(&v);
}
END_TEST

/* A value's JSON is bounded: 10^4 references to one list of 10^4 items is
 * cheap to build but would be 10^8 JSON nodes; it becomes one string. */
START_TEST(test_value_json_budget)
{
    tl_value *row = tl_list_new(10000);
    for (size_t i = 0; i < 10000; i++)
        tl_seq_set(row, i, tl_int((int64_t)i));
    tl_value *m = tl_list_new(10000);
    for (size_t i = 0; i < 10000; i++)
        tl_seq_set(m, i, tl_value_retain(row));
    cJSON *j = tl_value_to_json(m);
    ck_assert(cJSON_IsString(j));
    ck_assert_str_eq(j->valuestring, "<list of length 10000: too large to show>");
    cJSON_Delete(j);
    /* a small value is kept whole */
    tl_value *small = tl_list_new(3);
    for (size_t i = 0; i < 3; i++)
        tl_seq_set(small, i, tl_value_retain(row));
    tl_value_release(row);
    tl_value_release(m);
    j = tl_value_to_json(small);
    ck_assert(cJSON_IsString(j)); /* 3 x 10^4 items: still over */
    cJSON_Delete(j);
    tl_value_release(small);
    tl_value *stride = tl_tuple_new(2);
    tl_seq_set(stride, 0, tl_int(6));
    tl_seq_set(stride, 1, tl_int(1));
    j = tl_value_to_json(stride);
    ck_assert(cJSON_IsArray(j));
    ck_assert_int_eq(cJSON_GetArraySize(j), 2);
    ck_assert_int_eq(cJSON_GetArrayItem(j, 0)->valueint, 6);
    cJSON_Delete(j);
    tl_value_release(stride);
    /* a long string too */
    char *big = malloc(200001);
    memset(big, 'a', 200000);
    big[200000] = 0;
    tl_value *s = tl_str(big);
    free(big);
    j = tl_value_to_json(s);
    ck_assert_str_eq(j->valuestring, "<str of 200000 characters: too large to show>");
    cJSON_Delete(j);
    tl_value_release(s);
}
END_TEST

static Suite *tl_verdict_suite(void)
{
    Suite *s = suite_create("verdict");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_alias_view_copy);
    tcase_add_test(core, test_view_outside_parent_window);
    tcase_add_test(core, test_write_through_random);
    tcase_add_test(core, test_tuple_value_empty);
    tcase_add_test(core, test_run_verdicts);
    tcase_add_test(core, test_gather_trace);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits);
    tcase_add_test(limits, test_value_json_budget);
    tcase_set_timeout(limits, 60);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_probe_disagreement);
    tcase_add_test(errors, test_run_failures);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_verdict_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
