/* classify.c - running a sheet's classify(op_result, parent).
 *
 * The block is executed in the op's own interpreter after the op (so it can
 * use torch and the setup's names), then `classify` is called through
 * tl_interp_call, which gives it the interpreter's limits: the per-op
 * timeout, the recursion limit, the memory ledger. Whatever goes wrong is
 * rendered once, located in the classify block (its errors' spans point
 * there), and kept as the answer's error; nothing here fails the lab.
 * Invariant: out->error is set exactly when out->answer is TL_KIND_NONE.
 */
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "util.h"

void tl_classify_out_free(tl_classify_out *c)
{
    free(c->error);
    memset(c, 0, sizeof *c);
}

tl_kind tl_classify_truth(tl_kind verdict)
{
    return verdict == TL_KIND_ALIAS || verdict == TL_KIND_VIEW ? TL_KIND_VIEW : TL_KIND_COPY;
}

static _Thread_local tl_classify_stop *g_stop;

static void render(tl_classify_out *out, const tl_source *src, const tl_error *err)
{
    if (err->kind == TL_ERR_LIMIT && g_stop)
        __atomic_store_n(&g_stop->flag, 1, __ATOMIC_RELAXED);
    tl_buf b = {0};
    tl_diag_render(&b, src, err, false);
    out->error = tl_buf_steal(&b);
}

void tl_classify_run(tl_interp *I, const tl_source *src, tl_value *result,
                     tl_value *parent, tl_classify_stop *stop, tl_classify_out *out)
{
    memset(out, 0, sizeof *out);
    if (stop && __atomic_load_n(&stop->flag, __ATOMIC_RELAXED))
        return;
    out->ran = true;
    g_stop = stop;
    tl_error err;
    tl_error_clear(&err);
    if (tl_interp_exec(I, src, &err) < 0) {
        render(out, src, &err);
        return;
    }
    tl_value *fn = tl_interp_get(I, "classify");
    if (!fn || (fn->kind != TL_V_CLOSURE && fn->kind != TL_V_FUNC)) {
        tl_error_set(&err, TL_ERR_NAME, "the classify block does not define "
                                        "classify(op_result, parent)");
        render(out, src, &err);
        tl_value_release(fn);
        return;
    }
    tl_value *args[2] = {result, parent};
    tl_value *r = tl_interp_call(I, fn, args, 2, &err);
    tl_value_release(fn);
    if (!r) {
        render(out, src, &err);
        return;
    }
    if (r->kind == TL_V_STR && strcmp(r->u.str.s, "view") == 0) {
        out->answer = TL_KIND_VIEW;
    } else if (r->kind == TL_V_STR && strcmp(r->u.str.s, "copy") == 0) {
        out->answer = TL_KIND_COPY;
    } else {
        tl_buf b = {0};
        tl_value_repr_bounded(r, &b, 80);
        tl_error_set(&err, TL_ERR_VALUE, "classify() returned %s (it must return 'view' or "
                                         "'copy')", tl_buf_str(&b));
        tl_buf_free(&b);
        render(out, src, &err);
    }
    tl_value_release(r);
}
