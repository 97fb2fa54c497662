/* commands.c - the subcommands of SPEC 2: check, run, key, new, explain,
 * grade. main.c has parsed and validated the command line; each command
 * loads, executes, renders, writes, and returns the exit status:
 *   0 ok (check: passes), 1 below the threshold, 2 invalid input (one
 *   located message), 3 internal failure.
 *
 * Invariants: nothing is written (no -o file, no partial stdout) until the
 * whole document is rendered; every op is syntax-checked before any runs,
 * so a bad op exits 2; each op runs from a fresh setup.
 *
 * One grading path: `grade --lab MASTER SUB...` and `check --lab MASTER
 * SHEET` execute the master's ops once (on --jobs threads, pool.h) and
 * grade every submission's answers against those verdicts with the
 * master's setup, ops, accept lists, threshold and checks (grade.h); a
 * submission that changed any of them is flagged tampered. Workers print
 * nothing; the main thread renders the slots in order, so every format is
 * byte-identical to --jobs 1. A submission's sheet (text, YAML tree, lab
 * model) is freed as soon as it is graded: its grade holds copies, its
 * texts interned once per run (grade.h), so memory grows by a few KB per
 * sheet, not by the sheet. When ops fail, the first failing op in lab
 * order is reported, as with one job. An unreadable submission still gets
 * a complete document in every format (score 0, the located error) and
 * makes the exit status 2 once the document is written.
 */
#include "commands.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autograder.h"
#include "bystudent.h"
#include "backend.h"
#include "classreport.h"
#include "explain.h"
#include "escape.h"
#include "grade.h"
#include "heap.h"
#include "html.h"
#include "interp.h"
#include "lab.h"
#include "pool.h"
#include "records.h"
#include "report.h"
#include "scorecard.h"
#include "platform_id.h"
#include "sheetvar.h"
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
    tl_budget budget;   /* --sheet-timeout for the sheet being run */
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
    tl_lab *lab = tl_lab_open(path, c->color_err, c->cli->follow_links, &err);
    if (!lab)
        fputs(err.rendered, stderr);
    tl_lab_err_free(&err);
    return lab;
}

/* Syntax of setup and every op, before anything runs. */
static int precheck(ctx *c, const tl_lab *lab, char **msg)
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
    if (msg) {
        tl_buf plain = {0};
        tl_diag_render(&plain, &src, &err, false);
        *msg = tl_buf_steal(&plain);
    }
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
    tl_classify_stop classify_stop;
    tl_setup_cache *setup_cache;
} lab_run;

static void run_op(void *arg, size_t i, tl_pool *p)
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
        .setup_cache = lr->setup_cache,
        .setup = lr->setup,
        .nsetup = lr->setup->len ? 1 : 0,
        .op = &opsrc,
        .parent = lab->parent,
        .parent_line = lab->parent_line,
        .parent_col = lab->parent_col,
        .variants = true,
        .id = lab->ops[i].id,
    };
    /* every worker spends the one sheet budget (--sheet-timeout) */
    tl_budget_enter(&lr->c->budget);
    lr->slot[i].ran = true;
    if (tl_verdict_run(&lr->c->runner, &job, &lr->v[i], &lr->slot[i].fail) < 0) {
        lr->slot[i].failed = true;
        tl_pool_stop_after(p, i);
    }
}

/* Execute every op of lab (with variants), on c->cli->jobs threads. */
/* On failure the diagnostic is printed and, when msg is not NULL, kept in
 * *msg (caller frees). */
static int run_lab(ctx *c, const tl_lab *lab, tl_op_verdict **out, char **msg)
{
    *out = NULL;
    int rc = precheck(c, lab, msg);
    if (rc)
        return rc;
    tl_op_verdict *v = tl_xcalloc(lab->nops ? lab->nops : 1, sizeof *v);
    op_slot *slot = tl_xcalloc(lab->nops ? lab->nops : 1, sizeof *slot);
    tl_source setup;
    tl_lab_setup_source(lab, &setup);
    /* TLAB_FRESH_SETUP=1 runs the setup for every run, as without the
     * cache: tests/setup_cache.sh compares the two byte for byte */
    const char *fresh = getenv("TLAB_FRESH_SETUP");
    lab_run lr = {.c = c, .lab = lab, .setup = &setup, .v = v, .slot = slot,
                  .setup_cache = fresh && *fresh == '1' ? NULL : tl_setup_cache_new()};
    tl_pool_run(run_op, &lr, lab->nops, c->max_bytes, c->cli->jobs);
    tl_setup_cache_free(lr.setup_cache);
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
            if (msg)
                *msg = tl_xstrdup(fail->rendered ? fail->rendered : "error");
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

/* ------------------------------------------------- html storage pictures */

/* --format html draws every op's storage (html.h) from the pictures' data
 * of verdict.h (job.trace: the result's storage map, a copy's gather
 * trace). Once every verdict is known, each op runs once more, alone (no
 * variants, no classify), traced: the verdicts themselves come from the
 * same runs as in every other format. This pass shares the sheet's one
 * budget (--sheet-timeout: what the verdicts left of it) and never changes
 * a verdict: a run that fails or hits a limit, or an op reached once the
 * budget is spent, only means no picture for that op. */
typedef struct pic_run {
    ctx *c;
    const tl_lab *lab;
    const tl_source *setup;
    const tl_op_verdict *v;
    tl_html_pic *pics;
} pic_run;

static void picture_op(void *arg, size_t i, tl_pool *p)
{
    pic_run *pr = arg;
    const tl_op_verdict *v = &pr->v[i];
    /* an op that hit a time or memory limit would only hit it again */
    if (v->ev.kind == TL_KIND_ERROR && v->ev.err_type && !strcmp(v->ev.err_type, "LimitError"))
        return;
    tl_source opsrc;
    tl_lab_op_source(pr->lab, &pr->lab->ops[i], &opsrc);
    tl_job job = {
        .setup = pr->setup,
        .nsetup = pr->setup->len ? 1 : 0,
        .op = &opsrc,
        .parent = pr->lab->parent,
        .parent_line = pr->lab->parent_line,
        .parent_col = pr->lab->parent_col,
        .trace = true,
        .id = pr->lab->ops[i].id,
    };
    tl_budget_enter(&pr->c->budget);
    if (tl_budget_passed())
        return; /* the sheet's time is spent: no more pictures */
    tl_op_verdict kv;
    tl_verdict_fail fail;
    if (tl_verdict_run(&pr->c->runner, &job, &kv, &fail) < 0) {
        tl_verdict_fail_free(&fail);
        return;
    }
    tl_report_html_capture(&kv, &pr->pics[i]);
    tl_op_verdict_free(&kv);
}

/* The pictures of every op of lab (verdicts v); caller frees with
 * free_pictures. */
static tl_html_pic *pictures(ctx *c, const tl_lab *lab, const tl_op_verdict *v)
{
    tl_html_pic *pics = tl_xcalloc(lab->nops ? lab->nops : 1, sizeof *pics);
    tl_source setup;
    tl_lab_setup_source(lab, &setup);
    pic_run pr = {.c = c, .lab = lab, .setup = &setup, .v = v, .pics = pics};
    tl_pool_run(picture_op, &pr, lab->nops, c->max_bytes, c->cli->jobs);
    tl_budget_enter(&c->budget);
    return pics;
}

static void free_pictures(tl_html_pic *pics, size_t n)
{
    if (!pics)
        return;
    for (size_t i = 0; i < n; i++)
        tl_report_html_pic_free(&pics[i]);
    free(pics);
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
        /* a bad -o target is the user's (2); standard output failing to
         * take the report (a full disk, a closed pipe) is an I/O failure */
        bool to_stdout = !c->cli->output || !strcmp(c->cli->output, "-");
        return to_stdout ? TL_EXIT_INTERNAL : TL_EXIT_USAGE;
    }
    return TL_EXIT_OK;
}

/* Load the lab at path and run all its ops on the chosen device: the lab
 * and *v (its verdicts), or NULL with the exit status in *rc. */
static tl_lab *load_and_run(ctx *c, const char *path, tl_op_verdict **v, int *rc)
{
    *v = NULL;
    /* one sheet: loading and every run of every op, on all threads */
    tl_budget_start(&c->budget, c->cli->sheet_timeout, true);
    tl_budget_enter(&c->budget);
    tl_lab *lab = load(c, path);
    if (!lab) {
        *rc = TL_EXIT_USAGE;
        return NULL;
    }
    *rc = setup_device(c, lab->device);
    if (*rc == TL_EXIT_OK)
        *rc = run_lab(c, lab, v, NULL);
    if (*rc != TL_EXIT_OK) {
        tl_lab_free(lab);
        return NULL;
    }
    return lab;
}

static void github_summary(const tl_report *rs, size_t n)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return;
    char *md = tl_report_markdown(rs, n);
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

/* The first line of a rendered diagnostic ("FILE:LINE:COL: error: MSG"),
 * and its position when it starts with `file:`. */
static char *error_line(const char *rendered, const char *file, int *line, int *col)
{
    const char *s = rendered ? rendered : "error";
    const char *nl = strchr(s, '\n');
    char *first = nl ? tl_xstrndup(s, (size_t)(nl - s)) : tl_xstrdup(s);
    *line = *col = 0;
    size_t fl = strlen(file);
    if (!strncmp(first, file, fl) && first[fl] == ':') {
        char *e;
        long l = strtol(first + fl + 1, &e, 10);
        if (e > first + fl + 1 && *e == ':' && l > 0 && l < INT32_MAX) {
            long c = strtol(e + 1, &e, 10);
            *line = (int)l;
            *col = *e == ':' && c > 0 && c < INT32_MAX ? (int)c : 1;
        }
    }
    return first;
}

static void print_warnings(const tl_cli *cli, const tl_lab *lab)
{
    if (lab && lab->warnings && !cli->quiet)
        fputs(lab->warnings, stderr);
}

/* ------------------------------------------- per-student variants (#29) */

/* new --student ID --key FILE: the sheet of the student's variant */
static int new_student(ctx *c, const tl_lab *lab, const char *blank)
{
    const tl_cli *cli = c->cli;
    const char *bad = tl_sheetvar_bad_student(cli->student);
    if (bad) {
        fprintf(stderr, "tlab: new: --student: %s\n", bad);
        return TL_EXIT_USAGE;
    }
    if (lab->nvariants == 0) {
        char *f = tl_escape_line_dup(lab->file);
        fprintf(stderr, "tlab: new: %s has no variants: (--student picks one of them)\n", f);
        free(f);
        return TL_EXIT_USAGE;
    }
    char msg[600];
    size_t keylen;
    char *key = tl_sheetvar_read_key(cli->keyfile, &keylen, msg, sizeof msg);
    if (!key) {
        fprintf(stderr, "%s\n", msg);
        return TL_EXIT_USAGE;
    }
    const tl_lab_variant *var = &lab->variants[tl_sheetvar_pick(lab, key, keylen, cli->student)];
    char tag[TL_SHEETVAR_TAG_HEX + 1];
    tl_sheetvar_tag(lab, key, keylen, cli->student, var->name, tag);
    free(key);
    tl_lab_err err;
    char *sheet = tl_sheetvar_sheet(lab, blank, var, cli->student, tag, &err);
    if (!sheet) {
        char *f = tl_escape_line_dup(lab->file);
        if (err.line > 0)
            fprintf(stderr, "%s:%d:%d: error: %s\n", f, err.line, err.col, err.msg);
        else
            fprintf(stderr, "%s: error: %s\n", f, err.msg);
        free(f);
        tl_lab_err_free(&err);
        return err.line > 0 ? TL_EXIT_USAGE : TL_EXIT_INTERNAL;
    }
    int rc = emit(c, sheet);
    free(sheet);
    return rc;
}

/* The verdicts of every op in each of lab's variants: vl[i] is variant i's
 * lab (sheetvar.h), (*vv)[i] its verdicts; on failure the diagnostic is
 * printed and what ran is freed. */
static int run_variants(ctx *c, const tl_lab *lab, tl_lab **vl, tl_op_verdict ***vv)
{
    size_t n = lab->nvariants;
    *vl = tl_xcalloc(n ? n : 1, sizeof **vl);
    *vv = tl_xcalloc(n ? n : 1, sizeof **vv);
    for (size_t i = 0; i < n; i++) {
        tl_sheetvar_lab(lab, &lab->variants[i], &(*vl)[i]);
        int rc = run_lab(c, &(*vl)[i], &(*vv)[i], NULL);
        if (rc != TL_EXIT_OK) {
            fprintf(stderr, "tlab: (in variant '%s')\n", lab->variants[i].name);
            for (size_t j = 0; j < i; j++)
                free_verdicts((*vv)[j], lab->nops);
            free(*vv);
            free(*vl);
            *vv = NULL;
            *vl = NULL;
            return rc;
        }
    }
    return TL_EXIT_OK;
}

static void free_variants(const tl_lab *lab, tl_lab *vl, tl_op_verdict **vv)
{
    if (!vv)
        return;
    for (size_t i = 0; i < lab->nvariants; i++)
        free_verdicts(vv[i], lab->nops);
    free(vv);
    free(vl);
}

/* key on a lab with variants: the ops that error in some variants but not
 * in all, as warnings (an op whose accept: list has error is the
 * instructor's choice); with --variants, the table of every op's verdict
 * on the lab's own setup and in each variant, and how many ops change
 * verdict between the variants. */
static char *variants_table(const tl_lab *lab, const tl_op_verdict *v, tl_op_verdict **vv,
                            bool table, bool quiet)
{
    size_t nv = lab->nvariants, changed = 0, w = 6;
    for (size_t j = 0; j < nv; j++)
        if (strlen(lab->variants[j].name) > w)
            w = strlen(lab->variants[j].name);
    tl_buf b = {0};
    if (table) {
        tl_buf_printf(&b, "%-6s  %-8s", "op", "setup");
        for (size_t j = 0; j < nv; j++)
            tl_buf_printf(&b, "  %-*s", (int)w, lab->variants[j].name);
        tl_buf_puts(&b, "    op text\n");
    }
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_lab_op *op = &lab->ops[i];
        size_t nerr = 0;
        bool differs = false;
        for (size_t j = 0; j < nv; j++) {
            nerr += vv[j][i].ev.kind == TL_KIND_ERROR;
            differs |= vv[j][i].ev.kind != vv[0][i].ev.kind;
        }
        changed += differs;
        if (nerr && nerr < nv && !(op->has_accept && (op->accept & (1u << TL_KIND_ERROR))) &&
            !quiet) {
            char *f = tl_escape_line_dup(lab->file), *id = tl_escape_line_dup(op->id);
            fprintf(stderr, "%s:%d:%d: warning: op %s errors in variant", f, op->line, op->col,
                    id);
            for (size_t j = 0; j < nv; j++)
                if (vv[j][i].ev.kind == TL_KIND_ERROR)
                    fprintf(stderr, " %s", lab->variants[j].name);
            fputs(" but not in", stderr);
            for (size_t j = 0; j < nv; j++)
                if (vv[j][i].ev.kind != TL_KIND_ERROR)
                    fprintf(stderr, " %s", lab->variants[j].name);
            fputs(" (give it accept: [error, ...] if that is meant)\n", stderr);
            free(f);
            free(id);
        }
        if (!table)
            continue;
        tl_buf row = {0};
        tl_escape_line(&row, op->id);
        tl_buf_printf(&b, "%-6s  %-8s", tl_buf_str(&row), tl_kind_name(v[i].ev.kind));
        for (size_t j = 0; j < nv; j++)
            tl_buf_printf(&b, "  %-*s", (int)w, tl_kind_name(vv[j][i].ev.kind));
        tl_buf_puts(&b, differs ? "  * " : "    ");
        tl_buf_free(&row);
        tl_escape_line(&b, op->op);
        tl_buf_putc(&b, '\n');
    }
    if (!table) {
        tl_buf_free(&b);
        return NULL;
    }
    tl_buf_printf(&b, "\n%zu of %zu ops change verdict between the %zu variants (*)\n", changed,
                  lab->nops, nv);
    return tl_buf_steal(&b);
}

/* check (a sheet that grades itself: practice), run, key */
static int cmd_lab(const tl_cli *cli, tl_report_mode mode)
{
    ctx c;
    init_ctx(&c, cli);
    tl_format fmt = cli->format == TL_FMT_DEFAULT ? TL_FMT_TEXT : cli->format;
    if (mode == TL_REPORT_KEY && fmt != TL_FMT_JSON)
        fmt = TL_FMT_TEXT;
    tl_render_opts ro = {.color = c.color_out, .quiet = cli->quiet};
    tl_lab_err err;
    /* one sheet: loading and every run of every op, on all threads */
    tl_budget_start(&c.budget, cli->sheet_timeout, true);
    tl_budget_enter(&c.budget);
    tl_lab *lab = tl_lab_open(cli->args[0], c.color_err, cli->follow_links, &err);
    tl_op_verdict *v = NULL;
    int rc = TL_EXIT_OK;
    char *fail_msg = NULL;
    if (!lab) {
        fputs(err.rendered, stderr);
        fail_msg = err.rendered ? tl_xstrdup(err.rendered) : tl_xstrdup(err.msg);
        rc = TL_EXIT_USAGE;
    } else {
        print_warnings(cli, lab);
        rc = setup_device(&c, lab->device);
        if (rc == TL_EXIT_OK)
            rc = run_lab(&c, lab, &v, &fail_msg);
    }
    tl_lab_err_free(&err);
    if (rc != TL_EXIT_OK) {
        /* check in a machine format: still a complete document, score 0,
         * with the located error (SPEC 2) */
        if (mode == TL_REPORT_CHECK && fmt != TL_FMT_TEXT && rc == TL_EXIT_USAGE) {
            tl_report r = {.mode = mode, .sheet_file = cli->args[0],
                           .device_requested = c.dev_requested ? c.dev_requested : "auto",
                           .device_used = c.dev_used};
            r.error = error_line(fail_msg, cli->args[0], &r.error_line, &r.error_col);
            char *out = tl_report_render(&r, fmt, &ro);
            int wrc = emit(&c, out);
            if (wrc == TL_EXIT_OK && fmt == TL_FMT_GITHUB)
                github_summary(&r, 1);
            free(out);
            free((char *)r.error);
            if (wrc != TL_EXIT_OK)
                rc = wrc;
        }
        free(fail_msg);
        tl_lab_free(lab);
        return rc;
    }
    if (mode == TL_REPORT_KEY && (lab->nvariants || cli->variants)) {
        if (!lab->nvariants) {
            char *f = tl_escape_line_dup(lab->file);
            fprintf(stderr, "tlab: key: %s has no variants:\n", f);
            free(f);
            free_verdicts(v, lab->nops);
            tl_lab_free(lab);
            return TL_EXIT_USAGE;
        }
        tl_lab *vl;
        tl_op_verdict **vv;
        rc = run_variants(&c, lab, &vl, &vv);
        char *table = rc == TL_EXIT_OK ? variants_table(lab, v, vv, cli->variants, cli->quiet)
                                       : NULL;
        if (table)
            rc = emit(&c, table);
        free(table);
        free_variants(lab, vl, vv);
        if (rc != TL_EXIT_OK || cli->variants) {
            free_verdicts(v, lab->nops);
            tl_lab_free(lab);
            return rc;
        }
    }
    /* the sheet's malformed predictions, each of which scores its op 0
     * (SPEC 3): once it is graded (a sheet that cannot be graded says
     * only why) */
    if (mode == TL_REPORT_CHECK && lab->errors)
        fputs(lab->errors, stderr);
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
    char *out;
    if (fmt == TL_FMT_HTML) {
        tl_html_pic *pics = pictures(&c, lab, v);
        out = tl_report_html_check(&r, pics);
        free_pictures(pics, lab->nops);
    } else {
        out = tl_report_render(&r, fmt, &ro);
    }
    rc = emit(&c, out);
    if (rc == TL_EXIT_OK && fmt == TL_FMT_GITHUB)
        github_summary(&r, 1);
    free(out);
    if (rc == TL_EXIT_OK && mode == TL_REPORT_CHECK)
        rc = g.passed ? TL_EXIT_OK : TL_EXIT_FAIL;
    tl_grade_free(&g);
    if (tl_exit_frees()) { /* else the process ends with them (util.h) */
        free_verdicts(v, lab->nops);
        tl_lab_free(lab);
    }
    return rc;
}

static int cmd_new(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    tl_lab *lab = load(&c, cli->args[0]);
    if (!lab)
        return TL_EXIT_USAGE;
    char *blank = tl_lab_blank_text_opts(lab, cli->keep_explanations
                                                  ? TL_BLANK_KEEP_EXPLANATIONS : 0);
    int rc = cli->student ? new_student(&c, lab, blank) : emit(&c, blank);
    free(blank);
    tl_lab_free(lab);
    return rc;
}

/* explain --lab LAB.yaml OP-ID: the op on its lab's setup and parent, as
 * `check` runs it (the text shows the setup's lines as statements). */
static int explain_lab_op(ctx *c, const tl_cli *cli)
{
    tl_budget_start(&c->budget, cli->sheet_timeout, true);
    tl_budget_enter(&c->budget);
    tl_lab *lab = load(c, cli->master);
    if (!lab)
        return TL_EXIT_USAGE;
    const char *id = cli->args[0];
    const tl_lab_op *op = NULL;
    for (size_t i = 0; i < lab->nops && !op; i++)
        if (strcmp(lab->ops[i].id, id) == 0)
            op = &lab->ops[i];
    if (!op) {
        tl_buf b = {0};
        tl_buf_printf(&b, "tlab: explain: %s has no op with id '", cli->master);
        tl_escape_line(&b, id);
        tl_buf_puts(&b, "' (its ids:");
        for (size_t i = 0; i < lab->nops && i < 40; i++) {
            tl_buf_putc(&b, ' ');
            tl_escape_line(&b, lab->ops[i].id);
        }
        tl_buf_puts(&b, lab->nops > 40 ? " ...)\n" : ")\n");
        fputs(tl_buf_str(&b), stderr);
        tl_buf_free(&b);
        tl_lab_free(lab);
        return TL_EXIT_USAGE;
    }
    int rc = setup_device(c, lab->device);
    if (rc == TL_EXIT_OK)
        rc = precheck(c, lab, NULL);
    if (rc != TL_EXIT_OK) {
        tl_lab_free(lab);
        return rc;
    }
    tl_source setup, opsrc;
    tl_lab_setup_source(lab, &setup);
    tl_lab_op_source(lab, op, &opsrc);
    tl_job job = {.setup = &setup, .nsetup = setup.len ? 1 : 0, .op = &opsrc,
                  .parent = lab->parent, .parent_line = lab->parent_line,
                  .parent_col = lab->parent_col, .variants = true, .keep_values = true,
                  .trace = true, .id = op->id};
    tl_op_verdict v;
    tl_verdict_fail fail;
    if (tl_verdict_run(&c->runner, &job, &v, &fail) < 0) {
        fputs(fail.rendered ? fail.rendered : "tlab: error\n", stderr);
        rc = fail.exit_code ? fail.exit_code : TL_EXIT_INTERNAL;
        tl_verdict_fail_free(&fail);
        tl_lab_free(lab);
        return rc;
    }
    /* the setup's lines, shown as the statements before the op */
    size_t nl = 0, cap = 8;
    char **lines = tl_xmalloc(cap * sizeof *lines);
    for (const char *p = setup.text, *end = setup.text + setup.len; p < end;) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
        if (n && nl < 200) {
            if (nl == cap)
                lines = tl_xrealloc(lines, (cap *= 2) * sizeof *lines);
            lines[nl++] = tl_xstrndup(p, n);
        }
        p += n + 1;
    }
    const char *pname = lab->parent ? lab->parent : "x";
    tl_render_opts ro = {.color = c->color_out, .quiet = cli->quiet};
    char *out = cli->format == TL_FMT_JSON
                    ? tl_report_explain_json((const char *const *)lines, nl, op->op, pname, &v,
                                             c->dev_requested, c->dev_used)
                    : tl_report_explain((const char *const *)lines, nl, op->op, pname, &v,
                                        c->dev_used, &ro);
    rc = emit(c, out);
    free(out);
    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    free(lines);
    tl_op_verdict_free(&v);
    tl_lab_free(lab);
    return rc;
}

static int cmd_explain(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    if (cli->master)
        return explain_lab_op(&c, cli);
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
                  .parent_optional = true, .variants = true, .keep_values = true,
                  .trace = true};
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

/* One submission graded on the master (a worker fills its own slot). The
 * sheet itself (file text, YAML tree, lab model) is freed in grade_one as
 * soon as it is graded; a record owns only what the reports need, so
 * memory grows by little per sheet: the grade's arrays, its texts interned
 * once per run (grade_run.texts), the tamper lines, the error line. */
typedef struct record {
    const char *file;   /* borrowed from the command line */
    char sha256[65];    /* of the sheet's bytes; "" when unreadable */
    char *warnings;     /* check: the sheet's warnings (owned), else NULL */
    char *pred_errors;  /* check: its malformed predictions' diagnostics */
    char *error;        /* one line, NULL when readable */
    char *rendered;     /* check: the full diagnostic of an unreadable sheet */
    int error_line, error_col;
    tl_grade g;         /* an unreadable sheet: graded as blank (scores 0) */
    size_t vi;          /* 0: the master's setup; i + 1: its variant i */
    char *student;      /* the sheet's student: field (a scalar), else NULL */
    char **changes;
    size_t nchanges;
} record;

/* What the submission workers share (read-only but recs, one slot each). */
typedef struct grade_run {
    const tl_lab *m;
    const tl_op_verdict *v;
    const tl_runner *runner;    /* how the master's ops ran */
    const tl_source *setup;     /* the master's setup, and its cache, for the */
    tl_setup_cache *setup_cache; /* runs of a sheet's own classify() */
    record *recs;
    tl_strpool *texts;  /* the grades' per-op texts, one copy each */
    tl_lab *vlabs;      /* the master's variants (sheetvar.h), and their */
    tl_op_verdict **vv; /* verdicts; NULL when it has none */
    const char *key;    /* --key: the secret that checks tags, else NULL */
    const char *student; /* check --student: who hands the sheet in */
    size_t keylen;
    const tl_cli *cli;
    bool is_check;      /* check --lab: keep the diagnostic and warnings */
} grade_run;

/* A sheet's own classify() (SPEC 3: graded as its own test), run as
 * `check` runs it: the master's ops again, each with its parent variants,
 * the sheet's classifier called on every result, inside this sheet's
 * budgets (--timeout per run, --sheet-timeout, --max-bytes); the verdicts
 * stay the master's. A run that cannot be made leaves the test failed,
 * "not run by the autograder", with the reason. */
static void run_sheet_classify(const grade_run *gr, const tl_lab *m, const tl_op_verdict *mv,
                               const tl_source *setup, tl_setup_cache *setup_cache,
                               const tl_lab *sheet, tl_grade *g)
{
    tl_source clsrc;
    tl_lab_classify_source(sheet, &clsrc);
    tl_op_verdict *cv = tl_xcalloc(m->nops ? m->nops : 1, sizeof *cv);
    tl_classify_stop stop = {0};
    char *why = NULL;
    size_t ran = 0;
    for (size_t i = 0; i < m->nops && !why; i++) {
        tl_source opsrc;
        tl_lab_op_source(m, &m->ops[i], &opsrc);
        tl_job job = {
            .classify = &clsrc,
            .classify_stop = &stop,
            .setup_cache = setup_cache,
            .setup = setup,
            .nsetup = setup->len ? 1 : 0,
            .op = &opsrc,
            .parent = m->parent,
            .parent_line = m->parent_line,
            .parent_col = m->parent_col,
            .variants = true,
            .id = m->ops[i].id,
        };
        tl_verdict_fail fail;
        if (tl_verdict_run(gr->runner, &job, &cv[i], &fail) < 0) {
            why = tl_xstrdup(fail.rendered ? fail.rendered : "error");
            tl_verdict_fail_free(&fail);
            break;
        }
        ran = i + 1;
    }
    tl_grade_classify_ran(m, mv, why ? NULL : cv, why, &g->classify);
    for (size_t i = 0; i < ran; i++)
        tl_op_verdict_free(&cv[i]);
    free(cv);
    free(why);
}

/* Load, tamper-check and grade submission k into recs[k]. */
static void grade_one(void *arg, size_t k, tl_pool *p)
{
    const grade_run *gr = arg;
    const tl_lab *m = gr->m;
    record *r = &gr->recs[k];
    tl_lab_err err;
    /* --sheet-timeout per submission, on this thread's CPU clock */
    tl_budget b;
    tl_budget_start(&b, gr->cli->sheet_timeout, false);
    tl_budget_enter(&b);
    tl_lab *sheet = tl_lab_open(r->file, false, gr->cli->follow_links, &err);
    if (!sheet) {
        tl_budget_enter(NULL);
        const char *rendered = err.rendered ? err.rendered : err.msg;
        r->error = error_line(rendered, r->file, &r->error_line, &r->error_col);
        if (!r->error_line && err.line > 0) {
            r->error_line = err.line;
            r->error_col = err.col > 0 ? err.col : 1;
        }
        if (gr->is_check)
            r->rendered = tl_xstrdup(rendered);
        tl_lab_err_free(&err);
        /* the master's totals, every answer blank: 0 points of max_points */
        static const tl_lab none;
        tl_grade_sheet_in(m, &none, gr->v, gr->texts, &r->g);
        return;
    }
    /* issue #29: the sheet's variant (the master's copy of its setup), and
     * with --key its tag */
    int vline = 0, vcol = 0;
    char *verr = gr->key ? tl_sheetvar_check(m, sheet, gr->key, gr->keylen, &vline, &vcol)
                         : NULL;
    if (!verr && gr->student)
        verr = tl_sheetvar_check_student(sheet, gr->student, &vline, &vcol);
    const tl_ynode *sn = sheet->root ? tl_ynode_get(sheet->root, "student") : NULL;
    if (sn && sn->kind == TL_Y_SCALAR && sn->value && *sn->value)
        r->student = tl_xstrdup(sn->value);
    size_t vi = 0;
    int sline = 0, scol = 0;
    char *serr = tl_sheetvar_select(m, sheet, &vi, &sline, &scol);
    if (!serr && sheet->variant)
        r->vi = vi + 1;
    if (verr) {
        free(serr);
    } else {
        verr = serr;
        vline = sline;
        vcol = scol;
    }
    const tl_op_verdict *gv = r->vi ? gr->vv[vi] : gr->v;
    m = r->vi ? &gr->vlabs[vi] : m;
    r->nchanges = tl_grade_tamper(m, sheet, &r->changes);
    /* SPEC 3: a sheet of another lab scores 0, with an error saying so */
    r->error = tl_grade_wrong_lab(m, sheet, &r->error_line, &r->error_col);
    if (!r->error && verr) {
        r->error = verr;
        r->error_line = vline;
        r->error_col = vcol;
    } else {
        free(verr);
    }
    if (r->error && gr->is_check)
    {
        tl_buf rb = {0};
        tl_buf_printf(&rb, "%s\n", r->error);
        r->rendered = tl_buf_steal(&rb);
    }
    static const tl_lab blank;
    tl_grade_sheet_in(m, r->error ? &blank : sheet, gv, gr->texts, &r->g);
    if (!r->error && r->g.classify.offered && r->g.classify.answered) {
        tl_source vsetup;
        if (r->vi)
            tl_lab_setup_source(m, &vsetup);
        run_sheet_classify(gr, m, gv, r->vi ? &vsetup : gr->setup,
                           r->vi ? NULL : gr->setup_cache, sheet, &r->g);
    }
    tl_budget_enter(NULL);
    memcpy(r->sha256, tl_lab_sha256(sheet), sizeof r->sha256);
    if (gr->is_check && sheet->warnings)
        r->warnings = tl_xstrdup(sheet->warnings);
    if (gr->is_check && sheet->errors && !r->error)
        r->pred_errors = tl_xstrdup(sheet->errors);
    tl_lab_free(sheet); /* the grade borrows nothing from it (grade.h) */
}

static void free_record(record *r)
{
    tl_grade_free(&r->g);
    for (size_t j = 0; j < r->nchanges; j++)
        free(r->changes[j]);
    free(r->changes);
    free(r->error);
    free(r->student);
    free(r->rendered);
    free(r->warnings);
    free(r->pred_errors);
}

/* One master and the submissions graded on it (grade_master). */
typedef struct graded {
    tl_lab *m;
    tl_op_verdict *v;
    tl_lab *vlabs;      /* its variants (run_variants), NULL when none */
    tl_op_verdict **vv;
    char *key;          /* --key's secret */
    char *student;      /* check --student-from: the platform's id */
    record *recs;
    tl_report *rs;      /* one per submission, in operand order */
    size_t n;
    tl_strpool *texts;
    size_t unreadable, failed;
} graded;

static void graded_free(graded *gd)
{
    free(gd->rs);
    for (size_t k = 0; k < gd->n; k++)
        free_record(&gd->recs[k]);
    free(gd->recs);
    tl_strpool_free(gd->texts); /* after the grades that point into it */
    if (gd->m) {
        free_variants(gd->m, gd->vlabs, gd->vv);
        free_verdicts(gd->v, gd->m->nops);
        tl_lab_free(gd->m);
    }
    free(gd->key);
    free(gd->student);
    memset(gd, 0, sizeof *gd);
}

/* Run the master at path and grade files[0..n) on it into *gd (check: the
 * located messages and warnings on stderr). TL_EXIT_OK, or the status of a
 * master that cannot be run (its message printed, *gd empty). */
/* issue #29: under --key a classmate's sheet handed in as is carries a
 * valid tag, so it shows only as two submissions of one student: each is
 * flagged tampered, naming the other (the scores stand; the instructor
 * decides). Quadratic in the class, a few hundred sheets at most. */
static void flag_shared_students(record *recs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        record *r = &recs[k];
        if (r->error || !r->student)
            continue;
        for (size_t j = 0; j < n; j++) {
            record *o = &recs[j];
            if (j == k || o->error || !o->student || strcmp(o->student, r->student))
                continue;
            tl_buf b = {0};
            tl_buf_printf(&b, "the sheet of student '%s' is handed in as %s too", r->student,
                          o->file);
            r->changes = tl_xrealloc(r->changes, (r->nchanges + 1) * sizeof *r->changes);
            r->changes[r->nchanges++] = tl_buf_steal(&b);
        }
    }
}

static int grade_master(ctx *c, const tl_cli *cli, const char *path, char **files, size_t n,
                        bool is_check, graded *gd)
{
    memset(gd, 0, sizeof *gd);
    int rc;
    tl_lab *m = load_and_run(c, path, &gd->v, &rc);
    if (!m)
        return rc;
    gd->m = m;
    size_t keylen = 0;
    if (cli->keyfile) {
        char msg[600];
        if (!m->nvariants)
            snprintf(msg, sizeof msg, "tlab: %s: --key: the master has no variants:", cli->command);
        gd->key = m->nvariants ? tl_sheetvar_read_key(cli->keyfile, &keylen, msg, sizeof msg) : NULL;
        if (!gd->key) {
            fprintf(stderr, "%s\n", msg);
            rc = TL_EXIT_USAGE;
        }
    }
    if (rc == TL_EXIT_OK && is_check && cli->student_from) {
        char msg[600];
        gd->student = tl_platform_id_read(cli->student_from, msg, sizeof msg);
        if (!gd->student) {
            fprintf(stderr, "%s\n", msg);
            rc = TL_EXIT_USAGE;
        }
    }
    if (rc == TL_EXIT_OK && m->nvariants)
        rc = run_variants(c, m, &gd->vlabs, &gd->vv);
    if (rc != TL_EXIT_OK) {
        graded_free(gd);
        return rc;
    }
    /* a variant's sheet is graded on that variant's own verdict, plus the
     * master's explicit accept: lists: `sometimes` (the verdict changes
     * with the parent's layout) is what the variants are there to take
     * away, so an all-sometimes sheet cannot score on them */
    for (size_t i = 0; gd->vv && i < m->nvariants; i++)
        for (size_t j = 0; j < m->nops; j++)
            gd->vv[i][j].sometimes = false;
    gd->n = n;
    record *recs = gd->recs = tl_xcalloc(n ? n : 1, sizeof *recs);
    for (size_t k = 0; k < n; k++)
        recs[k].file = files[k];
    gd->texts = tl_strpool_new();
    tl_source msetup;
    tl_lab_setup_source(m, &msetup);
    const char *fresh = getenv("TLAB_FRESH_SETUP");
    grade_run gr = {.m = m, .v = gd->v, .runner = &c->runner, .setup = &msetup,
                    .setup_cache = m->classify && !(fresh && *fresh == '1') ? tl_setup_cache_new()
                                                                            : NULL,
                    .recs = recs, .texts = gd->texts, .vlabs = gd->vlabs, .vv = gd->vv,
                    .key = gd->key, .keylen = keylen,
                    .student = !is_check ? NULL : gd->student ? gd->student : cli->student,
                    .cli = cli, .is_check = is_check};
    tl_pool_run(grade_one, &gr, n, c->max_bytes, cli->jobs);
    tl_setup_cache_free(gr.setup_cache);
    if (gd->key)
        flag_shared_students(recs, n);

    tl_report *rs = gd->rs = tl_xcalloc(n ? n : 1, sizeof *rs);
    for (size_t k = 0; k < n; k++) {
        record *r = &recs[k];
        rs[k] = (tl_report){
            .mode = TL_REPORT_CHECK,
            .lab = r->vi ? &gd->vlabs[r->vi - 1] : m,
            .verdicts = r->vi ? gd->vv[r->vi - 1] : gd->v,
            .grade = &r->g,
            .device_requested = c->dev_requested,
            .device_used = c->dev_used,
            .sheet_file = r->file,
            .sheet_sha256 = r->error ? NULL : r->sha256,
            .error = r->error,
            .error_line = r->error_line,
            .error_col = r->error_col,
            .changes = r->changes,
            .nchanges = r->nchanges,
        };
        gd->unreadable += r->error != NULL;
        gd->failed += !r->error && !r->g.passed;
        /* check: the located message and warnings on stderr as for a
         * practice check; grade: in the records and the summary only */
        if (is_check && r->error)
            fputs(r->rendered, stderr);
        if (is_check && r->pred_errors)
            fputs(r->pred_errors, stderr);
        if (is_check && r->warnings && !cli->quiet)
            fputs(r->warnings, stderr);
    }
    return TL_EXIT_OK;
}

/* grade --by-student --lab M1 [--lab M2...] SUB...: each sheet graded on
 * the master of its id: (the only master when there is one), then every
 * student's profile (bystudent.h). A sheet that cannot be read, or whose
 * id: is no master's, is listed under its student with its error. */
static int cmd_grade_by_student(const tl_cli *cli)
{
    ctx c;
    init_ctx(&c, cli);
    size_t nm = cli->nmasters ? cli->nmasters : 1;
    const char *const *mpaths = cli->nmasters ? cli->masters : &cli->master;
    size_t n = (size_t)cli->nargs;
    /* the masters' ids, for the sheets' assignment and the students' keys */
    char **ids = tl_xcalloc(nm, sizeof *ids);
    int rc = TL_EXIT_OK;
    for (size_t i = 0; i < nm && rc == TL_EXIT_OK; i++) {
        tl_lab *m = load(&c, mpaths[i]);
        if (!m) {
            rc = TL_EXIT_USAGE;
            break;
        }
        ids[i] = tl_xstrdup(m->id ? m->id : "");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ids[j], ids[i])) {
                fprintf(stderr, "tlab: grade --by-student: '%s' and '%s' are both lab '%s' "
                                "(each --lab needs its own id:)\n",
                        mpaths[j], mpaths[i], ids[i]);
                rc = TL_EXIT_USAGE;
            }
        tl_lab_free(m);
    }
    /* each sheet's lab (nm: none) and student: field */
    size_t *lab_of = tl_xcalloc(n ? n : 1, sizeof *lab_of);
    char **field = tl_xcalloc(n ? n : 1, sizeof *field);
    char **why = tl_xcalloc(n ? n : 1, sizeof *why);
    for (size_t k = 0; k < n && rc == TL_EXIT_OK; k++) {
        lab_of[k] = nm;
        tl_lab_err err;
        tl_lab *sheet = tl_lab_open(cli->args[k], false, cli->follow_links, &err);
        if (!sheet) {
            int l, cl;
            why[k] = error_line(err.rendered ? err.rendered : err.msg, cli->args[k], &l, &cl);
            tl_lab_err_free(&err);
            continue;
        }
        const tl_ynode *sn = sheet->root ? tl_ynode_get(sheet->root, "student") : NULL;
        if (sn && sn->kind == TL_Y_SCALAR && sn->value && *sn->value)
            field[k] = tl_xstrdup(sn->value);
        for (size_t i = 0; i < nm && lab_of[k] == nm; i++)
            if (nm == 1 || (sheet->id && !strcmp(sheet->id, ids[i])))
                lab_of[k] = i;
        if (lab_of[k] == nm) {
            tl_buf b = {0};
            tl_buf_printf(&b, "%s: error: its id '%s' is no --lab master's id", cli->args[k],
                          sheet->id ? sheet->id : "");
            why[k] = tl_buf_steal(&b);
        }
        tl_lab_free(sheet);
    }
    graded *gds = tl_xcalloc(nm, sizeof *gds);
    char ***files = tl_xcalloc(nm, sizeof *files);
    size_t **index = tl_xcalloc(nm, sizeof *index);
    size_t *count = tl_xcalloc(nm, sizeof *count);
    for (size_t i = 0; i < nm && rc == TL_EXIT_OK; i++) {
        files[i] = tl_xcalloc(n ? n : 1, sizeof **files);
        index[i] = tl_xcalloc(n ? n : 1, sizeof **index);
        for (size_t k = 0; k < n; k++)
            if (lab_of[k] == i) {
                index[i][count[i]] = k;
                files[i][count[i]++] = cli->args[k];
            }
        rc = grade_master(&c, cli, mpaths[i], files[i], count[i], false, &gds[i]);
    }
    if (rc == TL_EXIT_OK) {
        tl_bys_sheet *sheets = tl_xcalloc(n ? n : 1, sizeof *sheets);
        char **keys = tl_xcalloc(n ? n : 1, sizeof *keys);
        const tl_lab **labs = tl_xcalloc(nm, sizeof *labs);
        size_t unreadable = 0, failed = 0;
        for (size_t i = 0; i < nm; i++) {
            labs[i] = gds[i].m;
            unreadable += gds[i].unreadable;
            failed += gds[i].failed;
            for (size_t j = 0; j < count[i]; j++) {
                size_t k = index[i][j];
                sheets[k].report = &gds[i].rs[j];
                sheets[k].lab = i;
                const record *r = &gds[i].recs[j];
                sheets[k].variant = r->vi ? gds[i].m->variants[r->vi - 1].name : NULL;
            }
        }
        for (size_t k = 0; k < n; k++) {
            sheets[k].file = cli->args[k];
            tl_bystudent_key(cli->args[k], field[k], (const char *const *)ids, nm, &keys[k],
                             &sheets[k].from);
            sheets[k].student = keys[k];
            if (!sheets[k].report) {
                sheets[k].error = why[k];
                unreadable++;
            }
        }
        tl_format fmt = cli->format == TL_FMT_DEFAULT ? TL_FMT_TEXT : cli->format;
        char *out = tl_bystudent_render(labs, nm, sheets, n, fmt);
        rc = emit(&c, out);
        free(out);
        if (rc == TL_EXIT_OK)
            rc = unreadable ? TL_EXIT_USAGE : failed ? TL_EXIT_FAIL : TL_EXIT_OK;
        for (size_t k = 0; k < n; k++)
            free(keys[k]);
        free(keys);
        free(sheets);
        free(labs);
    }
    for (size_t i = 0; i < nm; i++) {
        graded_free(&gds[i]);
        free(files[i]);
        free(index[i]);
        free(ids[i]);
    }
    for (size_t k = 0; k < n; k++) {
        free(field[k]);
        free(why[k]);
    }
    free(gds);
    free(files);
    free(index);
    free(count);
    free(ids);
    free(lab_of);
    free(field);
    free(why);
    return rc;
}

/* grade --lab MASTER SUB..., and check --lab MASTER SHEET */
static int cmd_grade(const tl_cli *cli)
{
    if (cli->by_student)
        return cmd_grade_by_student(cli);
    ctx c;
    init_ctx(&c, cli);
    bool is_check = !strcmp(cli->command, "check");
    graded gd;
    size_t n = (size_t)cli->nargs;
    int rc = grade_master(&c, cli, cli->master, cli->args, n, is_check, &gd);
    if (rc != TL_EXIT_OK)
        return rc;
    tl_lab *m = gd.m;
    tl_report *rs = gd.rs;
    tl_format fmt = cli->format;
    if (fmt == TL_FMT_DEFAULT)
        fmt = is_check ? TL_FMT_TEXT : TL_FMT_CSV;
    char *out;
    if (fmt == TL_FMT_CSV || fmt == TL_FMT_JSONL || (fmt == TL_FMT_JSON && !is_check))
        out = tl_records_render(m, rs, n, fmt);
    else if (fmt == TL_FMT_HTML && !is_check)
        out = tl_report_html_class(rs, n);
    else if (fmt == TL_FMT_HTML) {
        /* check --lab: the sheet's page, drawn from the master's ops */
        tl_html_pic *pics = gd.recs[0].error ? NULL : pictures(&c, rs[0].lab, rs[0].verdicts);
        out = tl_report_html_check(&rs[0], pics);
        free_pictures(pics, m->nops);
    } else {
        tl_render_opts ro = {.color = c.color_out, .quiet = cli->quiet};
        out = tl_report_render_many(rs, n, fmt, &ro);
    }
    rc = emit(&c, out);
    free(out);
    if (rc == TL_EXIT_OK && fmt == TL_FMT_GITHUB)
        github_summary(rs, n);
    if (rc == TL_EXIT_OK && !is_check && fmt != TL_FMT_JSON && !cli->quiet) {
        char *s = tl_class_summary_text(m, rs, n);
        fputs(s, stderr);
        free(s);
    }
    /* SPEC 2: 2 when a sheet could not be read (its document is written
     * all the same), else 1 when one is below the threshold or fails a
     * check, else 0 */
    if (rc == TL_EXIT_OK)
        rc = gd.unreadable ? TL_EXIT_USAGE : gd.failed ? TL_EXIT_FAIL : TL_EXIT_OK;
    graded_free(&gd);
    return rc;
}

int tl_commands_run(const tl_cli *cli)
{
    const char *cmd = cli->command;
    if (!strcmp(cmd, "new"))
        return cmd_new(cli);
    if (!strcmp(cmd, "explain"))
        return cmd_explain(cli);
    /* the rest run sheets: the heap's first 132 KiB in one call rather
     * than a page fault at a time (heap.h) */
    tl_heap_populate();
    if (!strcmp(cmd, "check"))
        return cli->master ? cmd_grade(cli) : cmd_lab(cli, TL_REPORT_CHECK);
    if (!strcmp(cmd, "run"))
        return cmd_lab(cli, TL_REPORT_RUN);
    if (!strcmp(cmd, "key"))
        return cmd_lab(cli, TL_REPORT_KEY);
    if (!strcmp(cmd, "grade"))
        return cmd_grade(cli);
    if (!strcmp(cmd, "autograder"))
        return tl_autograder_run(cli);
    fprintf(stderr, "tlab: unknown command '%s'\n", cmd);
    return TL_EXIT_USAGE;
}
