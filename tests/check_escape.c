/* check_escape.c - unit tests for escape.c: every control (C0, DEL, C1,
 * separators, bidi overrides, invalid UTF-8) becomes a visible escape in
 * every context; ordinary text, UTF-8 and backslashes pass unchanged;
 * multi-line text keeps no line that starts at column 1; XML, HTML, GitHub
 * and CSV get their own escapes on top. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

typedef void (*esc_fn)(tl_buf *, const char *);

static char *run(esc_fn f, const char *s)
{
    tl_buf b = {0};
    f(&b, s);
    return tl_buf_steal(&b);
}

#define EXPECT(f, in, out)                                                     \
    do {                                                                       \
        char *got_ = run(f, in);                                               \
        ck_assert_str_eq(got_, out);                                           \
        free(got_);                                                            \
    } while (0)

/* no byte < 0x20, no DEL, no C2 80..9F */
static bool clean(const char *s, bool allow_nl)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++) {
        if ((*p < 0x20 && !(allow_nl && *p == '\n')) || *p == 0x7F)
            return false;
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
            return false;
    }
    return true;
}

START_TEST(test_line)
{
    EXPECT(tl_escape_line, "x[1:] \xc3\xa9 \\d", "x[1:] \xc3\xa9 \\d");
    EXPECT(tl_escape_line, "\x1b]0;pwned\x07\x1b[2J", "\\e]0;pwned\\x07\\e[2J");
    EXPECT(tl_escape_line, "a\nb\r\tc", "a\\nb\\r\\tc");
    EXPECT(tl_escape_line, "del\x7f", "del\\x7F");
    EXPECT(tl_escape_line, "c1\xc2\x9b" "31m", "c1\\u009B31m");
    EXPECT(tl_escape_line, "bidi\xe2\x80\xae" "x", "bidi\\u202Ex");
    EXPECT(tl_escape_line, "sep\xe2\x80\xa8", "sep\\u2028");
    EXPECT(tl_escape_line, "bad\xff\xc3", "bad\\xFF\\xC3");
    EXPECT(tl_escape_line, "overlong\xc0\xaf", "overlong\\xC0\\xAF");
    EXPECT(tl_escape_line, "", "");
    ck_assert(tl_escape_has_control("a\x1b"));
    ck_assert(tl_escape_has_control("a\xc2\x85"));
    ck_assert(!tl_escape_has_control("plain \xe2\x9c\x93 text"));
    char *d = tl_escape_line_dup("\x01");
    ck_assert_str_eq(d, "\\x01");
    free(d);
}
END_TEST

static void lines2(tl_buf *b, const char *s) { tl_escape_lines(b, s, "  "); }

START_TEST(test_lines)
{
    EXPECT(lines2, "first\nlabs/x.yaml:1:1: fake\n::error::fake\n",
           "first\n  labs/x.yaml:1:1: fake\n  ::error::fake");
    EXPECT(lines2, "a\x1b[2Jb", "a\\e[2Jb");
    char *s = run(lines2, "x\n\x1b\n\x7f\n\xc2\x9b");
    ck_assert(clean(s, true));
    for (const char *p = strchr(s, '\n'); p; p = strchr(p + 1, '\n'))
        ck_assert(p[1] == ' ');
    free(s);
}
END_TEST

static void xml_text(tl_buf *b, const char *s) { tl_escape_xml(b, s, false); }
static void xml_attr(tl_buf *b, const char *s) { tl_escape_xml(b, s, true); }

START_TEST(test_xml)
{
    EXPECT(xml_text, "<a & \"b\">\n\tc'", "&lt;a &amp; &quot;b&quot;&gt;\n&#9;c&apos;");
    EXPECT(xml_attr, "a\nb\tc", "a&#10;b&#9;c");
    EXPECT(xml_text, "\x1b[2J\x0c", "\\e[2J\\x0C");
    EXPECT(xml_text, "]]>", "]]&gt;");
}
END_TEST

static void html_line(tl_buf *b, const char *s) { tl_escape_html(b, s, false); }
static void html_block(tl_buf *b, const char *s) { tl_escape_html(b, s, true); }

START_TEST(test_html)
{
    EXPECT(html_line, "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    EXPECT(html_line, "a & \"b\" 'c'", "a &amp; &quot;b&quot; &#39;c&#39;");
    EXPECT(html_line, "\x1b]0;pwned\x07", "\\e]0;pwned\\x07");
    EXPECT(html_line, "a\nb\tc\r", "a\\nb\\tc\\r");
    EXPECT(html_line, "bidi\xe2\x80\xae" "x \xc3\xa9 \xe2\x9c\x93", "bidi\\u202Ex \xc3\xa9 \xe2\x9c\x93");
    EXPECT(html_line, "del\x7f c1\xc2\x9b bad\xff", "del\\x7F c1\\u009B bad\\xFF");
    EXPECT(html_block, "x = 1\n\ty <b>", "x = 1\n&#9;y &lt;b&gt;");
    EXPECT(html_block, "a\x1b[2J\r", "a\\e[2J\\r");
    EXPECT(html_line, "", "");
    /* nothing raw survives: no markup character, no control */
    char *s = run(html_line, "<a href=\"x\" onload='y'>&amp;\x01\xc2\x85</a>");
    ck_assert(clean(s, false));
    ck_assert(!strpbrk(s, "<>\"'"));
    for (const char *p = strchr(s, '&'); p; p = strchr(p + 1, '&'))
        ck_assert(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4) ||
                  !strncmp(p, "&quot;", 6) || !strncmp(p, "&#39;", 5));
    free(s);
}
END_TEST

START_TEST(test_github)
{
    EXPECT(tl_escape_gh_data, "50% a:b,c\r\nd", "50%25 a:b,c%0D%0Ad");
    EXPECT(tl_escape_gh_prop, "50% a:b,c\nd", "50%25 a%3Ab%2Cc%0Ad");
    EXPECT(tl_escape_gh_data, "x\n::error::injected", "x%0A::error::injected");
    EXPECT(tl_escape_gh_data, "\x1b[31m", "\\e[31m");
}
END_TEST

START_TEST(test_csv)
{
    EXPECT(tl_escape_csv, "plain", "plain");
    EXPECT(tl_escape_csv, "a,b", "\"a,b\"");
    EXPECT(tl_escape_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
    EXPECT(tl_escape_csv, "line\nbreak", "line\\nbreak");
    EXPECT(tl_escape_csv, "=HYPERLINK(1)", "'=HYPERLINK(1)");
    EXPECT(tl_escape_csv, "\x1b]0;t\x07", "\\e]0;t\\x07");
    EXPECT(tl_escape_csv_head, "::error::x.yaml", "\"::error::x.yaml\"");
    EXPECT(tl_escape_csv_head, "a.yaml:3:1: error: fake", "\"a.yaml:3:1: error: fake\"");
    EXPECT(tl_escape_csv_head, "a.yaml", "a.yaml");
    EXPECT(tl_escape_csv, "a.yaml:3:1: error: x", "a.yaml:3:1: error: x"); /* mid-row */
    ck_assert(tl_escape_risky_start("::warning::x"));
    ck_assert(tl_escape_risky_start("labs/x.yaml:12:"));
    ck_assert(!tl_escape_risky_start("x.t(): view"));
    ck_assert(!tl_escape_risky_start("op 3: rule"));
    ck_assert(!tl_escape_risky_start("a:b"));
    ck_assert(!tl_escape_risky_start(""));
}
END_TEST

START_TEST(test_shell)
{
    const struct {
        const char *in, *out;
    } cases[] = {
        {"lab01.yaml", "lab01.yaml"},
        {"answers/lab-01_v2.yaml", "answers/lab-01_v2.yaml"},
        {"7", "7"},
        {"-1", "-1"},
        {"my sheet.yaml", "'my sheet.yaml'"},
        {"it's", "'it'\\''s'"},
        {"$(rm -rf ~)", "'$(rm -rf ~)'"},
        {"a;b`c`", "'a;b`c`'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_buf b = {0};
        ck_assert(tl_escape_shell(&b, cases[i].in));
        ck_assert_str_eq(tl_buf_str(&b), cases[i].out);
        tl_buf_free(&b);
    }
    /* never offered: empty, control characters, non-ASCII */
    const char *refused[] = {"", "a\nb", "\x1b]0;x\x07", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        tl_buf b = {0};
        ck_assert(!tl_escape_shell(&b, refused[i]));
        ck_assert_uint_eq(b.len, 0);
        tl_buf_free(&b);
    }
}
END_TEST

START_TEST(test_json)
{
    char *s = strdup("{\"a\": \"x\x7f\xc2\x85\xe2\x80\xae y\xc3\xa9\"}");
    s = tl_escape_json_controls(s);
    ck_assert_str_eq(s, "{\"a\": \"x\\u007f\\u0085\\u202e y\xc3\xa9\"}");
    free(s);
    char *t = strdup("{\"plain\": 1}");
    char *u = tl_escape_json_controls(t);
    ck_assert_str_eq(u, "{\"plain\": 1}");
    free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("escape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_line);
    tcase_add_test(tc, test_lines);
    tcase_add_test(tc, test_xml);
    tcase_add_test(tc, test_html);
    tcase_add_test(tc, test_github);
    tcase_add_test(tc, test_csv);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_shell);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
