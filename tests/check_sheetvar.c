/* check_sheetvar.c - per-student variants (src/lab/sheetvar.c): the
 * variant pick (stable, every variant reached), the tag (bound to key,
 * student and variant), the student's sheet (spliced from the blank text,
 * loads back with the variant's setup, also when the setup needs the
 * quoted form or the master has none) and the tag check. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "sheetvar.h"

static tl_lab *parse(const char *text)
{
    tl_lab_err err;
    tl_lab *lab = tl_lab_parse("m.yaml", text, strlen(text), false, &err);
    if (!lab)
        ck_abort_msg("parse: %s", err.msg);
    tl_lab_err_free(&err);
    return lab;
}

static const char master[] =
    "tlab: 1\n"
    "id: lab9\n"
    "setup: |\n"
    "  import torch\n"
    "  x = torch.zeros(4)\n"
    "ops:\n"
    "  - id: \"1\"\n"
    "    op: x[1:]\n"
    "    predict: view\n"
    "variants:\n"
    "  - {name: a, setup: \"x = torch.zeros(2, 2)\"}\n"
    "  - name: b\n"
    "    setup: |\n"
    "      x = torch.zeros(2, 2).t()\n"
    "  - {name: c, setup: \"x = torch.ones(3)\\n   \\ny = 1\"}\n"
    "threshold: 1\n";

START_TEST(test_pick_and_tag)
{
    tl_lab *m = parse(master);
    ck_assert_uint_eq(m->nvariants, 3);
    ck_assert_str_eq(m->variants[0].full_setup, "import torch\nx = torch.zeros(4)\n"
                                                "x = torch.zeros(2, 2)");
    int seen[3] = {0};
    for (int i = 0; i < 200; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", i);
        size_t v = tl_sheetvar_pick(m, "k", 1, id);
        ck_assert_uint_lt(v, 3);
        ck_assert_uint_eq(v, tl_sheetvar_pick(m, "k", 1, id));
        seen[v]++;
    }
    ck_assert(seen[0] && seen[1] && seen[2]);
    char t1[33], t2[33], t3[33], t4[33];
    tl_sheetvar_tag(m, "k", 1, "ann", "a", t1);
    tl_sheetvar_tag(m, "k", 1, "ann", "b", t2);
    tl_sheetvar_tag(m, "k", 1, "bob", "a", t3);
    tl_sheetvar_tag(m, "j", 1, "ann", "a", t4);
    ck_assert_uint_eq(strlen(t1), 32);
    ck_assert_str_ne(t1, t2);
    ck_assert_str_ne(t1, t3);
    ck_assert_str_ne(t1, t4);
    tl_lab_free(m);
}
END_TEST

static char *sheet_of(tl_lab *m, size_t vi, const char *student)
{
    char tag[33];
    tl_sheetvar_tag(m, "k", 1, student, m->variants[vi].name, tag);
    char *blank = tl_lab_blank_text(m);
    tl_lab_err err;
    char *s = tl_sheetvar_sheet(m, blank, &m->variants[vi], student, tag, &err);
    free(blank);
    if (!s)
        ck_abort_msg("sheet: %s", err.msg);
    return s;
}

START_TEST(test_sheet)
{
    tl_lab *m = parse(master);
    for (size_t vi = 0; vi < 3; vi++) {
        char *s = sheet_of(m, vi, "ann \"the\" student");
        tl_lab *back = parse(s);
        ck_assert_str_eq(back->setup, m->variants[vi].full_setup);
        ck_assert_str_eq(back->variant, m->variants[vi].name);
        ck_assert_str_eq(back->student, "ann \"the\" student");
        ck_assert_uint_eq(back->nvariants, 0);
        ck_assert_ptr_null(back->warnings);
        ck_assert_ptr_nonnull(strstr(s, "threshold: 1\n")); /* the rest as written */
        int line, col;
        char *ok = tl_sheetvar_check(m, back, "k", 1, &line, &col);
        /* a good tag on a variant the key does not give this student */
        if (vi == tl_sheetvar_pick(m, "k", 1, back->student))
            ck_assert_ptr_null(ok);
        else
            ck_assert_ptr_nonnull(strstr(ok, "is not the variant of student"));
        free(ok);
        char *why = tl_sheetvar_check(m, back, "j", 1, &line, &col);
        ck_assert_ptr_nonnull(why);
        ck_assert_ptr_nonnull(strstr(why, "the tag does not match"));
        free(why);
        /* variant c's blank line of spaces needs the quoted form */
        ck_assert(vi != 2 || strstr(s, "setup: \"import torch") != NULL);
        ck_assert(vi == 2 || strstr(s, "setup: |") != NULL);
        tl_lab_free(back);
        free(s);
    }
    tl_lab_free(m);
    /* a master without setup: one is appended */
    tl_lab *n = parse("tlab: 1\nid: q\nops:\n  - id: \"1\"\n    op: x\nvariants:\n"
                      "  - {name: z, setup: \"import torch\\nx = torch.ones(2)\"}\n");
    char *s = sheet_of(n, 0, "s");
    tl_lab *back = parse(s);
    ck_assert_str_eq(back->setup, "import torch\nx = torch.ones(2)");
    tl_lab_free(back);
    free(s);
    tl_lab_free(n);
}
END_TEST

START_TEST(test_refusals)
{
    tl_lab *m = parse("tlab: 1\nid: q\nvariant: z\nops:\n  - id: \"1\"\n    op: x\nvariants:\n"
                      "  - {name: z, setup: \"x = 1\"}\n");
    char *blank = tl_lab_blank_text(m);
    tl_lab_err err;
    ck_assert_ptr_null(tl_sheetvar_sheet(m, blank, &m->variants[0], "s", "t", &err));
    ck_assert_int_eq(err.line, 3);
    ck_assert_ptr_nonnull(strstr(err.msg, "must not have its own"));
    free(blank);
    tl_lab_free(m);
    ck_assert_ptr_nonnull(tl_sheetvar_bad_student(""));
    ck_assert_ptr_nonnull(tl_sheetvar_bad_student("a\nb"));
    ck_assert_ptr_null(tl_sheetvar_bad_student("ann@example.edu"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sheetvar");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_pick_and_tag);
    tcase_add_test(tc, test_sheet);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
