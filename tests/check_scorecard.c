/* check_scorecard.c - unit tests for scorecard.c and report.c: the SPEC 5
 * document (key order, grading keys only in check, unanswered ops never
 * revealed, determinism) and the other report formats, on the fixture
 * sheet tests/sheets/basic.yaml run through the real runtime. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "interp.h"
#include "jsonnum.h"
#include "lab.h"
#include "report.h"
#include "scorecard.h"
#include "verdict.h"

#ifndef TL_SHEETS_DIR
#define TL_SHEETS_DIR "tests/sheets"
#endif

static tl_lab *lab;
static tl_op_verdict *verdicts;
static tl_grade grade;

static void setup(void)
{
    tl_lab_err err;
    lab = tl_lab_load(TL_SHEETS_DIR "/basic.yaml", false, &err);
    ck_assert_msg(lab != NULL, "%s", err.rendered);
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.default_backend = tl_backend_cpu();
    verdicts = calloc(lab->nops, sizeof *verdicts);
    tl_source s;
    tl_lab_setup_source(lab, &s);
    for (size_t i = 0; i < lab->nops; i++) {
        tl_source o;
        tl_lab_op_source(lab, &lab->ops[i], &o);
        tl_job job = {.setup = &s, .nsetup = 1, .op = &o, .parent = "x", .variants = true};
        tl_verdict_fail f;
        ck_assert_msg(tl_verdict_run(&r, &job, &verdicts[i], &f) == 0, "%s", f.rendered);
    }
    tl_grade_sheet(lab, lab, verdicts, &grade);
}

static void teardown(void)
{
    tl_grade_free(&grade);
    for (size_t i = 0; i < lab->nops; i++)
        tl_op_verdict_free(&verdicts[i]);
    free(verdicts);
    tl_lab_free(lab);
}

static tl_report report(tl_report_mode mode)
{
    return (tl_report){.mode = mode, .lab = lab, .verdicts = verdicts,
                       .grade = mode == TL_REPORT_CHECK ? &grade : NULL,
                       .device_requested = "auto", .device_used = "cpu"};
}

static void assert_keys(const cJSON *o, const char *const *keys)
{
    const cJSON *c = o->child;
    for (size_t i = 0; keys[i]; i++, c = c->next) {
        ck_assert_msg(c != NULL, "missing key %s", keys[i]);
        ck_assert_str_eq(c->string, keys[i]);
    }
    ck_assert_msg(c == NULL, "extra key %s", c ? c->string : "");
}

START_TEST(test_check_document)
{
    tl_report r = report(TL_REPORT_CHECK);
    cJSON *doc = tl_scorecard_build(&r);
    ck_assert_ptr_nonnull(doc);
    static const char *const top[] = {"schema_version", "tool", "lab", "device", "ops",
                                      "questions", "rules", "score", "passed", "error",
                                      "misconceptions", NULL};
    assert_keys(doc, top);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "error")));
    /* questions carry their points (default 1), the rules check its own */
    const cJSON *q0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "questions"), 0);
    ck_assert_int_eq(cJSON_GetObjectItem(q0, "points")->valueint, 1);
    const cJSON *rl = cJSON_GetObjectItem(doc, "rules");
    ck_assert_int_eq(cJSON_GetObjectItem(rl, "points")->valueint, 1);
    const cJSON *ops = cJSON_GetObjectItem(doc, "ops");
    ck_assert_int_eq(cJSON_GetArraySize(ops), 9);
    const cJSON *t = cJSON_GetArrayItem(ops, 0);
    static const char *const opkeys[] = {"id", "op", "line", "predicted", "correct", "points",
                                         "score", "actual", "variants", "sometimes",
                                         "feedback", "rule", "rule_problem", NULL};
    assert_keys(t, opkeys);
    const cJSON *act = cJSON_GetObjectItem(t, "actual");
    static const char *const actkeys[] = {"kind", "same_object", "shares_storage", "shape",
                                          "stride", "storage_offset", "contiguous", "dtype",
                                          "device", "bytes_allocated", "write_through",
                                          "reason", NULL};
    assert_keys(act, actkeys);
    ck_assert_str_eq(cJSON_GetObjectItem(act, "kind")->valuestring, "view");
    ck_assert_int_eq(cJSON_GetObjectItem(t, "line")->valueint, 13);
    /* the error op */
    const cJSON *e = cJSON_GetObjectItem(cJSON_GetArrayItem(ops, 3), "actual");
    ck_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "error");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "error"), "type")->valuestring,
                     "RuntimeError");
    /* the value op */
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(ops, 4), "actual");
    char *vs = cJSON_PrintUnformatted(cJSON_GetObjectItem(v, "value"));
    ck_assert_str_eq(vs, "[6,1]");
    cJSON_free(vs);
    /* the unanswered op reveals nothing */
    const cJSON *u = cJSON_GetArrayItem(ops, 8);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(u, "predicted")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(u, "actual")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(u, "variants")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(u, "sometimes")));
    ck_assert_str_eq(cJSON_GetObjectItem(u, "feedback")->valuestring, "unanswered");
    const cJSON *sc = cJSON_GetObjectItem(doc, "score");
    ck_assert_int_eq(cJSON_GetObjectItem(sc, "correct")->valueint, 7);
    ck_assert_int_eq(cJSON_GetObjectItem(sc, "total")->valueint, 9);
    ck_assert_int_eq(cJSON_GetObjectItem(sc, "threshold")->valueint, 6);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "passed"))); /* q2 says "it depends" */
    cJSON_Delete(doc);
    /* deterministic bytes */
    char *a = tl_scorecard_print(&r), *b = tl_scorecard_print(&r);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_null(strchr(a, '\t'));
    free(a);
    free(b);
}
END_TEST

START_TEST(test_run_document)
{
    tl_report r = report(TL_REPORT_RUN);
    cJSON *doc = tl_scorecard_build(&r);
    static const char *const top[] = {"schema_version", "tool", "lab", "device", "ops", NULL};
    assert_keys(doc, top);
    const cJSON *u = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "ops"), 8);
    static const char *const opkeys[] = {"id", "op", "line", "actual", "variants", "sometimes",
                                         NULL};
    assert_keys(u, opkeys);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(u, "actual"), "kind")->valuestring,
                     "alias");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_text_and_formats)
{
    tl_report r = report(TL_REPORT_CHECK);
    tl_render_opts o = {0};
    char *text = tl_report_render(&r, TL_FMT_TEXT, &o);
    ck_assert_ptr_nonnull(strstr(text, "7/9 correct (threshold 6) - FAIL (questions)\n"));
    ck_assert_ptr_nonnull(strstr(text, "unanswered"));
    ck_assert_ptr_null(strstr(text, "\033[")); /* no colour unless asked */
    /* every line fits 80 columns */
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t cols = 0;
        for (const char *q = p; q < nl; q++)
            cols += ((unsigned char)*q & 0xC0) != 0x80;
        ck_assert_msg(cols <= 80, "line too long: %.*s", (int)(nl - p), p);
        p = nl + 1;
    }
    free(text);
    o.color = true;
    text = tl_report_render(&r, TL_FMT_TEXT, &o);
    ck_assert_ptr_nonnull(strstr(text, "\xe2\x9c\x93"));
    free(text);
    o.color = false;
    char *tap = tl_report_render(&r, TL_FMT_TAP, &o);
    /* 9 ops, 2 questions, the rules check, the verdict */
    ck_assert(strncmp(tap, "TAP version 13\n1..13\n", 21) == 0);
    ck_assert_ptr_nonnull(strstr(tap, "not ok 8 - wrong x.clone(): predicted view\n"));
    ck_assert_ptr_nonnull(strstr(tap, "not ok 11 - question q2\n"));
    ck_assert_ptr_nonnull(strstr(tap, "ok 12 - rules\n"));
    ck_assert_ptr_nonnull(strstr(tap, "not ok 13 - verdict: 7/9 correct (threshold 6) - FAIL"));
    free(tap);
    char *junit = tl_report_render(&r, TL_FMT_JUNIT, &o);
    /* wrong, blank, q2 and the verdict fail */
    ck_assert_ptr_nonnull(strstr(junit, "<testsuites name=\"tlab\" tests=\"13\" failures=\"4\" "
                                        "errors=\"0\""));
    ck_assert_ptr_nonnull(strstr(junit, "type=\"unanswered\""));
    ck_assert_ptr_null(strstr(junit, "<testcase classname=\"basic\" name=\"t x.t()\" time=\"0\">"
                                     "\n      <properties>"));
    free(junit);
    char *gs = tl_report_render(&r, TL_FMT_GRADESCOPE, &o);
    cJSON *g = cJSON_Parse(gs);
    ck_assert_ptr_nonnull(g);
    /* 7 op points, question q1 and the rules check; q2 fails */
    ck_assert_int_eq(cJSON_GetObjectItem(g, "score")->valueint, 9);
    const cJSON *t8 = cJSON_GetArrayItem(cJSON_GetObjectItem(g, "tests"), 8);
    ck_assert_str_eq(cJSON_GetObjectItem(t8, "status")->valuestring, "failed");
    ck_assert_ptr_null(strstr(cJSON_GetObjectItem(t8, "output")->valuestring, "alias"));
    cJSON_Delete(g);
    free(gs);
    char *gh = tl_report_render(&r, TL_FMT_GITHUB, &o);
    /* the summary first, then the wrong op at its predict: line */
    ck_assert_ptr_nonnull(strstr(gh, "::error file="));
    ck_assert_ptr_nonnull(strstr(gh, "title=tlab%3A basic::7/9 correct (threshold 6) - FAIL"));
    ck_assert(strstr(gh, "title=tlab%3A basic::") < strstr(gh, "title=tlab wrong x.clone()::"));
    ck_assert_ptr_nonnull(strstr(gh, "basic.yaml,line=43,col=14,title=tlab wrong x.clone()::"
                                     "predicted view, actual copy%0A"));
    free(gh);
}
END_TEST

/* tl_json_shortest's integral fast path writes exactly what the general
 * rule (the shortest of %.15g..%.17g that reads back) writes. */
static void shortest_ref(double v, char *buf, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

START_TEST(test_json_shortest)
{
    static const double fixed[] = {0.0, -0.0, 1, -1, 10, 99, 1e14, 999999999999999.0,
                                   -999999999999999.0, 1e15, -1e15, 1e16, 4503599627370496.0,
                                   0.5, -2.5, 0.1, 1.0 / 3, 123456789.125};
    char a[64], b[64];
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        tl_json_shortest(fixed[i], a, sizeof a);
        shortest_ref(fixed[i], b, sizeof b);
        ck_assert_msg(strcmp(a, b) == 0, "%.17g: %s, not %s", fixed[i], a, b);
    }
    ck_assert_str_eq((tl_json_shortest(-0.0, a, sizeof a), a), "-0");
    unsigned s = 12345;
    for (int i = 0; i < 200000; i++) {
        s = s * 1103515245u + 12345u;
        double v = (double)((int)(s >> 8) % 2000001 - 1000000) * pow(10, (s >> 3) % 11);
        if (s & 1)
            v = ldexp((double)(s >> 4), (int)((s >> 2) % 60) - 30);
        tl_json_shortest(v, a, sizeof a);
        shortest_ref(v, b, sizeof b);
        ck_assert_msg(strcmp(a, b) == 0, "%.17g: %s, not %s", v, a, b);
    }
}
END_TEST

static Suite *tl_scorecard_suite(void)
{
    Suite *s = suite_create("scorecard");
    TCase *core = tcase_create("core");
    tcase_add_unchecked_fixture(core, setup, teardown);
    tcase_add_test(core, test_check_document);
    tcase_add_test(core, test_run_document);
    tcase_add_test(core, test_text_and_formats);
    tcase_add_test(core, test_json_shortest);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_scorecard_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
