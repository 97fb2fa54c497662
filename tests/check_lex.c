/* check_lex.c - unit tests of the op-language tokenizer (src/lex.c):
 * token kinds, decoded literals, byte spans, logical lines, and CPython's
 * error texts for malformed input. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_lang.h"
#include "lex.h"

static tl_toklist lex_ok(const char *s)
{
    tl_toklist tl;
    tl_error err;
    tl_error_clear(&err);
    int rc = tl_lex(s, strlen(s), 64, &tl, &err);
    ck_assert_msg(rc == 0, "lex failed on <%s>: %s", s, err.msg);
    return tl;
}

static tl_error lex_fail(const char *s, int max_depth)
{
    tl_toklist tl;
    tl_error err;
    tl_error_clear(&err);
    int rc = tl_lex(s, strlen(s), max_depth, &tl, &err);
    ck_assert_msg(rc < 0, "lex succeeded on <%s>", s);
    return err;
}

START_TEST(test_kinds_and_spans)
{
    tl_toklist tl = lex_ok("x.t().view(24)");
    /* x . t ( ) . view ( 24 ) NEWLINE EOF */
    ck_assert_uint_eq(tl.n, 12);
    ck_assert_int_eq(tl.toks[0].kind, TL_TOK_NAME);
    ck_assert_str_eq(tl.toks[0].str, "x");
    ck_assert_int_eq(tl.toks[6].kind, TL_TOK_NAME);
    ck_assert_str_eq(tl.toks[6].str, "view");
    ck_assert_int_eq(tl.toks[6].span.start, 6);
    ck_assert_int_eq(tl.toks[6].span.end, 10);
    ck_assert_int_eq(tl.toks[8].kind, TL_TOK_INT);
    ck_assert_int_eq(tl.toks[8].u.i, 24);
    ck_assert_int_eq(tl.toks[8].span.start, 11);
    ck_assert_int_eq(tl.toks[10].kind, TL_TOK_NEWLINE);
    ck_assert_int_eq(tl.toks[11].kind, TL_TOK_EOF);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_numbers)
{
    tl_toklist tl = lex_ok("0x1f 1_000 1e-3 .5 2. 0o17 0b101 007.5");
    ck_assert_int_eq(tl.toks[0].u.i, 31);
    ck_assert_int_eq(tl.toks[1].u.i, 1000);
    ck_assert_int_eq(tl.toks[2].kind, TL_TOK_FLOAT);
    ck_assert_double_eq(tl.toks[2].u.f, 1e-3);
    ck_assert_double_eq(tl.toks[3].u.f, 0.5);
    ck_assert_double_eq(tl.toks[4].u.f, 2.0);
    ck_assert_int_eq(tl.toks[5].u.i, 15);
    ck_assert_int_eq(tl.toks[6].u.i, 5);
    ck_assert_double_eq(tl.toks[7].u.f, 7.5);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_strings)
{
    tl_toklist tl = lex_ok("'a\\tb' \"it's\" r'\\n' '\\x41\\u00e9' '''x\ny'''");
    ck_assert_str_eq(tl.toks[0].str, "a\tb");
    ck_assert_str_eq(tl.toks[1].str, "it's");
    ck_assert_str_eq(tl.toks[2].str, "\\n");
    ck_assert_str_eq(tl.toks[3].str, "A\xc3\xa9");
    ck_assert_str_eq(tl.toks[4].str, "x\ny");
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_operators)
{
    tl_toklist tl = lex_ok("a **= b // c ... -> != <<= @");
    ck_assert_int_eq(tl.toks[1].u.op, TL_OP_DSTAREQ);
    ck_assert_int_eq(tl.toks[3].u.op, TL_OP_DSLASH);
    ck_assert_int_eq(tl.toks[5].u.op, TL_OP_ELLIPSIS);
    ck_assert_int_eq(tl.toks[6].u.op, TL_OP_ARROW);
    ck_assert_int_eq(tl.toks[7].u.op, TL_OP_NE);
    ck_assert_int_eq(tl.toks[8].u.op, TL_OP_LSHIFTEQ);
    ck_assert_int_eq(tl.toks[9].u.op, TL_OP_AT);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_lines)
{
    /* brackets and backslashes continue lines; comments and blank lines
     * vanish; ';' is a token */
    tl_toklist tl = lex_ok("a = (1,\n 2)  # c\n\n\nb = 1 + \\\n 2; c\n");
    int newlines = 0, semis = 0;
    for (size_t i = 0; i < tl.n; i++) {
        newlines += tl.toks[i].kind == TL_TOK_NEWLINE;
        semis += tl.toks[i].kind == TL_TOK_OP && tl.toks[i].u.op == TL_OP_SEMI;
    }
    ck_assert_int_eq(newlines, 2);
    ck_assert_int_eq(semis, 1);
    tl_toklist_free(&tl);
    tl = lex_ok("");
    ck_assert_uint_eq(tl.n, 1);
    ck_assert_int_eq(tl.toks[0].kind, TL_TOK_EOF);
    tl_toklist_free(&tl);
    tl = lex_ok("   # only a comment\n\n");
    ck_assert_uint_eq(tl.n, 1);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_keywords)
{
    tl_toklist tl = lex_ok("not in is lambda None Nonex");
    ck_assert_int_eq(tl.toks[0].u.kw, TL_KW_NOT);
    ck_assert_int_eq(tl.toks[1].u.kw, TL_KW_IN);
    ck_assert_int_eq(tl.toks[2].u.kw, TL_KW_IS);
    ck_assert_int_eq(tl.toks[3].u.kw, TL_KW_LAMBDA);
    ck_assert_int_eq(tl.toks[4].u.kw, TL_KW_NONE);
    ck_assert_int_eq(tl.toks[5].kind, TL_TOK_NAME);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_errors)
{
    static const lang_err_case cases[] = {
        {"x = (1, 2", TL_ERR_SYNTAX, "'(' was never closed", 4},
        {"x = 1)", TL_ERR_SYNTAX, "unmatched ')'", 5},
        {"x = (1]", TL_ERR_SYNTAX,
         "closing parenthesis ']' does not match opening parenthesis '('", 6},
        {"'abc", TL_ERR_SYNTAX, "unterminated string literal", 0},
        {"'''abc", TL_ERR_SYNTAX, "unterminated triple-quoted string literal", 0},
        {"1abc", TL_ERR_SYNTAX, "invalid decimal literal", 0},
        {"x = 08", TL_ERR_SYNTAX,
         "leading zeros in decimal integer literals are not permitted; use an 0o "
         "prefix for octal integers", 4},
        {"0b102", TL_ERR_SYNTAX, "invalid digit '2' in binary literal", 4},
        {"if x:\n    y\n  z", TL_ERR_SYNTAX,
         "unindent does not match any outer indentation level", 14},
        {"if a:\n  b\n c", TL_ERR_SYNTAX,
         "unindent does not match any outer indentation level", 11},
        {"x = $", TL_ERR_SYNTAX, "invalid syntax", 4},
        {"x = \\", TL_ERR_SYNTAX, "unexpected EOF while parsing", 4},
        {"x = \\ y", TL_ERR_SYNTAX,
         "unexpected character after line continuation character", 5},
        {"x = \xe2\x82\xac", TL_ERR_SYNTAX, "invalid character '\xe2\x82\xac' (U+20AC)", 4},
        {"x = \xff", TL_ERR_SYNTAX, "invalid byte 0xff (source must be UTF-8)", 4},
        {"x = \x01", TL_ERR_SYNTAX, "invalid non-printable character U+0001", 4},
        {"f'a", TL_ERR_SYNTAX, "unterminated string literal", 0},
        {"x = f'''a", TL_ERR_SYNTAX, "unterminated triple-quoted string literal", 4},
        {"1j", TL_ERR_UNSUPPORTED, "tlab does not support complex numbers", 0},
        {"99999999999999999999", TL_ERR_UNSUPPORTED,
         "integer literal too large (tlab integers are 64-bit)", 0},
    };
    lang_check_errors(cases, sizeof cases / sizeof cases[0], lex_fail, true);
    /* a NUL byte inside the text */
    tl_toklist tl;
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_lex("a\0b", 3, 64, &tl, &err), -1);
    ck_assert_str_eq(err.msg, "source code cannot contain null bytes");
}
END_TEST

START_TEST(test_depth_limit)
{
    tl_error e = lex_fail("((((1))))", 3);
    ck_assert_int_eq(e.kind, TL_ERR_LIMIT);
    ck_assert_str_eq(e.msg, "too many nested parentheses (limit 3)");
    ck_assert_int_eq(e.span.start, 3);
    tl_toklist tl;
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_lex("(((1)))", 7, 3, &tl, &err), 0);
    tl_toklist_free(&tl);
}
END_TEST

START_TEST(test_random_bytes)
{
    /* never crashes; spans stay inside the text */
    unsigned seed = 12345;
    char buf[4096];
    for (int round = 0; round < 500; round++) {
        size_t n = (size_t)(round * 7 % 4096);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = round % 2 ? (char)(seed >> 16)
                               : "ab1 ([.)]'\"\\\n#=+"[(seed >> 16) % 17];
        }
        tl_toklist tl;
        tl_error err;
        tl_error_clear(&err);
        if (tl_lex(buf, n, 64, &tl, &err) == 0) {
            for (size_t i = 0; i < tl.n; i++)
                ck_assert(tl.toks[i].span.start >= 0 && (size_t)tl.toks[i].span.end <= n);
            tl_toklist_free(&tl);
        } else {
            ck_assert(err.span.start >= 0 && (size_t)err.span.start <= n);
        }
    }
}
END_TEST

/* INDENT/DEDENT around blocks, FSTR bodies left undecoded */
START_TEST(test_blocks)
{
    const char *src = "if a:\n    b\n    if c:\n        d\ne = f'{x}\\n'\n";
    tl_toklist tl;
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_lex(src, strlen(src), 64, &tl, &err), 0);
    static const tl_tokkind want[] = {
        TL_TOK_KEYWORD, TL_TOK_NAME, TL_TOK_OP, TL_TOK_NEWLINE, TL_TOK_INDENT, TL_TOK_NAME,
        TL_TOK_NEWLINE, TL_TOK_KEYWORD, TL_TOK_NAME, TL_TOK_OP, TL_TOK_NEWLINE, TL_TOK_INDENT,
        TL_TOK_NAME, TL_TOK_NEWLINE, TL_TOK_DEDENT, TL_TOK_DEDENT, TL_TOK_NAME, TL_TOK_OP,
        TL_TOK_FSTR, TL_TOK_NEWLINE, TL_TOK_EOF};
    ck_assert_uint_eq(tl.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < tl.n; i++)
        ck_assert_msg(tl.toks[i].kind == want[i], "token %zu: kind %d", i, (int)tl.toks[i].kind);
    const tl_token *f = &tl.toks[18];
    ck_assert_int_eq(f->body_end - f->body_start, 5);
    ck_assert(memcmp(src + f->body_start, "{x}\\n", 5) == 0);
    tl_toklist_free(&tl);
    /* blank and comment lines do not close blocks; EOF closes them all */
    src = "while x:\n  y\n\n  # c\n  z";
    ck_assert_int_eq(tl_lex(src, strlen(src), 64, &tl, &err), 0);
    size_t dedents = 0, indents = 0;
    for (size_t i = 0; i < tl.n; i++) {
        dedents += tl.toks[i].kind == TL_TOK_DEDENT;
        indents += tl.toks[i].kind == TL_TOK_INDENT;
    }
    ck_assert_uint_eq(indents, 1);
    ck_assert_uint_eq(dedents, 1);
    tl_toklist_free(&tl);
    /* indentation deeper than max_depth levels is a limit */
    tl_buf b = {0};
    for (int d = 0; d < 5; d++) {
        for (int k = 0; k < d; k++)
            tl_buf_puts(&b, " ");
        tl_buf_puts(&b, "if x:\n");
    }
    for (int k = 0; k < 5; k++)
        tl_buf_puts(&b, " ");
    tl_buf_puts(&b, "y\n");
    ck_assert_int_eq(tl_lex(tl_buf_str(&b), b.len, 3, &tl, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_buf_free(&b);
}
END_TEST

static Suite *lex_suite(void)
{
    Suite *s = suite_create("lex");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_kinds_and_spans);
    tcase_add_test(core, test_numbers);
    tcase_add_test(core, test_strings);
    tcase_add_test(core, test_operators);
    tcase_add_test(core, test_lines);
    tcase_add_test(core, test_keywords);
    tcase_add_test(core, test_blocks);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_depth_limit);
    tcase_add_test(limits, test_random_bytes);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lex_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
