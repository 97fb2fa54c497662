/* ast.c - allocation and debug dumps for the syntax tree.
 *
 * A tree lives in one arena (base/arena.h), freed at once by tl_ast_free.
 * Nothing in a tree points outside its arena except `str` of literals,
 * which is also arena memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "arena.h"
#include "util.h"

void *tl_ast_alloc(tl_ast *ast, size_t n)
{
    return tl_arena_alloc(&ast->arena, n);
}

char *tl_ast_strndup(tl_ast *ast, const char *s, size_t n)
{
    char *p = tl_ast_alloc(ast, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

tl_node *tl_ast_node(tl_ast *ast, tl_nodekind kind, tl_span span, size_t nkids)
{
    tl_node *nd = tl_ast_alloc(ast, sizeof *nd);
    nd->kind = kind;
    nd->span = span;
    nd->height = 1;
    nd->n = nkids;
    if (nkids)
        nd->kids = tl_ast_alloc(ast, nkids * sizeof *nd->kids);
    return nd;
}

tl_ast *tl_ast_new(void)
{
    tl_ast *a = tl_xcalloc(1, sizeof(tl_ast));
    a->refcount = 1;
    return a;
}

tl_ast *tl_ast_retain(tl_ast *ast)
{
    if (ast)
        ast->refcount++;
    return ast;
}

void tl_ast_free(tl_ast *ast)
{
    if (!ast || --ast->refcount > 0)
        return;
    tl_arena_free(ast->arena);
    free(ast);
}

static const char *const kind_names[] = {
    "Int", "Float", "Str", "Bool", "None", "Ellipsis", "Name", "Tuple",
    "List", "Attr", "Call", "Subscript", "Slice", "Unary", "Binary",
    "Compare", "BoolOp", "IfExp", "ListComp", "Starred", "Keyword",
    "Import", "Assign", "AugAssign", "Expr", "Assert", "Pass",
    "FString", "Formatted", "Lambda", "Param", "Block", "If", "While", "For",
    "Break", "Continue", "Return", "Def", "Try", "Handler", "Raise", "With",
    "Del", "Global"};

const char *tl_ast_kind_name(tl_nodekind k)
{
    return (unsigned)k < TL_ARRAY_LEN(kind_names) ? kind_names[k] : "?";
}

static const char *const pyop_text[TL_NPYOPS] = {
    "+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">",
    ">=", "&", "|", "^", "<<", ">>"};
static const char *const cmp_text[] = {
    "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};

void tl_ast_dump(const tl_node *n, tl_buf *b)
{
    if (!n) {
        tl_buf_puts(b, "_");
        return;
    }
    switch (n->kind) {
    case TL_N_INT:
        tl_buf_printf(b, "%lld", (long long)n->ival);
        return;
    case TL_N_FLOAT:
        tl_buf_printf(b, "%.17g", n->fval);
        return;
    case TL_N_STR:
        tl_buf_printf(b, "'%s'", n->str);
        return;
    case TL_N_BOOL:
        tl_buf_puts(b, n->ival ? "True" : "False");
        return;
    case TL_N_NONE:
        tl_buf_puts(b, "None");
        return;
    case TL_N_ELLIPSIS:
        tl_buf_puts(b, "...");
        return;
    case TL_N_NAME:
        tl_buf_puts(b, n->str);
        return;
    default:
        break;
    }
    tl_buf_printf(b, "(%s", tl_ast_kind_name(n->kind));
    switch (n->kind) {
    case TL_N_ATTR: /* (Attr object name) */
        tl_buf_putc(b, ' ');
        tl_ast_dump(n->kids[0], b);
        tl_buf_printf(b, " %s)", n->str);
        return;
    case TL_N_KEYWORD:
        tl_buf_printf(b, " %s", n->str);
        break;
    case TL_N_IMPORT:
        tl_buf_printf(b, " %s %s", n->str, n->str2);
        break;
    case TL_N_DEF:
    case TL_N_PARAM:
        tl_buf_printf(b, " %s", n->str);
        break;
    case TL_N_HANDLER:
        if (n->str)
            tl_buf_printf(b, " as %s", n->str);
        break;
    case TL_N_FORMATTED:
        if (n->op)
            tl_buf_printf(b, " !%c", n->op);
        break;
    case TL_N_UNARY:
        tl_buf_puts(b, n->op == TL_UNOP_NOT ? " not"
                       : n->op == TL_PY_NEG ? " -"
                       : n->op == TL_PY_POS ? " +" : " ~");
        break;
    case TL_N_BINARY:
    case TL_N_AUGASSIGN:
        if (n->op >= 0 && n->op < TL_NPYOPS)
            tl_buf_printf(b, " %s", pyop_text[n->op]);
        break;
    case TL_N_BOOLOP:
        tl_buf_puts(b, n->op == TL_BOOL_AND ? " and" : " or");
        break;
    default:
        break;
    }
    for (size_t i = 0; i < n->n; i++) {
        tl_buf_putc(b, ' ');
        if (n->kind == TL_N_COMPARE && i > 0)
            tl_buf_printf(b, "%s ", cmp_text[n->cmpops[i - 1]]);
        tl_ast_dump(n->kids[i], b);
    }
    tl_buf_putc(b, ')');
}
