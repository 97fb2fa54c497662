/* parse.c - recursive-descent parser: tokens (lex.h) -> syntax tree (ast.h).
 *
 * One function per precedence level of Python's grammar, from `test`
 * (conditional expressions) down to atoms with trailers. Design notes:
 *   - Spans: a node's span runs from its first to its last token, so a
 *     call `x.t().view(24)` underlines the whole call.
 *   - Unsupported Python is recognised where it starts (a `class`, a
 *     `{`, a `*args` parameter) and reported as TL_ERR_UNSUPPORTED with that
 *     span, before any generic "invalid syntax".
 *   - Blocks: compound statements take an INDENT..DEDENT body or simple
 *     statements on the same line; block nesting counts toward max_depth.
 *     `return` outside a def and `break`/`continue` outside a loop are
 *     CPython's SyntaxErrors.
 *   - f-strings: the FSTR token's body is split here; each field's
 *     expression is lexed (tl_lex_expr, spans in whole-source offsets) and
 *     parsed by a sub-parser sharing the tree, its spec recursively (two
 *     levels, as CPython).
 *   - Bounds: `depth` counts nested test/unary/bracket recursion (limit
 *     max_depth); every node's height is checked against max_height so
 *     that left-deep operator chains cannot exhaust the evaluator's stack.
 * The parser never allocates outside the tree's arena, except the token
 * list, which is freed before returning.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "parse.h"
#include "util.h"

typedef struct parser {
    const tl_token *t;  /* tokens */
    size_t n, i;
    tl_ast *ast;
    tl_error *err;
    const char *text;   /* the whole source (f-string bodies, line numbers) */
    size_t srclen;
    int depth, max_depth, max_height;
    int in_func;        /* inside a def or lambda body */
    int loops;          /* enclosing loops of the current function */
    int fdepth;         /* f-string nesting */
} parser;

int tl_parse_max_height(int max_depth)
{
    return max_depth * 8 < 64 ? 64 : max_depth * 8;
}

/* ---------------------------------------------------------------------- */
/* helpers */

static const tl_token *peek(const parser *P)
{
    return &P->t[P->i];
}

static const tl_token *peek2(const parser *P)
{
    return P->i + 1 < P->n ? &P->t[P->i + 1] : &P->t[P->n - 1];
}

static const tl_token *next(parser *P)
{
    const tl_token *t = &P->t[P->i];
    if (t->kind != TL_TOK_EOF)
        P->i++;
    return t;
}

static bool is_op(const tl_token *t, tl_opkind op)
{
    return t->kind == TL_TOK_OP && t->u.op == op;
}

static bool is_kw(const tl_token *t, tl_keyword kw)
{
    return t->kind == TL_TOK_KEYWORD && t->u.kw == kw;
}

static bool accept_op(parser *P, tl_opkind op)
{
    if (is_op(peek(P), op)) {
        next(P);
        return true;
    }
    return false;
}

static tl_span span_of(const tl_token *t)
{
    tl_span s = t->span;
    if (s.end <= s.start)
        s.end = s.start + 1;
    return s;
}

static tl_span join(tl_span a, tl_span b)
{
    return (tl_span){a.start < b.start ? a.start : b.start,
                     a.end > b.end ? a.end : b.end};
}

static void *fail_at(parser *P, tl_errkind kind, tl_span sp, const char *fmt, ...)
    TL_PRINTF(4, 5);

static void *fail_at(parser *P, tl_errkind kind, tl_span sp, const char *fmt, ...)
{
    char msg[TL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tl_error_set(P->err, kind, "%s", msg);
    if (sp.end <= sp.start)
        sp.end = sp.start + 1;
    tl_error_locate(P->err, sp);
    return NULL;
}

/* "invalid syntax" at the current token, or an unsupported-construct
 * message when the token starts one. */
static void *syntax_error(parser *P)
{
    const tl_token *t = peek(P);
    tl_span sp = span_of(t);
    if (t->kind == TL_TOK_KEYWORD) {
        switch (t->u.kw) {
        case TL_KW_YIELD:
        case TL_KW_AWAIT:
            return fail_at(P, TL_ERR_UNSUPPORTED, sp, "tlab does not support '%s'",
                           tl_lex_keyword_text(t->u.kw));
        default:
            break;
        }
    }
    if (t->kind == TL_TOK_OP) {
        if (t->u.op == TL_OP_LBRACE)
            return fail_at(P, TL_ERR_UNSUPPORTED, sp,
                           "tlab does not support dict or set literals");
        if (t->u.op == TL_OP_WALRUS)
            return fail_at(P, TL_ERR_UNSUPPORTED, sp,
                           "tlab does not support assignment expressions (:=)");
    }
    return fail_at(P, TL_ERR_SYNTAX, sp, "invalid syntax");
}

static bool expect_op(parser *P, tl_opkind op)
{
    if (accept_op(P, op))
        return true;
    syntax_error(P);
    return false;
}

static tl_node *new_node(parser *P, tl_nodekind kind, tl_span sp, size_t nkids)
{
    return tl_ast_node(P->ast, kind, sp, nkids);
}

/* Compute height from kids and enforce the bound. */
static tl_node *finish(parser *P, tl_node *nd)
{
    int h = 0;
    for (size_t i = 0; i < nd->n; i++)
        if (nd->kids[i] && nd->kids[i]->height > h)
            h = nd->kids[i]->height;
    nd->height = h + 1;
    if (nd->height > P->max_height)
        return fail_at(P, TL_ERR_LIMIT, nd->span,
                       "expression too long or nested too deeply (limit %d levels)",
                       P->max_height);
    return nd;
}

static bool enter(parser *P)
{
    if (++P->depth > P->max_depth) {
        fail_at(P, TL_ERR_LIMIT, span_of(peek(P)),
                "expression nested too deeply (limit %d)", P->max_depth - 1);
        return false;
    }
    return true;
}

static void leave(parser *P)
{
    P->depth--;
}

/* Growable vector of nodes (heap; copied into the arena at the end). */
typedef struct nodevec {
    tl_node **v;
    size_t n, cap;
} nodevec;

static void vec_push(nodevec *v, tl_node *nd)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->v = tl_xrealloc(v->v, v->cap * sizeof *v->v);
    }
    v->v[v->n++] = nd;
}

static tl_node *vec_to_node(parser *P, nodevec *v, tl_nodekind kind, tl_span sp)
{
    tl_node *nd = new_node(P, kind, sp, v->n);
    if (v->n)
        memcpy(nd->kids, v->v, v->n * sizeof *v->v);
    free(v->v);
    v->v = NULL;
    v->n = v->cap = 0;
    return finish(P, nd);
}

/* The one item of v when it was written without a comma, else a TUPLE of
 * all of v's items spanning sp. */
static tl_node *item_or_tuple(parser *P, nodevec *v, bool tuple, tl_span sp)
{
    if (v->n == 1 && !tuple) {
        tl_node *nd = v->v[0];
        free(v->v);
        return nd;
    }
    return vec_to_node(P, v, TL_N_TUPLE, sp);
}

/* ---------------------------------------------------------------------- */
/* expressions */

static tl_node *parse_test(parser *P);
static tl_node *parse_or_test(parser *P);
static tl_node *parse_bitor(parser *P);
static tl_node *parse_factor(parser *P);

/* an expression in an argument/element position: test, or *expr */
static tl_node *parse_star_or_test(parser *P)
{
    const tl_token *t = peek(P);
    if (is_op(t, TL_OP_STAR)) {
        next(P);
        tl_node *v = parse_bitor(P);
        if (!v)
            return NULL;
        tl_node *nd = new_node(P, TL_N_STARRED, join(t->span, v->span), 1);
        nd->kids[0] = v;
        return finish(P, nd);
    }
    return parse_test(P);
}

/* one comprehension target: NAME or a (nested) tuple/list of NAMEs */
static bool check_comp_target(parser *P, tl_node *t)
{
    if (t->kind == TL_N_NAME)
        return true;
    if (t->kind == TL_N_TUPLE || t->kind == TL_N_LIST) {
        for (size_t i = 0; i < t->n; i++)
            if (!check_comp_target(P, t->kids[i]))
                return false;
        return true;
    }
    fail_at(P, TL_ERR_UNSUPPORTED, t->span,
            "tlab supports only names and tuples of names as comprehension targets");
    return false;
}

/* The target list of a `for` (statement or comprehension), up to `in`:
 * one target, or a tuple when a comma follows one (`a, b` and `a,`). */
static tl_node *parse_for_target(parser *P)
{
    nodevec tv = {0};
    tl_span tsp = span_of(peek(P));
    bool tuple = false;
    for (;;) {
        tl_node *t = parse_bitor(P);
        if (!t) {
            free(tv.v);
            return NULL;
        }
        vec_push(&tv, t);
        tsp = join(tsp, t->span);
        if (!accept_op(P, TL_OP_COMMA))
            break;
        tuple = true;
        if (is_kw(peek(P), TL_KW_IN))
            break;
    }
    return item_or_tuple(P, &tv, tuple, tsp);
}

/* After `[elt` when the next token is `for`. */
static tl_node *parse_listcomp(parser *P, tl_node *elt, const tl_token *open)
{
    next(P); /* for */
    tl_node *target = parse_for_target(P);
    if (!target || !check_comp_target(P, target))
        return NULL;
    if (!is_kw(peek(P), TL_KW_IN))
        return syntax_error(P);
    next(P);
    tl_node *iter = parse_or_test(P);
    if (!iter)
        return NULL;
    tl_node *cond = NULL;
    if (is_kw(peek(P), TL_KW_IF)) {
        next(P);
        cond = parse_or_test(P);
        if (!cond)
            return NULL;
    }
    if (is_kw(peek(P), TL_KW_FOR) || is_kw(peek(P), TL_KW_IF) ||
        is_kw(peek(P), TL_KW_ASYNC))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                       "tlab supports list comprehensions with one 'for' and "
                       "at most one 'if'");
    const tl_token *close = peek(P);
    if (!expect_op(P, TL_OP_RSQB))
        return NULL;
    tl_node *nd = new_node(P, TL_N_LISTCOMP, join(open->span, close->span), 4);
    nd->kids[0] = elt;
    nd->kids[1] = target;
    nd->kids[2] = iter;
    nd->kids[3] = cond;
    return finish(P, nd);
}

/* The rest of a tuple or list display after its first item: (',' item)*
 * [','] then `close`; the node spans from `open` to `close`. */
static tl_node *parse_display(parser *P, tl_node *first, const tl_token *open,
                              tl_opkind close, tl_nodekind kind)
{
    nodevec v = {0};
    vec_push(&v, first);
    while (accept_op(P, TL_OP_COMMA)) {
        if (is_op(peek(P), close))
            break;
        tl_node *e = parse_star_or_test(P);
        if (!e) {
            free(v.v);
            return NULL;
        }
        vec_push(&v, e);
    }
    const tl_token *end = peek(P);
    if (!expect_op(P, close)) {
        free(v.v);
        return NULL;
    }
    return vec_to_node(P, &v, kind, join(open->span, end->span));
}

/* ( ... ) after the opening parenthesis was consumed */
static tl_node *parse_paren(parser *P, const tl_token *open)
{
    const tl_token *t = peek(P);
    if (is_op(t, TL_OP_RPAR)) {
        next(P);
        tl_node *nd = new_node(P, TL_N_TUPLE, join(open->span, t->span), 0);
        return finish(P, nd);
    }
    if (is_kw(t, TL_KW_YIELD))
        return syntax_error(P);
    tl_node *first = parse_star_or_test(P);
    if (!first)
        return NULL;
    if (is_kw(peek(P), TL_KW_FOR))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                       "tlab does not support generator expressions "
                       "(use a list comprehension)");
    if (is_op(peek(P), TL_OP_RPAR)) {
        const tl_token *close = next(P);
        if (first->kind == TL_N_STARRED)
            return fail_at(P, TL_ERR_SYNTAX, first->span,
                           "cannot use starred expression here");
        /* (expr): the span includes the parentheses, as CPython shows it */
        first->span = join(open->span, close->span);
        return first;
    }
    return parse_display(P, first, open, TL_OP_RPAR, TL_N_TUPLE);
}

/* [ ... ] after the opening bracket was consumed */
static tl_node *parse_list(parser *P, const tl_token *open)
{
    const tl_token *t = peek(P);
    if (is_op(t, TL_OP_RSQB)) {
        next(P);
        return finish(P, new_node(P, TL_N_LIST, join(open->span, t->span), 0));
    }
    tl_node *first = parse_star_or_test(P);
    if (!first)
        return NULL;
    if (is_kw(peek(P), TL_KW_FOR)) {
        if (first->kind == TL_N_STARRED)
            return fail_at(P, TL_ERR_SYNTAX, first->span,
                           "iterable unpacking cannot be used in comprehension");
        return parse_listcomp(P, first, open);
    }
    return parse_display(P, first, open, TL_OP_RSQB, TL_N_LIST);
}

/* { key: value, ... } after the opening brace was consumed; a set display,
 * `**` and comprehensions are refused where they start */
static tl_node *parse_dict(parser *P, const tl_token *open)
{
    nodevec v = {0};
    for (;;) {
        const tl_token *t = peek(P);
        if (is_op(t, TL_OP_RBRACE))
            break;
        if (is_op(t, TL_OP_DSTAR)) {
            free(v.v);
            return fail_at(P, TL_ERR_UNSUPPORTED, span_of(t),
                           "tlab does not support ** in dict displays");
        }
        tl_node *k = parse_test(P);
        if (!k) {
            free(v.v);
            return NULL;
        }
        if (!is_op(peek(P), TL_OP_COLON)) {
            free(v.v);
            if (is_op(peek(P), TL_OP_COMMA) || is_op(peek(P), TL_OP_RBRACE))
                return fail_at(P, TL_ERR_UNSUPPORTED, join(open->span, k->span),
                               "tlab does not support set literals");
            return syntax_error(P);
        }
        next(P);
        tl_node *val = parse_test(P);
        if (!val) {
            free(v.v);
            return NULL;
        }
        if (is_kw(peek(P), TL_KW_FOR)) {
            free(v.v);
            return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                           "tlab does not support dict comprehensions");
        }
        vec_push(&v, k);
        vec_push(&v, val);
        if (!accept_op(P, TL_OP_COMMA))
            break;
    }
    const tl_token *end = peek(P);
    if (!expect_op(P, TL_OP_RBRACE)) {
        free(v.v);
        return NULL;
    }
    return vec_to_node(P, &v, TL_N_DICT, join(open->span, end->span));
}

static tl_node *parse_strings(parser *P);

static tl_node *parse_atom(parser *P)
{
    const tl_token *t = peek(P);
    tl_node *nd;
    switch (t->kind) {
    case TL_TOK_NAME:
        next(P);
        nd = new_node(P, TL_N_NAME, t->span, 0);
        nd->str = tl_ast_strndup(P->ast, t->str, t->len);
        nd->len = t->len;
        return nd;
    case TL_TOK_INT:
        if (t->int_overflow)
            return fail_at(P, TL_ERR_UNSUPPORTED, t->span,
                           "integer literal too large (tlab integers are 64-bit)");
        next(P);
        nd = new_node(P, TL_N_INT, t->span, 0);
        nd->ival = t->u.i;
        return nd;
    case TL_TOK_FLOAT:
        next(P);
        nd = new_node(P, TL_N_FLOAT, t->span, 0);
        nd->fval = t->u.f;
        return nd;
    case TL_TOK_FSTR:
        return parse_strings(P);
    case TL_TOK_STR: {
        tl_buf b = {0};
        tl_span sp = t->span;
        for (size_t k = P->i; P->t[k].kind == TL_TOK_STR || P->t[k].kind == TL_TOK_FSTR; k++)
            if (P->t[k].kind == TL_TOK_FSTR)
                return parse_strings(P);
        while (peek(P)->kind == TL_TOK_STR) {
            const tl_token *s = next(P);
            tl_buf_append(&b, s->str ? s->str : "", s->len);
            sp = join(sp, s->span);
        }
        nd = new_node(P, TL_N_STR, sp, 0);
        nd->str = tl_ast_strndup(P->ast, tl_buf_str(&b), b.len);
        nd->len = b.len;
        tl_buf_free(&b);
        return nd;
    }
    case TL_TOK_KEYWORD:
        if (t->u.kw == TL_KW_NONE || t->u.kw == TL_KW_TRUE || t->u.kw == TL_KW_FALSE) {
            next(P);
            nd = new_node(P, t->u.kw == TL_KW_NONE ? TL_N_NONE : TL_N_BOOL, t->span, 0);
            nd->ival = t->u.kw == TL_KW_TRUE;
            return nd;
        }
        return syntax_error(P);
    case TL_TOK_OP:
        if (t->u.op == TL_OP_ELLIPSIS) {
            next(P);
            return new_node(P, TL_N_ELLIPSIS, t->span, 0);
        }
        if (t->u.op == TL_OP_LPAR || t->u.op == TL_OP_LSQB || t->u.op == TL_OP_LBRACE) {
            next(P);
            if (!enter(P))
                return NULL;
            nd = t->u.op == TL_OP_LPAR   ? parse_paren(P, t)
                 : t->u.op == TL_OP_LSQB ? parse_list(P, t)
                                         : parse_dict(P, t);
            leave(P);
            return nd;
        }
        return syntax_error(P);
    default:
        return syntax_error(P);
    }
}

/* one subscript item: test or slice */
static tl_node *parse_slice_item(parser *P)
{
    const tl_token *start = peek(P);
    tl_node *lo = NULL, *hi = NULL, *st = NULL;
    if (is_op(start, TL_OP_STAR))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(start),
                       "tlab does not support starred subscripts");
    if (!is_op(start, TL_OP_COLON)) {
        lo = parse_test(P);
        if (!lo)
            return NULL;
        if (!is_op(peek(P), TL_OP_COLON))
            return lo;
    }
    tl_span sp = lo ? lo->span : span_of(start);
    const tl_token *c = next(P); /* ':' */
    sp = join(sp, c->span);
    const tl_token *t = peek(P);
    if (!is_op(t, TL_OP_COLON) && !is_op(t, TL_OP_COMMA) && !is_op(t, TL_OP_RSQB)) {
        hi = parse_test(P);
        if (!hi)
            return NULL;
        sp = join(sp, hi->span);
    }
    if (is_op(peek(P), TL_OP_COLON)) {
        c = next(P);
        sp = join(sp, c->span);
        t = peek(P);
        if (!is_op(t, TL_OP_COMMA) && !is_op(t, TL_OP_RSQB)) {
            st = parse_test(P);
            if (!st)
                return NULL;
            sp = join(sp, st->span);
        }
    }
    tl_node *nd = new_node(P, TL_N_SLICE, sp, 3);
    nd->kids[0] = lo;
    nd->kids[1] = hi;
    nd->kids[2] = st;
    return finish(P, nd);
}

static tl_node *parse_subscript(parser *P, tl_node *obj, const tl_token *open)
{
    if (!enter(P))
        return NULL;
    if (is_op(peek(P), TL_OP_RSQB)) {
        leave(P);
        return syntax_error(P);
    }
    nodevec v = {0};
    bool tuple = false;
    tl_span isp = span_of(peek(P));
    for (;;) {
        tl_node *e = parse_slice_item(P);
        if (!e) {
            free(v.v);
            leave(P);
            return NULL;
        }
        vec_push(&v, e);
        isp = join(isp, e->span);
        if (!accept_op(P, TL_OP_COMMA))
            break;
        tuple = true;
        if (is_op(peek(P), TL_OP_RSQB))
            break;
    }
    leave(P);
    const tl_token *close = peek(P);
    if (!expect_op(P, TL_OP_RSQB)) {
        free(v.v);
        return NULL;
    }
    tl_node *idx = item_or_tuple(P, &v, tuple, isp);
    if (!idx)
        return NULL;
    tl_node *nd = new_node(P, TL_N_SUBSCRIPT, join(obj->span, close->span), 2);
    nd->kids[0] = obj;
    nd->kids[1] = idx;
    (void)open;
    return finish(P, nd);
}

static tl_node *parse_call(parser *P, tl_node *fn, const tl_token *open)
{
    if (!enter(P))
        return NULL;
    nodevec v = {0};
    vec_push(&v, fn);
    bool seen_kw = false;
    while (!is_op(peek(P), TL_OP_RPAR)) {
        const tl_token *t = peek(P);
        tl_node *arg;
        if (t->kind == TL_TOK_NAME && is_op(peek2(P), TL_OP_ASSIGN)) {
            next(P);
            next(P);
            for (size_t k = 1; k < v.n; k++)
                if (v.v[k]->kind == TL_N_KEYWORD && strcmp(v.v[k]->str, t->str) == 0) {
                    fail_at(P, TL_ERR_SYNTAX, span_of(t), "keyword argument repeated: %s",
                            t->str);
                    goto fail;
                }
            tl_node *val = parse_test(P);
            if (!val)
                goto fail;
            arg = new_node(P, TL_N_KEYWORD, join(t->span, val->span), 1);
            arg->str = tl_ast_strndup(P->ast, t->str, t->len);
            arg->len = t->len;
            arg->kids[0] = val;
            arg = finish(P, arg);
            seen_kw = true;
        } else if (is_op(t, TL_OP_DSTAR)) {
            fail_at(P, TL_ERR_UNSUPPORTED, span_of(t), "tlab does not support ** arguments");
            goto fail;
        } else {
            arg = parse_star_or_test(P);
            if (arg && arg->kind != TL_N_STARRED && seen_kw) {
                fail_at(P, TL_ERR_SYNTAX, arg->span,
                        "positional argument follows keyword argument");
                goto fail;
            }
            if (arg && is_kw(peek(P), TL_KW_FOR)) {
                fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                        "tlab does not support generator expressions "
                        "(use a list comprehension)");
                goto fail;
            }
        }
        if (!arg)
            goto fail;
        vec_push(&v, arg);
        if (!accept_op(P, TL_OP_COMMA))
            break;
    }
    leave(P);
    const tl_token *close = peek(P);
    if (!expect_op(P, TL_OP_RPAR)) {
        free(v.v);
        return NULL;
    }
    (void)open;
    return vec_to_node(P, &v, TL_N_CALL, join(fn->span, close->span));
fail:
    free(v.v);
    leave(P);
    return NULL;
}

static tl_node *parse_primary(parser *P)
{
    tl_node *nd = parse_atom(P);
    while (nd) {
        const tl_token *t = peek(P);
        if (is_op(t, TL_OP_DOT)) {
            next(P);
            const tl_token *name = peek(P);
            if (name->kind != TL_TOK_NAME)
                return syntax_error(P);
            next(P);
            tl_node *a = new_node(P, TL_N_ATTR, join(nd->span, name->span), 1);
            a->kids[0] = nd;
            a->str = tl_ast_strndup(P->ast, name->str, name->len);
            a->len = name->len;
            nd = finish(P, a);
        } else if (is_op(t, TL_OP_LPAR)) {
            next(P);
            nd = parse_call(P, nd, t);
        } else if (is_op(t, TL_OP_LSQB)) {
            next(P);
            nd = parse_subscript(P, nd, t);
        } else {
            break;
        }
    }
    return nd;
}

/* a BINARY or BOOLOP node `a op b` */
static tl_node *binary(parser *P, tl_nodekind kind, int op, tl_node *a, tl_node *b)
{
    tl_node *nd = new_node(P, kind, join(a->span, b->span), 2);
    nd->op = op;
    nd->kids[0] = a;
    nd->kids[1] = b;
    return finish(P, nd);
}

/* UNARY node: prefix operator token t (consumed) applied to what `operand`
 * parses, one nesting level deeper. */
static tl_node *unary(parser *P, const tl_token *t, int op, tl_node *(*operand)(parser *))
{
    if (!enter(P))
        return NULL;
    tl_node *e = operand(P);
    leave(P);
    if (!e)
        return NULL;
    tl_node *nd = new_node(P, TL_N_UNARY, join(t->span, e->span), 1);
    nd->op = op;
    nd->kids[0] = e;
    return finish(P, nd);
}

/* power: primary ['**' factor] */
static tl_node *parse_power(parser *P)
{
    if (is_kw(peek(P), TL_KW_AWAIT))
        return syntax_error(P);
    tl_node *base = parse_primary(P);
    if (!base)
        return NULL;
    if (is_op(peek(P), TL_OP_DSTAR)) {
        next(P);
        tl_node *ex = parse_factor(P);
        if (!ex)
            return NULL;
        return binary(P, TL_N_BINARY, TL_PY_POW, base, ex);
    }
    return base;
}

static tl_node *parse_factor(parser *P)
{
    const tl_token *t = peek(P);
    int op = -1;
    if (is_op(t, TL_OP_MINUS))
        op = TL_PY_NEG;
    else if (is_op(t, TL_OP_PLUS))
        op = TL_PY_POS;
    else if (is_op(t, TL_OP_TILDE))
        op = TL_PY_INVERT;
    if (op < 0)
        return parse_power(P);
    next(P);
    /* -9223372036854775808 */
    const tl_token *lit = peek(P);
    if (op == TL_PY_NEG && lit->kind == TL_TOK_INT && lit->int_overflow &&
        !is_op(peek2(P), TL_OP_DSTAR) && !is_op(peek2(P), TL_OP_DOT) &&
        !is_op(peek2(P), TL_OP_LSQB) && !is_op(peek2(P), TL_OP_LPAR)) {
        next(P);
        tl_node *nd = new_node(P, TL_N_INT, join(t->span, lit->span), 0);
        nd->ival = INT64_MIN;
        return nd;
    }
    return unary(P, t, op, parse_factor);
}

/* Python's binary-operator levels between comparisons and unary factors,
 * loosest first; every level is a left-associative chain over the next. */
enum { LV_BITOR, LV_BITXOR, LV_BITAND, LV_SHIFT, LV_ARITH, LV_TERM, LV_FACTOR };

/* the level and operator of the binary operator at token t; -1 if none */
static int binop_at(const tl_token *t, int *op)
{
    if (t->kind != TL_TOK_OP)
        return -1;
    switch (t->u.op) {
    case TL_OP_PIPE: *op = TL_PY_OR; return LV_BITOR;
    case TL_OP_CARET: *op = TL_PY_XOR; return LV_BITXOR;
    case TL_OP_AMP: *op = TL_PY_AND; return LV_BITAND;
    case TL_OP_LSHIFT: *op = TL_PY_LSHIFT; return LV_SHIFT;
    case TL_OP_RSHIFT: *op = TL_PY_RSHIFT; return LV_SHIFT;
    case TL_OP_PLUS: *op = TL_PY_ADD; return LV_ARITH;
    case TL_OP_MINUS: *op = TL_PY_SUB; return LV_ARITH;
    case TL_OP_STAR: *op = TL_PY_MUL; return LV_TERM;
    case TL_OP_SLASH: *op = TL_PY_TRUEDIV; return LV_TERM;
    case TL_OP_DSLASH: *op = TL_PY_FLOORDIV; return LV_TERM;
    case TL_OP_PERCENT: *op = TL_PY_MOD; return LV_TERM;
    case TL_OP_AT: *op = TL_PY_MATMUL; return LV_TERM;
    default: return -1;
    }
}

/* Precedence climbing over the levels from `level` down to the factors:
 * the same left-associative trees as one function per level, without
 * passing every operand through all six of them. */
static tl_node *parse_binary(parser *P, int level)
{
    tl_node *a = parse_factor(P);
    int op = 0, lv;
    while (a && (lv = binop_at(peek(P), &op)) >= level) {
        next(P);
        tl_node *b = parse_binary(P, lv + 1);
        if (!b)
            return NULL;
        a = binary(P, TL_N_BINARY, op, a, b);
    }
    return a;
}

static tl_node *parse_bitor(parser *P)
{
    return parse_binary(P, LV_BITOR);
}

/* the comparison operator at the cursor, consumed; -1 if none */
static int take_cmpop(parser *P)
{
    const tl_token *t = peek(P);
    if (t->kind == TL_TOK_OP) {
        int c = -1;
        switch (t->u.op) {
        case TL_OP_EQ: c = TL_CMP_EQ; break;
        case TL_OP_NE: c = TL_CMP_NE; break;
        case TL_OP_LT: c = TL_CMP_LT; break;
        case TL_OP_LE: c = TL_CMP_LE; break;
        case TL_OP_GT: c = TL_CMP_GT; break;
        case TL_OP_GE: c = TL_CMP_GE; break;
        default: break;
        }
        if (c >= 0)
            next(P);
        return c;
    }
    if (is_kw(t, TL_KW_IN)) {
        next(P);
        return TL_CMP_IN;
    }
    if (is_kw(t, TL_KW_NOT) && is_kw(peek2(P), TL_KW_IN)) {
        next(P);
        next(P);
        return TL_CMP_NOT_IN;
    }
    if (is_kw(t, TL_KW_IS)) {
        next(P);
        if (is_kw(peek(P), TL_KW_NOT)) {
            next(P);
            return TL_CMP_IS_NOT;
        }
        return TL_CMP_IS;
    }
    return -1;
}

static tl_node *parse_comparison(parser *P)
{
    tl_node *a = parse_bitor(P);
    if (!a)
        return NULL;
    nodevec v = {0};
    int *ops = NULL;
    size_t nops = 0, capops = 0;
    int c;
    while ((c = take_cmpop(P)) >= 0) {
        if (v.n == 0)
            vec_push(&v, a);
        tl_node *b = parse_bitor(P);
        if (!b) {
            free(v.v);
            free(ops);
            return NULL;
        }
        vec_push(&v, b);
        if (nops == capops) {
            capops = capops ? capops * 2 : 4;
            ops = tl_xrealloc(ops, capops * sizeof *ops);
        }
        ops[nops++] = c;
    }
    if (v.n == 0)
        return a;
    tl_span sp = join(v.v[0]->span, v.v[v.n - 1]->span);
    tl_node *nd = vec_to_node(P, &v, TL_N_COMPARE, sp);
    if (nd) {
        nd->cmpops = tl_ast_alloc(P->ast, nops * sizeof *ops);
        memcpy(nd->cmpops, ops, nops * sizeof *ops);
    }
    free(ops);
    return nd;
}

static tl_node *parse_not_test(parser *P)
{
    const tl_token *t = peek(P);
    if (!is_kw(t, TL_KW_NOT))
        return parse_comparison(P);
    next(P);
    return unary(P, t, TL_UNOP_NOT, parse_not_test);
}

/* or_test: and_test ('or' and_test)*; and_test: not_test ('and' not_test)* */
static tl_node *parse_bool(parser *P, bool is_or)
{
    tl_node *a = is_or ? parse_bool(P, false) : parse_not_test(P);
    while (a && is_kw(peek(P), is_or ? TL_KW_OR : TL_KW_AND)) {
        next(P);
        tl_node *b = is_or ? parse_bool(P, false) : parse_not_test(P);
        if (!b)
            return NULL;
        a = binary(P, TL_N_BOOLOP, is_or ? TL_BOOL_OR : TL_BOOL_AND, a, b);
    }
    return a;
}

static tl_node *parse_or_test(parser *P)
{
    return parse_bool(P, true);
}

static tl_node *parse_lambda(parser *P);

static tl_node *parse_test(parser *P)
{
    if (is_kw(peek(P), TL_KW_LAMBDA))
        return parse_lambda(P);
    if (!enter(P))
        return NULL;
    tl_node *body = parse_or_test(P);
    if (body && is_kw(peek(P), TL_KW_IF)) {
        next(P);
        tl_node *cond = parse_or_test(P);
        if (!cond) {
            leave(P);
            return NULL;
        }
        if (!is_kw(peek(P), TL_KW_ELSE)) {
            leave(P);
            return fail_at(P, TL_ERR_SYNTAX, join(body->span, cond->span),
                           "expected 'else' after 'if' expression");
        }
        next(P);
        tl_node *orelse = parse_test(P);
        if (!orelse) {
            leave(P);
            return NULL;
        }
        tl_node *nd = new_node(P, TL_N_IFEXP, join(body->span, orelse->span), 3);
        nd->kids[0] = body;
        nd->kids[1] = cond;
        nd->kids[2] = orelse;
        body = finish(P, nd);
    }
    if (body && is_op(peek(P), TL_OP_WALRUS)) {
        leave(P);
        return syntax_error(P);
    }
    leave(P);
    return body;
}

/* testlist with optional starred items: a, b, *c -> TUPLE */
static tl_node *parse_testlist(parser *P)
{
    tl_node *first = parse_star_or_test(P);
    if (!first)
        return NULL;
    if (!is_op(peek(P), TL_OP_COMMA))
        return first;
    nodevec v = {0};
    vec_push(&v, first);
    tl_span sp = first->span;
    while (accept_op(P, TL_OP_COMMA)) {
        const tl_token *t = peek(P);
        if (t->kind == TL_TOK_NEWLINE || t->kind == TL_TOK_EOF || is_op(t, TL_OP_SEMI) ||
            is_op(t, TL_OP_ASSIGN) || is_op(t, TL_OP_COLON) || (t->kind == TL_TOK_OP && t->u.op >= TL_OP_PLUSEQ))
            break;
        tl_node *e = parse_star_or_test(P);
        if (!e) {
            free(v.v);
            return NULL;
        }
        vec_push(&v, e);
        sp = join(sp, e->span);
    }
    return vec_to_node(P, &v, TL_N_TUPLE, sp);
}

/* ---------------------------------------------------------------------- */
/* f-strings */

/* line number (1-based) of a byte offset */
static int line_of(const parser *P, int32_t off)
{
    int line = 1;
    for (int32_t i = 0; i < off && (size_t)i < P->srclen; i++)
        if (P->text[i] == '\n')
            line++;
    return line;
}

/* literal text s[a..b) (escapes undecoded) appended to lit */
static bool fstr_literal(parser *P, int32_t a, int32_t b, bool raw, tl_buf *lit)
{
    if (b <= a)
        return true;
    return tl_lex_decode(P->text + a, (size_t)(b - a), raw, a, lit, P->err) == 0;
}

static void flush_literal(parser *P, tl_buf *lit, nodevec *pieces, tl_span sp)
{
    if (lit->len == 0)
        return;
    tl_node *nd = new_node(P, TL_N_STR, sp, 0);
    nd->str = tl_ast_strndup(P->ast, tl_buf_str(lit), lit->len);
    nd->len = lit->len;
    vec_push(pieces, nd);
    lit->len = 0;
}

/* The expression text[a..b) of a replacement field, parsed as a testlist. */
static tl_node *fstr_expr(parser *P, int32_t a, int32_t b)
{
    tl_toklist toks;
    if (tl_lex_expr(P->text + a, (size_t)(b - a), a, P->max_depth, &toks, P->err) < 0)
        return NULL;
    parser sub = *P;
    sub.t = toks.toks;
    sub.n = toks.n;
    sub.i = 0;
    tl_node *e = NULL;
    if (peek(&sub)->kind == TL_TOK_EOF)
        fail_at(P, TL_ERR_SYNTAX, (tl_span){a - 1, b + 1},
                "f-string: empty expression not allowed");
    else
        e = parse_testlist(&sub);
    if (e && peek(&sub)->kind != TL_TOK_EOF) {
        syntax_error(&sub);
        e = NULL;
    }
    P->depth = sub.depth;
    tl_toklist_free(&toks);
    return e;
}

static int fstr_body(parser *P, int32_t a, int32_t b, bool raw, nodevec *pieces);

/* One replacement field starting at text[i] == '{'; *end is set past its
 * closing '}'. */
static tl_node *fstr_field(parser *P, int32_t i, int32_t b, bool raw, int32_t *end)
{
    const char *s = P->text;
    int32_t j = i + 1;
    int depth = 0;
    char quote = 0;
    bool selfdoc = false;
    for (; j < b; j++) {
        char c = s[j];
        if (quote) {
            if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\\')
            return fail_at(P, TL_ERR_SYNTAX, (tl_span){j, j + 1},
                           "f-string expression part cannot include a backslash");
        if (c == '#')
            return fail_at(P, TL_ERR_SYNTAX, (tl_span){j, j + 1},
                           "f-string expression part cannot include '#'");
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) {
                if (c == '}')
                    break;
                return fail_at(P, TL_ERR_SYNTAX, (tl_span){j, j + 1},
                               "f-string: unmatched '%c'", c);
            }
            depth--;
        } else if (depth == 0 && c == '!' && !(j + 1 < b && s[j + 1] == '=')) {
            break;
        } else if (depth == 0 && c == ':') {
            break;
        } else if (depth == 0 && c == '=' && !(j + 1 < b && s[j + 1] == '=') &&
                   !strchr("=!<>", s[j - 1])) {
            selfdoc = true;
            break;
        }
    }
    if (j >= b)
        return fail_at(P, TL_ERR_SYNTAX, (tl_span){i, i + 1}, "f-string: expecting '}'");
    tl_node *e = fstr_expr(P, i + 1, j);
    if (!e)
        return NULL;
    const char *doc = NULL;
    if (selfdoc) {
        int32_t k = j + 1;
        while (k < b && (s[k] == ' ' || s[k] == '\t'))
            k++;
        doc = tl_ast_strndup(P->ast, s + i + 1, (size_t)(k - i - 1));
        j = k;
    }
    int conv = 0;
    if (j < b && s[j] == '!') {
        if (j + 1 >= b || !strchr("rsa", s[j + 1]) || s[j + 1] == 0)
            return fail_at(P, TL_ERR_SYNTAX, (tl_span){j, j + 2},
                           "f-string: invalid conversion character: expected 's', 'r', or 'a'");
        conv = s[j + 1];
        j += 2;
    }
    tl_node *spec = NULL;
    if (j < b && s[j] == ':') {
        int32_t k = j + 1;
        int d = 0;
        for (; k < b; k++) {
            if (s[k] == '{')
                d++;
            else if (s[k] == '}') {
                if (d == 0)
                    break;
                d--;
            }
        }
        if (k >= b)
            return fail_at(P, TL_ERR_SYNTAX, (tl_span){i, i + 1}, "f-string: expecting '}'");
        if (P->fdepth >= 2)
            return fail_at(P, TL_ERR_SYNTAX, (tl_span){j, k},
                           "f-string: expressions nested too deeply");
        nodevec sp = {0};
        P->fdepth++;
        int rc = fstr_body(P, j + 1, k, raw, &sp);
        P->fdepth--;
        if (rc < 0) {
            free(sp.v);
            return NULL;
        }
        spec = vec_to_node(P, &sp, TL_N_FSTRING, (tl_span){j, k});
        if (!spec)
            return NULL;
        j = k;
    }
    if (j >= b || s[j] != '}')
        return fail_at(P, TL_ERR_SYNTAX, (tl_span){i, j < b ? j + 1 : i + 1},
                       "f-string: expecting '}'");
    if (doc && !conv && !spec)
        conv = 'r';
    tl_node *nd = new_node(P, TL_N_FORMATTED, (tl_span){i, j + 1}, 2);
    nd->kids[0] = e;
    nd->kids[1] = spec;
    nd->op = conv;
    if (doc) {
        nd->str = doc;
        nd->len = strlen(doc);
    }
    *end = j + 1;
    return finish(P, nd);
}

/* Split an f-string body text[a..b) into pieces. */
static int fstr_body(parser *P, int32_t a, int32_t b, bool raw, nodevec *pieces)
{
    const char *s = P->text;
    tl_buf lit = {0};
    int32_t chunk = a, lit_start = a;
    int32_t i = a;
    while (i < b) {
        char c = s[i];
        if (c == '\\' && !raw && i + 1 < b) {
            i += 2;
            continue;
        }
        if ((c == '{' || c == '}') && i + 1 < b && s[i + 1] == c) {
            if (!fstr_literal(P, chunk, i, raw, &lit))
                goto fail;
            tl_buf_putc(&lit, c);
            i += 2;
            chunk = i;
            continue;
        }
        if (c == '}') {
            fail_at(P, TL_ERR_SYNTAX, (tl_span){i, i + 1}, "f-string: single '}' is not allowed");
            goto fail;
        }
        if (c == '{') {
            if (!fstr_literal(P, chunk, i, raw, &lit))
                goto fail;
            flush_literal(P, &lit, pieces, (tl_span){lit_start, i});
            int32_t end = b;
            tl_node *f = fstr_field(P, i, b, raw, &end);
            if (!f)
                goto fail;
            vec_push(pieces, f);
            i = chunk = lit_start = end;
            continue;
        }
        i++;
    }
    if (!fstr_literal(P, chunk, b, raw, &lit))
        goto fail;
    flush_literal(P, &lit, pieces, (tl_span){lit_start, b > lit_start ? b : lit_start + 1});
    tl_buf_free(&lit);
    return 0;
fail:
    tl_buf_free(&lit);
    return -1;
}

/* Adjacent string literals, at least one an f-string: one FSTRING. */
static tl_node *parse_strings(parser *P)
{
    nodevec pieces = {0};
    tl_span sp = span_of(peek(P));
    while (peek(P)->kind == TL_TOK_STR || peek(P)->kind == TL_TOK_FSTR) {
        const tl_token *t = next(P);
        sp = join(sp, t->span);
        if (t->kind == TL_TOK_STR) {
            if (t->len == 0)
                continue;
            tl_node *nd = new_node(P, TL_N_STR, t->span, 0);
            nd->str = tl_ast_strndup(P->ast, t->str, t->len);
            nd->len = t->len;
            vec_push(&pieces, nd);
        } else if (fstr_body(P, t->body_start, t->body_end, t->raw, &pieces) < 0) {
            free(pieces.v);
            return NULL;
        }
    }
    return vec_to_node(P, &pieces, TL_N_FSTRING, sp);
}

/* ---------------------------------------------------------------------- */
/* functions: parameters, lambda */

/* Parameters up to `close` (')' for def, ':' for lambda) into v. */
static bool parse_params(parser *P, nodevec *v, tl_opkind close)
{
    bool seen_default = false;
    while (!is_op(peek(P), close)) {
        const tl_token *t = peek(P);
        if (is_op(t, TL_OP_STAR) || is_op(t, TL_OP_DSTAR) || is_op(t, TL_OP_SLASH)) {
            fail_at(P, TL_ERR_UNSUPPORTED, span_of(t),
                    "tlab supports only positional parameters with optional defaults "
                    "(no *args, **kwargs, / or *)");
            return false;
        }
        if (t->kind != TL_TOK_NAME) {
            syntax_error(P);
            return false;
        }
        next(P);
        for (size_t k = 0; k < v->n; k++)
            if (strcmp(v->v[k]->str, t->str) == 0) {
                fail_at(P, TL_ERR_SYNTAX, span_of(t),
                        "duplicate argument '%s' in function definition", t->str);
                return false;
            }
        if (is_op(peek(P), TL_OP_COLON) && close == TL_OP_RPAR) {
            fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                    "tlab does not support annotations");
            return false;
        }
        tl_node *def = NULL;
        if (accept_op(P, TL_OP_ASSIGN)) {
            def = parse_test(P);
            if (!def)
                return false;
            seen_default = true;
        } else if (seen_default) {
            fail_at(P, TL_ERR_SYNTAX, span_of(t),
                    "non-default argument follows default argument");
            return false;
        }
        tl_node *pn = new_node(P, TL_N_PARAM, def ? join(t->span, def->span) : t->span, 1);
        pn->str = tl_ast_strndup(P->ast, t->str, t->len);
        pn->len = t->len;
        pn->kids[0] = def;
        if (!finish(P, pn))
            return false;
        vec_push(v, pn);
        if (v->n > 255) {
            fail_at(P, TL_ERR_LIMIT, span_of(t), "more than 255 parameters");
            return false;
        }
        if (!accept_op(P, TL_OP_COMMA))
            break;
    }
    if (!is_op(peek(P), close)) {
        syntax_error(P);
        return false;
    }
    next(P);
    return true;
}

static tl_node *parse_lambda(parser *P)
{
    const tl_token *kw = next(P);
    if (!enter(P))
        return NULL;
    nodevec v = {0};
    if (!parse_params(P, &v, TL_OP_COLON)) {
        free(v.v);
        leave(P);
        return NULL;
    }
    int saved_loops = P->loops;
    P->in_func++;
    P->loops = 0;
    tl_node *body = parse_test(P);
    P->in_func--;
    P->loops = saved_loops;
    leave(P);
    if (!body) {
        free(v.v);
        return NULL;
    }
    vec_push(&v, body);
    return vec_to_node(P, &v, TL_N_LAMBDA, join(kw->span, body->span));
}

/* ---------------------------------------------------------------------- */
/* statements */

static bool check_target(parser *P, tl_node *t, bool top)
{
    switch (t->kind) {
    case TL_N_NAME:
    case TL_N_SUBSCRIPT:
    case TL_N_ATTR: /* x.grad = None: the setter decides (py/setattr.c) */
        return true;
    case TL_N_TUPLE:
    case TL_N_LIST:
        if (t->n == 0 && t->kind == TL_N_TUPLE && top) {
            fail_at(P, TL_ERR_SYNTAX, t->span,
                    "cannot assign to tuple here. Maybe you meant '==' instead of '='?");
            return false;
        }
        for (size_t i = 0; i < t->n; i++)
            if (!check_target(P, t->kids[i], false))
                return false;
        return true;
    case TL_N_STARRED:
        fail_at(P, TL_ERR_UNSUPPORTED, t->span,
                "tlab does not support starred assignment targets");
        return false;
    case TL_N_INT: case TL_N_FLOAT: case TL_N_STR: case TL_N_BOOL:
    case TL_N_NONE: case TL_N_ELLIPSIS:
        fail_at(P, TL_ERR_SYNTAX, t->span,
                "cannot assign to literal here. Maybe you meant '==' instead of '='?");
        return false;
    case TL_N_CALL:
        fail_at(P, TL_ERR_SYNTAX, t->span,
                "cannot assign to function call here. Maybe you meant '==' instead of '='?");
        return false;
    default:
        fail_at(P, TL_ERR_SYNTAX, t->span,
                "cannot assign to expression here. Maybe you meant '==' instead of '='?");
        return false;
    }
}

static int augop(const tl_token *t)
{
    if (t->kind != TL_TOK_OP)
        return -1;
    switch (t->u.op) {
    case TL_OP_PLUSEQ: return TL_PY_ADD;
    case TL_OP_MINUSEQ: return TL_PY_SUB;
    case TL_OP_STAREQ: return TL_PY_MUL;
    case TL_OP_SLASHEQ: return TL_PY_TRUEDIV;
    case TL_OP_DSLASHEQ: return TL_PY_FLOORDIV;
    case TL_OP_PERCENTEQ: return TL_PY_MOD;
    case TL_OP_DSTAREQ: return TL_PY_POW;
    case TL_OP_ATEQ: return TL_PY_MATMUL;
    case TL_OP_AMPEQ: return TL_PY_AND;
    case TL_OP_PIPEEQ: return TL_PY_OR;
    case TL_OP_CARETEQ: return TL_PY_XOR;
    case TL_OP_LSHIFTEQ: return TL_PY_LSHIFT;
    case TL_OP_RSHIFTEQ: return TL_PY_RSHIFT;
    default: return -1;
    }
}

static tl_node *parse_import(parser *P)
{
    const tl_token *kw = next(P);
    nodevec v = {0};
    tl_span all = kw->span;
    for (;;) {
        const tl_token *m = peek(P);
        if (m->kind != TL_TOK_NAME) {
            free(v.v);
            return syntax_error(P);
        }
        next(P);
        tl_span msp = m->span;
        bool dotted = false;
        tl_buf full = {0};
        tl_buf_puts(&full, m->str);
        while (is_op(peek(P), TL_OP_DOT)) {
            next(P);
            const tl_token *part = peek(P);
            if (part->kind != TL_TOK_NAME) {
                free(v.v);
                tl_buf_free(&full);
                return syntax_error(P);
            }
            next(P);
            tl_buf_putc(&full, '.');
            tl_buf_puts(&full, part->str);
            msp = join(msp, part->span);
            dotted = true;
        }
        if (dotted || (strcmp(m->str, "torch") != 0 && strcmp(m->str, "numpy") != 0 &&
                       strcmp(m->str, "os") != 0 && strcmp(m->str, "h5py") != 0 &&
                       strcmp(m->str, "einops") != 0)) {
            free(v.v);
            fail_at(P, TL_ERR_UNSUPPORTED, msp,
                    "tlab does not support importing '%s' (only torch, numpy, os, h5py and einops)",
                    tl_buf_str(&full));
            tl_buf_free(&full);
            return NULL;
        }
        tl_buf_free(&full);
        const char *alias = m->str;
        size_t alen = m->len;
        tl_span sp = msp;
        if (is_kw(peek(P), TL_KW_AS)) {
            next(P);
            const tl_token *a = peek(P);
            if (a->kind != TL_TOK_NAME) {
                free(v.v);
                return syntax_error(P);
            }
            next(P);
            alias = a->str;
            alen = a->len;
            sp = join(sp, a->span);
        }
        tl_node *nd = new_node(P, TL_N_IMPORT, join(kw->span, sp), 0);
        nd->str = tl_ast_strndup(P->ast, m->str, m->len);
        nd->str2 = tl_ast_strndup(P->ast, alias, alen);
        nd->len = m->len;
        vec_push(&v, nd);
        all = join(all, sp);
        if (!accept_op(P, TL_OP_COMMA))
            break;
    }
    if (v.n == 1) {
        tl_node *nd = v.v[0];
        free(v.v);
        return nd;
    }
    /* several modules: a PASS-like holder is not needed; return a tuple of
     * imports that the caller splices into the statement list */
    return vec_to_node(P, &v, TL_N_TUPLE, all);
}

/* from einops import NAME [as ALIAS], ...: one IMPORT node per name, op
 * TL_IMPORT_FROM, str "einops.NAME", str2 the alias (einops is the one
 * module whose names can be imported: its functions are the lesson's idiom) */
static tl_node *parse_from_import(parser *P)
{
    const tl_token *kw = next(P);
    const tl_token *m = peek(P);
    if (m->kind != TL_TOK_NAME)
        return syntax_error(P);
    next(P);
    if (strcmp(m->str, "einops") != 0 || is_op(peek(P), TL_OP_DOT))
        return fail_at(P, TL_ERR_UNSUPPORTED, join(kw->span, m->span),
                       "tlab does not support 'from ... import' except from einops (use "
                       "'import torch' or 'import numpy as np')");
    if (!is_kw(peek(P), TL_KW_IMPORT))
        return syntax_error(P);
    next(P);
    bool paren = accept_op(P, TL_OP_LPAR);
    nodevec v = {0};
    tl_span all = kw->span;
    for (;;) {
        const tl_token *name = peek(P);
        if (name->kind != TL_TOK_NAME) {
            free(v.v);
            if (is_op(name, TL_OP_STAR))
                return fail_at(P, TL_ERR_UNSUPPORTED, span_of(name),
                               "tlab does not support 'from einops import *'");
            return syntax_error(P);
        }
        next(P);
        const tl_token *alias = name;
        tl_span sp = name->span;
        if (is_kw(peek(P), TL_KW_AS)) {
            next(P);
            alias = peek(P);
            if (alias->kind != TL_TOK_NAME) {
                free(v.v);
                return syntax_error(P);
            }
            next(P);
            sp = join(sp, alias->span);
        }
        tl_node *nd = new_node(P, TL_N_IMPORT, join(kw->span, sp), 0);
        tl_buf full = {0};
        tl_buf_printf(&full, "einops.%s", name->str);
        nd->str = tl_ast_strndup(P->ast, tl_buf_str(&full), full.len);
        nd->len = full.len;
        tl_buf_free(&full);
        nd->str2 = tl_ast_strndup(P->ast, alias->str, alias->len);
        nd->op = TL_IMPORT_FROM;
        vec_push(&v, nd);
        all = join(all, sp);
        if (!accept_op(P, TL_OP_COMMA))
            break;
        if (paren && is_op(peek(P), TL_OP_RPAR))
            break;
    }
    if (paren && !expect_op(P, TL_OP_RPAR)) {
        free(v.v);
        return NULL;
    }
    if (v.n == 1) {
        tl_node *nd = v.v[0];
        free(v.v);
        return nd;
    }
    return vec_to_node(P, &v, TL_N_TUPLE, all);
}

static tl_node *unsupported_stmt(parser *P, const tl_token *t)
{
    return fail_at(P, TL_ERR_UNSUPPORTED, span_of(t),
                   "tlab does not support '%s' statements", tl_lex_keyword_text(t->u.kw));
}

static tl_node *parse_flow_stmt(parser *P);

static tl_node *parse_simple_stmt(parser *P)
{
    const tl_token *t = peek(P);
    if (t->kind == TL_TOK_KEYWORD) {
        switch (t->u.kw) {
        case TL_KW_IMPORT:
            return parse_import(P);
        case TL_KW_FROM:
            return parse_from_import(P);
        case TL_KW_PASS:
            next(P);
            return new_node(P, TL_N_PASS, t->span, 0);
        case TL_KW_ASSERT: {
            next(P);
            tl_node *test = parse_test(P);
            if (!test)
                return NULL;
            tl_node *msg = NULL;
            if (accept_op(P, TL_OP_COMMA)) {
                msg = parse_test(P);
                if (!msg)
                    return NULL;
            }
            tl_node *nd = new_node(P, TL_N_ASSERT,
                                   join(t->span, (msg ? msg : test)->span), 2);
            nd->kids[0] = test;
            nd->kids[1] = msg;
            return finish(P, nd);
        }
        case TL_KW_RETURN: case TL_KW_RAISE: case TL_KW_BREAK:
        case TL_KW_CONTINUE: case TL_KW_DEL: case TL_KW_GLOBAL:
            return parse_flow_stmt(P);
        case TL_KW_DEF: case TL_KW_CLASS: case TL_KW_IF: case TL_KW_ELIF:
        case TL_KW_ELSE: case TL_KW_WHILE: case TL_KW_FOR: case TL_KW_WITH:
        case TL_KW_TRY: case TL_KW_EXCEPT: case TL_KW_FINALLY:
            /* a compound statement after ';' or in a one-line body */
            return syntax_error(P);
        case TL_KW_NONLOCAL: case TL_KW_ASYNC:
            return unsupported_stmt(P, t);
        default:
            break;
        }
    }
    if (is_op(t, TL_OP_AT))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(t),
                       "tlab does not support decorators");

    tl_node *first = parse_testlist(P);
    if (!first)
        return NULL;
    const tl_token *op = peek(P);
    int aug = augop(op);
    if (aug >= 0) {
        if (first->kind != TL_N_NAME && first->kind != TL_N_SUBSCRIPT &&
            first->kind != TL_N_ATTR)
            return fail_at(P, TL_ERR_SYNTAX, first->span,
                           "'%s' is an illegal expression for augmented assignment",
                           first->kind == TL_N_TUPLE ? "tuple"
                           : first->kind == TL_N_LIST ? "list"
                           : first->kind == TL_N_CALL ? "function call"
                           : (first->kind <= TL_N_ELLIPSIS) ? "literal" : "expression");
        next(P);
        tl_node *val = parse_testlist(P);
        if (!val)
            return NULL;
        tl_node *nd = new_node(P, TL_N_AUGASSIGN, join(first->span, val->span), 2);
        nd->op = aug;
        nd->kids[0] = first;
        nd->kids[1] = val;
        return finish(P, nd);
    }
    if (is_op(op, TL_OP_COLON))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(op),
                       "tlab does not support annotations");
    if (!is_op(op, TL_OP_ASSIGN)) {
        if (first->kind == TL_N_STARRED)
            return fail_at(P, TL_ERR_SYNTAX, first->span,
                           "can't use starred expression here");
        tl_node *nd = new_node(P, TL_N_EXPR, first->span, 1);
        nd->kids[0] = first;
        return finish(P, nd);
    }
    nodevec v = {0};
    vec_push(&v, first);
    while (accept_op(P, TL_OP_ASSIGN)) {
        tl_node *e = parse_testlist(P);
        if (!e) {
            free(v.v);
            return NULL;
        }
        vec_push(&v, e);
    }
    for (size_t k = 0; k + 1 < v.n; k++)
        if (!check_target(P, v.v[k], true)) {
            free(v.v);
            return NULL;
        }
    tl_node *value = v.v[v.n - 1];
    if (value->kind == TL_N_STARRED) {
        free(v.v);
        return fail_at(P, TL_ERR_SYNTAX, value->span, "can't use starred expression here");
    }
    return vec_to_node(P, &v, TL_N_ASSIGN, join(first->span, value->span));
}

/* ---------------------------------------------------------------------- */
/* simple statements new with blocks: return, raise, break, continue, del,
 * global */

static tl_node *finish_stmt(tl_node *nd)
{
    int h = 0;
    for (size_t i = 0; i < nd->n; i++)
        if (nd->kids[i] && nd->kids[i]->height > h)
            h = nd->kids[i]->height;
    nd->height = h + 1;
    return nd;
}

static bool at_stmt_end(const parser *P)
{
    const tl_token *t = peek(P);
    return t->kind == TL_TOK_NEWLINE || t->kind == TL_TOK_EOF || is_op(t, TL_OP_SEMI);
}

static tl_node *parse_flow_stmt(parser *P)
{
    const tl_token *t = next(P);
    switch (t->u.kw) {
    case TL_KW_BREAK:
    case TL_KW_CONTINUE:
        if (P->loops == 0)
            return fail_at(P, TL_ERR_SYNTAX, span_of(t), "'%s' outside loop",
                           tl_lex_keyword_text(t->u.kw));
        return new_node(P, t->u.kw == TL_KW_BREAK ? TL_N_BREAK : TL_N_CONTINUE, t->span, 0);
    case TL_KW_RETURN: {
        if (!P->in_func)
            return fail_at(P, TL_ERR_SYNTAX, span_of(t), "'return' outside function");
        tl_node *v = NULL;
        if (!at_stmt_end(P) && !(v = parse_testlist(P)))
            return NULL;
        tl_node *nd = new_node(P, TL_N_RETURN, v ? join(t->span, v->span) : t->span, 1);
        nd->kids[0] = v;
        return finish(P, nd);
    }
    case TL_KW_RAISE: {
        tl_node *e = NULL, *cause = NULL;
        if (!at_stmt_end(P)) {
            if (!(e = parse_test(P)))
                return NULL;
            if (is_kw(peek(P), TL_KW_FROM)) {
                next(P);
                if (!(cause = parse_test(P)))
                    return NULL;
            }
        }
        tl_node *nd = new_node(P, TL_N_RAISE,
                               join(t->span, (cause ? cause : e ? e : NULL) ?
                                    (cause ? cause : e)->span : t->span), 2);
        nd->kids[0] = e;
        nd->kids[1] = cause;
        return finish(P, nd);
    }
    case TL_KW_DEL: {
        tl_node *targets = parse_testlist(P);
        if (!targets)
            return NULL;
        size_t n = targets->kind == TL_N_TUPLE ? targets->n : 1;
        tl_node *nd = new_node(P, TL_N_DEL, join(t->span, targets->span), n);
        for (size_t k = 0; k < n; k++) {
            tl_node *x = targets->kind == TL_N_TUPLE ? targets->kids[k] : targets;
            if (x->kind != TL_N_NAME && x->kind != TL_N_SUBSCRIPT)
                return fail_at(P, x->kind == TL_N_ATTR ? TL_ERR_UNSUPPORTED : TL_ERR_SYNTAX,
                               x->span, x->kind == TL_N_ATTR
                                   ? "tlab does not support deleting attributes"
                                   : "cannot delete expression");
            nd->kids[k] = x;
        }
        return finish(P, nd);
    }
    case TL_KW_GLOBAL: {
        nodevec v = {0};
        tl_span sp = t->span;
        do {
            const tl_token *nm = peek(P);
            if (nm->kind != TL_TOK_NAME) {
                free(v.v);
                return syntax_error(P);
            }
            next(P);
            tl_node *x = new_node(P, TL_N_NAME, nm->span, 0);
            x->str = tl_ast_strndup(P->ast, nm->str, nm->len);
            x->len = nm->len;
            vec_push(&v, x);
            sp = join(sp, nm->span);
        } while (accept_op(P, TL_OP_COMMA));
        return vec_to_node(P, &v, TL_N_GLOBAL, sp);
    }
    default:
        return unsupported_stmt(P, t);
    }
}

/* ---------------------------------------------------------------------- */
/* blocks and compound statements */

static int parse_statement(parser *P, nodevec *out);

/* Simple statements of one line (`a = 1; b = 2`) into out, through its
 * NEWLINE. */
static int parse_simple_line(parser *P, nodevec *out)
{
    for (;;) {
        tl_node *s = parse_simple_stmt(P);
        if (!s)
            return -1;
        if (s->kind == TL_N_TUPLE) { /* import a, b */
            for (size_t k = 0; k < s->n; k++)
                vec_push(out, s->kids[k]);
        } else {
            vec_push(out, s);
        }
        if (!accept_op(P, TL_OP_SEMI))
            break;
        if (peek(P)->kind == TL_TOK_NEWLINE || peek(P)->kind == TL_TOK_EOF)
            break;
    }
    const tl_token *t = peek(P);
    if (t->kind == TL_TOK_NEWLINE) {
        next(P);
        return 0;
    }
    if (t->kind == TL_TOK_EOF)
        return 0;
    syntax_error(P);
    return -1;
}

/* The body after `kw ... :` (the colon consumed): an indented block or
 * simple statements on the same line. */
static tl_node *parse_block(parser *P, const tl_token *kw, const char *what)
{
    nodevec v = {0};
    tl_span sp = span_of(peek(P));
    if (peek(P)->kind == TL_TOK_NEWLINE) {
        next(P);
        if (peek(P)->kind != TL_TOK_INDENT)
            return fail_at(P, TL_ERR_SYNTAX, span_of(peek(P)),
                           "expected an indented block after %s on line %d", what,
                           line_of(P, kw->span.start));
        next(P);
        if (!enter(P))
            return NULL;
        while (peek(P)->kind != TL_TOK_DEDENT && peek(P)->kind != TL_TOK_EOF) {
            if (parse_statement(P, &v) < 0) {
                free(v.v);
                leave(P);
                return NULL;
            }
        }
        leave(P);
        if (peek(P)->kind == TL_TOK_DEDENT)
            next(P);
    } else if (parse_simple_line(P, &v) < 0) {
        free(v.v);
        return NULL;
    }
    if (v.n)
        sp = join(v.v[0]->span, v.v[v.n - 1]->span);
    tl_node *nd = new_node(P, TL_N_BLOCK, sp, v.n);
    if (v.n)
        memcpy(nd->kids, v.v, v.n * sizeof *v.v);
    free(v.v);
    return finish_stmt(nd);
}

static bool expect_colon(parser *P)
{
    if (accept_op(P, TL_OP_COLON))
        return true;
    if (peek(P)->kind == TL_TOK_NEWLINE)
        fail_at(P, TL_ERR_SYNTAX, span_of(peek(P)), "expected ':'");
    else
        syntax_error(P);
    return false;
}

static tl_node *block_of_one(parser *P, tl_node *s)
{
    tl_node *b = new_node(P, TL_N_BLOCK, s->span, 1);
    b->kids[0] = s;
    return finish_stmt(b);
}

static tl_node *parse_if(parser *P)
{
    const tl_token *kw = next(P); /* if / elif */
    tl_node *cond = parse_test(P);
    if (!cond || !expect_colon(P))
        return NULL;
    tl_node *body = parse_block(P, kw, kw->u.kw == TL_KW_IF ? "'if' statement"
                                                            : "'elif' statement");
    if (!body)
        return NULL;
    tl_node *orelse = NULL;
    if (is_kw(peek(P), TL_KW_ELIF)) {
        tl_node *e = parse_if(P);
        if (!e)
            return NULL;
        orelse = block_of_one(P, e);
    } else if (is_kw(peek(P), TL_KW_ELSE)) {
        const tl_token *ekw = next(P);
        if (!expect_colon(P) || !(orelse = parse_block(P, ekw, "'else' statement")))
            return NULL;
    }
    tl_node *nd = new_node(P, TL_N_IF, join(kw->span, cond->span), 3);
    nd->kids[0] = cond;
    nd->kids[1] = body;
    nd->kids[2] = orelse;
    return finish_stmt(nd);
}

/* loop body and optional else clause */
static bool loop_body(parser *P, const tl_token *kw, const char *what, tl_node **body,
                      tl_node **orelse)
{
    P->loops++;
    *body = parse_block(P, kw, what);
    P->loops--;
    if (!*body)
        return false;
    *orelse = NULL;
    if (is_kw(peek(P), TL_KW_ELSE)) {
        const tl_token *ekw = next(P);
        if (!expect_colon(P) || !(*orelse = parse_block(P, ekw, "'else' statement")))
            return false;
    }
    return true;
}

static tl_node *parse_while(parser *P)
{
    const tl_token *kw = next(P);
    tl_node *cond = parse_test(P), *body, *orelse;
    if (!cond || !expect_colon(P) || !loop_body(P, kw, "'while' statement", &body, &orelse))
        return NULL;
    tl_node *nd = new_node(P, TL_N_WHILE, join(kw->span, cond->span), 3);
    nd->kids[0] = cond;
    nd->kids[1] = body;
    nd->kids[2] = orelse;
    return finish_stmt(nd);
}

static tl_node *parse_for(parser *P)
{
    const tl_token *kw = next(P);
    tl_node *target = parse_for_target(P);
    if (!target || !check_target(P, target, true))
        return NULL;
    if (!is_kw(peek(P), TL_KW_IN))
        return syntax_error(P);
    next(P);
    tl_node *iter = parse_testlist(P), *body, *orelse;
    if (!iter || !expect_colon(P) || !loop_body(P, kw, "'for' statement", &body, &orelse))
        return NULL;
    tl_node *nd = new_node(P, TL_N_FOR, join(kw->span, iter->span), 4);
    nd->kids[0] = target;
    nd->kids[1] = iter;
    nd->kids[2] = body;
    nd->kids[3] = orelse;
    return finish_stmt(nd);
}

static tl_node *parse_def(parser *P)
{
    const tl_token *kw = next(P);
    const tl_token *name = peek(P);
    if (name->kind != TL_TOK_NAME)
        return syntax_error(P);
    next(P);
    if (!expect_op(P, TL_OP_LPAR))
        return NULL;
    nodevec v = {0};
    if (!parse_params(P, &v, TL_OP_RPAR)) {
        free(v.v);
        return NULL;
    }
    if (is_op(peek(P), TL_OP_ARROW)) {
        free(v.v);
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                       "tlab does not support annotations");
    }
    if (!expect_colon(P)) {
        free(v.v);
        return NULL;
    }
    int saved_loops = P->loops;
    P->in_func++;
    P->loops = 0;
    char what[96];
    snprintf(what, sizeof what, "function definition");
    tl_node *body = parse_block(P, kw, what);
    P->in_func--;
    P->loops = saved_loops;
    if (!body) {
        free(v.v);
        return NULL;
    }
    vec_push(&v, body);
    tl_node *nd = new_node(P, TL_N_DEF, join(kw->span, name->span), v.n);
    memcpy(nd->kids, v.v, v.n * sizeof *v.v);
    free(v.v);
    nd->str = tl_ast_strndup(P->ast, name->str, name->len);
    nd->len = name->len;
    return finish_stmt(nd);
}

static tl_node *parse_try(parser *P)
{
    const tl_token *kw = next(P);
    if (!expect_colon(P))
        return NULL;
    tl_node *body = parse_block(P, kw, "'try' statement");
    if (!body)
        return NULL;
    nodevec v = {0};
    vec_push(&v, body);
    size_t nh = 0;
    bool bare = false;
    while (is_kw(peek(P), TL_KW_EXCEPT)) {
        const tl_token *ekw = next(P);
        if (bare) {
            free(v.v);
            return fail_at(P, TL_ERR_SYNTAX, span_of(ekw), "default 'except:' must be last");
        }
        if (is_op(peek(P), TL_OP_STAR)) {
            free(v.v);
            return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                           "tlab does not support except*");
        }
        tl_node *type = NULL;
        const char *name = NULL;
        tl_span hsp = ekw->span;
        if (!is_op(peek(P), TL_OP_COLON)) {
            if (!(type = parse_test(P))) {
                free(v.v);
                return NULL;
            }
            hsp = join(hsp, type->span);
            if (is_kw(peek(P), TL_KW_AS)) {
                next(P);
                const tl_token *nm = peek(P);
                if (nm->kind != TL_TOK_NAME) {
                    free(v.v);
                    return syntax_error(P);
                }
                next(P);
                name = tl_ast_strndup(P->ast, nm->str, nm->len);
                hsp = join(hsp, nm->span);
            }
        } else {
            bare = true;
        }
        tl_node *hb;
        if (!expect_colon(P) || !(hb = parse_block(P, ekw, "'except' statement"))) {
            free(v.v);
            return NULL;
        }
        tl_node *h = new_node(P, TL_N_HANDLER, hsp, 2);
        h->kids[0] = type;
        h->kids[1] = hb;
        h->str = name;
        vec_push(&v, finish_stmt(h));
        nh++;
    }
    tl_node *orelse = NULL, *fin = NULL;
    if (is_kw(peek(P), TL_KW_ELSE)) {
        const tl_token *ekw = next(P);
        if (nh == 0) {
            free(v.v);
            return fail_at(P, TL_ERR_SYNTAX, span_of(ekw), "expected 'except' or 'finally' block");
        }
        if (!expect_colon(P) || !(orelse = parse_block(P, ekw, "'else' statement"))) {
            free(v.v);
            return NULL;
        }
    }
    if (is_kw(peek(P), TL_KW_FINALLY)) {
        const tl_token *fkw = next(P);
        if (!expect_colon(P) || !(fin = parse_block(P, fkw, "'finally' statement"))) {
            free(v.v);
            return NULL;
        }
    }
    if (nh == 0 && !fin) {
        free(v.v);
        return fail_at(P, TL_ERR_SYNTAX, span_of(peek(P)), "expected 'except' or 'finally' block");
    }
    vec_push(&v, orelse);
    vec_push(&v, fin);
    tl_node *nd = new_node(P, TL_N_TRY, kw->span, v.n);
    memcpy(nd->kids, v.v, v.n * sizeof *v.v);
    free(v.v);
    nd->ival = (int64_t)nh;
    return finish_stmt(nd);
}

static tl_node *parse_with(parser *P)
{
    const tl_token *kw = next(P);
    tl_node *ctx = parse_test(P);
    if (!ctx)
        return NULL;
    tl_node *target = NULL;
    if (is_kw(peek(P), TL_KW_AS)) {
        next(P);
        if (!(target = parse_bitor(P)) || !check_target(P, target, true))
            return NULL;
    }
    if (is_op(peek(P), TL_OP_COMMA))
        return fail_at(P, TL_ERR_UNSUPPORTED, span_of(peek(P)),
                       "tlab supports one context manager per 'with' statement");
    tl_node *body;
    if (!expect_colon(P) || !(body = parse_block(P, kw, "'with' statement")))
        return NULL;
    tl_node *nd = new_node(P, TL_N_WITH, join(kw->span, ctx->span), 3);
    nd->kids[0] = ctx;
    nd->kids[1] = target;
    nd->kids[2] = body;
    return finish_stmt(nd);
}

static int parse_statement(parser *P, nodevec *out)
{
    const tl_token *t = peek(P);
    if (t->kind == TL_TOK_NEWLINE) {
        next(P);
        return 0;
    }
    if (t->kind == TL_TOK_INDENT) {
        fail_at(P, TL_ERR_SYNTAX, span_of(t), "unexpected indent");
        return -1;
    }
    tl_node *s = NULL;
    if (t->kind == TL_TOK_KEYWORD) {
        switch (t->u.kw) {
        case TL_KW_IF: s = parse_if(P); break;
        case TL_KW_WHILE: s = parse_while(P); break;
        case TL_KW_FOR: s = parse_for(P); break;
        case TL_KW_DEF: s = parse_def(P); break;
        case TL_KW_TRY: s = parse_try(P); break;
        case TL_KW_WITH: s = parse_with(P); break;
        case TL_KW_CLASS: case TL_KW_ASYNC:
            unsupported_stmt(P, t);
            return -1;
        case TL_KW_ELIF: case TL_KW_ELSE: case TL_KW_EXCEPT: case TL_KW_FINALLY:
            syntax_error(P);
            return -1;
        default:
            return parse_simple_line(P, out);
        }
        if (!s)
            return -1;
        vec_push(out, s);
        return 0;
    }
    return parse_simple_line(P, out);
}

static int parse_program(parser *P)
{
    nodevec stmts = {0};
    while (peek(P)->kind != TL_TOK_EOF) {
        if (parse_statement(P, &stmts) < 0) {
            free(stmts.v);
            return -1;
        }
    }
    P->ast->nstmts = stmts.n;
    P->ast->stmts = tl_ast_alloc(P->ast, (stmts.n ? stmts.n : 1) * sizeof(tl_node *));
    if (stmts.n)
        memcpy(P->ast->stmts, stmts.v, stmts.n * sizeof(tl_node *));
    free(stmts.v);
    return 0;
}

int tl_parse(const char *text, size_t len, int max_depth, tl_ast **out,
             tl_error *err)
{
    *out = NULL;
    if (max_depth < 1)
        max_depth = 1;
    tl_toklist toks;
    if (tl_lex(text, len, max_depth, &toks, err) < 0)
        return -1;
    parser P;
    memset(&P, 0, sizeof P);
    P.t = toks.toks;
    P.n = toks.n;
    P.err = err;
    P.text = text;
    P.srclen = len;
    P.max_depth = max_depth + 1; /* the statement's own expression level */
    P.max_height = tl_parse_max_height(max_depth);
    P.ast = tl_ast_new();
    int rc = parse_program(&P);
    tl_toklist_free(&toks);
    if (rc < 0) {
        tl_ast_free(P.ast);
        return -1;
    }
    *out = P.ast;
    return 0;
}
