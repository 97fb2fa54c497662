/* check_parse.c - unit tests of the op-language parser (src/parse.c):
 * precedence and associativity (through tl_ast_dump), statements, spans,
 * unsupported constructs, and the depth/height limits. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_lang.h"
#include "ast.h"
#include "parse.h"

/* Dump of every statement, separated by "; " */
static char *dump(const char *src)
{
    tl_ast *ast;
    tl_error err;
    tl_error_clear(&err);
    int rc = tl_parse(src, strlen(src), 64, &ast, &err);
    ck_assert_msg(rc == 0, "parse failed on <%s>: %s", src, err.msg);
    tl_buf b = {0};
    for (size_t i = 0; i < ast->nstmts; i++) {
        if (i)
            tl_buf_puts(&b, "; ");
        tl_ast_dump(ast->stmts[i], &b);
    }
    tl_ast_free(ast);
    return tl_buf_steal(&b);
}

#define CHECK_DUMP(src, want)                                                  \
    do {                                                                       \
        char *got_ = dump(src);                                                \
        ck_assert_str_eq(got_, want);                                          \
        free(got_);                                                            \
    } while (0)

static tl_error parse_fail(const char *src, int max_depth)
{
    tl_ast *ast;
    tl_error err;
    tl_error_clear(&err);
    int rc = tl_parse(src, strlen(src), max_depth, &ast, &err);
    ck_assert_msg(rc < 0, "parse succeeded on <%s>", src);
    ck_assert(ast == NULL);
    return err;
}

START_TEST(test_precedence)
{
    CHECK_DUMP("1 + 2 * 3", "(Expr (Binary + 1 (Binary * 2 3)))");
    CHECK_DUMP("10 - 2 - 3", "(Expr (Binary - (Binary - 10 2) 3))");
    CHECK_DUMP("2 ** 3 ** 2", "(Expr (Binary ** 2 (Binary ** 3 2)))");
    CHECK_DUMP("-2 ** 2", "(Expr (Unary - (Binary ** 2 2)))");
    CHECK_DUMP("a @ b + c", "(Expr (Binary + (Binary @ a b) c))");
    CHECK_DUMP("a | b ^ c & d << 1", "(Expr (Binary | a (Binary ^ b (Binary & c (Binary << d 1)))))");
    CHECK_DUMP("not a == b", "(Expr (Unary not (Compare a == b)))");
    CHECK_DUMP("a < b <= c", "(Expr (Compare a < b <= c))");
    CHECK_DUMP("a is not b", "(Expr (Compare a is not b))");
    CHECK_DUMP("a not in b", "(Expr (Compare a not in b))");
    CHECK_DUMP("a or b and c", "(Expr (BoolOp or a (BoolOp and b c)))");
    CHECK_DUMP("a if c else b", "(Expr (IfExp a c b))");
    CHECK_DUMP("~x", "(Expr (Unary ~ x))");
}
END_TEST

START_TEST(test_trailers)
{
    CHECK_DUMP("x.t().view(24)", "(Expr (Call (Attr (Call (Attr x t)) view) 24))");
    CHECK_DUMP("x[1:, ::2]", "(Expr (Subscript x (Tuple (Slice 1 _ _) (Slice _ _ 2))))");
    CHECK_DUMP("x[..., None]", "(Expr (Subscript x (Tuple ... None)))");
    CHECK_DUMP("x[0]", "(Expr (Subscript x 0))");
    CHECK_DUMP("x[(0, 1)]", "(Expr (Subscript x (Tuple 0 1)))");
    CHECK_DUMP("x[0,]", "(Expr (Subscript x (Tuple 0)))");
    CHECK_DUMP("f(1, *s, dim=0)", "(Expr (Call f 1 (Starred s) (Keyword dim 0)))");
    CHECK_DUMP("torch.cat([a, b], 1)", "(Expr (Call (Attr torch cat) (List a b) 1))");
}
END_TEST

START_TEST(test_displays)
{
    CHECK_DUMP("()", "(Expr (Tuple))");
    CHECK_DUMP("(1,)", "(Expr (Tuple 1))");
    CHECK_DUMP("(1)", "(Expr 1)");
    CHECK_DUMP("[]", "(Expr (List))");
    CHECK_DUMP("[1, 2,]", "(Expr (List 1 2))");
    CHECK_DUMP("[i * 2 for i in r if i]",
               "(Expr (ListComp (Binary * i 2) i r i))");
    CHECK_DUMP("[a for a, b in z]", "(Expr (ListComp a (Tuple a b) z _))");
    CHECK_DUMP("'a' \"b\"", "(Expr 'ab')");
    CHECK_DUMP("1, 2", "(Expr (Tuple 1 2))");
}
END_TEST

START_TEST(test_statements)
{
    CHECK_DUMP("import torch", "(Import torch torch)");
    CHECK_DUMP("import numpy as np, torch", "(Import numpy np); (Import torch torch)");
    CHECK_DUMP("a, b = x.split(2)", "(Assign (Tuple a b) (Call (Attr x split) 2))");
    CHECK_DUMP("a = b = 1", "(Assign a b 1)");
    CHECK_DUMP("x[0] += 1", "(AugAssign + (Subscript x 0) 1)");
    CHECK_DUMP("x //= 2", "(AugAssign // x 2)");
    CHECK_DUMP("assert x, 'm'", "(Assert x 'm')");
    CHECK_DUMP("assert x", "(Assert x _)");
    CHECK_DUMP("pass; x", "(Pass); (Expr x)");
    CHECK_DUMP("a = 1;", "(Assign a 1)");
    CHECK_DUMP("x = -9223372036854775808", "(Assign x -9223372036854775808)");
    CHECK_DUMP("\n\n# c\nx\n\n", "(Expr x)");
}
END_TEST

START_TEST(test_spans)
{
    tl_ast *ast;
    tl_error err;
    const char *src = "y = x.t().view(24)";
    ck_assert_int_eq(tl_parse(src, strlen(src), 64, &ast, &err), 0);
    const tl_node *call = ast->stmts[0]->kids[1];
    ck_assert_int_eq(call->kind, TL_N_CALL);
    ck_assert_int_eq(call->span.start, 4);
    ck_assert_int_eq(call->span.end, 18);
    ck_assert_int_eq(call->kids[0]->kids[0]->span.end, 9); /* x.t() */
    tl_ast_free(ast);
}
END_TEST

START_TEST(test_errors)
{
    static const lang_err_case cases[] = {
        {"x = 1 +", TL_ERR_SYNTAX, "invalid syntax", 7},
        {"x = 1 2", TL_ERR_SYNTAX, "invalid syntax", 6},
        {"1 = x", TL_ERR_SYNTAX,
         "cannot assign to literal here. Maybe you meant '==' instead of '='?", 0},
        {"f() = 1", TL_ERR_SYNTAX,
         "cannot assign to function call here. Maybe you meant '==' instead of '='?", 0},
        {"x = y if z", TL_ERR_SYNTAX, "expected 'else' after 'if' expression", 4},
        {"f(a=1, 2)", TL_ERR_SYNTAX, "positional argument follows keyword argument", 7},
        {"f(a=1, a=2)", TL_ERR_SYNTAX, "keyword argument repeated: a", 7},
        {"x = *y", TL_ERR_SYNTAX, "can't use starred expression here", 4},
        {"x[]", TL_ERR_SYNTAX, "invalid syntax", 2},
        {"(a, b) += 1", TL_ERR_SYNTAX,
         "'tuple' is an illegal expression for augmented assignment", 0},
        {"def f(): pass", TL_ERR_UNSUPPORTED, "tlab does not support 'def' statements", 0},
        {"y = lambda: 1", TL_ERR_UNSUPPORTED, "tlab does not support lambda expressions", 4},
        {"y = {}", TL_ERR_UNSUPPORTED, "tlab does not support dict or set literals", 4},
        {"x.a = 1", TL_ERR_UNSUPPORTED, "tlab does not support assigning to attributes", 0},
        {"import os", TL_ERR_UNSUPPORTED,
         "tlab does not support importing 'os' (only torch and numpy)", 7},
        {"[i for i in a for j in b]", TL_ERR_UNSUPPORTED,
         "tlab supports list comprehensions with one 'for' and at most one 'if'", 14},
        {"f(x for x in y)", TL_ERR_UNSUPPORTED,
         "tlab does not support generator expressions (use a list comprehension)", 4},
        {"[x.a for x.a in y]", TL_ERR_UNSUPPORTED,
         "tlab supports only names and tuples of names as comprehension targets", 9},
        {"x = 9223372036854775808", TL_ERR_UNSUPPORTED,
         "integer literal too large (tlab integers are 64-bit)", 4},
    };
    lang_check_errors(cases, sizeof cases / sizeof cases[0], parse_fail, false);
}
END_TEST

START_TEST(test_limits)
{
    tl_error e = parse_fail("- - - - - 1", 3);
    ck_assert_int_eq(e.kind, TL_ERR_LIMIT);
    ck_assert_str_eq(e.msg, "expression nested too deeply (limit 3)");
    /* long left-deep chains are bounded by the height limit */
    tl_buf b = {0};
    tl_buf_puts(&b, "x = 1");
    for (int i = 0; i < 2000; i++)
        tl_buf_puts(&b, "+1");
    e = parse_fail(tl_buf_str(&b), 64);
    ck_assert_int_eq(e.kind, TL_ERR_LIMIT);
    ck_assert_str_eq(e.msg, "expression too long or nested too deeply (limit 512 levels)");
    tl_buf_free(&b);
    /* a chain within the bound parses */
    tl_buf_puts(&b, "x = 1");
    for (int i = 0; i < 100; i++)
        tl_buf_puts(&b, "+1");
    tl_ast *ast;
    tl_error err;
    ck_assert_int_eq(tl_parse(tl_buf_str(&b), b.len, 64, &ast, &err), 0);
    tl_ast_free(ast);
    tl_buf_free(&b);
    /* attribute chains too */
    tl_buf_puts(&b, "a");
    for (int i = 0; i < 5000; i++)
        tl_buf_puts(&b, ".b");
    e = parse_fail(tl_buf_str(&b), 64);
    ck_assert_int_eq(e.kind, TL_ERR_LIMIT);
    tl_buf_free(&b);
}
END_TEST

START_TEST(test_random_tokens)
{
    /* random token soup: always a clean result */
    static const char *const pieces[] = {"x", "1", "(", ")", "[", "]", ",", ":", ".",
                                         "+", "*", "**", "=", "if", "else", "for",
                                         "in", "not", "lambda", "'s'", "\n", ";",
                                         "...", "None", "-", "[i for i in x]"};
    unsigned seed = 7;
    for (int round = 0; round < 3000; round++) {
        tl_buf b = {0};
        int n = round % 40;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            tl_buf_puts(&b, pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])]);
            tl_buf_putc(&b, ' ');
        }
        tl_ast *ast;
        tl_error err;
        tl_error_clear(&err);
        if (tl_parse(tl_buf_str(&b), b.len, 64, &ast, &err) == 0)
            tl_ast_free(ast);
        else
            ck_assert(err.kind == TL_ERR_SYNTAX || err.kind == TL_ERR_UNSUPPORTED ||
                      err.kind == TL_ERR_LIMIT);
        tl_buf_free(&b);
    }
}
END_TEST

static Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_precedence);
    tcase_add_test(core, test_trailers);
    tcase_add_test(core, test_displays);
    tcase_add_test(core, test_statements);
    tcase_add_test(core, test_spans);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits);
    tcase_add_test(limits, test_random_tokens);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(parse_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
