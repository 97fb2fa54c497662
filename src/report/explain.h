/* explain.h - the `tlab explain` page (text and JSON). */
#ifndef TL_EXPLAIN_H
#define TL_EXPLAIN_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The text page for one verdict. stmts/expr are shown. Caller frees. */
char *tl_report_explain(const char *const *stmts, size_t nstmts, const char *expr,
                        const char *parent_name, const tl_op_verdict *v,
                        const char *device_used, const tl_render_opts *o);
/* The same as JSON (caller frees). */
char *tl_report_explain_json(const char *const *stmts, size_t nstmts, const char *expr,
                             const char *parent_name, const tl_op_verdict *v,
                             const char *device_requested, const char *device_used);

#ifdef __cplusplus
}
#endif

#endif
