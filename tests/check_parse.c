/* check_parse.c - unit tests of the op-language parser (src/parse.c):
 * precedence and associativity (through tl_ast_dump), statements, spans,
 * unsupported constructs, and the depth/height limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_lang.h"
#include "ast.h"
#include "parse.h"
#include "parse_cache.h"

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

/* Random chains of binary operators (all six levels, with unary minus and
 * ** on some operands) parse to the same tree as the same chain with every
 * operation parenthesized by a shunting-yard reference, written here. */
static const struct {
    const char *text;
    int level; /* | 0, ^ 1, & 2, shifts 3, + - 4, * / // % @ 5 */
} chain_ops[] = {{"|", 0}, {"^", 1}, {"&", 2}, {"<<", 3}, {">>", 3}, {"+", 4},
                 {"-", 4}, {"*", 5}, {"/", 5}, {"//", 5}, {"%", 5}, {"@", 5}};

START_TEST(test_precedence_random)
{
    unsigned seed = 2024;
    for (int round = 0; round < 3000; round++) {
        char operand[16][16], src[512], vals[16][512];
        int nops = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
        int op[16];
        for (int i = 0; i <= nops; i++) {
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 16) % 4) {
            case 0: snprintf(operand[i], sizeof operand[i], "-v%d", i); break;
            case 1: snprintf(operand[i], sizeof operand[i], "v%d ** 2", i); break;
            default: snprintf(operand[i], sizeof operand[i], "v%d", i); break;
            }
            if (i < nops) {
                seed = seed * 1103515245u + 12345u;
                op[i] = (int)((seed >> 16) % (sizeof chain_ops / sizeof *chain_ops));
            }
        }
        size_t k = 0;
        for (int i = 0; i <= nops; i++)
            k += (size_t)snprintf(src + k, sizeof src - k, i ? " %s %s" : "%s%s",
                                  i ? chain_ops[op[i - 1]].text : "", operand[i]);
        /* shunting-yard: every left-associative operator pops the stacked
         * ones of its level or tighter, each popped one parenthesizes */
        int nv = 0, stack[16], ns = 0;
        for (int i = 0; i <= nops; i++) {
            snprintf(vals[nv++], sizeof vals[0], "(%s)", operand[i]);
            int lv = i < nops ? chain_ops[op[i]].level : -1;
            while (ns > 0 && chain_ops[stack[ns - 1]].level >= lv) {
                char tmp[512];
                snprintf(tmp, sizeof tmp, "(%s %s %s)", vals[nv - 2],
                         chain_ops[stack[ns - 1]].text, vals[nv - 1]);
                nv--;
                memcpy(vals[nv - 1], tmp, sizeof tmp);
                ns--;
            }
            if (i < nops)
                stack[ns++] = op[i];
        }
        ck_assert_int_eq(nv, 1);
        char *got = dump(src), *want = dump(vals[0]);
        ck_assert_msg(strcmp(got, want) == 0, "<%s>: %s, not %s (from %s)", src, got, want,
                      vals[0]);
        free(got);
        free(want);
    }
}
END_TEST

/* The parse cache answers a text it keeps with the very tree it parsed,
 * keeps a whole sheet's worth (1024), and puts out the least recently used
 * first; every answer dumps as a fresh parse does. */
START_TEST(test_parse_cache)
{
    enum { N = 1100 };
    tl_ast **first = calloc(N, sizeof *first);
    char text[64];
    tl_error err;
    for (int i = 0; i < N; i++) {
        int n = snprintf(text, sizeof text, "x%d = y[%d] + %d * z", i, i % 7, i);
        tl_error_clear(&err);
        ck_assert_int_eq(tl_parse_cached(text, (size_t)n, 64, &first[i], &err), 0);
    }
    for (int i = N - 1; i >= 0; i--) { /* newest first: no hit evicts */
        int n = snprintf(text, sizeof text, "x%d = y[%d] + %d * z", i, i % 7, i);
        tl_ast *again;
        tl_error_clear(&err);
        ck_assert_int_eq(tl_parse_cached(text, (size_t)n, 64, &again, &err), 0);
        /* the first 76 were put out by the last 76 */
        if (i >= N - 1024)
            ck_assert_msg(again == first[i], "text %d was not kept", i);
        else
            ck_assert_msg(again != first[i], "text %d should have been put out", i);
        char *a = dump(text);
        tl_buf b = {0};
        tl_ast_dump(again->stmts[0], &b);
        ck_assert_str_eq(tl_buf_str(&b), a);
        tl_buf_free(&b);
        free(a);
        tl_ast_free(again);
    }
    /* the same text at another depth is another entry */
    tl_ast *deep;
    int n = snprintf(text, sizeof text, "x%d = y[%d] + %d * z", N - 1, (N - 1) % 7, N - 1);
    ck_assert_int_eq(tl_parse_cached(text, (size_t)n, 32, &deep, &err), 0);
    ck_assert(deep != first[N - 1]);
    tl_ast_free(deep);
    for (int i = 0; i < N; i++)
        tl_ast_free(first[i]);
    free(first);
}
END_TEST

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
    CHECK_DUMP("from einops import rearrange as r, reduce",
               "(Import einops.rearrange r); (Import einops.reduce reduce)");
    CHECK_DUMP("from einops import (repeat,)", "(Import einops.repeat repeat)");
    CHECK_DUMP("import einops", "(Import einops einops)");
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

START_TEST(test_blocks)
{
    CHECK_DUMP("if a:\n    b\nelif c:\n    d\nelse:\n    e\n",
               "(If a (Block (Expr b)) (Block (If c (Block (Expr d)) (Block (Expr e)))))");
    CHECK_DUMP("while x: x -= 1", "(While x (Block (AugAssign - x 1)) _)");
    CHECK_DUMP("for i, j in z:\n    break\nelse:\n    pass",
               "(For (Tuple i j) z (Block (Break)) (Block (Pass)))");
    CHECK_DUMP("def f(a, b=2):\n    return a + b",
               "(Def f (Param a _) (Param b 2) (Block (Return (Binary + a b))))");
    CHECK_DUMP("g = lambda x, y=1: x * y",
               "(Assign g (Lambda (Param x _) (Param y 1) (Binary * x y)))");
    CHECK_DUMP("try:\n    a\nexcept (E, F) as e:\n    b\nexcept:\n    c\nelse:\n    d\n"
               "finally:\n    f",
               "(Try (Block (Expr a)) (Handler as e (Tuple E F) (Block (Expr b))) "
               "(Handler _ (Block (Expr c))) (Block (Expr d)) (Block (Expr f)))");
    CHECK_DUMP("raise E('m') from c", "(Raise (Call E 'm') c)");
    CHECK_DUMP("raise", "(Raise _ _)");
    CHECK_DUMP("with torch.no_grad() as g: y = x",
               "(With (Call (Attr torch no_grad)) g (Block (Assign y x)))");
    CHECK_DUMP("del a, b[0]", "(Del a (Subscript b 0))");
    CHECK_DUMP("def f():\n    global g\n    g = 1",
               "(Def f (Block (Global g) (Assign g 1)))");
    CHECK_DUMP("if a:\n\n    # c\n    b\n\nc", "(If a (Block (Expr b)) _); (Expr c)");
}
END_TEST

START_TEST(test_fstrings)
{
    CHECK_DUMP("f'a{x}b'", "(Expr (FString 'a' (Formatted x _) 'b'))");
    CHECK_DUMP("f'{x!r:>{w}.2f}'",
               "(Expr (FString (Formatted !r x (FString '>' (Formatted w _) '.2f'))))");
    CHECK_DUMP("f'{{}}{a[0]:,}'", "(Expr (FString '{}' (Formatted (Subscript a 0) (FString ','))))");
    CHECK_DUMP("'a' f'{b}' 'c'", "(Expr (FString 'a' (Formatted b _) 'c'))");
    CHECK_DUMP("f'{x = }'", "(Expr (FString (Formatted !r x _)))");
    CHECK_DUMP("f'\\t{a, b}'", "(Expr (FString '\t' (Formatted (Tuple a b) _)))");
    CHECK_DUMP("f\"{d['k']}\"", "(Expr (FString (Formatted (Subscript d 'k') _)))");
    /* spans of field expressions are offsets in the whole source */
    tl_ast *ast;
    tl_error err;
    const char *src = "y = f'ab{x.t()}'";
    ck_assert_int_eq(tl_parse(src, strlen(src), 64, &ast, &err), 0);
    const tl_node *fs = ast->stmts[0]->kids[1];
    ck_assert_int_eq(fs->kind, TL_N_FSTRING);
    const tl_node *call = fs->kids[1]->kids[0];
    ck_assert_int_eq(call->kind, TL_N_CALL);
    ck_assert_int_eq(call->span.start, 9);
    ck_assert_int_eq(call->span.end, 14);
    tl_ast_free(ast);
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
        {"def f(*a): pass", TL_ERR_UNSUPPORTED,
         "tlab supports only positional parameters with optional defaults (no *args, "
         "**kwargs, / or *)", 6},
        {"def f(a=1, b): pass", TL_ERR_SYNTAX, "non-default argument follows default argument",
         11},
        {"def f(a, a): pass", TL_ERR_SYNTAX, "duplicate argument 'a' in function definition", 9},
        {"return 1", TL_ERR_SYNTAX, "'return' outside function", 0},
        {"break", TL_ERR_SYNTAX, "'break' outside loop", 0},
        {"def f():\n    for i in x:\n        def g():\n            continue\n", TL_ERR_SYNTAX,
         "'continue' outside loop", 54},
        {"if x:\ny", TL_ERR_SYNTAX,
         "expected an indented block after 'if' statement on line 1", 6},
        {"def f():\n\nx", TL_ERR_SYNTAX,
         "expected an indented block after function definition on line 1", 10},
        {"x = 1\n  y = 2", TL_ERR_SYNTAX, "unexpected indent", 8},
        {" x = 1", TL_ERR_SYNTAX, "unexpected indent", 1},
        {"try:\n  x\ny", TL_ERR_SYNTAX, "expected 'except' or 'finally' block", 9},
        {"try: x\nexcept: y\nexcept E: z", TL_ERR_SYNTAX, "default 'except:' must be last",
         17},
        {"if x\n  y", TL_ERR_SYNTAX, "expected ':'", 4},
        {"else: x", TL_ERR_SYNTAX, "invalid syntax", 0},
        {"x = f'{}'", TL_ERR_SYNTAX, "f-string: empty expression not allowed", 6},
        {"x = f'{a'", TL_ERR_SYNTAX, "f-string: expecting '}'", 6},
        {"x = f'a}'", TL_ERR_SYNTAX, "f-string: single '}' is not allowed", 7},
        {"x = f'{a!x}'", TL_ERR_SYNTAX,
         "f-string: invalid conversion character: expected 's', 'r', or 'a'", 8},
        {"x = f'{a:{b:{c:{d}}}}'", TL_ERR_SYNTAX, "f-string: expressions nested too deeply",
         14},
        {"x = f'{a +}'", TL_ERR_SYNTAX, "invalid syntax", 10},
        {"x = f'{\\n}'", TL_ERR_SYNTAX, "f-string expression part cannot include a backslash",
         7},
        {"y = lambda *a: 1", TL_ERR_UNSUPPORTED,
         "tlab supports only positional parameters with optional defaults (no *args, "
         "**kwargs, / or *)", 11},
        {"with a, b: pass", TL_ERR_UNSUPPORTED,
         "tlab supports one context manager per 'with' statement", 6},
        {"class A: pass", TL_ERR_UNSUPPORTED, "tlab does not support 'class' statements", 0},
        {"y = {1, 2}", TL_ERR_UNSUPPORTED, "tlab does not support set literals", 4},
        {"y = {**a}", TL_ERR_UNSUPPORTED, "tlab does not support ** in dict displays", 5},
        {"y = {k: 1 for k in a}", TL_ERR_UNSUPPORTED, "tlab does not support dict comprehensions", 10},
        {"del x.a", TL_ERR_UNSUPPORTED, "tlab does not support deleting attributes", 4},
        {"import sys", TL_ERR_UNSUPPORTED,
         "tlab does not support importing 'sys' (only torch, numpy, os, h5py and einops)", 7},
        {"from einops import *", TL_ERR_UNSUPPORTED,
         "tlab does not support 'from einops import *'", 19},
        {"from einops.layers import Rearrange", TL_ERR_UNSUPPORTED,
         "tlab does not support 'from ... import' except from einops (use 'import torch' or "
         "'import numpy as np')", 0},
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
    tcase_add_test(core, test_precedence_random);
    tcase_add_test(core, test_parse_cache);
    tcase_add_test(core, test_trailers);
    tcase_add_test(core, test_displays);
    tcase_add_test(core, test_statements);
    tcase_add_test(core, test_blocks);
    tcase_add_test(core, test_fstrings);
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
