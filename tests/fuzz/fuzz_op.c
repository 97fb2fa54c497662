/* fuzz_op.c - libFuzzer harness: one op of the op language, run as
 * `tlab explain` runs it (tl_verdict_run: setup, the op, the write-through
 * probe, the parent variants, the evidence as JSON and text).
 *
 * The limits are the binary's (interpreter defaults: 1 MiB of source,
 * nesting 64, 10^7 sequence elements) except the time (0.25 s per run
 * instead of 2, a 3 s sheet budget) and the storage ledger (256 MiB
 * instead of 1 GiB), so libFuzzer's rss and time limits are never the
 * ones that stop an input. Setup makes the parent `x` a 4 x 6 float32
 * tensor, as the labs do. Exit status 3 (an internal error, such as a
 * probe that disagrees with the pointer verdict) aborts: a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "explain.h"
#include "report.h"
#include "storage.h"
#include "util.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char setup[] =
        "import torch\nimport numpy as np\nx = torch.arange(24, dtype=torch.float32).reshape(4, 6)\n";
    if (size > ((size_t)1 << 16))
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    tl_alloc_set_limit((size_t)256 << 20);
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.timeout = 0.25;
    r.other = NULL;
    tl_source ss = {.text = setup, .len = sizeof setup - 1, .file = "<setup>", .line = 1,
                    .col = 1, .file_text = setup, .file_len = sizeof setup - 1};
    tl_source es = {.text = text, .len = size, .file = "<op>", .line = 1, .col = 1,
                    .file_text = text, .file_len = size};
    tl_budget b;
    tl_budget_start(&b, 3.0, false);
    tl_budget_enter(&b);
    tl_error err;
    tl_error_clear(&err);
    if (tl_interp_check_syntax(&es, &r.opts, &err) == 0) {
        tl_job job = {.setup = &ss, .nsetup = 1, .op = &es, .parent = "x",
                      .parent_optional = true, .variants = true, .keep_values = true,
                      .id = "fuzz"};
        tl_op_verdict v;
        tl_verdict_fail fail;
        if (tl_verdict_run(&r, &job, &v, &fail) < 0) {
            if (fail.exit_code == 3) {
                fprintf(stderr, "internal error:\n%s", fail.rendered ? fail.rendered : "");
                abort();
            }
            tl_verdict_fail_free(&fail);
        } else {
            const char *stmts[] = {"x = torch.arange(24, dtype=torch.float32).reshape(4, 6)"};
            char *j = tl_report_explain_json(stmts, 1, text, "x", &v, "cpu", "cpu");
            tl_render_opts ro = {.color = false};
            char *t = tl_report_explain(stmts, 1, text, "x", &v, "cpu", &ro);
            free(j);
            free(t);
            tl_op_verdict_free(&v);
        }
    }
    tl_budget_enter(NULL);
    free(text);
    return 0;
}
