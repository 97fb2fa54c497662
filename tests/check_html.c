/* check_html.c - unit tests for html.c (--format html): sheet text is
 * escaped everywhere (markup and control characters never appear raw),
 * every page is a complete self-contained document, the storage picture of
 * known ops has the right slots (x[1:] of a 4x6 arange: 24 slots drawn, 18
 * read; an expand shows its repeat count; a copy draws its new buffer; a
 * large storage is capped; a copy's gather trace names each element's parent
 * slot; a tuple's view items are drawn over the parent), unanswered ops
 * reveal nothing, an unreadable
 * sheet is a complete page with score 0, and the class report lists every
 * submission. Sheets are parsed from memory and run on the real runtime. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "html.h"
#include "interp.h"
#include "lab.h"
#include "scorecard.h"
#include "verdict.h"

typedef struct sheet {
    tl_lab *lab;
    tl_op_verdict *v;
    tl_html_pic *pics;
    tl_grade g;
} sheet;

static tl_runner runner(void)
{
    tl_runner r;
    memset(&r, 0, sizeof r);
    tl_interp_opts_default(&r.opts);
    r.opts.default_backend = tl_backend_cpu();
    return r;
}

/* Parse, run (as check does), capture the pictures (as commands.c does). */
static void load(sheet *s, const char *yaml)
{
    memset(s, 0, sizeof *s);
    tl_lab_err err;
    s->lab = tl_lab_parse("t.yaml", yaml, strlen(yaml), false, &err);
    ck_assert_msg(s->lab != NULL, "%s", err.rendered);
    tl_runner r = runner();
    s->v = calloc(s->lab->nops, sizeof *s->v);
    s->pics = calloc(s->lab->nops, sizeof *s->pics);
    tl_source setup;
    tl_lab_setup_source(s->lab, &setup);
    for (size_t i = 0; i < s->lab->nops; i++) {
        tl_source o;
        tl_lab_op_source(s->lab, &s->lab->ops[i], &o);
        tl_job job = {.setup = &setup, .nsetup = 1, .op = &o, .parent = "x", .variants = true};
        tl_verdict_fail f;
        ck_assert_msg(tl_verdict_run(&r, &job, &s->v[i], &f) == 0, "%s", f.rendered);
        tl_job pj = {.setup = &setup, .nsetup = 1, .op = &o, .parent = "x",
                     .trace = true};
        tl_op_verdict kv;
        ck_assert(tl_verdict_run(&r, &pj, &kv, &f) == 0);
        tl_report_html_capture(&kv, &s->pics[i]);
        tl_op_verdict_free(&kv);
    }
    tl_grade_sheet(s->lab, s->lab, s->v, &s->g);
}

static void unload(sheet *s)
{
    for (size_t i = 0; i < s->lab->nops; i++) {
        tl_op_verdict_free(&s->v[i]);
        tl_report_html_pic_free(&s->pics[i]);
    }
    free(s->v);
    free(s->pics);
    tl_grade_free(&s->g);
    tl_lab_free(s->lab);
}

static char *page(sheet *s)
{
    tl_report r = {.mode = TL_REPORT_CHECK, .lab = s->lab, .verdicts = s->v, .grade = &s->g,
                   .device_requested = "auto", .device_used = "cpu"};
    char *h = tl_report_html_check(&r, s->pics);
    ck_assert_ptr_nonnull(h);
    return h;
}

static size_t count(const char *h, const char *end, const char *needle)
{
    size_t n = 0, l = strlen(needle);
    for (const char *p = strstr(h, needle); p && (!end || p < end); p = strstr(p + l, needle))
        n++;
    return n;
}

/* The storage SVG of op k (1-based), as a new string. */
static char *svg_of(const char *h, size_t k)
{
    char id[32];
    snprintf(id, sizeof id, "id=\"op-%zu\"", k);
    const char *card = strstr(h, id);
    ck_assert_ptr_nonnull(card);
    const char *a = strstr(card, "<svg class=\"storage\"");
    ck_assert_ptr_nonnull(a);
    const char *b = strstr(a, "</svg>");
    ck_assert_ptr_nonnull(b);
    return strndup(a, (size_t)(b - a));
}

/* A complete, self-contained document. */
static void assert_document(const char *h)
{
    ck_assert(!strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n", 40));
    ck_assert_ptr_nonnull(strstr(h, "<meta charset=\"utf-8\"/>"));
    ck_assert_ptr_nonnull(strstr(h, "<title>"));
    ck_assert_ptr_nonnull(strstr(h, "<style>"));
    ck_assert_ptr_nonnull(strstr(h, "@media print"));
    ck_assert_ptr_nonnull(strstr(h, "<body>"));
    size_t l = strlen(h);
    ck_assert(l > 20 && !strcmp(h + l - 16, "</body>\n</html>\n"));
    ck_assert_ptr_null(strstr(h, "http://"));
    ck_assert_ptr_null(strstr(h, "https://"));
    ck_assert_ptr_null(strstr(h, "<script"));
    ck_assert_ptr_null(strstr(h, "<link"));
    ck_assert_ptr_null(strstr(h, "src="));
    ck_assert_ptr_null(strstr(h, "url("));
    for (const unsigned char *p = (const unsigned char *)h; *p; p++)
        ck_assert_msg(*p >= 0x20 || *p == '\n', "control byte 0x%02x in the page", *p);
    ck_assert_int_eq(count(h, NULL, "<html"), 1);
    ck_assert_int_eq(count(h, NULL, "</html>"), 1);
}

static const char basic[] =
    "tlab: 1\nid: t\ntitle: html test\nthreshold: 2\nsetup: |\n  import torch\n"
    "  x = torch.arange(24, dtype=torch.float32).reshape(4, 6)\nops:\n"
    "  - id: \"1\"\n    op: x[1:]\n    predict: view\n    rule: slicing moves the offset\n"
    "  - id: \"2\"\n    op: x[0].expand(4, 6)\n    predict: view\n"
    "  - id: \"3\"\n    op: x.t().contiguous()\n    predict: view\n"
    "  - id: \"4\"\n    op: x.t()\n    predict: ~\n"
    "  - id: \"5\"\n    op: x.view(5, 5)\n    predict: error\n"
    "  - id: \"6\"\n    op: x.stride()\n    predict: {value: [6, 1]}\n"
    "  - id: \"7\"\n    op: x[::2, 1].clone()\n    predict: copy\n"
    "  - id: \"8\"\n    op: x.to(torch.float16)\n    predict: copy\n"
    "  - id: \"9\"\n    op: x.split(3)\n    predict: view\n";

START_TEST(test_pictures)
{
    sheet s;
    load(&s, basic);
    char *h = page(&s);
    assert_document(h);
    ck_assert_int_eq(count(h, NULL, "<svg class=\"storage\""), 9);
    ck_assert_int_eq(count(h, NULL, "<tr class=\"op "), 9);

    /* x[1:]: x's 24 slots, the last 18 read in order 0..17 */
    char *g = svg_of(h, 1);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot"), 24);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read\""), 18);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot multi\""), 0);
    ck_assert_ptr_nonnull(strstr(g, "<g data-slot=\"6\"><rect class=\"slot read\""));
    ck_assert_ptr_nonnull(strstr(g, "<g data-slot=\"5\"><rect class=\"slot\""));
    ck_assert_ptr_nonnull(strstr(g, "slot 23: read 1 time, result element 17<"));
    ck_assert_ptr_nonnull(strstr(g, "stride (6, 1) offset 6"));
    free(g);

    /* x[0].expand(4, 6): slots 0..5 each read 4 times, in order j, j+6, ... */
    g = svg_of(h, 2);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot multi\""), 6);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read\""), 0);
    ck_assert_int_eq(count(g, NULL, ">\xc3\x97" "4</text>"), 6);
    ck_assert_ptr_nonnull(strstr(g, "slot 1: read 4 times, result elements 1, 7, 13, 19<"));
    ck_assert_ptr_nonnull(strstr(g, "stride (0, 1) offset 0"));
    free(g);

    /* a copy: the parent's 24 slots, then a new buffer of 24 */
    g = svg_of(h, 3);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot"), 48);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot new\""), 24);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read\""), 0);
    ck_assert_ptr_nonnull(strstr(g, "new buffer (copy): 24 float32 slots"));
    /* the gather trace: new slot 1 holds x.t()[0, 1] = x[1, 0], parent slot 6 */
    ck_assert_ptr_nonnull(strstr(g, "slot 1: holds result element 1; gathered from parent slot 6<"));
    ck_assert_ptr_nonnull(strstr(g, "slot 6: parent element 6, copied into result element 1<"));
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot src\""), 24);
    ck_assert_int_eq(count(g, NULL, "<line class=\"gather\""), 24);
    ck_assert_int_eq(count(g, NULL, "\">\xe2\x86\x90"), 24);
    free(g);

    /* unanswered: the parent only, nothing read, no verdict shown */
    g = svg_of(h, 4);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot"), 24);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read"), 0);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot multi"), 0);
    ck_assert_ptr_null(strstr(g, "result"));
    ck_assert_ptr_null(strstr(g, "stride (1, 6)"));
    free(g);
    const char *card4 = strstr(h, "id=\"op-4\"");
    const char *card5 = strstr(h, "id=\"op-5\"");
    const char *actual = strstr(card4, "actual <b>");
    ck_assert(actual == NULL || actual > card5);

    /* error and value: still one picture each, saying why nothing is read */
    g = svg_of(h, 5);
    ck_assert_ptr_nonnull(strstr(g, "raised RuntimeError: nothing was read"));
    free(g);
    g = svg_of(h, 6);
    ck_assert_ptr_nonnull(strstr(g, "not a tensor"));
    free(g);

    /* x[::2, 1].clone(): 2 elements copied from parent slots 1 and 13 */
    g = svg_of(h, 7);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot src\""), 2);
    ck_assert_ptr_nonnull(strstr(g, "<g data-slot=\"13\"><rect class=\"slot src\""));
    ck_assert_ptr_nonnull(strstr(g, "slot 1: holds result element 1; gathered from parent slot 13<"));
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot new\""), 2);
    free(g);
    /* a dtype conversion: each row in its own dtype */
    g = svg_of(h, 8);
    ck_assert_ptr_nonnull(strstr(g, "x&#39;s storage: 24 float32 slots"));
    ck_assert_ptr_nonnull(strstr(g, "new buffer (copy): 24 float16 slots"));
    free(g);
    /* a tuple of views: item 0 reads slots 0..17, item 1 slots 18..23 */
    g = svg_of(h, 9);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read\""), 24);
    ck_assert_ptr_nonnull(strstr(g, "slot 18: read 1 time, item:element 1:0<"));
    ck_assert_ptr_nonnull(strstr(g, ">0:17</text>"));
    free(g);

    /* the scorecard numbers */
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"score-correct\">7</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"score-total\">9</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"score-threshold\">2</b>"));
    ck_assert_ptr_nonnull(strstr(h, "\xe2\x9c\x97 wrong"));
    ck_assert_ptr_nonnull(strstr(h, "<span class=\"mark\">\xe2\x9c\x93</span> 7/9 correct "
                                    "(threshold 2) - PASS</p>"));
    ck_assert_ptr_nonnull(strstr(h, "\xe2\x9c\x93 ok"));
    free(h);
    unload(&s);
}
END_TEST

START_TEST(test_large_storage)
{
    sheet s;
    load(&s, "tlab: 1\nthreshold: 1\nsetup: |\n  import torch\n  x = torch.arange(1000.0)\n"
             "ops:\n  - id: a\n    op: x[500:]\n    predict: view\n"
             "  - id: b\n    op: x.clone()\n    predict: copy\n");
    char *h = page(&s);
    assert_document(h);
    char *g = svg_of(h, 1);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot"), 256);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot read\""), 256);
    ck_assert_ptr_nonnull(strstr(g, "(showing slots 500..755 of 1000)"));
    free(g);
    g = svg_of(h, 2);
    ck_assert_int_eq(count(g, NULL, "<rect class=\"slot"), 512);
    ck_assert_ptr_nonnull(strstr(g, "(showing slots 0..255 of 1000)"));
    free(g);
    free(h);
    unload(&s);
}
END_TEST

START_TEST(test_many_ops)
{
    /* 100 ops: each picture draws at most 16384 / 100 = 163 slots */
    tl_buf y = {0};
    tl_buf_puts(&y, "tlab: 1\nthreshold: 1\nsetup: |\n  import torch\n  x = torch.arange(1000.0)\n"
                    "ops:\n");
    for (int i = 0; i < 100; i++)
        tl_buf_printf(&y, "  - id: \"%d\"\n    op: x[%d:]\n    predict: view\n", i, i);
    sheet s;
    load(&s, tl_buf_str(&y));
    tl_buf_free(&y);
    char *h = page(&s);
    assert_document(h);
    ck_assert_int_eq(count(h, NULL, "<svg class=\"storage\""), 100);
    ck_assert_int_eq(count(h, NULL, "<g data-slot=\""), 100 * 163);
    char *g = svg_of(h, 100);
    ck_assert_ptr_nonnull(strstr(g, "(showing slots 99..261 of 1000)"));
    free(g);
    free(h);
    unload(&s);
}
END_TEST

START_TEST(test_wrap_at_dims)
{
    /* 8x8: lines of 8 slots, the columns of x line up */
    sheet s;
    load(&s, "tlab: 1\nthreshold: 1\nsetup: |\n  import torch\n"
             "  x = torch.arange(64.0).reshape(8, 8)\nops:\n"
             "  - id: a\n    op: x[:, 1]\n    predict: view\n");
    char *h = page(&s);
    char *g = svg_of(h, 1);
    /* slot 9 starts the second line at the same x as slot 1 on the first */
    const char *s1 = strstr(g, "<g data-slot=\"1\"><rect class=\"slot read\" x=\"48\" y=\"");
    const char *s9 = strstr(g, "<g data-slot=\"9\"><rect class=\"slot read\" x=\"48\" y=\"");
    ck_assert_ptr_nonnull(s1);
    ck_assert_ptr_nonnull(s9);
    ck_assert_ptr_nonnull(strstr(g, "<g data-slot=\"8\"><rect class=\"slot\" x=\"8\""));
    free(g);
    free(h);
    unload(&s);
}
END_TEST

START_TEST(test_hostile_text)
{
    sheet s;
    load(&s, "tlab: 1\nid: \"<script>alert(1)</script>\"\ntitle: \"\\e]0;pwned\\a & 'x' \\\"y\\\"\"\n"
             "threshold: 1\nsetup: |\n  import torch\n  x = torch.arange(6.0)\nops:\n"
             "  - id: \"<script>alert(1)</script>\"\n    op: x[1:]\n    predict: copy\n"
             "    rule: \"</code><img onerror=x> \\e[2J\\u202e\"\n"
             "    explanation: \"<b>bold</b>\\nline two \\e]0;pwned\\a\"\n"
             "  - id: \"\\e]0;pwned\\a\"\n    op: x.t()\n    predict: view\n");
    char *h = page(&s);
    assert_document(h);
    ck_assert_ptr_null(strstr(h, "<script>"));
    ck_assert_ptr_null(strstr(h, "<img"));
    ck_assert_ptr_null(strstr(h, "<b>bold"));
    ck_assert_ptr_null(strstr(h, "\x1b"));
    ck_assert_ptr_null(strstr(h, "\x07"));
    ck_assert_ptr_null(strstr(h, "\xe2\x80\xae"));
    ck_assert_ptr_nonnull(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    ck_assert_ptr_nonnull(strstr(h, "\\e]0;pwned\\x07"));
    ck_assert_ptr_nonnull(strstr(h, "&#39;x&#39; &quot;y&quot;"));
    ck_assert_ptr_nonnull(strstr(h, "\\u202E"));
    /* element ids come from indices, never from the sheet */
    ck_assert_ptr_nonnull(strstr(h, "id=\"op-1\""));
    ck_assert_ptr_null(strstr(h, "id=\"op-&lt;"));
    free(h);
    unload(&s);
}
END_TEST

START_TEST(test_unreadable)
{
    tl_report r = {.mode = TL_REPORT_CHECK, .sheet_file = "bad<1>.yaml",
                   .device_requested = "auto", .device_used = "cpu",
                   .error = "bad<1>.yaml:3:7: error: unknown key '<script>' \x1b[2J",
                   .error_line = 3, .error_col = 7};
    char *h = tl_report_html_check(&r, NULL);
    ck_assert_ptr_nonnull(h);
    assert_document(h);
    ck_assert_ptr_nonnull(strstr(h, "bad&lt;1&gt;.yaml:3:7: error: unknown key &#39;&lt;script&gt;"
                                    "&#39; \\e[2J"));
    ck_assert_ptr_nonnull(strstr(h, "<span id=\"error-line\">3</span>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"score-correct\">0</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"score-passed\">no</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<p class=\"verdict fail\" id=\"verdict\"><span "
                                    "class=\"mark\">\xe2\x9c\x97</span> unreadable sheet - FAIL"));
    free(h);
}
END_TEST

START_TEST(test_class_report)
{
    sheet s;
    load(&s, basic);
    /* three graded sheets (one tampered), one unreadable */
    tl_grade blank;
    static const tl_lab empty;
    tl_grade_sheet(s.lab, &empty, s.v, &blank);
    char *changes[] = {"threshold changed from 2 to <0>"};
    tl_report rs[4];
    for (int k = 0; k < 4; k++)
        rs[k] = (tl_report){.mode = TL_REPORT_CHECK, .lab = s.lab, .verdicts = s.v,
                            .grade = &s.g, .device_requested = "auto", .device_used = "cpu"};
    rs[0].sheet_file = "alice.yaml";
    rs[1].sheet_file = "<b>bob</b>.yaml";
    rs[1].changes = changes;
    rs[1].nchanges = 1;
    rs[2].sheet_file = "carol.yaml";
    rs[2].grade = &blank;
    rs[3].sheet_file = "dave.yaml";
    rs[3].grade = &blank;
    rs[3].error = "dave.yaml:1:1: error: not YAML \x1b]0;x\x07";
    rs[3].error_line = 1;
    char *h = tl_report_html_class(rs, 4);
    ck_assert_ptr_nonnull(h);
    assert_document(h);
    ck_assert_int_eq(count(h, NULL, "<tr class=\"student "), 4);
    ck_assert_int_eq(count(h, NULL, "<tr class=\"class-op\">"), 9);
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"class-submissions\">4</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"class-graded\">3</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"class-tampered\">1</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<b id=\"class-unreadable\">1</b>"));
    ck_assert_ptr_nonnull(strstr(h, "<svg class=\"histogram\""));
    /* bars: 2 sheets with 7 correct, 1 with 0; the threshold line */
    ck_assert_ptr_nonnull(strstr(h, "data-score=\"7\" data-count=\"2\""));
    ck_assert_ptr_nonnull(strstr(h, "data-score=\"0\" data-count=\"1\""));
    ck_assert_ptr_nonnull(strstr(h, "threshold 2 (pass at 2 or more)"));
    /* op 3 (predicted view, a copy): 0% correct, "view" the common wrong answer */
    ck_assert_ptr_nonnull(strstr(h, "<code>view</code> (2)"));
    ck_assert_ptr_nonnull(strstr(h, "&lt;b&gt;bob&lt;/b&gt;.yaml"));
    ck_assert_ptr_nonnull(strstr(h, "threshold changed from 2 to &lt;0&gt;"));
    ck_assert_ptr_nonnull(strstr(h, "not YAML \\e]0;x\\x07"));
    ck_assert_ptr_null(strstr(h, "<b>bob"));
    free(h);
    tl_grade_free(&blank);
    unload(&s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pictures);
    tcase_add_test(tc, test_large_storage);
    tcase_add_test(tc, test_wrap_at_dims);
    tcase_add_test(tc, test_many_ops);
    tcase_add_test(tc, test_hostile_text);
    tcase_add_test(tc, test_unreadable);
    tcase_add_test(tc, test_class_report);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
