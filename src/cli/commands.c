/* commands.c - the subcommands of SPEC 2: check, run, key, new, explain,
 * grade. main.c has parsed and validated the command line; each command
 * loads, executes, renders, writes, and returns the exit status:
 *   0 ok (check: passes), 1 below the threshold, 2 invalid input (one
 *   located message), 3 internal failure.
 *
 * Invariants: nothing is written (no -o file, no partial stdout) until the
 * whole document is rendered; every op is syntax-checked before any runs,
 * so a bad op exits 2 without output; each op runs from a fresh setup.
 * `grade` executes the master's ops once and grades every submission's
 * predictions against those verdicts.
 *
 * --jobs N (grade): both phases of `grade` run on N threads (the main
 * thread and N-1 workers) that take the next index from a shared atomic
 * counter: first the master's ops (each op from a fresh setup in its own
 * interpreter; the runtime's mutable state - allocation ledger, interpreter
 * and deadline, factory context and generator - is _Thread_local, and every
 * interpreter starts the generator from its seed, so a verdict does not
 * depend on the thread), then the submissions (load, tamper check, grade:
 * each into its own slot). Workers print nothing; the main thread renders
 * the slots in order, so every format is byte-identical to --jobs 1. When
 * ops fail, the first failing op in lab order is reported, as with one job:
 * every op before it has run, and ops after a known failure are skipped.
 */
#include "commands.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "grade.h"
#include "interp.h"
#include "lab.h"
#include "report.h"
#include "scorecard.h"
#include "storage.h"
#include "util.h"
#include "verdict.h"

typedef struct ctx {
    const tl_cli *cli;
    bool color_out;
    bool color_err;
    tl_runner runner;
    const char *dev_requested;
    const char *dev_used;
    size_t max_bytes;   /* the ledger limit, set in every worker thread */
} ctx;

static bool want_color(tl_color c, int fd, bool to_file)
{
    if (c == TL_COLOR_ALWAYS)
        return true;
    if (c == TL_COLOR_NEVER || to_file)
        return false;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    return isatty(fd) == 1;
}

static int setup_device(ctx *c, tl_lab_device labdev)
{
    const tl_cli *cli = c->cli;
    tl_devreq req = cli->device_set ? cli->device
                    : labdev == TL_LAB_DEV_CPU ? TL_DEVREQ_CPU
                    : labdev == TL_LAB_DEV_CUDA ? TL_DEVREQ_CUDA
                                                : TL_DEVREQ_AUTO;
    c->dev_requested = req == TL_DEVREQ_CPU ? "cpu" : req == TL_DEVREQ_CUDA ? "cuda" : "auto";
    const tl_backend *real = tl_backend_cuda();
    const tl_backend *cpu = tl_backend_cpu();
    if (cli->require_gpu && !real) {
        const char *why;
        (void)tl_backend_cuda_probe(&why);
        fprintf(stderr, "tlab: --require-gpu: no GPU is available (CUDA: %s)\n", why);
        return TL_EXIT_USAGE;
    }
    const tl_backend *be;
    if (cli->require_gpu)
        be = real;
    else if (req == TL_DEVREQ_CPU)
        be = cpu;
    else if (req == TL_DEVREQ_CUDA)
        be = real ? real : tl_backend_cuda_emulated();
    else
        be = real ? real : cpu;
    c->dev_used = tl_backend_name(be);
    tl_interp_opts_default(&c->runner.opts);
    c->runner.opts.default_backend = be;
    c->runner.opts.cuda_backend =
        real ? real : tl_backend_device(be).kind == TL_DEV_CUDA ? be : NULL;
    c->runner.opts.cuda_available = c->runner.opts.cuda_backend != NULL;
    if (cli->timeout > 0)
        c->runner.opts.timeout = cli->timeout;
    c->runner.other = be == cpu ? real : cpu;
    c->runner.color = c->color_err;
    c->max_bytes = cli->max_bytes ? cli->max_bytes : TL_DEFAULT_MAX_BYTES;
    tl_alloc_set_limit(c->max_bytes);
    return TL_EXIT_OK;
}

static void init_ctx(ctx *c, const tl_cli *cli)
{
    memset(c, 0, sizeof *c);
    c->cli = cli;
    bool to_file = cli->output && strcmp(cli->output, "-") != 0;
    c->color_out = want_color(cli->color, STDOUT_FILENO, to_file);
    c->color_err = want_color(cli->color, STDERR_FILENO, false);
}

static tl_lab *load(ctx *c, const char *path)
{
    tl_lab_err err;
    tl_lab *lab = tl_lab_load(path, c->color_err, &err);
    if (!lab)
        fputs(err.rendered, stderr);
    tl_lab_err_free(&err);
    return lab;
}

/* Syntax of setup and every op, before anything runs. */
static int precheck(ctx *c, const tl_lab *lab)
{
    tl_source src;
    tl_error err;
    tl_error_clear(&err);
    tl_lab_setup_source(lab, &src);
    if (tl_interp_check_syntax(&src, &c->runner.opts, &err) < 0)
        goto bad;
    for (size_t i = 0; i < lab->nops; i++) {
        tl_lab_op_source(lab, &lab->ops[i], &src);
        if (tl_interp_check_syntax(&src, &c->runner.opts, &err) < 0) {
            /* a limit (nesting, length) is that op's error verdict */
            if (err.kind == TL_ERR_LIMIT) {
                tl_error_clear(&err);
                continue;
            }
            goto bad;
        }
    }
    return TL_EXIT_OK;
bad:;
    tl_buf b = {0};
    tl_diag_render(&b, &src, &err, c->color_err);
    fputs(tl_buf_str(&b), stderr);
    tl_buf_free(&b);
    return err.kind == TL_ERR_INTERNAL ? TL_EXIT_INTERNAL : TL_EXIT_USAGE;
}

static void free_verdicts(tl_op_verdict *v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        tl_op_verdict_free(&v[i]);
    free(v);
}

/* ------------------------------------------------------------ workers */

/* A parallel loop: fn(arg, i) for every i < n, each exactly once unless
 * skipped (i >= stop), on `jobs` threads. Items are taken in increasing
 * order from `next`; fn writes only its own slot i. */
typedef struct pool {
    void (*fn)(void *arg, size_t i);
    void *arg;
    size_t n;
    atomic_size_t next;
    atomic_size_t stop; /* items at or past it are skipped (SIZE_MAX: none) */
    size_t max_bytes;   /* the ledger limit (thread-local) of each worker */
} pool;

/* Stack of a worker: the parser and interpreter recurse (nesting <= 64,
 * YAML depth bounded), as deep as on the main thread. */
#define WORKER_STACK ((size_t)8 << 20)

static void drain(pool *p)
{
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || i >= atomic_load(&p->stop))
            return;
        p->fn(p->arg, i);
    }
}

static void *worker_main(void *arg)
{
    pool *p = arg;
    tl_alloc_set_limit(p->max_bytes);
    drain(p);
    return NULL;
}

/* Lower p->stop to i (skip every item after a failed one). */
static void pool_stop_after(pool *p, size_t i)
{
    size_t cur = atomic_load(&p->stop);
    while (i + 1 < cur && !atomic_compare_exchange_weak(&p->stop, &cur, i + 1))
        ;
}

/* Run the loop: jobs - 1 workers plus the calling thread (which keeps its
 * own ledger limit). A worker that cannot be started only means fewer
 * threads; with one job nothing is started. */
static void pool_run(pool *p, int jobs)
{
    size_t extra = jobs > 1 ? (size_t)jobs - 1 : 0;
    if (extra > p->n - (p->n > 0))
        extra = p->n - (p->n > 0);
    pthread_t *t = extra ? tl_xcalloc(extra, sizeof *t) : NULL;
    size_t started = 0;
    if (extra) {
        pthread_attr_t attr;
        bool attr_ok = pthread_attr_init(&attr) == 0;
        size_t cur = 0;
        if (attr_ok && pthread_attr_getstacksize(&attr, &cur) == 0 && cur < WORKER_STACK)
            (void)pthread_attr_setstacksize(&attr, WORKER_STACK);
        for (; started < extra; started++)
            if (pthread_create(&t[started], attr_ok ? &attr : NULL, worker_main, p) != 0)
                break;
        if (attr_ok)
            pthread_attr_destroy(&attr);
    }
    drain(p);
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
}

/* ------------------------------------------------------------ run a lab */

typedef struct op_slot {
    bool ran;
    bool failed;
    tl_verdict_fail fail;
} op_slot;

typedef struct lab_run {
    ctx *c;
    const tl_lab *lab;
    const tl_source *setup;
    tl_op_verdict *v;
    op_slot *slot;
    pool *p;
    tl_classify_stop classify_stop;
} lab_run;

static void run_op(void *arg, size_t i)
{
    lab_run *lr = arg;
    const tl_lab *lab = lr->lab;
    tl_source opsrc, clsrc;
    tl_lab_op_source(lab, &lab->ops[i], &opsrc);
    if (lab->classify && lab->classify[0])
        tl_lab_classify_source(lab, &clsrc);
    tl_job job = {
        .classify = lab->classify && lab->classify[0] ? &clsrc : NULL,
        .classify_stop = &lr->classify_stop,
        .setup = lr->setup,
        .nsetup = lr->setup->len ? 1 : 0,
        .op = &opsrc,
        .parent = lab->parent,
        .parent_line = lab->parent_line,
        .parent_col = lab->parent_col,
        .variants = true,
    };
    lr->slot[i].ran = true;
    if (tl_verdict_run(&lr->c->runner, &job, &lr->v[i], &lr->slot[i].fail) < 0) {
        lr->slot[i].failed = true;
        pool_stop_after(lr->p, i);
    }
}

/* Execute every op of lab (with variants), on c->cli->jobs threads. */
static int run_lab(ctx *c, const tl_lab *lab, tl_op_verdict **out)
{
    *out = NULL;
    int rc = precheck(c, lab);
    if (rc)
        return rc;
    tl_op_verdict *v = tl_xcalloc(lab->nops ? lab->nops : 1, sizeof *v);
    op_slot *slot = tl_xcalloc(lab->nops ? lab->nops : 1, sizeof *slot);
    tl_source setup;
    tl_lab_setup_source(lab, &setup);
    pool p = {.fn = run_op, .n = lab->nops, .max_bytes = c->max_bytes};
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, SIZE_MAX);
    lab_run lr = {.c = c, .lab = lab, .setup = &setup, .v = v, .slot = slot, .p = &p};
    p.arg = &lr;
    pool_run(&p, c->cli->jobs);
    /* the first failure in lab order; every op before it has run */
    size_t first = lab->nops;
    for (size_t i = 0; i < lab->nops && first == lab->nops; i++)
        if (slot[i].failed)
            first = i;
    for (size_t i = 0; i < lab->nops; i++) {
        if (!slot[i].ran)
            continue;
        if (!slot[i].failed) {
            if (first < lab->nops) /* ran before a failure was known */
                tl_op_verdict_free(&v[i]);
            continue;
        }
        if (i == first) {
            tl_verdict_fail *fail = &slot[i].fail;
            if (fail->exit_code == TL_EXIT_INTERNAL)
                fprintf(stderr, "tlab: internal error while running op %s:\n",
                        lab->ops[i].id);
            fputs(fail->rendered ? fail->rendered : "tlab: error\n", stderr);
            rc = fail->exit_code ? fail->exit_code : TL_EXIT_INTERNAL;
        }
        tl_verdict_fail_free(&slot[i].fail);
    }
    if (first < lab->nops) {
        free(v);
        free(slot);
        return rc;
    }
    free(slot);
    *out = v;
    return TL_EXIT_OK;
}

static int emit(ctx *c, const char *data)
{
    if (!data) {
        fprintf(stderr, "tlab: out of memory while rendering the report\n");
        return TL_EXIT_INTERNAL;
    }
    char eb[512];
    if (tl_output_write(c->cli->output, data, strlen(data), eb, sizeof eb) < 0) {
        fprintf(stderr, "tlab: %s\n", eb);
        return TL_EXIT_USAGE;
    }
    return TL_EXIT_OK;
}

/* Load the lab at path and run all its ops on the chosen device: the lab
 * and *v (its verdicts), or NULL with the exit status in *rc. */
static tl_lab *load_and_run(ctx *c, const char *path, tl_op_verdict **v, int *rc)
{
    *v = NULL;
    tl_lab *lab = load(c, path);
    if (!lab) {
        *rc = TL_EXIT_USAGE;
        return NULL;
    }
    *rc = setup_device(c, lab->device);
    if (*rc == TL_EXIT_OK)
        *rc = run_lab(c, lab, v);
    if (*rc != TL_EXIT_OK) {
        tl_lab_free(lab);
        return NULL;
    }
    return lab;
}

static void github_summary(const tl_report *r)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return;
    char *md = tl_report_markdown(r);
    FILE *f = fopen(path, "a");
    bool ok = f != NULL;
    if (f) {
        ok = fputs(md, f) >= 0;
        ok = fclose(f) == 0 && ok; /* a full disk shows up here */
    }
    if (!ok) {
        char eb[128];
        fprintf(stderr, "tlab: cannot append to $GITHUB_STEP_SUMMARY (%s): %s\n", path,
                tl_strerror(errno, eb, sizeof eb));
    }
    free(md);
}

/* check / run / key */
static int cmd_lab(const tl_cli *cli, tl_report_mode mode)
{
    ctx c;
    init_ctx(&c, cli);
    tl_op_verdict *v;
    int rc;
    tl_lab *lab = load_and_run(&c, cli->args[0], &v, &rc);
    if (!lab)
        return rc;
    tl_grade g;
    memset(&g, 0, sizeof g);
    if (mode == TL_REPORT_CHECK)
        tl_grade_sheet(lab, lab, v, &g);
    tl_report r = {
        .mode = mode,
        .lab = lab,
        .verdicts = v,
        .grade = mode == TL_REPORT_CHECK ? &g : NULL,
        .device_requested = c.dev_requested,
        .device_used = c.dev_used,
    };
    tl_render_opts ro = {.color = c.color_out, .quiet = cli->quiet};
    tl_format fmt = cli->format == TL_FMT_DEFAULT ? TL_FMT_TEXT : cli->format;
    if (mode == TL_REPORT_KEY && fmt != TL_FMT_JSON)
        fmt = TL_FMT_TEXT;
    char *out = tl_report_render(&r, fmt, &ro);
    rc = emit(&c, out);
    if (rc == TL_EXIT_OK && fmt == TL_FMT_GITHUB)
        github_summary(&r);
    free(out);
    if (rc == TL_EXIT_OK && mode == TL_REPORT_CHECK)
        rc = g.passed ? TL_EXIT_OK : TL_EXIT_FAIL;
    tl_grade_free(&g);
    free_verdicts(v, lab->nops);
    tl_lab_free(lab);
    return rc;
}

static int cmd_new(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    tl_lab *lab = load(&c, cli->args[0]);
    if (!lab)
        return TL_EXIT_USAGE;
    char *blank = tl_lab_blank_text(lab);
    int rc = emit(&c, blank);
    free(blank);
    tl_lab_free(lab);
    return rc;
}

static int cmd_explain(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    int rc = setup_device(&c, TL_LAB_DEV_NONE);
    if (rc)
        return rc;
    /* the statements run after an implicit prelude (the imports every lab
     * setup starts with) */
    static const char prelude[] = "import torch\nimport numpy as np\n";
    size_t ns = cli->nstmts;
    tl_source *stm = tl_xcalloc(ns + 2, sizeof *stm);
    stm[0] = (tl_source){.text = prelude, .len = sizeof prelude - 1, .file = "<prelude>",
                         .line = 1, .col = 1, .file_text = prelude,
                         .file_len = sizeof prelude - 1};
    for (size_t i = 0; i < ns; i++) {
        stm[i + 1].text = cli->stmts[i];
        stm[i + 1].len = strlen(cli->stmts[i]);
        stm[i + 1].file = "<stmt>";
        stm[i + 1].line = 1;
        stm[i + 1].col = 1;
        stm[i + 1].file_text = cli->stmts[i];
        stm[i + 1].file_len = stm[i + 1].len;
    }
    const char *expr = cli->args[0];
    tl_source es = {.text = expr, .len = strlen(expr), .file = "<expr>", .line = 1,
                    .col = 1, .file_text = expr, .file_len = strlen(expr)};
    tl_error err;
    tl_error_clear(&err);
    for (size_t i = 0; i <= ns + 1; i++) {
        const tl_source *s = i <= ns ? &stm[i] : &es;
        if (tl_interp_check_syntax(s, &c.runner.opts, &err) < 0) {
            tl_buf b = {0};
            tl_diag_render(&b, s, &err, c.color_err);
            fputs(tl_buf_str(&b), stderr);
            tl_buf_free(&b);
            free(stm);
            return err.kind == TL_ERR_INTERNAL ? TL_EXIT_INTERNAL : TL_EXIT_USAGE;
        }
    }
    tl_job job = {.setup = stm, .nsetup = ns + 1, .op = &es, .parent = "x",
                  .parent_optional = true, .variants = true, .keep_values = true};
    tl_op_verdict v;
    tl_verdict_fail fail;
    if (tl_verdict_run(&c.runner, &job, &v, &fail) < 0) {
        fputs(fail.rendered ? fail.rendered : "tlab: error\n", stderr);
        rc = fail.exit_code ? fail.exit_code : TL_EXIT_INTERNAL;
        tl_verdict_fail_free(&fail);
        free(stm);
        return rc;
    }
    tl_render_opts ro = {.color = c.color_out, .quiet = cli->quiet};
    char *out = cli->format == TL_FMT_JSON
                    ? tl_report_explain_json(cli->stmts, ns, expr, "x", &v,
                                             c.dev_requested, c.dev_used)
                    : tl_report_explain(cli->stmts, ns, expr, "x", &v, c.dev_used, &ro);
    rc = emit(&c, out);
    free(out);
    tl_op_verdict_free(&v);
    free(stm);
    return rc;
}

/* ---------------------------------------------------------------- grade */

typedef struct record {
    const char *file;
    tl_lab *lab;        /* NULL when unreadable */
    char *error;        /* one line */
    tl_grade g;
    char **changes;
    size_t nchanges;
} record;

static void csv_field(tl_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        tl_buf_puts(b, s);
        return;
    }
    tl_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            tl_buf_putc(b, '"');
        tl_buf_putc(b, *s);
    }
    tl_buf_putc(b, '"');
}

static char *joined_changes(const record *rc)
{
    tl_buf b = {0};
    for (size_t k = 0; k < rc->nchanges; k++)
        tl_buf_printf(&b, "%s%s", k ? "; " : "", rc->changes[k]);
    return tl_buf_steal(&b);
}

static cJSON *record_json(const record *rc)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = rc->lab != NULL;
    cJSON_AddStringToObject(o, "file", rc->file);
    cJSON_AddNumberToObject(o, "correct", ok ? (double)rc->g.correct : 0);
    cJSON_AddNumberToObject(o, "total", (double)rc->g.total);
    cJSON_AddNumberToObject(o, "points", ok ? (double)rc->g.points : 0);
    cJSON_AddNumberToObject(o, "max_points", (double)rc->g.max_points);
    cJSON_AddBoolToObject(o, "passed", ok && rc->g.passed);
    cJSON_AddBoolToObject(o, "tampered", rc->nchanges > 0);
    cJSON *ch = cJSON_AddArrayToObject(o, "changes");
    for (size_t k = 0; ch && k < rc->nchanges; k++)
        cJSON_AddItemToArray(ch, cJSON_CreateString(rc->changes[k]));
    if (rc->error)
        cJSON_AddStringToObject(o, "error", rc->error);
    else
        cJSON_AddNullToObject(o, "error");
    return o;
}

typedef struct op_stat {
    size_t correct, graded;
    const char *wrong_best;
    size_t wrong_best_n;
} op_stat;

static void class_summary(const tl_lab *m, const record *recs, size_t n, op_stat *st)
{
    for (size_t i = 0; i < m->nops; i++) {
        op_stat *s = &st[i];
        memset(s, 0, sizeof *s);
        const char **wrong = tl_xcalloc(n + 1, sizeof *wrong);
        size_t nw = 0;
        for (size_t k = 0; k < n; k++) {
            if (!recs[k].lab)
                continue;
            const tl_op_grade *og = &recs[k].g.ops[i];
            s->graded++;
            if (og->correct)
                s->correct++;
            else
                wrong[nw++] = og->answered ? og->pred->text : "(unanswered)";
        }
        for (size_t a = 0; a < nw; a++) {
            size_t cnt = 0;
            for (size_t b = 0; b < nw; b++)
                cnt += strcmp(wrong[a], wrong[b]) == 0;
            if (cnt > s->wrong_best_n ||
                (cnt == s->wrong_best_n && s->wrong_best && strcmp(wrong[a], s->wrong_best) < 0)) {
                s->wrong_best_n = cnt;
                s->wrong_best = wrong[a];
            }
        }
        free(wrong);
    }
}

static double pct(size_t a, size_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static char *summary_text(const tl_lab *m, const op_stat *st, const record *recs, size_t n)
{
    tl_buf b = {0};
    size_t ok = 0, passed = 0;
    for (size_t k = 0; k < n; k++) {
        ok += recs[k].lab != NULL;
        passed += recs[k].lab && recs[k].g.passed;
    }
    tl_buf_printf(&b, "class summary: %zu sheet%s, %zu graded, %zu passed\n", n,
                  n == 1 ? "" : "s", ok, passed);
    tl_buf_puts(&b, "  op        correct  most common wrong prediction\n");
    for (size_t i = 0; i < m->nops; i++) {
        char *id = tl_report_fit(m->ops[i].id, 8);
        tl_buf_printf(&b, "  %-8s %7.1f%%  ", id, pct(st[i].correct, st[i].graded));
        free(id);
        if (st[i].wrong_best) {
            char *w = tl_report_fit(st[i].wrong_best, 40);
            tl_buf_printf(&b, "%s (%zu)\n", w, st[i].wrong_best_n);
            free(w);
        } else {
            tl_buf_puts(&b, "-\n");
        }
    }
    return tl_buf_steal(&b);
}

static cJSON *summary_json(const tl_lab *m, const op_stat *st, const record *recs, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    size_t ok = 0, passed = 0;
    for (size_t k = 0; k < n; k++) {
        ok += recs[k].lab != NULL;
        passed += recs[k].lab && recs[k].g.passed;
    }
    cJSON_AddNumberToObject(o, "submissions", (double)n);
    cJSON_AddNumberToObject(o, "graded", (double)ok);
    cJSON_AddNumberToObject(o, "passed", (double)passed);
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    for (size_t i = 0; ops && i < m->nops; i++) {
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        cJSON_AddItemToArray(ops, x);
        cJSON_AddStringToObject(x, "id", m->ops[i].id);
        cJSON_AddStringToObject(x, "op", m->ops[i].op);
        double p = pct(st[i].correct, st[i].graded);
        cJSON_AddNumberToObject(x, "percent_correct", (double)(long long)(p * 10 + 0.5) / 10);
        if (st[i].wrong_best) {
            cJSON_AddStringToObject(x, "most_common_wrong", st[i].wrong_best);
            cJSON_AddNumberToObject(x, "most_common_wrong_count", (double)st[i].wrong_best_n);
        } else {
            cJSON_AddNullToObject(x, "most_common_wrong");
            cJSON_AddNumberToObject(x, "most_common_wrong_count", 0);
        }
    }
    return o;
}

static void xml_attr(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': tl_buf_puts(b, "&lt;"); break;
        case '>': tl_buf_puts(b, "&gt;"); break;
        case '&': tl_buf_puts(b, "&amp;"); break;
        case '"': tl_buf_puts(b, "&quot;"); break;
        case '\n': tl_buf_puts(b, "&#10;"); break;
        default: tl_buf_putc(b, *s);
        }
    }
}

static char *render_grade(const tl_lab *m, const record *recs, size_t n, tl_format fmt,
                          const op_stat *st)
{
    tl_buf b = {0};
    if (fmt == TL_FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        if (!root)
            return NULL;
        cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION);
        cJSON *lo = cJSON_AddObjectToObject(root, "lab");
        if (lo) {
            if (m->id)
                cJSON_AddStringToObject(lo, "id", m->id);
            else
                cJSON_AddNullToObject(lo, "id");
            cJSON_AddStringToObject(lo, "file", m->file);
            cJSON_AddStringToObject(lo, "sha256", m->sha256);
        }
        cJSON *subs = cJSON_AddArrayToObject(root, "submissions");
        for (size_t k = 0; subs && k < n; k++) {
            cJSON *o = record_json(&recs[k]);
            if (o)
                cJSON_AddItemToArray(subs, o);
        }
        cJSON *s = summary_json(m, st, recs, n);
        if (s)
            cJSON_AddItemToObject(root, "summary", s);
        char *out = tl_scorecard_print_json(root);
        cJSON_Delete(root);
        return out;
    }
    if (fmt == TL_FMT_JSONL) {
        for (size_t k = 0; k < n; k++) {
            cJSON *o = record_json(&recs[k]);
            char *s = o ? cJSON_PrintUnformatted(o) : NULL;
            if (s)
                tl_buf_printf(&b, "%s\n", s);
            cJSON_free(s);
            cJSON_Delete(o);
        }
        return tl_buf_steal(&b);
    }
    if (fmt == TL_FMT_JUNIT) {
        size_t fails = 0;
        for (size_t k = 0; k < n; k++)
            fails += !(recs[k].lab && recs[k].g.passed);
        tl_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        tl_buf_printf(&b, "<testsuites name=\"tlab grade\" tests=\"%zu\" failures=\"%zu\" "
                      "errors=\"0\" skipped=\"0\" time=\"0\">\n", n, fails);
        tl_buf_puts(&b, "  <testsuite name=\"");
        xml_attr(&b, m->id ? m->id : m->file);
        tl_buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" "
                      "time=\"0\">\n", n, fails);
        for (size_t k = 0; k < n; k++) {
            const record *rc = &recs[k];
            tl_buf_puts(&b, "    <testcase classname=\"");
            xml_attr(&b, m->id ? m->id : m->file);
            tl_buf_puts(&b, "\" name=\"");
            xml_attr(&b, rc->file);
            tl_buf_puts(&b, "\" time=\"0\">\n      <properties>\n");
            tl_buf_printf(&b, "        <property name=\"correct\" value=\"%" PRId64 "\"/>\n",
                          rc->lab ? rc->g.correct : 0);
            tl_buf_printf(&b, "        <property name=\"total\" value=\"%" PRId64 "\"/>\n",
                          rc->g.total);
            tl_buf_printf(&b, "        <property name=\"points\" value=\"%" PRId64 "\"/>\n",
                          rc->lab ? rc->g.points : 0);
            tl_buf_printf(&b, "        <property name=\"max_points\" value=\"%" PRId64 "\"/>\n",
                          rc->g.max_points);
            tl_buf_printf(&b, "        <property name=\"tampered\" value=\"%s\"/>\n",
                          rc->nchanges ? "true" : "false");
            tl_buf_puts(&b, "      </properties>\n");
            if (!(rc->lab && rc->g.passed)) {
                tl_buf t = {0};
                if (rc->error)
                    tl_buf_printf(&t, "unreadable: %s", rc->error);
                else
                    tl_buf_printf(&t, "%" PRId64 "/%" PRId64 " correct (threshold %" PRId64
                                  ") - FAIL", rc->g.correct, rc->g.total, rc->g.threshold);
                if (rc->nchanges) {
                    char *j = joined_changes(rc);
                    tl_buf_printf(&t, "; tampered: %s", j);
                    free(j);
                }
                tl_buf_puts(&b, "      <failure message=\"");
                xml_attr(&b, tl_buf_str(&t));
                tl_buf_printf(&b, "\" type=\"%s\">", rc->error ? "error" : "below_threshold");
                xml_attr(&b, tl_buf_str(&t));
                tl_buf_puts(&b, "</failure>\n");
                tl_buf_free(&t);
            }
            tl_buf_puts(&b, "    </testcase>\n");
        }
        tl_buf_puts(&b, "  </testsuite>\n</testsuites>\n");
        return tl_buf_steal(&b);
    }
    /* csv */
    tl_buf_puts(&b, "file,correct,total,points,max_points,passed,tampered,changes,error\n");
    for (size_t k = 0; k < n; k++) {
        const record *rc = &recs[k];
        csv_field(&b, rc->file);
        tl_buf_printf(&b, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%s,",
                      rc->lab ? rc->g.correct : 0, rc->g.total, rc->lab ? rc->g.points : 0,
                      rc->g.max_points, rc->lab && rc->g.passed ? "true" : "false",
                      rc->nchanges ? "true" : "false");
        char *j = joined_changes(rc);
        csv_field(&b, j);
        free(j);
        tl_buf_putc(&b, ',');
        csv_field(&b, rc->error ? rc->error : "");
        tl_buf_putc(&b, '\n');
    }
    return tl_buf_steal(&b);
}

static char *first_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? tl_xstrndup(s, (size_t)(nl - s)) : tl_xstrdup(s);
}

/* What the submission workers share (read-only but recs, one slot each). */
typedef struct grade_run {
    const tl_lab *m;
    const tl_op_verdict *v;
    int64_t maxp;
    record *recs;
} grade_run;

/* Load, tamper-check and grade submission k into recs[k]. */
static void grade_one(void *arg, size_t k)
{
    const grade_run *gr = arg;
    const tl_lab *m = gr->m;
    record *r = &gr->recs[k];
    tl_lab_err err;
    r->lab = tl_lab_load(r->file, false, &err);
    if (!r->lab) {
        r->error = first_line(err.rendered ? err.rendered : err.msg);
        tl_lab_err_free(&err);
        r->g.total = (int64_t)m->nops;
        r->g.max_points = gr->maxp;
        r->g.threshold = tl_lab_threshold_count(m);
        return;
    }
    r->nchanges = tl_grade_tamper(m, r->lab, &r->changes);
    tl_grade_sheet(m, r->lab, gr->v, &r->g);
}

static int cmd_grade(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    tl_op_verdict *v;
    int rc;
    tl_lab *m = load_and_run(&c, cli->master, &v, &rc);
    if (!m)
        return rc;
    size_t n = (size_t)cli->nargs;
    record *recs = tl_xcalloc(n ? n : 1, sizeof *recs);
    int64_t maxp = 0;
    for (size_t i = 0; i < m->nops; i++)
        maxp += m->ops[i].points;
    for (size_t k = 0; k < n; k++)
        recs[k].file = cli->args[k];
    grade_run gr = {.m = m, .v = v, .maxp = maxp, .recs = recs};
    pool p = {.fn = grade_one, .arg = &gr, .n = n, .max_bytes = c.max_bytes};
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, SIZE_MAX);
    pool_run(&p, cli->jobs);
    op_stat *st = tl_xcalloc(m->nops, sizeof *st);
    class_summary(m, recs, n, st);
    tl_format fmt = cli->format == TL_FMT_DEFAULT ? TL_FMT_CSV : cli->format;
    char *out = render_grade(m, recs, n, fmt, st);
    rc = emit(&c, out);
    free(out);
    if (rc == TL_EXIT_OK && fmt != TL_FMT_JSON && !cli->quiet) {
        char *s = summary_text(m, st, recs, n);
        fputs(s, stderr);
        free(s);
    }
    free(st);
    for (size_t k = 0; k < n; k++) {
        tl_grade_free(&recs[k].g);
        for (size_t j = 0; j < recs[k].nchanges; j++)
            free(recs[k].changes[j]);
        free(recs[k].changes);
        free(recs[k].error);
        tl_lab_free(recs[k].lab);
    }
    free(recs);
    free_verdicts(v, m->nops);
    tl_lab_free(m);
    return rc;
}

int tl_commands_run(const tl_cli *cli)
{
    const char *cmd = cli->command;
    if (!strcmp(cmd, "check"))
        return cmd_lab(cli, TL_REPORT_CHECK);
    if (!strcmp(cmd, "run"))
        return cmd_lab(cli, TL_REPORT_RUN);
    if (!strcmp(cmd, "key"))
        return cmd_lab(cli, TL_REPORT_KEY);
    if (!strcmp(cmd, "new"))
        return cmd_new(cli);
    if (!strcmp(cmd, "explain"))
        return cmd_explain(cli);
    if (!strcmp(cmd, "grade"))
        return cmd_grade(cli);
    fprintf(stderr, "tlab: unknown command '%s'\n", cmd);
    return TL_EXIT_USAGE;
}
