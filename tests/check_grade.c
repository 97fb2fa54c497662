/* check_grade.c - unit tests for grade.c: kind rules (view right for view
 * and alias, ...), accept overrides, predicted fields, values, question
 * checks (whole words, plurals, reject, min_words), rules, thresholds,
 * unanswered ops, the tamper check, a grade that outlives its sheet, and
 * the string pool its texts live in. Verdicts are built by hand. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "lab.h"
#include "strpool.h"

static tl_lab *parse(const char *text)
{
    tl_lab_err err;
    tl_lab *lab = tl_lab_parse("g.yaml", text, strlen(text), false, &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    return lab;
}

static void verdict(tl_op_verdict *v, tl_kind k, bool sometimes)
{
    memset(v, 0, sizeof *v);
    v->ev.kind = k;
    v->sometimes = sometimes;
    v->ev.write_through = -1;
}

static void tensor_verdict(tl_op_verdict *v, tl_kind k, int64_t s0, int64_t s1, int64_t st0,
                           int64_t st1, int64_t off, bool contig)
{
    verdict(v, k, false);
    v->ev.is_tensor = true;
    v->ev.ndim = 2;
    v->ev.shape = calloc(2, sizeof(int64_t));
    v->ev.stride = calloc(2, sizeof(int64_t));
    v->ev.shape[0] = s0;
    v->ev.shape[1] = s1;
    v->ev.stride[0] = st0;
    v->ev.stride[1] = st1;
    v->ev.offset = off;
    v->ev.contiguous = contig;
    v->ev.dtype = TL_FLOAT32;
}

START_TEST(test_kind_rules)
{
    tl_lab *lab = parse("ops:\n"
                        "  - {id: a, op: x, predict: view}\n"
                        "  - {id: b, op: x, predict: alias}\n"
                        "  - {id: c, op: x, predict: copy}\n"
                        "  - {id: d, op: x, predict: sometimes}\n"
                        "  - {id: e, op: x, predict: error}\n");
    tl_op_verdict v;
    const tl_lab_op *o = lab->ops;
    verdict(&v, TL_KIND_ALIAS, false);
    ck_assert(tl_grade_prediction(&o[0], &o[0].predict, &v, NULL)); /* view for alias */
    ck_assert(tl_grade_prediction(&o[1], &o[1].predict, &v, NULL));
    ck_assert(!tl_grade_prediction(&o[2], &o[2].predict, &v, NULL));
    verdict(&v, TL_KIND_VIEW, false);
    ck_assert(tl_grade_prediction(&o[0], &o[0].predict, &v, NULL));
    ck_assert(!tl_grade_prediction(&o[1], &o[1].predict, &v, NULL)); /* alias only alias */
    ck_assert(!tl_grade_prediction(&o[3], &o[3].predict, &v, NULL));
    verdict(&v, TL_KIND_VIEW, true);
    ck_assert(tl_grade_prediction(&o[3], &o[3].predict, &v, NULL));
    ck_assert(tl_grade_prediction(&o[0], &o[0].predict, &v, NULL));
    verdict(&v, TL_KIND_COPY, false);
    tl_buf why = {0};
    ck_assert(!tl_grade_prediction(&o[0], &o[0].predict, &v, &why));
    ck_assert_str_eq(tl_buf_str(&why), "predicted view, actual copy");
    tl_buf_free(&why);
    verdict(&v, TL_KIND_ERROR, false);
    ck_assert(tl_grade_prediction(&o[4], &o[4].predict, &v, NULL));
    ck_assert(!tl_grade_prediction(&o[0], &o[0].predict, &v, NULL));
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_accept_and_fields)
{
    tl_lab *lab = parse(
        "ops:\n"
        "  - {id: a, op: x, predict: view, accept: [copy, sometimes]}\n"
        "  - {id: b, op: x, predict: copy, accept: [copy, sometimes]}\n"
        "  - {id: c, op: x, predict: {kind: view, shape: [3, 6], stride: [6, 1], offset: 6, contiguous: true}}\n"
        "  - {id: d, op: x, predict: {kind: view, stride: [1, 6]}}\n"
        "  - {id: e, op: x, predict: {value: [6, 1]}}\n"
        "  - {id: f, op: x, predict: {error: IndexError}}\n");
    const tl_lab_op *o = lab->ops;
    tl_op_verdict v;
    verdict(&v, TL_KIND_VIEW, false);
    ck_assert(!tl_grade_prediction(&o[0], &o[0].predict, &v, NULL)); /* accept overrides */
    ck_assert(tl_grade_prediction(&o[1], &o[1].predict, &v, NULL));
    tensor_verdict(&v, TL_KIND_VIEW, 3, 6, 6, 1, 6, true);
    ck_assert(tl_grade_prediction(&o[2], &o[2].predict, &v, NULL));
    tl_buf why = {0};
    ck_assert(!tl_grade_prediction(&o[3], &o[3].predict, &v, &why));
    ck_assert_str_eq(tl_buf_str(&why), "stride [1, 6] is wrong");
    tl_buf_free(&why);
    v.ev.offset = 0;
    ck_assert(!tl_grade_prediction(&o[2], &o[2].predict, &v, NULL));
    tl_op_verdict_free(&v);
    verdict(&v, TL_KIND_VALUE, false);
    v.ev.value = cJSON_Parse("[6, 1]");
    ck_assert(tl_grade_prediction(&o[4], &o[4].predict, &v, NULL));
    cJSON_Delete(v.ev.value);
    v.ev.value = cJSON_Parse("[1, 6]");
    ck_assert(!tl_grade_prediction(&o[4], &o[4].predict, &v, NULL));
    tl_op_verdict_free(&v);
    verdict(&v, TL_KIND_ERROR, false);
    v.ev.err_type = strdup("IndexError");
    ck_assert(tl_grade_prediction(&o[5], &o[5].predict, &v, NULL));
    free(v.ev.err_type);
    v.ev.err_type = strdup("RuntimeError");
    ck_assert(!tl_grade_prediction(&o[5], &o[5].predict, &v, NULL));
    tl_op_verdict_free(&v);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_words)
{
    ck_assert(tl_grade_mentions("The STRIDES change", "stride"));
    ck_assert(tl_grade_mentions("one stride", "strides"));
    ck_assert(tl_grade_mentions("two copies", "copy"));
    ck_assert(tl_grade_mentions("indexes", "index"));
    ck_assert(!tl_grade_mentions("bytestride", "stride"));
    ck_assert(!tl_grade_mentions("storages-free", "store"));
    ck_assert(tl_grade_mentions("the storage offset moves", "storage offsets"));
    ck_assert(!tl_grade_mentions("the offset storage", "storage offset"));
    ck_assert(tl_grade_is_only("  It depends!  ", "it depends"));
    ck_assert(tl_grade_is_only("It, depends.", "it depends"));
    ck_assert(!tl_grade_is_only("It depends on the strides", "it depends"));
}
END_TEST

START_TEST(test_questions)
{
    tl_lab *lab = parse("ops:\n  - {op: x}\nquestions:\n"
                        "  - id: q\n    mention_any: [stride, byte]\n    reject: [\"it depends\"]\n"
                        "    min_words: 6\n");
    const tl_lab_question *q = &lab->questions[0];
    char **r = NULL;
    size_t n = 0;
    ck_assert(tl_grade_question(q, "reshape copies when the strides cannot express the shape", &r, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert(!tl_grade_question(q, "It depends.", &r, &n));
    ck_assert_uint_eq(n, 3); /* only "it depends", no keyword, 2 words */
    ck_assert_str_eq(r[0], "the answer is only 'it depends': say why, specifically");
    ck_assert_str_eq(r[1], "mentions none of: stride, byte");
    ck_assert_str_eq(r[2], "2 words; at least 6 needed");
    for (size_t i = 0; i < n; i++)
        free(r[i]);
    free(r);
    r = NULL;
    n = 0;
    ck_assert(!tl_grade_question(q, NULL, &r, &n));
    ck_assert_str_eq(r[0], "unanswered");
    free(r[0]);
    free(r);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_sheet_threshold_rules)
{
    tl_lab *lab = parse("threshold: \"50%\"\n"
                        "ops:\n"
                        "  - {id: a, op: x, predict: view, rule: slicing moves the offset, points: 2}\n"
                        "  - {id: b, op: x, predict: copy, rule: I ran it}\n"
                        "  - {id: c, op: x}\n"
                        "  - {id: d, op: x, predict: view}\n"
                        "rules:\n  required: true\n  reject: [\"i ran it\"]\n");
    tl_op_verdict v[4];
    verdict(&v[0], TL_KIND_VIEW, false);
    verdict(&v[1], TL_KIND_COPY, false);
    verdict(&v[2], TL_KIND_COPY, false);
    verdict(&v[3], TL_KIND_COPY, false);
    tl_grade g;
    tl_grade_sheet(lab, lab, v, &g);
    ck_assert_int_eq(g.correct, 2);
    ck_assert_int_eq(g.total, 4);
    /* op points 3 of 5, and the rules check (1 point) fails */
    ck_assert_int_eq(g.points, 3);
    ck_assert_int_eq(g.max_points, 6);
    ck_assert(g.has_rules_test);
    ck_assert_int_eq(g.rules_score, 0);
    ck_assert_int_eq(g.threshold, 2);
    ck_assert_uint_eq(g.unanswered, 1);
    ck_assert(!g.ops[2].answered);
    ck_assert_str_eq(g.ops[2].feedback, "unanswered"); /* never the verdict */
    ck_assert_ptr_null(g.ops[0].rule_problem);
    ck_assert_ptr_nonnull(strstr(g.ops[1].rule_problem, "rejected phrase 'i ran it'"));
    ck_assert_ptr_nonnull(strstr(g.ops[3].rule_problem, "no rule: line"));
    /* SPEC 3: every op, answered or not, needs a rule */
    ck_assert_ptr_nonnull(strstr(g.ops[2].rule_problem, "no rule: line"));
    ck_assert(!g.rules_passed);
    ck_assert(!g.passed); /* threshold reached, rules fail */
    tl_grade_free(&g);
    /* a blank sheet never earns the rules point: every op lacks a rule */
    static const tl_lab blank;
    tl_grade_sheet(lab, &blank, v, &g);
    ck_assert_int_eq(g.points, 0);
    ck_assert_int_eq(g.rules_score, 0);
    ck_assert(!g.rules_passed);
    tl_grade_free(&g);
    tl_lab_free(lab);
}
END_TEST

/* Issue #28.1 and SPEC 3: a prediction of fields without a kind scored on
 * the fields alone (4/4 on four tensor ops with four right dtypes); now it
 * is malformed, and a malformed prediction (`veiw`, `a view`) scores its
 * op 0 with the located message, never the verdict, while the rest of the
 * sheet is graded. */
START_TEST(test_malformed_predictions)
{
    tl_lab *lab = parse("threshold: 1\n"
                        "ops:\n"
                        "  - {id: a, op: x, predict: {dtype: float32}}\n"
                        "  - {id: b, op: x, predict: {dtype: float32, shape: [4, 6]}}\n"
                        "  - {id: c, op: x, predict: veiw}\n"
                        "  - {id: d, op: x, predict: a view, points: 2}\n"
                        "  - {id: e, op: x, predict: {kind: view, dtype: float32}}\n");
    tl_op_verdict v[5];
    for (int i = 0; i < 5; i++)
        tensor_verdict(&v[i], TL_KIND_VIEW, 4, 6, 6, 1, 0, true);
    v[0].ev.reason = strdup("the verdict's reason");
    tl_grade g;
    tl_grade_sheet(lab, lab, v, &g);
    ck_assert_int_eq(g.correct, 1);
    ck_assert_int_eq(g.points, 1);
    ck_assert_int_eq(g.max_points, 6);
    ck_assert_uint_eq(g.unanswered, 0);
    ck_assert(g.passed); /* threshold 1: the rest is graded */
    static const int line[4] = {3, 4, 5, 6}, col[4] = {29, 29, 29, 29};
    for (int i = 0; i < 4; i++) {
        const tl_op_grade *og = &g.ops[i];
        ck_assert(og->answered && og->malformed && !og->correct);
        ck_assert_int_eq(og->score, 0);
        ck_assert_int_eq(og->predict_line, line[i]);
        ck_assert_int_eq(og->predict_col, col[i]);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "g.yaml:%d:%d: error: ", line[i], col[i]);
        ck_assert_msg(!strncmp(og->feedback, prefix, strlen(prefix)), "%s", og->feedback);
        ck_assert_ptr_null(strstr(og->feedback, "reason"));
    }
    ck_assert_ptr_nonnull(strstr(g.ops[0].feedback, "must name its kind"));
    ck_assert_ptr_nonnull(strstr(g.ops[2].feedback, "invalid prediction 'veiw'"));
    ck_assert_str_eq(g.ops[3].predicted, "a view");
    ck_assert_str_eq(g.ops[0].predicted, "{dtype: float32}");
    ck_assert(g.ops[4].correct && !g.ops[4].malformed);
    tl_grade_free(&g);
    for (int i = 0; i < 5; i++)
        tl_op_verdict_free(&v[i]);
    tl_lab_free(lab);
}
END_TEST

/* A grade keeps what the reports need after its sheet is freed (tlab grade
 * frees each sheet once graded): the prediction's text, form and kind, the
 * rule line, where predict:, rule: and answer: sit; grades made in one
 * pool share equal texts. Under ASan/valgrind a borrowed pointer would
 * also show up as a use after free. */
START_TEST(test_grade_outlives_sheet)
{
    tl_lab *m = parse("threshold: 1\nops:\n  - {id: a, op: x.t()}\n  - {id: b, op: x}\n"
                      "  - {id: c, op: x}\nquestions:\n  - {id: q, mention_any: [stride]}\n"
                      "rules:\n  reject: [i ran it]\n");
    const char *sheet = "threshold: 1\n"                           /* 1 */
                        "ops:\n"                                    /* 2 */
                        "  - id: a\n"                               /* 3 */
                        "    op: x.t()\n"                           /* 4 */
                        "    predict: {kind: view, shape: [2, 2]}\n" /* 5 */
                        "    rule: i ran it\n"                      /* 6 */
                        "  - id: b\n"                               /* 7 */
                        "    op: x\n"                               /* 8 */
                        "    predict: copy\n"                       /* 9 */
                        "questions:\n"                              /* 10 */
                        "  - id: q\n"                               /* 11 */
                        "    answer: the strides\n"                 /* 12 */
                        "rules:\n  reject: [i ran it]\n";
    tl_op_verdict v[3];
    verdict(&v[0], TL_KIND_VIEW, false);
    verdict(&v[1], TL_KIND_ALIAS, false);
    verdict(&v[2], TL_KIND_COPY, false);
    tl_strpool *texts = tl_strpool_new();
    tl_grade g, g2;
    tl_lab *s = parse(sheet);
    tl_grade_sheet_in(m, s, v, texts, &g);
    tl_lab_free(s);
    s = parse(sheet);
    tl_grade_sheet_in(m, s, v, texts, &g2);
    size_t distinct = tl_strpool_count(texts);
    /* scribble over the sheet's text before freeing it, for good measure */
    memset(s->text, 'z', s->len);
    tl_lab_free(s);

    const tl_op_grade *a = &g.ops[0], *b = &g.ops[1], *c = &g.ops[2];
    ck_assert(a->in_sheet && a->answered);
    ck_assert(a->pred_mapping);
    ck_assert_int_eq(a->pred_kind, TL_KIND_VIEW);
    ck_assert_ptr_nonnull(a->predicted);
    ck_assert_ptr_nonnull(strstr(a->predicted, "shape"));
    ck_assert_str_eq(a->rule, "i ran it");
    ck_assert_int_eq(a->predict_line, 5);
    ck_assert_int_eq(a->predict_col, 14);
    ck_assert_int_eq(a->rule_line, 6);
    ck_assert_int_eq(a->rule_col, 11);
    ck_assert_ptr_nonnull(strstr(a->rule_problem, "rejected phrase 'i ran it'"));
    ck_assert(b->in_sheet && b->answered && !b->correct && !b->pred_mapping);
    ck_assert_str_eq(b->predicted, "copy");
    ck_assert_ptr_null(b->rule);
    ck_assert_int_eq(b->rule_line, 7); /* no rule: the op item */
    ck_assert_int_eq(b->rule_col, 5);
    ck_assert(!c->in_sheet && !c->answered);
    ck_assert_ptr_null(c->predicted);
    ck_assert_int_eq(c->predict_line, 0);
    ck_assert_str_eq(c->feedback, "unanswered");
    ck_assert(g.questions[0].in_sheet && g.questions[0].answered && g.questions[0].passed);
    ck_assert_int_eq(g.questions[0].answer_line, 12);
    ck_assert_int_eq(g.questions[0].answer_col, 13);
    /* the second grade's texts are the first's */
    ck_assert_uint_eq(distinct, tl_strpool_count(texts));
    for (size_t i = 0; i < 3; i++) {
        ck_assert_ptr_eq(g.ops[i].feedback, g2.ops[i].feedback);
        ck_assert_ptr_eq(g.ops[i].predicted, g2.ops[i].predicted);
    }
    /* what each op of each sheet costs until the last report (grade.h) */
    if (sizeof(void *) == 8)
        ck_assert_uint_eq(sizeof(tl_op_grade), 72);
    tl_grade_free(&g);
    tl_grade_free(&g2);
    tl_strpool_free(texts);
    tl_lab_free(m);
}
END_TEST

/* the pool itself: equal texts one copy, embedded lengths, growth */
START_TEST(test_strpool)
{
    tl_strpool *p = tl_strpool_new();
    ck_assert_ptr_null(tl_strpool_intern(p, NULL));
    const char *x = tl_strpool_intern(p, "view");
    char buf[] = "view";
    ck_assert_ptr_eq(tl_strpool_intern(p, buf), x);
    ck_assert_ptr_ne(tl_strpool_intern(p, "views"), x);
    const char *y = tl_strpool_intern_n(p, "viewpoint", 4); /* not NUL-terminated there */
    ck_assert_ptr_eq(y, x);
    ck_assert_str_eq(tl_strpool_intern_n(p, "", 0), "");
    ck_assert_uint_eq(tl_strpool_count(p), 3);
    const char *keep[1000];
    for (int i = 0; i < 1000; i++) {
        char t[32];
        snprintf(t, sizeof t, "text %d", i);
        keep[i] = tl_strpool_intern(p, t);
    }
    for (int i = 0; i < 1000; i++) {
        char t[32];
        snprintf(t, sizeof t, "text %d", i);
        ck_assert_ptr_eq(tl_strpool_intern(p, t), keep[i]); /* stable across growth */
        ck_assert_str_eq(keep[i], t);
    }
    ck_assert_uint_eq(tl_strpool_count(p), 1003);
    ck_assert_uint_ge(tl_strpool_bytes(p), 1003 * 5);
    ck_assert_str_eq(x, "view");
    tl_strpool_free(p);
    tl_strpool_free(NULL);
}
END_TEST

START_TEST(test_tamper)
{
    const char *master = "setup: |\n  x = 1\nthreshold: 1\n"
                         "ops:\n  - {id: a, op: x.t(), predict: view}\n  - {id: b, op: \"x[0]\"}\n"
                         "questions:\n  - {id: q, mention_any: [stride]}\n";
    const char *same = "setup: |\n  x = 1\nthreshold: 1\n"
                       "ops:\n  - {id: b, op: \"x[0]\", predict: copy}\n  - {id: a, op: x.t()}\n"
                       "questions:\n  - {id: q, mention_any: [stride], answer: strides}\n";
    const char *tampered = "setup: |\n  x = 2\nthreshold: 0\n"
                           "ops:\n  - {id: a, op: x.clone(), predict: view, accept: [view, copy]}\n"
                           "  - {id: z, op: x}\n"
                           "questions:\n  - {id: q, mention_any: [the]}\n";
    tl_lab *m = parse(master), *s = parse(same), *t = parse(tampered);
    char **ch = NULL;
    ck_assert_uint_eq(tl_grade_tamper(m, s, &ch), 0); /* order and answers are free */
    size_t n = tl_grade_tamper(m, t, &ch);
    const char *want[] = {"setup", "threshold", "op a: op", "op a: accept", "op b removed",
                          "op z added", "question q: mention_any"};
    ck_assert_uint_eq(n, 7);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(ch[i], want[i]);
        free(ch[i]);
    }
    free(ch);
    /* a tampered sheet is graded on the master's ops: its predictions are
     * matched by id, missing ones are unanswered */
    tl_op_verdict v[2];
    verdict(&v[0], TL_KIND_VIEW, false);
    verdict(&v[1], TL_KIND_COPY, false);
    tl_grade g;
    tl_grade_sheet(m, t, v, &g);
    ck_assert(g.ops[0].correct);
    ck_assert(!g.ops[1].answered);
    ck_assert_int_eq(g.threshold, 1);
    tl_grade_free(&g);
    tl_grade_sheet(m, s, v, &g);
    ck_assert_int_eq(g.correct, 1);
    ck_assert(g.questions_passed);
    /* the question's default point counts once it passes */
    ck_assert_int_eq(g.questions[0].points, 1);
    ck_assert_int_eq(g.questions[0].score, 1);
    ck_assert_int_eq(g.points, 2);
    ck_assert_int_eq(g.max_points, 3);
    ck_assert(!g.has_rules_test);
    tl_grade_free(&g);
    /* a sheet of another lab: one change that says so, not one per op */
    tl_lab *m2 = parse("id: lab01\nops:\n  - {id: a, op: x}\n  - {id: b, op: x}\n");
    tl_lab *o2 = parse("id: \"lab02\\e[2J\"\nops:\n  - {id: c, op: y}\n");
    n = tl_grade_tamper(m2, o2, &ch);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(ch[0], "wrong lab (id lab02\\e[2J, expected lab01)");
    free(ch[0]);
    free(ch);
    tl_lab_free(m2);
    tl_lab_free(o2);
    tl_lab_free(m);
    tl_lab_free(s);
    tl_lab_free(t);
}
END_TEST

static Suite *tl_grade_suite(void)
{
    Suite *s = suite_create("grade");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_kind_rules);
    tcase_add_test(core, test_accept_and_fields);
    tcase_add_test(core, test_words);
    tcase_add_test(core, test_questions);
    tcase_add_test(core, test_sheet_threshold_rules);
    tcase_add_test(core, test_malformed_predictions);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_tamper);
    tcase_add_test(errors, test_grade_outlives_sheet);
    tcase_add_test(errors, test_strpool);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_grade_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
