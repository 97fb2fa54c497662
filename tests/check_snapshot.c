/* check_snapshot.c - unit tests for py/snapshot.c through the interpreter
 * (tl_interp_snapshot / tl_interp_restore): a run that starts from copies
 * of a setup's globals must see exactly what a run after a fresh setup
 * sees. Each probe below runs three ways: after the setup itself, and twice
 * from one snapshot (so a probe that writes shows the second copy is still
 * pristine); the repr of the result, or the error, must be the same.
 * Also: what the snapshot refuses, and that the kept storages are off the
 * memory ledger. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "snapshot.h"
#include "storage.h"
#include "util.h"

static tl_source src_of(const char *s)
{
    tl_source src = {s, strlen(s), "<t>", 1, 1, 1, NULL, 0};
    return src;
}

static void exec_ok(tl_interp *I, const char *s)
{
    tl_source src = src_of(s);
    tl_error err;
    tl_error_clear(&err);
    ck_assert_msg(tl_interp_exec(I, &src, &err) == 0, "<%s> raised %s: %s", s,
                  tl_error_kind_name(err.kind), err.msg);
}

/* the repr of the probe's value, or "!Kind: message" */
static char *probe(tl_interp *I, const char *s)
{
    tl_source src = src_of(s);
    tl_error err;
    tl_error_clear(&err);
    tl_value *v = tl_interp_eval(I, &src, &err);
    tl_buf b = {0};
    if (!v) {
        tl_buf_printf(&b, "!%s: %s", tl_error_kind_name(err.kind), err.msg);
    } else {
        tl_value_repr(v, &b);
        tl_value_release(v);
    }
    return tl_buf_steal(&b);
}

static char *fresh(const char *setup, const char *p)
{
    tl_interp *I = tl_interp_new(NULL);
    exec_ok(I, setup);
    char *r = probe(I, p);
    tl_interp_free(I);
    return r;
}

static tl_snapshot *take(const char *setup)
{
    tl_interp *I = tl_interp_new(NULL);
    exec_ok(I, setup);
    tl_snapshot *s = tl_interp_snapshot(I);
    tl_interp_free(I);
    return s;
}

static char *restored(const tl_snapshot *s, const char *p)
{
    tl_interp *I = tl_interp_new(NULL);
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_interp_restore(I, s, &err), 0);
    char *r = probe(I, p);
    tl_interp_free(I);
    return r;
}

typedef struct scase {
    const char *setup;
    const char *probes[8];
} scase;

#define META "x.shape, x.stride(), x.storage_offset(), x._version, x.dtype, " \
             "x.requires_grad, x.is_leaf, x.is_contiguous(), x._base is None, " \
             "x.untyped_storage().nbytes(), x.tolist()"

static const scase cases[] = {
    {"import torch\nx = torch.arange(24, dtype=torch.float32).reshape(4, 6)",
     {META, "x._base.shape, x._base.tolist()[:3], x._base._version",
      "x.add_(1)\nx._base.tolist()[:4], x._version, x._base._version",
      "x.t().contiguous().stride(), x.view(-1)._base is x._base",
      "x._base.zero_()\nx.sum().item(), x._version", "x.view(3, 8)", NULL}},
    {"import torch\nb = torch.arange(10.)\nx = b[2:8:2]\ny = b.view(2, 5)",
     {META, "x._base is b, y._base is b, b._base is None",
      "x.mul_(-1)\nb.tolist(), y.tolist(), b._version, y._version",
      "y[1] = 7\nx.tolist(), x._version",
      "x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()", NULL}},
    {"import torch\nx = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)",
     {META, "(x * x).sum().backward()\nx.grad.tolist(), x.grad_fn",
      "y = x.t()\ny.requires_grad, y.is_leaf, y.grad_fn.name(), y._base is x",
      "x.add_(1)", "with torch.no_grad():\n    x.add_(1)\nx.tolist(), x._version",
      "x.detach().requires_grad, x.grad", NULL}},
    {"import torch\ntorch.manual_seed(3)\nx = torch.rand(3, 4)\n_ = torch.rand(2)",
     {META, "torch.rand(3).tolist(), torch.randn(2).tolist()",
      "torch.randint(0, 100, (4,)).tolist(), torch.randperm(5).tolist()", NULL}},
    {"import torch\ntorch.set_default_dtype(torch.float64)\nx = torch.ones(3)",
     {META, "torch.get_default_dtype(), torch.ones(1).dtype, torch.tensor([1.5]).dtype",
      NULL}},
    {"import torch\nx = torch.arange(6)\nl = [x, x[1:], (x, 3)]\nt = (x, 'a')\nz = x",
     {META, "z is x, l[0] is x, l[2][0] is x, t[0] is x, l[1]._base is x",
      "l.append(1)\nl[1].add_(10)\nx.tolist(), len(l), z._version",
      "l[0] = 5\nl, t", "x.untyped_storage().data_ptr() == l[1].untyped_storage().data_ptr()",
      NULL}},
    {"import torch\nx = torch.zeros(2, 3).t()\nx.add_(1)\nx[0, 0] = 5",
     {META, "x._version, x.add_(1)._version", NULL}},
    {"import torch\nx = torch.empty(0, 3)\ne = torch.tensor([])",
     {META, "e.shape, e.untyped_storage().nbytes(), e.dtype, x.t().stride()", NULL}},
    {"import torch\nx = torch.arange(8.).view(2, 4)\nx.unsqueeze_(0)\nx.transpose_(1, 2)",
     {META, "x._base.shape, x.contiguous().stride()", NULL}},
    {"import torch\narange = torch.arange\nx = arange(5)\ns = torch.Size([2, 3])\n"
     "d = torch.float16\nf = torch.sum\nn = None\nk = 2.5\nw = 'w'",
     {META, "s, d, f(x), n, k, w, x.to(d).dtype", NULL}},
    {"import torch\nx = torch.ones(3, requires_grad=True)\ny = x.detach()",
     {META, "y.requires_grad, y._base is None, y.add_(1)\nx.tolist()",
      "y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()", NULL}},
    {"import torch\nx = torch.ones(2, 2).expand(3, 2, 2)",
     {META, "x.add_(1)", "x.contiguous().untyped_storage().nbytes()", NULL}},
    {"import torch\nx = torch.as_strided(torch.arange(10.), (3, 3), (2, 1), 1)",
     {META, "x._base, x.view(9)", "x.reshape(9).tolist()", NULL}},
    {"import torch\nimport numpy as np\nx = torch.arange(4.)\nx2 = x.clone()\nx2[0] = 9\n"
     "x3 = x.to(torch.float16)",
     {META, "x2.tolist(), x3.dtype, x3._base is None", NULL}},
    /* more objects than the memo keeps inline */
    {"import torch\nx = torch.arange(50.)\nl = [x[i:] for i in range(40)]\n"
     "m = [t.view(-1, 1) for t in l[::3]]",
     {META, "l[7].add_(1)\nx[5:9].tolist(), l[0][7].item(), m[2]._base is x, x._version",
      "m[3].mul_(0)\nl[9][:3].tolist(), len(l), len(m)", "[t.storage_offset() for t in m]",
      NULL}},
    {"", {"1 + 1", NULL}},
};

START_TEST(test_copies_behave_as_fresh)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tl_snapshot *s = take(cases[i].setup);
        ck_assert_msg(s != NULL, "setup %zu refused:\n%s", i, cases[i].setup);
        for (int k = 0; k < 8 && cases[i].probes[k]; k++) {
            const char *p = cases[i].probes[k];
            char *want = fresh(cases[i].setup, p);
            for (int rep = 0; rep < 2; rep++) {
                char *got = restored(s, p);
                ck_assert_msg(strcmp(got, want) == 0, "setup %zu, probe <%s> (copy %d):\n"
                              "from the snapshot: %s\nafter the setup:   %s", i, p, rep, got,
                              want);
                free(got);
            }
            free(want);
            ran++;
        }
        tl_snapshot_free(s);
    }
    ck_assert_int_ge(ran, 40);
}
END_TEST

START_TEST(test_refused)
{
    static const char *const refuse[] = {
        "import torch\ndef f():\n    return 1\nx = torch.ones(2)",
        "import torch\nf = lambda t: t\nx = torch.ones(2)",
        "import numpy as np\nx = np.ones(3)",
        "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2",
        "import torch\nx = torch.ones(2, requires_grad=True)\nx.sum().backward()",
        "import torch\nx = torch.ones(2)\ns = x.untyped_storage()",
        "import torch\nx = torch.ones(2)\nm = x.view",
        "a = []\nfor i in range(40):\n    a = [a]", /* deeper than a copy goes */
        "import torch\nx = torch.zeros(5000000)",
        "import torch\nx = torch.ones(2, requires_grad=True)\nv = x[0]",
        "e = ValueError('no')",
    };
    for (size_t i = 0; i < sizeof refuse / sizeof *refuse; i++) {
        tl_snapshot *s = take(refuse[i]);
        ck_assert_msg(s == NULL, "not refused:\n%s", refuse[i]);
    }
}
END_TEST

START_TEST(test_ledger)
{
    size_t live0 = tl_alloc_live();
    tl_snapshot *s = take("import torch\nx = torch.ones(1000)\ny = x[10:]\nz = torch.zeros(7)");
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(tl_alloc_live(), live0); /* kept storages are off the ledger */
    tl_interp *I = tl_interp_new(NULL);
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_interp_restore(I, s, &err), 0);
    ck_assert_uint_eq(tl_alloc_live(), live0 + 4000 + 28); /* the copies are charged */
    tl_interp_free(I);
    ck_assert_uint_eq(tl_alloc_live(), live0);
    /* a copy over the limit fails cleanly, and the snapshot stays usable */
    size_t limit = tl_alloc_limit();
    tl_alloc_set_limit(live0 + 100);
    I = tl_interp_new(NULL);
    tl_error_clear(&err);
    ck_assert_int_eq(tl_interp_restore(I, s, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    tl_interp_free(I);
    ck_assert_uint_eq(tl_alloc_live(), live0);
    tl_alloc_set_limit(limit);
    char *got = restored(s, "x.sum().item(), y.shape, z.tolist()");
    ck_assert_str_eq(got, "(1000.0, torch.Size([990]), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])");
    free(got);
    tl_snapshot_free(s);
    ck_assert_uint_eq(tl_alloc_live(), live0);
}
END_TEST

static Suite *tl_snapshot_suite(void)
{
    Suite *s = suite_create("snapshot");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_copies_behave_as_fresh);
    tcase_add_test(core, test_refused);
    tcase_add_test(core, test_ledger);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_snapshot_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
