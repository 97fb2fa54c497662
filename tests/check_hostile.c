/* check_hostile.c - unit tests of the hostile-sheet mechanisms (issue 16):
 * the -o temp file removed on SIGTERM/SIGINT, the sheet budget and the
 * run deadline, line breaks counted as libyaml counts them (LF, CR LF,
 * CR), loader positions on a long line, and the O(1)-per-item probe. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "lab.h"
#include "tensor.h"
#include "util.h"
#include "value.h"
#include "verdict.h"

#include "fuzz/blank_property.h"

/* A child with a registered temp file dies of sig: the file is gone. */
static void stopped_by(int sig)
{
    char tmpl[] = "/tmp/tlab-check-hostile-XXXXXX";
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        tl_tempfile_install_handlers();
        int fd = tl_tempfile_make(tmpl);
        if (fd < 0)
            _exit(10);
        if (write(fd, "partial", 7) != 7)
            _exit(11);
        if (write(pipefd[1], tmpl, sizeof tmpl) != (ssize_t)sizeof tmpl)
            _exit(12);
        for (;;)
            pause();
    }
    char name[sizeof tmpl];
    ck_assert_int_eq(read(pipefd[0], name, sizeof name), (ssize_t)sizeof name);
    struct stat st;
    ck_assert_int_eq(stat(name, &st), 0); /* it exists while being written */
    kill(pid, sig);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status));
    ck_assert_int_eq(WTERMSIG(status), sig);
    ck_assert_int_ne(stat(name, &st), 0); /* removed by the handler */
    close(pipefd[0]);
    close(pipefd[1]);
}

START_TEST(test_tempfile_signals)
{
    stopped_by(SIGTERM);
    stopped_by(SIGINT);
    /* renamed into place: no longer the handler's to remove */
    char tmpl[] = "/tmp/tlab-check-hostile-XXXXXX";
    int fd = tl_tempfile_make(tmpl);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char final[64];
    snprintf(final, sizeof final, "%s.done", tmpl);
    ck_assert_int_eq(tl_tempfile_rename(tmpl, final), 0);
    tl_tempfile_remove_now();
    struct stat st;
    ck_assert_int_eq(stat(final, &st), 0);
    unlink(final);
}
END_TEST

START_TEST(test_break_len)
{
    const char *t = "a\nb\r\nc\rd";
    size_t n = strlen(t);
    ck_assert_uint_eq(tl_diag_break_len(t, n, 0), 0);
    ck_assert_uint_eq(tl_diag_break_len(t, n, 1), 1);
    ck_assert_uint_eq(tl_diag_break_len(t, n, 3), 2);
    ck_assert_uint_eq(tl_diag_break_len(t, n, 6), 1);
    ck_assert_uint_eq(tl_diag_break_len(t, n, 8), 0);
}
END_TEST

/* Line numbers agree with libyaml's for every kind of break: the bad
 * threshold is on line 4 of each file, and the source line shown is that one. */
START_TEST(test_lines_as_libyaml)
{
    static const char *const texts[] = {
        "tlab: 1\nid: a\ntitle: t\nthreshold: x\nops: [{op: x}]\n",
        "tlab: 1\r\nid: a\r\ntitle: t\r\nthreshold: x\r\nops: [{op: x}]\r\n",
        "tlab: 1\rid: a\rtitle: t\rthreshold: x\rops: [{op: x}]\r",
        "tlab: 1\r\nid: a\rtitle: t\nthreshold: x\r\nops: [{op: x}]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        tl_lab_err err;
        tl_lab *lab = tl_lab_parse("f.yaml", texts[i], strlen(texts[i]), false, &err);
        ck_assert_ptr_null(lab);
        ck_assert_int_eq(err.line, 4);
        ck_assert_int_eq(err.col, 12);
        ck_assert_ptr_nonnull(strstr(err.rendered, " 4 | threshold: x"));
        tl_lab_err_free(&err);
    }
    /* a leading BOM: the mapping still starts at column 0 (it did not:
     * libyaml counted the BOM as a column when the encoding is set) */
    {
        const char *bom = "\xef\xbb\xbftlab: 1\nid: a\ntitle: t\nthreshold: x\nops: [{op: x}]\n";
        tl_lab_err e2;
        ck_assert_ptr_null(tl_lab_parse("f.yaml", bom, strlen(bom), false, &e2));
        ck_assert_int_eq(e2.line, 4);
        ck_assert_int_eq(e2.col, 12);
        ck_assert_ptr_nonnull(strstr(e2.msg, "'threshold'"));
        tl_lab_err_free(&e2);
    }
    /* NEL, U+2028, U+2029 are breaks to libyaml: refused, located */
    const char *ls = "tlab: 1\nid: a\xe2\x80\xa8title: t\n";
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_parse("f.yaml", ls, strlen(ls), false, &err));
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.col, 6);
    ck_assert_ptr_nonnull(strstr(err.msg, "U+2028"));
    tl_lab_err_free(&err);
}
END_TEST

/* Columns on a long line come from the character table: multi-byte
 * characters before the error count their bytes (byte columns). */
START_TEST(test_columns_long_line)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "{tlab: 1, title: \"");
    for (int i = 0; i < 20000; i++)
        tl_buf_puts(&b, "\xc3\xa9");
    tl_buf_puts(&b, "\", threshold: x, ops: [{op: x}]}\n");
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_parse("f.yaml", b.data, b.len, false, &err));
    ck_assert_int_eq(err.line, 1);
    /* 18 bytes, 40000 of the title, 3, then `threshold: ` (11): x at 40033 */
    ck_assert_int_eq(err.col, 40033);
    tl_lab_err_free(&err);
    tl_buf_free(&b);
}
END_TEST

START_TEST(test_budget)
{
    tl_budget b;
    tl_budget_start(&b, 0.05, false);
    tl_budget_enter(&b);
    ck_assert(!tl_budget_passed());
    volatile double x = 0;
    double t0 = tl_now();
    while (!tl_budget_passed() && tl_now() - t0 < 5)
        x += 1;
    ck_assert(tl_budget_passed());
    ck_assert(tl_deadline_passed());
    char msg[160];
    tl_deadline_message(msg, sizeof msg, 0);
    ck_assert_ptr_nonnull(strstr(msg, "--sheet-timeout"));
    /* entering the same budget again (the next op) keeps it spent */
    tl_budget_enter(&b);
    ck_assert(tl_budget_passed());
    /* the next sheet's budget in the same struct is a new budget */
    tl_budget_start(&b, 60, false);
    tl_budget_enter(&b);
    ck_assert(!tl_budget_passed());
    tl_budget_enter(NULL);
    ck_assert(!tl_budget_passed());
    ck_assert(!tl_deadline_passed());
    /* the run deadline: set, passed, restored */
    double saved = tl_deadline_run_begin(0.02);
    t0 = tl_now();
    while (!tl_deadline_run_passed() && tl_now() - t0 < 5)
        x += 1;
    ck_assert(tl_deadline_passed());
    tl_deadline_run_end(saved);
    ck_assert(!tl_deadline_passed());
}
END_TEST

/* A list of 10^5 views of a 1 MiB parent is classified in one pass over
 * the parent; each item is probed. */
START_TEST(test_probe_many_items)
{
    tl_error err;
    tl_error_clear(&err);
    int64_t n = (int64_t)1 << 18;
    tl_tensor *p = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &n, &err);
    ck_assert_ptr_nonnull(p);
    tl_value *pv = tl_value_tensor(p);
    size_t items = 100000;
    tl_value *list = tl_list_new(items);
    int64_t one = 1, len = 4;
    for (size_t i = 0; i < items; i++)
        tl_seq_set(list, i, tl_value_tensor(tl_tensor_view(p, 1, &len, &one, (int64_t)(i % 1000))));
    tl_evidence ev;
    double t0 = tl_now();
    ck_assert_int_eq(tl_verdict_classify(list, pv, &ev, &err), 0);
    ck_assert(tl_now() - t0 < 10);
    ck_assert_int_eq(ev.kind, TL_KIND_VIEW);
    ck_assert_int_eq(ev.write_through, 1);
    ck_assert_uint_eq(ev.nitems_total, items);
    tl_evidence_free(&ev);
    tl_value_release(list);
    tl_value_release(pv);
}
END_TEST

/* `tlab new` round-trips over the fuzz corpus (tests/fuzz/corpus/lab, the
 * minimized inputs of the fuzz runs), the shipped labs and answer sheets
 * and the hostile sheets: every file the loader accepts. */
static size_t corpus_dir(const char *dir, size_t *loaded)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        char *text;
        size_t len;
        if (tl_read_file(path, (size_t)2 << 20, &text, &len) != TL_READ_OK)
            continue;
        n++;
        tl_lab_err err;
        tl_lab *lab = tl_lab_parse(path, text, len, false, &err);
        if (lab) {
            (*loaded)++;
            char *why = blank_violation(lab);
            ck_assert_msg(why == NULL, "%s: %s", path, why ? why : "");
            tl_lab_free(lab);
        }
        tl_lab_err_free(&err);
        free(text);
    }
    closedir(d);
    return n;
}

START_TEST(test_blank_round_trip_corpus)
{
    const char *top = getenv("top_srcdir");
    if (!top)
        top = ".";
    static const char *const dirs[] = {"tests/fuzz/corpus/lab", "labs", "answers",
                                       "tests/hostile"};
    size_t files = 0, loaded = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", top, dirs[i]);
        files += corpus_dir(dir, &loaded);
    }
    ck_assert_uint_ge(files, 100);
    ck_assert_uint_ge(loaded, 20);
}
END_TEST

/* A submission loaded under a spent budget stops with a located error. */
START_TEST(test_budget_while_loading)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "tlab: 1\nops:\n");
    for (int i = 0; i < 1000; i++)
        tl_buf_printf(&b, "  - {id: o%d, op: x.t(), predict: view, rule: swaps}\n", i);
    tl_budget bud;
    tl_budget_start(&bud, 1e-9, false);
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++)
        x += i; /* spend more than the budget */
    tl_budget_enter(&bud);
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_parse("s.yaml", b.data, b.len, false, &err));
    tl_budget_enter(NULL);
    ck_assert_int_gt(err.line, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "sheet time budget exceeded"));
    ck_assert_ptr_nonnull(strstr(err.msg, "while loading"));
    tl_lab_err_free(&err);
    tl_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tempfile_signals);
    tcase_add_test(tc, test_break_len);
    tcase_add_test(tc, test_lines_as_libyaml);
    tcase_add_test(tc, test_columns_long_line);
    tcase_add_test(tc, test_budget);
    tcase_add_test(tc, test_probe_many_items);
    tcase_add_test(tc, test_blank_round_trip_corpus);
    tcase_add_test(tc, test_budget_while_loading);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
