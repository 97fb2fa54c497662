/* interp.c - the op-language evaluator: a tree walker over ast.h with
 * Python semantics on the values of value.h.
 *
 * Design:
 *   - Environment: globals are a small name -> value table owned by the
 *     interpreter; comprehension targets live on a local stack searched
 *     first and popped when the comprehension ends (Python 3 scoping).
 *   - Operators, truth, comparisons, iteration and subscripts are the py
 *     layer's (pyops.h: plain values there, tensors on to the runtime);
 *     this file only walks the tree, binds names and runs statements.
 *   - Attributes and calls resolve through builtins.c and bind.h.
 *   - Errors: every failing node attaches its span (tl_error_locate keeps
 *     the innermost one), so the caret lands on the failing call.
 *   - Bounds: the source length, the parser's depth/height limits (so the
 *     recursion here is bounded by the tree height), a per-call deadline
 *     (context.h's, set around each call and polled by loops here and in
 *     the kernels), and a per-call budget of sequence elements (pyops.h).
 * The running interpreter is thread-local, so tl_interp_current_opts
 * works from the bindings.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "bind.h"
#include "builtins.h"
#include "context.h"
#include "create.h"
#include "interp.h"
#include "parse.h"
#include "pyops.h"
#include "util.h"

typedef struct var {
    char *name;
    tl_value *v;
} var;

typedef struct local {
    const char *name; /* AST string, valid during the call */
    tl_value *v;
} local;

struct tl_interp {
    tl_interp_opts opts;
    var *vars;
    size_t nvars, capvars;
    local *locals;
    size_t nlocals, caplocals;
    int depth;
    const tl_source *src; /* running source (assert messages) */
};

static _Thread_local tl_interp *g_cur;

/* ---------------------------------------------------------------------- */
/* options, deadline */

void tl_interp_opts_default(tl_interp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->default_backend = tl_backend_cpu();
    o->cuda_backend = NULL;
    o->cuda_available = false;
    o->max_source = TL_DEFAULT_MAX_SOURCE;
    o->max_depth = TL_DEFAULT_MAX_DEPTH;
    o->timeout = TL_DEFAULT_TIMEOUT;
    o->max_seq = TL_DEFAULT_MAX_SEQ;
    o->seed = 0;
}

const tl_interp_opts *tl_interp_current_opts(void)
{
    static _Thread_local tl_interp_opts defaults;
    static _Thread_local bool init;
    if (g_cur)
        return &g_cur->opts;
    if (!init) {
        tl_interp_opts_default(&defaults);
        init = true;
    }
    return &defaults;
}

/* ---------------------------------------------------------------------- */
/* environment */

tl_interp *tl_interp_new(const tl_interp_opts *opts)
{
    tl_interp *I = tl_xcalloc(1, sizeof *I);
    tl_tensor_set_grad_mode(true); /* a program starts with grad mode on:
                                      a no_grad() never leaks into the next */
    if (opts)
        I->opts = *opts;
    else
        tl_interp_opts_default(&I->opts);
    if (!I->opts.default_backend)
        I->opts.default_backend = tl_backend_cpu();
    if (I->opts.max_depth <= 0)
        I->opts.max_depth = TL_DEFAULT_MAX_DEPTH;
    if (I->opts.max_source == 0)
        I->opts.max_source = TL_DEFAULT_MAX_SOURCE;
    if (I->opts.max_seq <= 0)
        I->opts.max_seq = TL_DEFAULT_MAX_SEQ;
    /* a fresh interpreter is a fresh process: rand/randn start from the
     * seed, whichever thread (and whatever ran there before) */
    tl_create_manual_seed(I->opts.seed);
    return I;
}

void tl_interp_free(tl_interp *I)
{
    if (!I)
        return;
    for (size_t i = 0; i < I->nvars; i++) {
        free(I->vars[i].name);
        tl_value_release(I->vars[i].v);
    }
    free(I->vars);
    for (size_t i = 0; i < I->nlocals; i++)
        tl_value_release(I->locals[i].v);
    free(I->locals);
    free(I);
}

static var *find_var(tl_interp *I, const char *name)
{
    for (size_t i = 0; i < I->nvars; i++)
        if (strcmp(I->vars[i].name, name) == 0)
            return &I->vars[i];
    return NULL;
}

tl_value *tl_interp_get(tl_interp *I, const char *name)
{
    var *v = find_var(I, name);
    return v ? tl_value_retain(v->v) : NULL;
}

/* steals v */
static void set_var(tl_interp *I, const char *name, tl_value *v)
{
    for (size_t i = I->nlocals; i-- > 0;)
        if (strcmp(I->locals[i].name, name) == 0) {
            tl_value_release(I->locals[i].v);
            I->locals[i].v = v;
            return;
        }
    var *x = find_var(I, name);
    if (x) {
        tl_value_release(x->v);
        x->v = v;
        return;
    }
    if (I->nvars == I->capvars) {
        I->capvars = I->capvars ? I->capvars * 2 : 16;
        I->vars = tl_xrealloc(I->vars, I->capvars * sizeof *I->vars);
    }
    I->vars[I->nvars].name = tl_xstrdup(name);
    I->vars[I->nvars].v = v;
    I->nvars++;
}

void tl_interp_set(tl_interp *I, const char *name, tl_value *v)
{
    set_var(I, name, tl_value_retain(v));
}

static tl_value *lookup(tl_interp *I, const char *name)
{
    for (size_t i = I->nlocals; i-- > 0;)
        if (strcmp(I->locals[i].name, name) == 0)
            return tl_value_retain(I->locals[i].v);
    var *x = find_var(I, name);
    if (x)
        return tl_value_retain(x->v);
    return tl_builtins_lookup(name);
}

static void push_local(tl_interp *I, const char *name, tl_value *v)
{
    if (I->nlocals == I->caplocals) {
        I->caplocals = I->caplocals ? I->caplocals * 2 : 8;
        I->locals = tl_xrealloc(I->locals, I->caplocals * sizeof *I->locals);
    }
    I->locals[I->nlocals].name = name;
    I->locals[I->nlocals].v = v;
    I->nlocals++;
}

static void pop_locals(tl_interp *I, size_t to)
{
    while (I->nlocals > to) {
        I->nlocals--;
        tl_value_release(I->locals[I->nlocals].v);
    }
}

/* ---------------------------------------------------------------------- */
/* evaluation */

static tl_value *eval(tl_interp *I, const tl_node *n, tl_error *err);

static tl_value *located(tl_value *v, const tl_node *n, tl_error *err)
{
    if (!v)
        tl_error_locate(err, n->span);
    return v;
}

static int fail_node(const tl_node *n, tl_error *err)
{
    tl_error_locate(err, n->span);
    return -1;
}

/* Evaluate a display element list (allowing *starred) into a new list. */
static tl_value *eval_elements(tl_interp *I, const tl_node *n, size_t first,
                               tl_error *err)
{
    tl_value *out = tl_list_new(0);
    for (size_t i = first; i < n->n; i++) {
        const tl_node *k = n->kids[i];
        if (k->kind == TL_N_STARRED) {
            tl_value *v = eval(I, k->kids[0], err);
            if (!v) {
                tl_value_release(out);
                return NULL;
            }
            tl_value **items;
            size_t m;
            int rc = tl_pyops_iterate(v, &items, &m, err);
            tl_value_release(v);
            if (rc < 0) {
                fail_node(k, err);
                tl_value_release(out);
                return NULL;
            }
            for (size_t j = 0; j < m; j++)
                tl_list_append(out, items[j]);
            free(items);
        } else {
            tl_value *v = eval(I, k, err);
            if (!v) {
                tl_value_release(out);
                return NULL;
            }
            tl_list_append(out, v);
        }
    }
    if (tl_pyops_charge_seq(out->u.seq.n, err) < 0) {
        tl_value_release(out);
        fail_node(n, err);
        return NULL;
    }
    return out;
}

static tl_value *list_to_tuple(tl_value *list)
{
    tl_value *t = tl_tuple_new(list->u.seq.n);
    for (size_t i = 0; i < list->u.seq.n; i++)
        tl_seq_set(t, i, tl_value_retain(list->u.seq.items[i]));
    tl_value_release(list);
    return t;
}

/* subscript index: slices and tuples of slices */
static tl_value *eval_index(tl_interp *I, const tl_node *n, tl_error *err)
{
    if (n->kind == TL_N_SLICE) {
        tl_value *parts[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
            if (!n->kids[k])
                continue;
            parts[k] = eval(I, n->kids[k], err);
            if (!parts[k]) {
                for (int j = 0; j < k; j++)
                    tl_value_release(parts[j]);
                return NULL;
            }
        }
        return tl_slice_new(parts[0], parts[1], parts[2]);
    }
    if (n->kind == TL_N_TUPLE) {
        tl_value *t = tl_tuple_new(n->n);
        for (size_t i = 0; i < n->n; i++) {
            tl_value *v = n->kids[i]->kind == TL_N_STARRED
                              ? (tl_error_set(err, TL_ERR_UNSUPPORTED,
                                              "tlab does not support starred subscripts"),
                                 fail_node(n->kids[i], err), (tl_value *)NULL)
                              : eval_index(I, n->kids[i], err);
            if (!v) {
                tl_value_release(t);
                return NULL;
            }
            tl_seq_set(t, i, v);
        }
        return t;
    }
    return eval(I, n, err);
}

/* Bind value to a target node (name, subscript, tuple/list of targets). */
static int assign(tl_interp *I, const tl_node *t, tl_value *v, tl_error *err);

/* `a, b = v`: the items of v bound to the targets of tuple/list node t by
 * bind (assign, or bind_local in comprehensions, where storages do not
 * unpack). */
static int unpack(tl_interp *I, const tl_node *t, tl_value *v,
                  int (*bind)(tl_interp *, const tl_node *, tl_value *, tl_error *),
                  bool storage_ok, tl_error *err)
{
    if (!tl_value_is_seq(v) && !tl_value_is_tensorlike(v) && v->kind != TL_V_STR &&
        !(storage_ok && v->kind == TL_V_STORAGE)) {
        tl_error_set(err, TL_ERR_TYPE, "cannot unpack non-iterable %s object",
                     tl_value_type_name(v));
        return fail_node(t, err);
    }
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(v, &items, &n, err) < 0)
        return fail_node(t, err);
    if (n != t->n) {
        if (n > t->n)
            tl_error_set(err, TL_ERR_VALUE, "too many values to unpack (expected %zu)", t->n);
        else
            tl_error_set(err, TL_ERR_VALUE,
                         "not enough values to unpack (expected %zu, got %zu)", t->n, n);
        tl_pyops_items_free(items, n);
        return fail_node(t, err);
    }
    for (size_t i = 0; i < n; i++)
        if (bind(I, t->kids[i], items[i], err) < 0) {
            tl_pyops_items_free(items, n);
            return -1;
        }
    tl_pyops_items_free(items, n);
    return 0;
}

static int assign(tl_interp *I, const tl_node *t, tl_value *v, tl_error *err)
{
    switch (t->kind) {
    case TL_N_NAME:
        set_var(I, t->str, tl_value_retain(v));
        return 0;
    case TL_N_TUPLE:
    case TL_N_LIST:
        return unpack(I, t, v, assign, true, err);
    case TL_N_SUBSCRIPT: {
        tl_value *obj = eval(I, t->kids[0], err);
        if (!obj)
            return -1;
        tl_value *idx = eval_index(I, t->kids[1], err);
        if (!idx) {
            tl_value_release(obj);
            return -1;
        }
        int rc = tl_pyops_setitem(obj, idx, v, err);
        tl_value_release(obj);
        tl_value_release(idx);
        if (rc < 0)
            return fail_node(t, err);
        return 0;
    }
    default:
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab cannot assign to this target");
        return fail_node(t, err);
    }
}

/* Bind a comprehension target as locals (names only, checked by parser). */
static int bind_local(tl_interp *I, const tl_node *t, tl_value *v, tl_error *err)
{
    if (t->kind == TL_N_NAME) {
        push_local(I, t->str, tl_value_retain(v));
        return 0;
    }
    return unpack(I, t, v, bind_local, false, err);
}

static tl_value *eval_listcomp(tl_interp *I, const tl_node *n, tl_error *err)
{
    tl_value *it = eval(I, n->kids[2], err);
    if (!it)
        return NULL;
    tl_value **items;
    size_t cnt;
    int rc = tl_pyops_iterate(it, &items, &cnt, err);
    tl_value_release(it);
    if (rc < 0) {
        fail_node(n->kids[2], err);
        return NULL;
    }
    tl_value *out = tl_list_new(0);
    size_t mark = I->nlocals;
    for (size_t i = 0; i < cnt; i++) {
        if (tl_context_deadline_check(err) < 0) {
            fail_node(n, err);
            goto fail;
        }
        /* rebind: drop this iteration's locals first */
        pop_locals(I, mark);
        if (bind_local(I, n->kids[1], items[i], err) < 0)
            goto fail;
        if (n->kids[3]) {
            tl_value *c = eval(I, n->kids[3], err);
            if (!c)
                goto fail;
            bool keep;
            rc = tl_value_truthy(c, &keep, err);
            tl_value_release(c);
            if (rc < 0) {
                fail_node(n->kids[3], err);
                goto fail;
            }
            if (!keep)
                continue;
        }
        tl_value *e = eval(I, n->kids[0], err);
        if (!e)
            goto fail;
        tl_list_append(out, e);
        if (tl_pyops_charge_seq(1, err) < 0) {
            fail_node(n, err);
            goto fail;
        }
    }
    pop_locals(I, mark);
    tl_pyops_items_free(items, cnt);
    return out;
fail:
    pop_locals(I, mark);
    tl_pyops_items_free(items, cnt);
    tl_value_release(out);
    return NULL;
}

static tl_value *eval_call(tl_interp *I, const tl_node *n, tl_error *err)
{
    tl_value *fn = eval(I, n->kids[0], err);
    if (!fn)
        return NULL;
    size_t npos = 0, nkw = 0, cappos = n->n;
    tl_value **pos = tl_xmalloc((cappos ? cappos : 1) * sizeof *pos);
    tl_value **kwv = tl_xmalloc((n->n ? n->n : 1) * sizeof *kwv);
    const char **kwn = tl_xmalloc((n->n ? n->n : 1) * sizeof *kwn);
    tl_value *result = NULL;
    for (size_t i = 1; i < n->n; i++) {
        const tl_node *a = n->kids[i];
        if (a->kind == TL_N_KEYWORD) {
            tl_value *v = eval(I, a->kids[0], err);
            if (!v)
                goto done;
            kwn[nkw] = a->str;
            kwv[nkw++] = v;
        } else if (a->kind == TL_N_STARRED) {
            tl_value *v = eval(I, a->kids[0], err);
            if (!v)
                goto done;
            tl_value **items;
            size_t m;
            if (!tl_value_is_seq(v) && !tl_value_is_tensorlike(v) && v->kind != TL_V_STR) {
                tl_error_set(err, TL_ERR_TYPE,
                             "Value after * must be an iterable, not %s",
                             tl_value_type_name(v));
                tl_value_release(v);
                fail_node(a, err);
                goto done;
            }
            int rc = tl_pyops_iterate(v, &items, &m, err);
            tl_value_release(v);
            if (rc < 0) {
                fail_node(a, err);
                goto done;
            }
            if (m > 4096) {
                tl_pyops_items_free(items, m);
                tl_error_set(err, TL_ERR_LIMIT, "too many arguments (%zu)", m);
                fail_node(a, err);
                goto done;
            }
            cappos += m;
            pos = tl_xrealloc(pos, cappos * sizeof *pos);
            for (size_t j = 0; j < m; j++)
                pos[npos++] = items[j];
            free(items);
        } else {
            tl_value *v = eval(I, a, err);
            if (!v)
                goto done;
            pos[npos++] = v;
        }
    }
    if (fn->kind != TL_V_FUNC) {
        tl_error_set(err, TL_ERR_TYPE, "'%s' object is not callable", tl_value_type_name(fn));
        fail_node(n, err);
        goto done;
    }
    {
        tl_args args = {npos, pos, nkw, kwn, kwv};
        result = fn->u.func.fn(fn->u.func.self, &args, err);
        if (!result)
            fail_node(n, err);
    }
done:
    for (size_t i = 0; i < npos; i++)
        tl_value_release(pos[i]);
    for (size_t i = 0; i < nkw; i++)
        tl_value_release(kwv[i]);
    free(pos);
    free(kwv);
    free(kwn);
    tl_value_release(fn);
    return result;
}

static tl_value *eval_compare(tl_interp *I, const tl_node *n, tl_error *err)
{
    tl_value *left = eval(I, n->kids[0], err);
    if (!left)
        return NULL;
    for (size_t i = 1; i < n->n; i++) {
        tl_value *right = eval(I, n->kids[i], err);
        if (!right) {
            tl_value_release(left);
            return NULL;
        }
        tl_value *r = tl_pyops_compare((tl_cmpop)n->cmpops[i - 1], left, right, err);
        tl_value_release(left);
        if (!r) {
            tl_value_release(right);
            fail_node(n, err);
            return NULL;
        }
        if (i + 1 == n->n) {
            tl_value_release(right);
            return r;
        }
        bool t;
        if (tl_value_truthy(r, &t, err) < 0) {
            tl_value_release(r);
            tl_value_release(right);
            fail_node(n, err);
            return NULL;
        }
        if (!t) {
            tl_value_release(right);
            return r;
        }
        tl_value_release(r);
        left = right;
    }
    return left; /* not reached: COMPARE has >= 2 operands */
}

/* Python builtins outside the subset: using one is unsupported, not a
 * NameError (the program is valid Python). */
static bool is_python_builtin(const char *name)
{
    static const char *const names[] = {
        "__import__", "ascii", "bin", "breakpoint", "bytearray", "bytes", "callable",
        "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod",
        "eval", "exec", "exit", "filter", "format", "frozenset", "getattr", "globals",
        "hasattr", "hash", "help", "hex", "input", "isinstance", "issubclass", "iter",
        "locals", "map", "memoryview", "next", "object", "oct", "open", "ord", "pow",
        "property", "quit", "round", "set", "setattr", "sorted", "staticmethod",
        "super", "type", "vars"};
    for (size_t i = 0; i < TL_ARRAY_LEN(names); i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static tl_value *eval(tl_interp *I, const tl_node *n, tl_error *err)
{
    if (++I->depth > tl_parse_max_height(I->opts.max_depth) + 8) {
        I->depth--;
        tl_error_set(err, TL_ERR_LIMIT, "expression nested too deeply");
        return located(NULL, n, err);
    }
    tl_value *r = NULL;
    switch (n->kind) {
    case TL_N_INT: r = tl_int(n->ival); break;
    case TL_N_FLOAT: r = tl_float(n->fval); break;
    case TL_N_STR: r = tl_strn(n->str, n->len); break;
    case TL_N_BOOL: r = tl_bool(n->ival != 0); break;
    case TL_N_NONE: r = tl_none(); break;
    case TL_N_ELLIPSIS: r = tl_ellipsis(); break;
    case TL_N_NAME:
        r = lookup(I, n->str);
        if (!r && is_python_builtin(n->str))
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support the builtin '%s'",
                         n->str);
        else if (!r)
            tl_error_set(err, TL_ERR_NAME, "name '%s' is not defined", n->str);
        break;
    case TL_N_TUPLE:
    case TL_N_LIST: {
        r = eval_elements(I, n, 0, err);
        if (r && n->kind == TL_N_TUPLE)
            r = list_to_tuple(r);
        break;
    }
    case TL_N_ATTR: {
        tl_value *obj = eval(I, n->kids[0], err);
        if (obj) {
            r = obj->kind == TL_V_MODULE ? tl_builtins_module_attr(obj, n->str, err)
                                         : tl_builtins_attr(obj, n->str, err);
            tl_value_release(obj);
        }
        break;
    }
    case TL_N_CALL: r = eval_call(I, n, err); break;
    case TL_N_SUBSCRIPT: {
        tl_value *obj = eval(I, n->kids[0], err);
        if (!obj)
            break;
        tl_value *idx = eval_index(I, n->kids[1], err);
        if (idx) {
            r = tl_pyops_getitem(obj, idx, err);
            tl_value_release(idx);
        }
        tl_value_release(obj);
        break;
    }
    case TL_N_SLICE:
        r = eval_index(I, n, err);
        break;
    case TL_N_UNARY: {
        tl_value *a = eval(I, n->kids[0], err);
        if (!a)
            break;
        if (n->op == TL_UNOP_NOT) {
            bool t;
            if (tl_value_truthy(a, &t, err) == 0)
                r = tl_bool(!t);
        } else {
            r = tl_pyops_unary(n->op, a, err);
        }
        tl_value_release(a);
        break;
    }
    case TL_N_BINARY: {
        tl_value *a = eval(I, n->kids[0], err);
        if (!a)
            break;
        tl_value *b = eval(I, n->kids[1], err);
        if (b) {
            r = tl_pyops_binary((tl_pyop)n->op, a, b, err);
            tl_value_release(b);
        }
        tl_value_release(a);
        break;
    }
    case TL_N_COMPARE: r = eval_compare(I, n, err); break;
    case TL_N_BOOLOP: {
        tl_value *a = eval(I, n->kids[0], err);
        if (!a)
            break;
        bool t;
        if (tl_value_truthy(a, &t, err) < 0) {
            tl_value_release(a);
            break;
        }
        if (t == (n->op == TL_BOOL_OR)) {
            r = a;
        } else {
            tl_value_release(a);
            r = eval(I, n->kids[1], err);
        }
        break;
    }
    case TL_N_IFEXP: {
        tl_value *c = eval(I, n->kids[1], err);
        if (!c)
            break;
        bool t;
        int rc = tl_value_truthy(c, &t, err);
        tl_value_release(c);
        if (rc < 0) {
            fail_node(n->kids[1], err);
            break;
        }
        r = eval(I, n->kids[t ? 0 : 2], err);
        break;
    }
    case TL_N_LISTCOMP: r = eval_listcomp(I, n, err); break;
    case TL_N_STARRED:
        tl_error_set(err, TL_ERR_SYNTAX, "can't use starred expression here");
        break;
    default:
        tl_error_set(err, TL_ERR_INTERNAL, "cannot evaluate a %s node",
                     tl_ast_kind_name(n->kind));
        break;
    }
    I->depth--;
    return located(r, n, err);
}

/* ---------------------------------------------------------------------- */
/* statements */

static int exec_stmt(tl_interp *I, const tl_node *s, tl_error *err)
{
    switch (s->kind) {
    case TL_N_IMPORT:
        set_var(I, s->str2, tl_value_module(strcmp(s->str, "numpy") == 0 ? "numpy" : "torch"));
        return 0;
    case TL_N_PASS:
        return 0;
    case TL_N_EXPR: {
        tl_value *v = eval(I, s->kids[0], err);
        if (!v)
            return -1;
        tl_value_release(v);
        return 0;
    }
    case TL_N_ASSIGN: {
        tl_value *v = eval(I, s->kids[s->n - 1], err);
        if (!v)
            return -1;
        for (size_t i = 0; i + 1 < s->n; i++)
            if (assign(I, s->kids[i], v, err) < 0) {
                tl_value_release(v);
                return -1;
            }
        tl_value_release(v);
        return 0;
    }
    case TL_N_AUGASSIGN: {
        const tl_node *t = s->kids[0];
        if (t->kind == TL_N_NAME) {
            tl_value *cur = eval(I, t, err);
            if (!cur)
                return -1;
            tl_value *v = eval(I, s->kids[1], err);
            if (!v) {
                tl_value_release(cur);
                return -1;
            }
            tl_value *r = tl_pyops_binary_inplace((tl_pyop)s->op, cur, v, err);
            tl_value_release(cur);
            tl_value_release(v);
            if (!r)
                return fail_node(s, err);
            set_var(I, t->str, r);
            return 0;
        }
        /* subscript: get, in-place op, set (PyTorch bumps twice) */
        tl_value *obj = eval(I, t->kids[0], err);
        if (!obj)
            return -1;
        tl_value *idx = eval_index(I, t->kids[1], err);
        if (!idx) {
            tl_value_release(obj);
            return -1;
        }
        int rc = -1;
        tl_value *cur = tl_pyops_getitem(obj, idx, err);
        if (!cur) {
            fail_node(t, err);
        } else {
            tl_value *v = eval(I, s->kids[1], err);
            if (v) {
                tl_value *r = tl_pyops_binary_inplace((tl_pyop)s->op, cur, v, err);
                if (!r) {
                    fail_node(s, err);
                } else {
                    rc = tl_pyops_setitem(obj, idx, r, err);
                    if (rc < 0)
                        fail_node(s, err);
                    tl_value_release(r);
                }
                tl_value_release(v);
            }
            tl_value_release(cur);
        }
        tl_value_release(obj);
        tl_value_release(idx);
        return rc;
    }
    case TL_N_ASSERT: {
        tl_value *c = eval(I, s->kids[0], err);
        if (!c)
            return -1;
        bool t;
        int rc = tl_value_truthy(c, &t, err);
        tl_value_release(c);
        if (rc < 0)
            return fail_node(s->kids[0], err);
        if (t)
            return 0;
        if (s->kids[1]) {
            tl_value *m = eval(I, s->kids[1], err);
            if (!m)
                return -1;
            tl_buf b = {0};
            if (m->kind == TL_V_STR)
                tl_buf_append(&b, m->u.str.s, m->u.str.len);
            else
                tl_value_repr(m, &b);
            tl_value_release(m);
            tl_error_set(err, TL_ERR_ASSERTION, "%s", tl_buf_str(&b));
            tl_buf_free(&b);
        } else {
            /* Python's message is empty; name the condition instead */
            const tl_node *cnd = s->kids[0];
            if (I->src && cnd->span.start >= 0 && (size_t)cnd->span.end <= I->src->len)
                tl_error_set(err, TL_ERR_ASSERTION, "assert %.*s",
                             (int)(cnd->span.end - cnd->span.start),
                             I->src->text + cnd->span.start);
            else
                tl_error_set(err, TL_ERR_ASSERTION, "assertion failed");
        }
        return fail_node(s, err);
    }
    default:
        tl_error_set(err, TL_ERR_INTERNAL, "cannot execute a %s node",
                     tl_ast_kind_name(s->kind));
        return fail_node(s, err);
    }
}

/* ---------------------------------------------------------------------- */
/* entry points */

int tl_interp_check_syntax(const tl_source *src, const tl_interp_opts *opts,
                           tl_error *err)
{
    tl_interp_opts o;
    if (opts)
        o = *opts;
    else
        tl_interp_opts_default(&o);
    if (o.max_source && src->len > o.max_source)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "source is %zu bytes, longer than the limit (%zu)",
                            src->len, o.max_source);
    tl_ast *ast;
    if (tl_parse(src->text, src->len, o.max_depth > 0 ? o.max_depth : 64, &ast, err) < 0)
        return -1;
    tl_ast_free(ast);
    return 0;
}

static tl_value *run(tl_interp *I, const tl_source *src, bool want_value,
                     tl_error *err)
{
    if (src->len > I->opts.max_source) {
        tl_error_set(err, TL_ERR_LIMIT, "source is %zu bytes, longer than the limit (%zu)",
                     src->len, I->opts.max_source);
        return NULL;
    }
    tl_ast *ast;
    if (tl_parse(src->text, src->len, I->opts.max_depth, &ast, err) < 0)
        return NULL;

    tl_interp *saved_cur = g_cur;
    double saved_deadline = tl_context_deadline_when();
    double saved_timeout = tl_context_deadline_budget();
    const tl_source *saved_src = I->src;
    g_cur = I;
    tl_context_set_backends(I->opts.default_backend, I->opts.cuda_backend);
    tl_context_deadline_set(I->opts.timeout > 0 ? tl_now() + I->opts.timeout : 0,
                            I->opts.timeout); /* kernels poll it too */
    I->src = src;
    tl_pyops_budget saved_budget = tl_pyops_budget_enter(I->opts.max_seq);
    I->depth = 0;

    tl_value *result = NULL;
    size_t n = ast->nstmts;
    size_t last_expr = want_value && n > 0 && ast->stmts[n - 1]->kind == TL_N_EXPR ? n - 1 : n;
    bool ok = true;
    for (size_t i = 0; i < last_expr; i++)
        if (exec_stmt(I, ast->stmts[i], err) < 0) {
            ok = false;
            break;
        }
    if (ok) {
        if (last_expr < n)
            result = eval(I, ast->stmts[last_expr]->kids[0], err);
        else if (want_value)
            result = tl_none();
        else
            result = tl_none();
    }
    pop_locals(I, 0);
    I->src = saved_src;
    g_cur = saved_cur;
    tl_pyops_budget_leave(saved_budget);
    tl_context_deadline_set(saved_deadline, saved_timeout);
    tl_ast_free(ast);
    return result;
}

int tl_interp_exec(tl_interp *I, const tl_source *src, tl_error *err)
{
    tl_value *v = run(I, src, false, err);
    if (!v)
        return -1;
    tl_value_release(v);
    return 0;
}

tl_value *tl_interp_eval(tl_interp *I, const tl_source *src, tl_error *err)
{
    return run(I, src, true, err);
}
