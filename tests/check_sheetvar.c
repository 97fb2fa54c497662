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

/* variant generators (vargen.h): the cross product, named and set up
 * deterministically, mixed with written variants; bad values located */
START_TEST(test_generate)
{
    tl_lab *m = parse("tlab: 1\nid: g\nparent: y\nsetup: import torch\nops:\n"
                      "  - id: \"1\"\n    op: y[1:]\n"
                      "variants:\n"
                      "  - {name: w, setup: \"y = torch.zeros(3)\"}\n"
                      "  - generate: {shape: [[4, 6], [2, 3, 4]], transposed: [false, true],\n"
                      "               dtype: [float32, int64]}\n");
    ck_assert_uint_eq(m->nvariants, 9);
    ck_assert_str_eq(m->variants[0].name, "w");
    ck_assert_str_eq(m->variants[1].name, "4x6-n-float32");
    ck_assert_str_eq(m->variants[1].setup, "y = torch.arange(24, dtype=torch.float32).reshape(4, 6)");
    ck_assert_str_eq(m->variants[4].name, "4x6-t-int64");
    ck_assert_str_eq(m->variants[4].setup, "y = torch.arange(24, dtype=torch.int64).reshape(6, 4).t()");
    ck_assert_str_eq(m->variants[8].name, "2x3x4-t-int64");
    ck_assert_str_eq(m->variants[8].setup,
                     "y = torch.arange(24, dtype=torch.int64).reshape(4, 3, 2).permute(2, 1, 0)");
    ck_assert_str_eq(m->variants[8].full_setup,
                     "import torch\ny = torch.arange(24, dtype=torch.int64).reshape(4, 3, 2)"
                     ".permute(2, 1, 0)");
    ck_assert_int_eq(m->variants[8].line, 10);
    tl_lab_free(m);

    m = parse("tlab: 1\nid: g\nops:\n  - {id: \"1\", op: x}\n"
              "variants: {generate: {shape: [[2, 3, 2, 2]], step: [1, 2], channels_last: [false, true]}}\n");
    ck_assert_uint_eq(m->nvariants, 4);
    ck_assert_str_eq(m->variants[0].name, "s1-cf");
    ck_assert_str_eq(m->variants[3].name, "s2-cl");
    ck_assert_str_eq(m->variants[3].setup,
                     "x = torch.arange(48, dtype=torch.float32).reshape(2, 3, 2, 4)[..., ::2]"
                     ".contiguous(memory_format=torch.channels_last)");
    tl_lab_free(m);
    m = parse("tlab: 1\nid: g\nops:\n  - {id: \"1\", op: x}\n"
              "variants: {generate: {shape: [[5]]}}\n");
    ck_assert_uint_eq(m->nvariants, 1);
    ck_assert_str_eq(m->variants[0].name, "g");
    ck_assert_str_eq(m->variants[0].setup, "x = torch.arange(5, dtype=torch.float32)");
    tl_lab_free(m);

    static const struct {
        const char *gen;
        int col;
        const char *msg;
    } bad[] = {
        {"{shape: [4, 6]}", 30, "must be a list of shapes"},
        {"{shape: [[4, 6]], dtype: [float33]}", 48, "unknown dtype"},
        {"{shape: [[4, -1]]}", 35, "a size must be"},
        {"{shape: [[4, 6]], transposed: [yes]}", 53, "takes false, true"},
        {"{shape: [[4, 6]], channels_last: true}", 31, "channels_last needs 4-D"},
        {"{shape: [[4]], transposed: true}", 31, "transposed needs shapes of 2"},
        {"{shape: [[4]], colour: red}", 37, "unknown key 'colour'"},
        {"{dtype: int32}", 22, "needs 'shape'"},
        {"{shape: [[4]], step: [2, 2]}", 47, "listed twice"},
        {"{shape: [[1000, 1000, 2]]}", 31, "more than 1048576"},
        {"[1]", 22, "must be a mapping of lists"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "tlab: 1\nid: g\nops:\n  - {id: \"1\", op: x}\n"
                                    "variants: {generate: %s}\n", bad[i].gen);
        tl_lab_err err;
        tl_lab *l = tl_lab_parse("m.yaml", text, strlen(text), false, &err);
        ck_assert_msg(!l, "%s: accepted", bad[i].gen);
        ck_assert_msg(err.line == 5 && err.col == bad[i].col && strstr(err.msg, bad[i].msg),
                      "%s: %d:%d %s", bad[i].gen, err.line, err.col, err.msg);
        tl_lab_err_free(&err);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sheetvar");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_pick_and_tag);
    tcase_add_test(tc, test_sheet);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_generate);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
