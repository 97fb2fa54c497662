/* check_lab.c - unit tests for the lab loader (lab.c): the model, node
 * positions, `tlab new` blanking, and every located error of SPEC 3/7. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab.h"

static const char *good =
    "tlab: 1\n"
    "id: lab01\n"
    "title: View or copy\n"
    "threshold: \"75%\"\n"
    "setup: |\n"
    "  import torch\n"
    "  x = torch.arange(24).reshape(4, 6)\n"
    "parent: x\n"
    "ops:\n"
    "  - id: \"1\"\n"
    "    op: x[1:]          # a slice\n"
    "    predict: view\n"
    "    rule: slicing moves the offset\n"
    "  - id: \"2\"\n"
    "    op: x.t()\n"
    "    predict: {kind: view, shape: [6, 4], stride: [1, 6], offset: 0, contiguous: false}\n"
    "    points: 2\n"
    "    accept: [view, sometimes]\n"
    "    explanation: t() swaps strides\n"
    "  - id: \"3\"\n"
    "    op: x.stride()\n"
    "    predict:\n"
    "      value: [6, 1]\n"
    "  - id: \"4\"\n"
    "    op: x.t().view(24)\n"
    "    predict: ~\n"
    "questions:\n"
    "  - id: q1\n"
    "    prompt: Why?\n"
    "    answer: |\n"
    "      Because the strides differ.\n"
    "    mention_any: [stride, storage]\n"
    "    reject: [\"it depends\"]\n"
    "    min_words: 3\n"
    "rules:\n"
    "  required: true\n"
    "  reject: [\"i ran it\"]\n";

static tl_lab *parse(const char *text, tl_lab_err *err)
{
    return tl_lab_parse("t.yaml", text, strlen(text), false, err);
}

/* Expect a failure at line:col whose message contains `needle`. */
static void expect_err(const char *text, int line, int col, const char *needle)
{
    tl_lab_err err;
    tl_lab *lab = parse(text, &err);
    ck_assert_msg(lab == NULL, "expected an error containing '%s'", needle);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg,
                  needle);
    ck_assert_int_eq(err.line, line);
    ck_assert_int_eq(err.col, col);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.yaml:%d:%d: error: ", line, col);
    ck_assert_msg(strncmp(err.rendered, prefix, strlen(prefix)) == 0, "rendered: %s",
                  err.rendered);
    tl_lab_err_free(&err);
}

START_TEST(test_model)
{
    tl_lab_err err;
    tl_lab *lab = parse(good, &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_str_eq(lab->id, "lab01");
    ck_assert_str_eq(lab->title, "View or copy");
    ck_assert(lab->threshold_pct);
    ck_assert_int_eq(tl_lab_threshold_count(lab), 3); /* ceil(0.75 * 4) */
    ck_assert_str_eq(lab->parent, "x");
    ck_assert_str_eq(lab->setup, "import torch\nx = torch.arange(24).reshape(4, 6)\n");
    ck_assert_int_eq(lab->setup_line, 6);
    ck_assert_int_eq(lab->setup_col, 3);
    ck_assert_int_eq(lab->setup_block_col, 3);
    ck_assert_uint_eq(lab->nops, 4);
    tl_lab_op *op = &lab->ops[0];
    ck_assert_str_eq(op->id, "1");
    ck_assert_str_eq(op->op, "x[1:]");
    ck_assert_int_eq(op->op_line, 11);
    ck_assert_int_eq(op->op_col, 9);
    ck_assert_int_eq(op->predict.kind, TL_KIND_VIEW);
    ck_assert(!op->predict.mapping);
    ck_assert_str_eq(op->rule, "slicing moves the offset");
    ck_assert_int_eq(op->points, 1);
    op = &lab->ops[1];
    ck_assert(op->predict.mapping);
    ck_assert_int_eq(op->predict.kind, TL_KIND_VIEW);
    ck_assert(op->predict.has_shape && op->predict.shape_n == 2);
    ck_assert_int_eq(op->predict.shape[0], 6);
    ck_assert_int_eq(op->predict.stride[1], 6);
    ck_assert(op->predict.has_contiguous && !op->predict.contiguous);
    ck_assert_str_eq(op->predict.text,
                     "{kind: view, shape: [6, 4], stride: [1, 6], offset: 0, contiguous: false}");
    ck_assert_int_eq(op->points, 2);
    ck_assert(op->has_accept);
    ck_assert_uint_eq(op->accept, (1u << TL_KIND_VIEW) | (1u << TL_KIND_SOMETIMES));
    ck_assert_str_eq(op->explanation, "t() swaps strides");
    op = &lab->ops[2];
    ck_assert_int_eq(op->predict.kind, TL_KIND_VALUE);
    ck_assert(op->predict.has_value);
    ck_assert_str_eq(op->predict.text, "{kind: value, value: [6, 1]}");
    ck_assert(lab->ops[3].predict.blank);
    ck_assert_uint_eq(lab->nquestions, 1);
    ck_assert_str_eq(lab->questions[0].answer, "Because the strides differ.\n");
    ck_assert_uint_eq(lab->questions[0].n_mention, 2);
    ck_assert_int_eq(lab->questions[0].min_words, 3);
    ck_assert(lab->rules_required);
    ck_assert_uint_eq(lab->n_rules_reject, 1);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_defaults)
{
    tl_lab_err err;
    tl_lab *lab = parse("ops:\n  - op: x.t()\n  - op: x[0]\n    predict: Copy\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_str_eq(lab->parent, "x");
    ck_assert_str_eq(lab->ops[0].id, "1");
    ck_assert_str_eq(lab->ops[1].id, "2");
    ck_assert(lab->ops[0].predict.blank);
    ck_assert_int_eq(lab->ops[1].predict.kind, TL_KIND_COPY);
    ck_assert_int_eq(tl_lab_threshold_count(lab), 2);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_blank_text)
{
    tl_lab_err err;
    tl_lab *lab = parse(good, &err);
    ck_assert(lab != NULL);
    char *blank = tl_lab_blank_text(lab);
    /* a filled-in sheet: its comments go (written beside the answers), and
     * so do explanations and accept lists */
    ck_assert_ptr_nonnull(strstr(blank, "    op: x[1:]\n    predict: ~\n    rule: ~\n"));
    ck_assert_ptr_null(strstr(blank, "#"));
    ck_assert_ptr_nonnull(strstr(blank, "    op: x.t()\n    predict: ~\n    points: 2\n"
                                        "  - id: \"3\""));
    ck_assert_ptr_null(strstr(blank, "accept"));
    ck_assert_ptr_null(strstr(blank, "explanation"));
    ck_assert_ptr_null(strstr(blank, "swaps strides"));
    ck_assert_ptr_nonnull(strstr(blank, "    op: x.stride()\n    predict: ~\n  - id: \"4\""));
    ck_assert_ptr_nonnull(strstr(blank, "    answer: ~\n    mention_any"));
    ck_assert_ptr_null(strstr(blank, "Because the strides"));
    /* the blank sheet is itself a valid lab with every op unanswered */
    tl_lab *b = parse(blank, &err);
    ck_assert_msg(b != NULL, "%s", err.msg);
    for (size_t i = 0; i < b->nops; i++) {
        ck_assert(b->ops[i].predict.blank);
        ck_assert_ptr_null(b->ops[i].rule);
        ck_assert_ptr_null(b->ops[i].explanation);
        ck_assert(!b->ops[i].has_accept);
    }
    ck_assert_ptr_null(b->questions[0].answer);
    ck_assert_uint_eq(tl_lab_filled(b), 0);
    ck_assert(!tl_lab_has_answers(b));
    tl_lab_free(b);
    free(blank);
    /* asked to keep them: the explanations stay, nothing else does */
    blank = tl_lab_blank_text_opts(lab, TL_BLANK_KEEP_EXPLANATIONS);
    ck_assert_ptr_nonnull(strstr(blank, "    explanation: t() swaps strides\n"));
    ck_assert_ptr_null(strstr(blank, "accept"));
    b = parse(blank, &err);
    ck_assert_msg(b != NULL, "%s", err.msg);
    ck_assert_str_eq(b->ops[1].explanation, "t() swaps strides");
    ck_assert_uint_eq(tl_lab_filled(b), TL_LAB_FILLED_EXPLANATION);
    ck_assert(!tl_lab_has_answers(b));
    tl_lab_free(b);
    free(blank);
    tl_lab_free(lab);
}
END_TEST

/* A master with blanks keeps its comments (they are for students); flow
 * mappings and `- accept:` blank the value they cannot drop; CR LF stays. */
START_TEST(test_blank_master)
{
    static const char master[] =
        "# lab: predict view or copy\r\n"
        "ops:\r\n"
        "  - id: \"1\"   # first\r\n"
        "    op: x[1:]\r\n"
        "    predict: ~\r\n"
        "    explanation: >-   # why\r\n"
        "      slicing SECRET moves\r\n"
        "      the offset\r\n"
        "    accept: [view,\r\n"
        "             sometimes]  # both\r\n"
        "    points: 2\r\n"
        "  - {id: \"2\", op: x.t(), accept: [view], explanation: SECRET two}\r\n"
        "  - accept: [copy]\r\n"
        "    op: x.clone()\r\n"
        "    explanation: SECRET three\r\n";
    tl_lab_err err;
    tl_lab *lab = parse(master, &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert(!tl_lab_has_answers(lab));
    ck_assert_uint_eq(tl_lab_filled(lab), TL_LAB_FILLED_EXPLANATION | TL_LAB_FILLED_ACCEPT);
    char buf[64];
    ck_assert_str_eq(tl_lab_filled_text(tl_lab_filled(lab), buf, sizeof buf),
                     "explanations, accept lists");
    char *blank = tl_lab_blank_text(lab);
    ck_assert_ptr_null(strstr(blank, "SECRET"));
    ck_assert_ptr_null(strstr(blank, "sometimes"));
    ck_assert_ptr_null(strstr(blank, "# both"));
    ck_assert_ptr_nonnull(strstr(blank, "# lab: predict view or copy\r\n"));
    ck_assert_ptr_nonnull(strstr(blank, "  - id: \"1\"   # first\r\n    op: x[1:]\r\n"
                                        "    predict: ~\r\n    points: 2\r\n"));
    tl_lab *b = parse(blank, &err);
    ck_assert_msg(b != NULL, "%s\n%s", err.msg, blank);
    ck_assert_uint_eq(b->nops, 3);
    ck_assert_uint_eq(tl_lab_filled(b), 0);
    ck_assert_int_eq(b->ops[0].points, 2);
    ck_assert_str_eq(b->ops[2].op, "x.clone()");
    tl_lab_free(b);
    free(blank);
    tl_lab_free(lab);
}
END_TEST

/* A filled-in sheet's comments go, but never a `#` inside a scalar: code
 * in setup and ops, quoted and block text. */
START_TEST(test_blank_comments)
{
    static const char sheet[] =
        "# answers\n"
        "setup: |\n"
        "  import torch\n"
        "  # a comment in the code\n"
        "  x = torch.arange(6.)   # trailing in code\n"
        "ops:\n"
        "  - op: |\n"
        "      y = x  # keep\n"
        "      # whole line in op\n"
        "      y\n"
        "    predict: alias   # trailing\n"
        "    rule: 'a # quoted'\n"
        "  # between ops\n"
        "  - op: \"x # not\"   # after\n"
        "    predict: \"view\"\n"
        "questions:\n"
        "  - id: q\n"
        "    prompt: \"What # is\"\n"
        "    answer: >\n"
        "      folded\n"
        "      # not a comment\n";
    static const char want[] =
        "setup: |\n"
        "  import torch\n"
        "  # a comment in the code\n"
        "  x = torch.arange(6.)   # trailing in code\n"
        "ops:\n"
        "  - op: |\n"
        "      y = x  # keep\n"
        "      # whole line in op\n"
        "      y\n"
        "    predict: ~\n"
        "    rule: ~\n"
        "  - op: \"x # not\"\n"
        "    predict: ~\n"
        "questions:\n"
        "  - id: q\n"
        "    prompt: \"What # is\"\n"
        "    answer: ~\n";
    tl_lab_err err;
    tl_lab *lab = parse(sheet, &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    char *blank = tl_lab_blank_text(lab);
    ck_assert_str_eq(blank, want);
    tl_lab *b = parse(blank, &err);
    ck_assert_msg(b != NULL, "%s", err.msg);
    ck_assert_str_eq(b->setup, lab->setup);
    ck_assert_str_eq(b->ops[0].op, lab->ops[0].op);
    tl_lab_free(b);
    free(blank);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_filled)
{
    tl_lab_err err;
    tl_lab *lab = parse(good, &err);
    ck_assert(lab != NULL);
    unsigned f = tl_lab_filled(lab);
    ck_assert_uint_eq(f, TL_LAB_FILLED_PREDICT | TL_LAB_FILLED_RULE | TL_LAB_FILLED_ANSWER |
                             TL_LAB_FILLED_EXPLANATION | TL_LAB_FILLED_ACCEPT);
    ck_assert(tl_lab_has_answers(lab));
    char buf[80];
    ck_assert_str_eq(tl_lab_filled_text(f, buf, sizeof buf),
                     "predictions, rules, answers, explanations, accept lists");
    ck_assert_str_eq(tl_lab_filled_text(f, buf, 12), "predictions");
    tl_lab_free(lab);
    /* classify alone makes a sheet filled in; a blank classify does not */
    lab = parse("ops:\n  - op: x\nclassify: |\n  def classify(r, p):\n      return 'view'\n",
                &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_uint_eq(tl_lab_filled(lab), TL_LAB_FILLED_CLASSIFY);
    ck_assert(tl_lab_has_answers(lab));
    tl_lab_free(lab);
    lab = parse("ops:\n  - op: x\nclassify: ~\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert(!tl_lab_has_answers(lab));
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_feedback_policy)
{
    tl_lab_err err;
    tl_lab *lab = parse("ops:\n  - op: x\n", &err);
    ck_assert(lab != NULL);
    ck_assert_int_eq(lab->feedback, TL_FEEDBACK_FULL);
    ck_assert_int_eq(lab->visibility, TL_VIS_AFTER_DUE_DATE);
    ck_assert_ptr_null(lab->warnings);
    tl_lab_free(lab);
    lab = parse("feedback: wrong-ops\nvisibility: hidden\nops:\n  - op: x\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_int_eq(lab->feedback, TL_FEEDBACK_WRONG_OPS);
    ck_assert_int_eq(lab->visibility, TL_VIS_HIDDEN);
    ck_assert_ptr_null(lab->warnings);
    ck_assert_str_eq(tl_lab_feedback_name(lab->feedback), "wrong-ops");
    ck_assert_str_eq(tl_lab_visibility_name(lab->visibility), "hidden");
    tl_lab_free(lab);
    lab = parse("feedback: score-only\nvisibility: after_published\nops:\n  - op: x\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_int_eq(lab->feedback, TL_FEEDBACK_SCORE_ONLY);
    ck_assert_int_eq(lab->visibility, TL_VIS_AFTER_PUBLISHED);
    tl_lab_free(lab);
    expect_err("ops:\n  - op: x\nfeedback: verdicts\n", 3, 11, "'feedback' must be full");
    expect_err("ops:\n  - op: x\nfeedback: [full]\n", 3, 11, "feedback");
    expect_err("visibility: visible\nops:\n  - op: x\n", 1, 13, "'visibility' must be");
    /* a blank sheet keeps the policy (it reveals no answer) */
    lab = parse("feedback: score-only\nops:\n  - op: x\n    predict: view\n", &err);
    ck_assert(lab != NULL);
    char *blank = tl_lab_blank_text(lab);
    ck_assert_ptr_nonnull(strstr(blank, "feedback: score-only\n"));
    free(blank);
    tl_lab_free(lab);
}
END_TEST

START_TEST(test_sha256)
{
    char hex[65];
    tl_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    tl_sha256_hex("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    tl_sha256_hex(m, strlen(m), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* the same vectors on the portable path, then both paths on every
     * length 0..600 (tail of one or two blocks) of pseudo-random bytes */
    tl_sha256_hex_portable("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    tl_sha256_hex_portable(m, strlen(m), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    static unsigned char buf[600];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
    for (size_t n = 0; n <= sizeof buf; n++) {
        char a[65], b[65];
        tl_sha256_hex(buf, n, a);
        tl_sha256_hex_portable(buf, n, b);
        ck_assert_msg(strcmp(a, b) == 0, "length %zu: %s vs %s", n, a, b);
    }
    /* one million 'a' (FIPS 180-2 appendix B.3) */
    static char mil[1000000];
    memset(mil, 'a', sizeof mil);
    tl_sha256_hex(mil, sizeof mil, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(test_err_unknown_key)
{
    expect_err("ops:\n  - op: x\n    predcit: view\n", 3, 5,
               "unknown key 'predcit' in an op (did you mean 'predict'?)");
    expect_err("treshold: 3\nops:\n  - op: x\n", 1, 1, "did you mean 'threshold'?");
    /* an unknown top-level word is a warning (SPEC 3), not an error */
    tl_lab_err err;
    tl_lab *lab = parse("ops:\n  - op: x\nstudent: Alice\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_ptr_nonnull(lab->warnings);
    ck_assert_str_eq(lab->warnings, "t.yaml:3:1: warning: unknown key 'student' in the lab "
                                    "ignored\n");
    tl_lab_free(lab);
    tl_lab_err_free(&err);
    /* below the top level, and YAML machinery, stay errors */
    expect_err("ops:\n  - op: x\n<<: 1\n", 3, 1, "known keys: tlab, id");
    expect_err("rules: {zzzz: 1}\nops:\n  - op: x\n", 1, 9, "unknown key 'zzzz'");
}
END_TEST

START_TEST(test_quote_hint_and_points)
{
    /* a colon in an unquoted rule: libyaml's error plus the hint */
    expect_err("ops:\n  - op: x\n    rule: view: same storage\n", 3, 15, "quote this text");
    expect_err("questions:\n  - prompt: p\n    answer: it is: a view\n", 3, 18,
               "answer: \"view: shares x's storage\"");
    tl_lab_err err;
    tl_lab *lab = parse("ops:\n  - op: x\nquestions:\n  - {prompt: p, points: 3}\n"
                        "  - {prompt: q}\nrules: {required: true, points: 2}\n", &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_int_eq(lab->questions[0].points, 3);
    ck_assert_int_eq(lab->questions[1].points, 1);
    ck_assert_int_eq(lab->rules_points, 2);
    ck_assert_ptr_null(lab->warnings);
    tl_lab_free(lab);
    tl_lab_err_free(&err);
}
END_TEST

START_TEST(test_err_types)
{
    expect_err("ops: 3\n", 1, 6, "'ops' must be a list of ops, got a scalar");
    expect_err("ops:\n  - x.t()\n", 2, 5, "each op must be a mapping");
    expect_err("ops:\n  - op: x\n    points: many\n", 3, 13, "'points' must be an integer");
    expect_err("ops:\n  - op: [1]\n", 2, 9, "'op' must be a scalar, got a list");
    expect_err("device: tpu\nops:\n  - op: x\n", 1, 9, "'device' must be cpu or cuda");
    expect_err("tlab: 2\nops:\n  - op: x\n", 1, 7, "unsupported lab format version 2");
    expect_err("ops:\n  - op: x\nrules:\n  required: maybe\n", 4, 13,
               "'required' must be true or false");
    expect_err("[1, 2]\n", 1, 1, "a lab file is a mapping");
}
END_TEST

START_TEST(test_err_ids_and_op)
{
    expect_err("ops:\n  - id: a\n    op: x\n  - id: a\n    op: y\n", 4, 9,
               "duplicate id 'a' (already used at line 2)");
    expect_err("ops:\n  - id: a\n    op: x\nquestions:\n  - id: a\n", 5, 9,
               "duplicate id 'a'");
    /* 1000 ops: an explicit id equal to an earlier op's number, found
     * wherever it is, and none reported where every id differs */
    for (int dup = 0; dup < 3; dup++) {
        tl_buf b = {0};
        tl_buf_puts(&b, "ops:\n");
        for (int i = 1; i <= 1000; i++) {
            if (i == 1000 && dup == 0)
                tl_buf_puts(&b, "  - id: \"7\"\n    op: x\n"); /* op 7's own id */
            else if (i == 1000 && dup == 1)
                tl_buf_puts(&b, "  - id: q\n    op: x\n"); /* no clash */
            else if (i == 500 && dup == 2)
                tl_buf_puts(&b, "  - id: \"999\"\n    op: x\n"); /* op 999's, later */
            else
                tl_buf_puts(&b, "  - op: x\n");
        }
        tl_lab_err err;
        tl_lab *lab = parse(tl_buf_str(&b), &err);
        if (dup == 1) {
            ck_assert_msg(lab != NULL, "%s", err.msg);
            ck_assert_uint_eq(lab->nops, 1000);
            ck_assert_str_eq(lab->ops[998].id, "999");
            tl_lab_free(lab);
        } else {
            ck_assert(lab == NULL);
            ck_assert_msg(strstr(err.msg, dup == 0 ? "duplicate id '7' (already used at line 8)"
                                                   : "duplicate id '999' (already used at "
                                                     "line 501)") != NULL, "%s", err.msg);
            tl_lab_err_free(&err);
        }
        tl_buf_free(&b);
    }
    expect_err("ops:\n  - id: a\n    predict: view\n", 2, 5, "op 'a' has no 'op:'");
    expect_err("ops:\n  - op: ~\n", 2, 9, "'op' is empty");
    expect_err("ops:\n  - op: x\n    op: y\n", 3, 5, "duplicate key 'op'");
    expect_err("ops: []\n", 1, 6, "at least one op");
    expect_err("ops:\n  - op: x\n    accept: [veiw]\n", 3, 13,
               "invalid kind 'veiw' in 'accept' (did you mean 'view'?)");
}
END_TEST

START_TEST(test_err_threshold)
{
    expect_err("threshold: lots\nops:\n  - op: x\n", 1, 12,
               "'threshold' must be a count of ops or a percentage like \"80%\"");
    expect_err("threshold: 5\nops:\n  - op: x\n", 1, 12, "lab has only 1 ops");
    expect_err("threshold: 150%\nops:\n  - op: x\n", 1, 12, "between 0% and 100%");
    expect_err("threshold: -1\nops:\n  - op: x\n", 1, 12, "must not be negative");
    tl_lab_err err;
    tl_lab *lab = parse("threshold: 80%\nops:\n  - op: x\n  - op: y\n  - op: z\n", &err);
    ck_assert(lab != NULL);
    ck_assert_int_eq(tl_lab_threshold_count(lab), 3); /* ceil(2.4) */
    tl_lab_free(lab);
}
END_TEST

/* A malformed prediction does not stop the loader (SPEC 3): the op's
 * prediction is marked malformed at line:col with a one-line located
 * message containing `needle`, as written in its text, and the rendered
 * diagnostic (with the caret) is in lab->errors; the ops after it load. */
static void expect_bad_pred(const char *pred, int col, const char *needle)
{
    char text[512];
    snprintf(text, sizeof text,
             "ops:\n  - op: x\n    predict: %s\n  - op: x.t()\n    predict: view\n", pred);
    tl_lab_err err;
    tl_lab *lab = parse(text, &err);
    ck_assert_msg(lab != NULL, "'%s' stopped the loader: %s", pred, err.msg);
    ck_assert_uint_eq(lab->nops, 2);
    const tl_prediction *p = &lab->ops[0].predict;
    ck_assert_msg(p->malformed, "'%s' was not malformed", pred);
    ck_assert(!p->blank);
    ck_assert_int_eq(p->kind, TL_KIND_NONE);
    ck_assert_int_eq(p->bad_line, 3);
    ck_assert_int_eq(p->bad_col, col);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.yaml:3:%d: error: ", col);
    ck_assert_msg(!strncmp(p->bad_msg, prefix, strlen(prefix)), "%s", p->bad_msg);
    ck_assert_msg(strstr(p->bad_msg, needle) != NULL, "message '%s' lacks '%s'", p->bad_msg,
                  needle);
    ck_assert_ptr_null(strchr(p->bad_msg, '\n'));
    ck_assert_ptr_nonnull(p->text);
    ck_assert_ptr_nonnull(lab->errors);
    ck_assert_ptr_nonnull(strstr(lab->errors, prefix));
    ck_assert_ptr_nonnull(strstr(lab->errors, "^"));
    ck_assert(!lab->ops[1].predict.malformed);
    ck_assert_int_eq(lab->ops[1].predict.kind, TL_KIND_VIEW);
    tl_lab_free(lab);
}

START_TEST(test_err_predictions)
{
    expect_bad_pred("veiw", 14,
                    "invalid prediction 'veiw' (did you mean 'view'?); valid predictions: view, "
                    "copy, alias, error, sometimes, or a mapping {kind, shape, stride, offset, "
                    "contiguous, dtype, value, error}");
    expect_bad_pred("a view", 14, "invalid prediction 'a view' (did you mean 'view'?)");
    expect_bad_pred("[view]", 14, "invalid prediction");
    expect_bad_pred("value", 14, "invalid prediction 'value'");
    expect_bad_pred("{knd: view}", 15, "unknown key 'knd' in a prediction (did you mean 'kind'?)");
    expect_bad_pred("{kind: view, kind: copy}", 27, "duplicate key 'kind' in a prediction");
    expect_bad_pred("{shape: 3}", 22, "'shape' must be a list of integers");
    expect_bad_pred("{dtype: float33}", 22, "unknown dtype");
    expect_bad_pred("{contiguous: maybe}", 27, "'contiguous' must be true or false");
    expect_bad_pred("{kind: view, value: 3}", 14, "use kind: value");
    /* issue #28.1: fields without a kind would be graded on the fields
     * alone; a tensor op's prediction must name its kind */
    expect_bad_pred("{dtype: float32}", 14, "a prediction mapping must name its kind");
    expect_bad_pred("{shape: [4, 6], stride: [6, 1]}", 14, "must name its kind");
    /* what names its kind: kind:, value: (not a tensor), error: (kind error) */
    tl_lab_err err;
    tl_lab *lab = parse("ops:\n  - op: x\n    predict: {value: 3}\n  - op: y\n    predict: "
                        "{error: TypeError}\n  - op: z\n    predict: {kind: ~, dtype: ~}\n",
                        &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_int_eq(lab->ops[0].predict.kind, TL_KIND_VALUE);
    ck_assert_int_eq(lab->ops[1].predict.kind, TL_KIND_ERROR);
    ck_assert(lab->ops[2].predict.blank && !lab->ops[2].predict.malformed);
    ck_assert_ptr_null(lab->errors);
    tl_lab_free(lab);
    /* everything else about an op still stops the loader */
    expect_err("ops:\n  - op: x\n    predict: veiw\n    points: many\n", 4, 13,
               "'points' must be an integer");
}
END_TEST

START_TEST(test_err_bytes)
{
    expect_err("ops:\n\t- op: x\n", 2, 1, "tab character in indentation");
    expect_err("id: caf\xe9\nops:\n  - op: x\n", 1, 8, "invalid UTF-8");
    expect_err("", 1, 1, "empty lab file");
    expect_err("# only a comment\n\n", 1, 1, "empty lab file");
    expect_err("---\n...\n", 1, 1, "empty lab file");
    expect_err("ops: &a\n  - op: x\n", 1, 6, "YAML anchors (&a) are not allowed");
    expect_err("a: &b 1\n", 1, 4, "anchors");
    expect_err("id: \xff\nops:\n  - op: x\n", 1, 5, "invalid UTF-8 byte 0xff");
    expect_err("ops:\n  - op: x\nid: *x\n", 3, 5, "YAML aliases (*x) are not allowed");
    expect_err("ops:\n  - op: x\n   bad: [\n", 3, 4, "invalid YAML: did not find expected");
    expect_err("ops:\n  - op: x\n---\nops: []\n", 3, 1, "one YAML document");
}
END_TEST

START_TEST(test_limits_ops)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "ops:\n");
    for (int i = 0; i < TL_LAB_MAX_OPS; i++)
        tl_buf_puts(&b, "  - op: x\n");
    tl_lab_err err;
    tl_lab *lab = parse(tl_buf_str(&b), &err);
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_uint_eq(lab->nops, TL_LAB_MAX_OPS);
    tl_lab_free(lab);
    tl_buf_puts(&b, "  - op: x\n");
    expect_err(tl_buf_str(&b), TL_LAB_MAX_OPS + 2, 5, "too many ops (1001; at most 1000)");
    tl_buf_free(&b);
}
END_TEST

START_TEST(test_limits_size_depth)
{
    size_t n = TL_LAB_MAX_BYTES + 10;
    char *big = malloc(n + 1);
    memset(big, '#', n);
    big[n] = 0;
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_parse("t.yaml", big, n, false, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "1 MiB"));
    tl_lab_err_free(&err);
    free(big);
    tl_buf b = {0};
    tl_buf_puts(&b, "ops:\n  - op: x\nid: ");
    for (int i = 0; i < 100; i++)
        tl_buf_putc(&b, '[');
    tl_buf_puts(&b, "\n");
    ck_assert_ptr_null(parse(tl_buf_str(&b), &err));
    ck_assert_msg(strstr(err.msg, "nested deeper than 64") != NULL, "%s", err.msg);
    tl_lab_err_free(&err);
    tl_buf_free(&b);
}
END_TEST

/* Issue #28.2: loading is linear in the file's size. 99,000 unknown
 * top-level keys (each a warning; 100,000 pass the node limit) took 30 s when every key was compared
 * with every earlier one; now well under a second (the bound is generous,
 * scaled for the sanitizer and valgrind runs). A duplicate among them is
 * still found, located at the second one. */
START_TEST(test_limits_many_keys)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "ops:\n  - op: x\n");
    for (int i = 0; i < 99000; i++) /* 198,005 nodes: under TL_LAB_MAX_NODES */
        tl_buf_printf(&b, "k%d: 1\n", i);
    double limit = 5;
    const char *mul = getenv("CK_TIMEOUT_MULTIPLIER");
    if (mul && atof(mul) > 1)
        limit *= atof(mul);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tl_lab_err err;
    tl_lab *lab = parse(tl_buf_str(&b), &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_msg(lab != NULL, "%s", err.msg);
    ck_assert_msg(s < limit, "99,000 keys took %.2f s (limit %.0f s)", s, limit);
    ck_assert_ptr_nonnull(strstr(lab->warnings, "t.yaml:99002:1: warning: unknown key 'k98999'"));
    tl_lab_free(lab);
    tl_buf_puts(&b, "k5: 2\n");
    expect_err(tl_buf_str(&b), 99003, 1, "duplicate key 'k5' in the lab (first at line 8)");
    tl_buf_free(&b);
}
END_TEST

START_TEST(test_load_missing_file)
{
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_load("/nonexistent/lab.yaml", false, &err));
    ck_assert_ptr_nonnull(strstr(err.rendered, "/nonexistent/lab.yaml: error: cannot open"));
    tl_lab_err_free(&err);
}
END_TEST

static Suite *tl_lab_suite(void)
{
    Suite *s = suite_create("lab");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_model);
    tcase_add_test(core, test_defaults);
    tcase_add_test(core, test_blank_text);
    tcase_add_test(core, test_blank_master);
    tcase_add_test(core, test_blank_comments);
    tcase_add_test(core, test_filled);
    tcase_add_test(core, test_feedback_policy);
    tcase_add_test(core, test_sha256);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_ops);
    tcase_add_test(limits, test_limits_size_depth);
    tcase_add_test(limits, test_limits_many_keys);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_err_unknown_key);
    tcase_add_test(errors, test_quote_hint_and_points);
    tcase_add_test(errors, test_err_types);
    tcase_add_test(errors, test_err_ids_and_op);
    tcase_add_test(errors, test_err_threshold);
    tcase_add_test(errors, test_err_predictions);
    tcase_add_test(errors, test_err_bytes);
    tcase_add_test(errors, test_load_missing_file);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_lab_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
