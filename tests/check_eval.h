/* check_eval.h - a small harness shared by check_view.c and check_index.c:
 * run op-language text through the interpreter and describe the result the
 * way the differential cases were recorded against PyTorch:
 *
 *   (4, 6)(6, 1)+0 V [0,1,2,...]    shape, strides, offset, kind, values
 *   !! RuntimeError : message       an error (newlines written as \n)
 *
 * kind: SELF V (same object, shares storage with a base variable), V (a
 * different object over a base's storage), C (new storage). Base variables
 * are x, y, s, v, l of CHECK_SETUP. Values: the first 12, printed "%g".
 */
#ifndef TL_CHECK_EVAL_H
#define TL_CHECK_EVAL_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "interp.h"
#include "value.h"

#define CHECK_SETUP                                                            \
    "import torch\nimport numpy as np\n"                                       \
    "x = torch.arange(24.).reshape(2,3,4)\n"                                   \
    "y = torch.arange(20.).reshape(4,5)\n"                                     \
    "s = torch.tensor(3.)\nv = torch.arange(5.)\n"                             \
    "l = torch.zeros(3, requires_grad=True)\n"

static void ce_desc(tl_value *v, tl_value *const *base, int nb, tl_buf *b)
{
    if (v->kind == TL_V_TENSOR || v->kind == TL_V_NDARRAY) {
        tl_tensor *t = v->u.tensor;
        tl_buf_putc(b, '(');
        for (int i = 0; i < t->ndim; i++)
            tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
        if (t->ndim == 1)
            tl_buf_putc(b, ',');
        tl_buf_puts(b, ")(");
        for (int i = 0; i < t->ndim; i++)
            tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->strides[i]);
        if (t->ndim == 1)
            tl_buf_putc(b, ',');
        tl_buf_printf(b, ")+%lld", (long long)t->offset);
        int shared = 0;
        for (int i = 0; i < nb; i++) {
            if (!base[i] || base[i]->kind != TL_V_TENSOR)
                continue;
            if (v->kind == TL_V_TENSOR && base[i]->u.tensor == t)
                tl_buf_puts(b, " SELF");
            if (base[i]->u.tensor->storage == t->storage)
                shared = 1;
        }
        tl_buf_puts(b, shared ? " V" : " C");
        tl_buf_puts(b, " [");
        int64_t n = tl_tensor_numel(t);
        for (int64_t i = 0; i < n && i < 12; i++) {
            double d = 0;
            tl_tensor_get_f64(t, i, &d, NULL);
            tl_buf_printf(b, "%s%g", i ? "," : "", d);
        }
        tl_buf_putc(b, ']');
        return;
    }
    if (v->kind == TL_V_TUPLE || v->kind == TL_V_LIST) {
        tl_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.seq.n; i++) {
            if (i)
                tl_buf_puts(b, ", ");
            ce_desc(v->u.seq.items[i], base, nb, b);
        }
        tl_buf_putc(b, ']');
        return;
    }
    tl_value_repr(v, b);
}

/* Evaluate `expr` ('|' separates statements) after CHECK_SETUP; returns
 * the description (caller frees). */
static char *ce_eval(const char *expr)
{
    tl_interp_opts o;
    tl_interp_opts_default(&o);
    tl_interp *I = tl_interp_new(&o);
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_source s = {CHECK_SETUP, strlen(CHECK_SETUP), "<setup>", 1, 1, 1,
                   NULL, 0};
    ck_assert_msg(tl_interp_exec(I, &s, &err) == 0, "setup failed: %s",
                  err.msg);
    char *text = tl_xstrdup(expr);
    for (char *p = text; *p; p++)
        if (*p == '|')
            *p = '\n';
    tl_source e = {text, strlen(text), "<expr>", 1, 1, 1, NULL, 0};
    const char *names[] = {"x", "y", "s", "v", "l"};
    tl_value *base[5];
    for (int i = 0; i < 5; i++)
        base[i] = tl_interp_get(I, names[i]);
    tl_value *r = tl_interp_eval(I, &e, &err);
    tl_buf b = {0};
    if (!r) {
        tl_buf_printf(&b, "!! %s : ", tl_error_kind_name(err.kind));
        for (const char *p = err.msg; *p; p++) {
            if (*p == '\n')
                tl_buf_puts(&b, "\\n");
            else
                tl_buf_putc(&b, *p);
        }
    } else {
        ce_desc(r, base, 5, &b);
        tl_value_release(r);
    }
    for (int i = 0; i < 5; i++)
        if (base[i])
            tl_value_release(base[i]);
    tl_interp_free(I);
    free(text);
    return tl_buf_steal(&b);
}

typedef struct ce_case {
    const char *expr;
    const char *want;
} ce_case;

static void ce_check(const ce_case *c)
{
    char *got = ce_eval(c->expr);
    ck_assert_msg(strcmp(got, c->want) == 0, "%s\n  got:  %s\n  want: %s",
                  c->expr, got, c->want);
    free(got);
}

/* Loop-test body over a case table: the core TCase checks the cases that
 * succeed (want_error false), the errors TCase those that raise ("!!"). */
static inline void ce_check_split(const ce_case *c, bool want_error)
{
    if ((strncmp(c->want, "!!", 2) == 0) != want_error)
        return; /* covered by the other TCase */
    ce_check(c);
}

/* Finish a suite whose core TCase is filled: add it, a "limits" TCase
 * running `limits`, and an "errors" TCase looping `errors` over ncases. */
static inline void ce_add_tcases(Suite *s, TCase *core, const TTest *limits,
                                 const TTest *errors, int ncases)
{
    suite_add_tcase(s, core);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, limits);
    suite_add_tcase(s, lim);
    TCase *err = tcase_create("errors");
    tcase_set_timeout(err, 60);
    tcase_add_loop_test(err, errors, 0, ncases);
    suite_add_tcase(s, err);
}

/* The body of main(): run the suite, EXIT_SUCCESS when nothing failed. */
static inline int ce_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
