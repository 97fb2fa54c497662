/* ast.h - syntax tree of the op language.
 *
 * Every node carries the byte span of the source text it came from, so
 * evaluation errors can underline the failing call. Nodes and their strings
 * live in an arena owned by a tl_ast (one parse); tl_ast_free releases all
 * of them at once, nothing is freed individually.
 *
 * Children conventions (kids[]):
 *   INT/FLOAT/STR/BOOL/NONE/ELLIPSIS  literals (ival/fval/str)
 *   NAME          str = the name
 *   TUPLE, LIST   kids = elements (STARRED allowed in lists/tuples? no)
 *   ATTR          kids[0] = object, str = attribute name
 *   CALL          kids[0] = callee, kids[1..] = arguments; an argument is
 *                 an expression, STARRED (*seq) or KEYWORD (str=name,
 *                 kids[0]=value)
 *   SUBSCRIPT     kids[0] = object, kids[1] = index (TUPLE for x[a, b])
 *   SLICE         kids[0..2] = start, stop, step (each may be NULL)
 *   UNARY         op = tl_pyunop or TL_UNOP_NOT, kids[0]
 *   BINARY        op = tl_pyop (arithmetic/bitwise), kids[0..1]
 *   COMPARE       n operands in kids, n-1 comparison codes in cmpops
 *   BOOLOP        op = TL_BOOL_AND / TL_BOOL_OR, kids[0..1]
 *   IFEXP         kids = {body, cond, orelse}
 *   LISTCOMP      kids = {element, target, iterable, condition or NULL}
 *   STARRED       kids[0]
 *   statements:
 *   IMPORT        str = module ("torch", "numpy"), str2 = bound name
 *   ASSIGN        kids[0..n-2] = targets (a = b = v), kids[n-1] = value
 *   AUGASSIGN     op = tl_pyop, kids[0] = target, kids[1] = value
 *   EXPR          kids[0]
 *   ASSERT        kids[0] = test, kids[1] = message or NULL
 *   PASS
 *   FSTRING       kids = pieces: STR literals and FORMATTED fields
 *   FORMATTED     kids[0] = expression, kids[1] = format spec (FSTRING) or
 *                 NULL; op = conversion ('r', 's', 'a' or 0); str = the
 *                 self-documenting text of {expr=} or NULL
 *   LAMBDA        kids[0..n-2] = PARAM, kids[n-1] = body expression
 *   PARAM         str = name, kids[0] = default or NULL
 *   compound statements (bodies are BLOCKs):
 *   BLOCK         kids = statements
 *   IF            kids = {cond, body, orelse or NULL} (elif: an IF alone in orelse)
 *   WHILE         kids = {cond, body, orelse or NULL}
 *   FOR           kids = {target, iterable, body, orelse or NULL}
 *   BREAK, CONTINUE
 *   RETURN        kids[0] = value or NULL
 *   DEF           str = name, kids[0..n-2] = PARAM, kids[n-1] = body
 *   TRY           ival = number of handlers h; kids = {body, HANDLER x h,
 *                 orelse or NULL, finally or NULL}
 *   HANDLER       kids = {type expression or NULL, body}; str = `as` name or NULL
 *   RAISE         kids = {exception or NULL, cause or NULL}
 *   WITH          kids = {context, target or NULL, body}
 *   DEL           kids = targets
 *   GLOBAL        kids = NAMEs
 *   DICT          kids = key, value, key, value ... ({k: v, ...}; no ** and no
 *                 comprehension)
 */
#ifndef TL_AST_H
#define TL_AST_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "pyop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_nodekind {
    TL_N_INT, TL_N_FLOAT, TL_N_STR, TL_N_BOOL, TL_N_NONE, TL_N_ELLIPSIS,
    TL_N_NAME, TL_N_TUPLE, TL_N_LIST, TL_N_ATTR, TL_N_CALL, TL_N_SUBSCRIPT,
    TL_N_SLICE, TL_N_UNARY, TL_N_BINARY, TL_N_COMPARE, TL_N_BOOLOP,
    TL_N_IFEXP, TL_N_LISTCOMP, TL_N_STARRED, TL_N_KEYWORD,
    /* statements */
    TL_N_IMPORT, TL_N_ASSIGN, TL_N_AUGASSIGN, TL_N_EXPR, TL_N_ASSERT,
    TL_N_PASS,
    /* f-strings, functions */
    TL_N_FSTRING, TL_N_FORMATTED, TL_N_LAMBDA, TL_N_PARAM,
    /* compound statements */
    TL_N_BLOCK, TL_N_IF, TL_N_WHILE, TL_N_FOR, TL_N_BREAK, TL_N_CONTINUE,
    TL_N_RETURN, TL_N_DEF, TL_N_TRY, TL_N_HANDLER, TL_N_RAISE, TL_N_WITH,
    TL_N_DEL, TL_N_GLOBAL,
    /* displays added later */
    TL_N_DICT
} tl_nodekind;

/* operator codes (op, cmpops): tl_pyop, tl_pyunop, tl_cmpop (pyop.h) */

#define TL_UNOP_NOT 100 /* UNARY op code for `not` (others are tl_pyunop) */
enum { TL_BOOL_AND = 0, TL_BOOL_OR = 1 };

/* A node is 64 bytes: the kind-specific word is a union (a sheet's trees
 * are a third of the heap a `tlab check` touches). */
typedef struct tl_node {
    tl_nodekind kind;
    tl_span span;
    int op;
    int height;           /* 1 + max height of children */
    union {
        int64_t ival;     /* INT; BOOL (0/1); TRY: number of handlers */
        double fval;      /* FLOAT */
        const char *str2; /* IMPORT alias */
        int *cmpops;      /* COMPARE: n-1 codes */
        uintptr_t memo;   /* ATTR: what the name found on a tensor, written
                             by the interpreter (tl_builtins_attr_memo);
                             0 until the first lookup */
    };
    const char *str;      /* NAME, ATTR, STR (bytes), KEYWORD, IMPORT */
    size_t len;           /* length of str */
    size_t n;             /* number of kids */
    struct tl_node **kids;
} tl_node;

/* IMPORT op: 0 `import M [as A]`; TL_IMPORT_FROM `from M import N [as A]`
 * (str "M.N") */
#define TL_IMPORT_FROM 1

typedef struct tl_ast {
    int refcount;         /* functions defined in the tree retain it */
    size_t nstmts;
    tl_node **stmts;
    struct tl_arena_block *arena;
} tl_ast;

/* Allocation inside the tree's arena (zeroed); never fails (aborts on OOM). */
void *tl_ast_alloc(tl_ast *ast, size_t n);
char *tl_ast_strndup(tl_ast *ast, const char *s, size_t n);
tl_node *tl_ast_node(tl_ast *ast, tl_nodekind kind, tl_span span, size_t nkids);

/* A new tree holds one reference; tl_ast_free drops one and frees the
 * arena with the last (function values keep their defining tree alive). */
tl_ast *tl_ast_new(void);
tl_ast *tl_ast_retain(tl_ast *ast);
void tl_ast_free(tl_ast *ast);

/* Name of a node kind, for debugging ("Call", "Name", ...). */
const char *tl_ast_kind_name(tl_nodekind k);

/* S-expression dump used by the parser tests: (Call (Attr (Name x) t)). */
void tl_ast_dump(const tl_node *n, tl_buf *b);

#ifdef __cplusplus
}
#endif

#endif
