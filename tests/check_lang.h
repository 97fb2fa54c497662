/* check_lang.h - shared by check_lex.c and check_parse.c: a table of
 * source texts that must fail, each with the error kind, CPython's message
 * and the byte where the error span starts, checked through the test's own
 * failing front end (lex_fail / parse_fail) at nesting depth 64.
 */
#ifndef TL_CHECK_LANG_H
#define TL_CHECK_LANG_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

typedef struct lang_err_case {
    const char *src;
    tl_errkind kind;
    const char *msg;
    int start;
} lang_err_case;

/* Every case must fail with its kind, message and span start; with
 * nonempty_span the span must also end after it starts. */
static inline void lang_check_errors(const lang_err_case *cases, size_t n,
                                     tl_error (*fail_fn)(const char *, int),
                                     bool nonempty_span)
{
    for (size_t i = 0; i < n; i++) {
        tl_error e = fail_fn(cases[i].src, 64);
        ck_assert_msg(e.kind == cases[i].kind, "%s: kind %d", cases[i].src,
                      (int)e.kind);
        ck_assert_str_eq(e.msg, cases[i].msg);
        ck_assert_msg(e.span.start == cases[i].start, "%s: span %d",
                      cases[i].src, (int)e.span.start);
        if (nonempty_span)
            ck_assert_int_gt(e.span.end, e.span.start);
    }
}

#endif
