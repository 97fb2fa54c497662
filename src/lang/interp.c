/* interp.c - the op-language evaluator: a tree walker over ast.h with
 * Python semantics on the values of value.h.
 *
 * Design:
 *   - Environment: globals are a small name -> value table owned by the
 *     interpreter; comprehension targets live on a local stack searched
 *     first and popped when the comprehension ends (Python 3 scoping).
 *     A def/lambda call gets a refcounted scope (env) whose local names are
 *     decided statically as CPython does (assigned in the body, minus
 *     `global`); free names are looked up through the defining scopes
 *     (closures), then globals, then builtins. Functions keep their tree
 *     alive (tl_ast refcount); scope cycles (a nested recursive def) are
 *     broken when the interpreter is freed, and list cycles collected
 *     then (value.h tl_value_collect).
 *   - Statements return a completion: OK, error, break, continue, return
 *     (the value waits in I->retval). try/except catches only Python
 *     exceptions: limits (time, recursion, size) always propagate, so a
 *     sheet cannot catch its way past them; finally runs with the pending
 *     completion saved and its own abrupt exit wins, as in Python.
 *   - Recursion: at most MAX_CALLS nested calls, and a C-stack budget
 *     measured from the run's entry frame (ASan's frames are larger), both
 *     a located RecursionError-like limit; each call has its own
 *     expression-depth budget.
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
 * No global state of its own: what a run sets for the kernels (backends,
 * deadline) is the thread context's (context.h), the sequence budget is
 * pyops.h's, parsed sources are parse_cache.h's (per thread).
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
#include "freelist.h"
#include "named.h"
#include "outarg.h"
#include "pyformat.h"
#include "interp.h"
#include "memfs.h"
#include "snapshot.h"
#include "parse.h"
#include "parse_cache.h"
#include "bind_numpy.h"
#include "pyops.h"
#include "setattr.h"
#include "pywarn.h"
#include "util.h"

/* A global: its name inline when it is short (nearly all are: a run's
 * three globals were three strdups and frees), else on the heap. */
typedef struct var {
    char *heap;   /* the name when it does not fit in inl, else NULL */
    char inl[24];
    tl_value *v;
} var;

static const char *var_name(const var *x) { return x->heap ? x->heap : x->inl; }

static void var_name_set(var *x, const char *name)
{
    size_t n = strlen(name);
    x->heap = NULL;
    if (n < sizeof x->inl)
        memcpy(x->inl, name, n + 1);
    else
        x->heap = tl_xstrdup(name);
}

typedef struct local {
    const char *name; /* AST string, valid during the call */
    tl_value *v;
} local;

/* A function call's scope. Names are AST strings of the function's tree
 * (which every closure that can reach this scope keeps alive). */
typedef struct env {
    int refcount;
    struct tl_interp *owner; /* its interpreter's list of live scopes */
    struct env *prev, *next;
    struct env *parent;     /* the scope the function was defined in */
    local *vars;
    size_t n, cap;
    const char **names;     /* the function's local names (assigned in it) */
    size_t nnames;
} env;

/* A def or lambda value (TL_V_CLOSURE data). */
typedef struct closure {
    tl_ast *ast;            /* retained: the tree def points into */
    const tl_node *def;     /* DEF or LAMBDA */
    const char *name;
    size_t nparams;
    tl_value **defaults;    /* nparams entries, NULL where none */
    env *scope;             /* retained; NULL at module level */
    const char **names;     /* local names (params first) */
    size_t nnames;
    uint64_t run_id;        /* the run that defined it (spans valid there) */
} closure;

#define INLINE_VARS 8 /* a run's globals: the setup's, the parent, a few */

struct tl_interp {
    tl_interp_opts opts;
    var *vars;            /* vars_inl until it holds more than INLINE_VARS */
    size_t nvars, capvars;
    var vars_inl[INLINE_VARS];
    local *locals;
    size_t nlocals, caplocals;
    size_t local_base;    /* comprehension locals visible from here up */
    int depth;
    const tl_source *src; /* running source (assert messages) */
    /* functions and control flow */
    tl_ast *ast;          /* the running tree (def captures it) */
    env *frame;           /* current function scope, NULL at module level */
    int calls;            /* nested function calls */
    uint64_t run_id, next_run;
    tl_value *retval;     /* pending `return` value */
    tl_value *handling;   /* exception being handled (bare raise) */
    char *stack_base;     /* C stack at run() entry */
    unsigned ticks;
    env *envs;            /* live function scopes (cycles broken at free) */
};

/* Python's default recursion limit; the C stack is bounded separately
 * (ASan frames are several times larger), both give RecursionError. */
#define MAX_CALLS 1000
#define STACK_BUDGET ((size_t)4 << 20)

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

/* ---------------------------------------------------------------------- */
/* environment */

/* a check makes and drops an interpreter for every run: freed ones are
 * kept for reuse (freelist.h) */
static _Thread_local tl_freelist interps;

tl_interp *tl_interp_new(const tl_interp_opts *opts)
{
    tl_named_install(); /* PyTorch's name rules around method calls */
    tl_outarg_install(); /* out= of the torch functions that take it */
    tl_bind_numpy_install(); /* np.float32(1) */
    tl_interp *I = tl_freelist_pop(&interps);
    if (!I)
        I = tl_xmalloc(sizeof *I);
    memset(I, 0, sizeof *I);
    I->vars = I->vars_inl;
    I->capvars = INLINE_VARS;
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
    tl_dtype_set_default(TL_FLOAT32); /* and float32 the default dtype */
    tl_memfs_enter(); /* the run's files: one file system while any interpreter lives */
    return I;
}

static void env_release(env *e);

/* A closure stored in the scope it closes over (a nested recursive def)
 * is a reference cycle: empty every live scope, which frees the closures
 * and, through them, the scopes. */
static void break_scope_cycles(tl_interp *I)
{
    size_t n = 0;
    for (env *e = I->envs; e; e = e->next)
        n++;
    if (!n)
        return;
    env **all = tl_xmalloc(n * sizeof *all);
    size_t k = 0;
    for (env *e = I->envs; e; e = e->next) {
        e->refcount++;
        all[k++] = e;
    }
    for (size_t i = 0; i < n; i++) {
        env *e = all[i];
        while (e->n > 0) {
            e->n--;
            tl_value_release(e->vars[e->n].v);
        }
    }
    for (size_t i = 0; i < n; i++)
        env_release(all[i]);
    free(all);
}

void tl_interp_free(tl_interp *I)
{
    if (!I)
        return;
    for (size_t i = 0; i < I->nvars; i++) {
        free(I->vars[i].heap);
        tl_value_release(I->vars[i].v);
    }
    if (I->vars != I->vars_inl)
        free(I->vars);
    for (size_t i = 0; i < I->nlocals; i++)
        tl_value_release(I->locals[i].v);
    free(I->locals);
    tl_value_release(I->retval);
    break_scope_cycles(I);
    for (env *e = I->envs; e; e = e->next)
        e->owner = NULL; /* values that outlive I (returned to the caller) */
    tl_memfs_leave(); /* first: a saved checkpoint's cycles are then collected too */
    /* and the run's list cycles (value.h), so no op sees them charged */
    tl_value_collect(false);
    tl_freelist_push(&interps, I, 8);
}

static var *find_var(tl_interp *I, const char *name)
{
    for (size_t i = 0; i < I->nvars; i++)
        if (strcmp(var_name(&I->vars[i]), name) == 0)
            return &I->vars[i];
    return NULL;
}

tl_value *tl_interp_get(tl_interp *I, const char *name)
{
    var *v = find_var(I, name);
    return v ? tl_value_retain(v->v) : NULL;
}

static void env_release(env *e)
{
    while (e && --e->refcount == 0) {
        env *parent = e->parent;
        if (e->prev)
            e->prev->next = e->next;
        else if (e->owner)
            e->owner->envs = e->next;
        if (e->next)
            e->next->prev = e->prev;
        for (size_t i = 0; i < e->n; i++)
            tl_value_release(e->vars[i].v);
        free(e->vars);
        free(e);
        e = parent;
    }
}

static bool env_has_name(const env *e, const char *name)
{
    for (size_t i = 0; i < e->nnames; i++)
        if (strcmp(e->names[i], name) == 0)
            return true;
    return false;
}

static local *env_find(env *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->vars[i].name, name) == 0)
            return &e->vars[i];
    return NULL;
}

/* steals v */
static void env_set(env *e, const char *name, tl_value *v)
{
    local *l = env_find(e, name);
    if (l) {
        tl_value_release(l->v);
        l->v = v;
        return;
    }
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 8;
        e->vars = tl_xrealloc(e->vars, e->cap * sizeof *e->vars);
    }
    e->vars[e->n].name = name;
    e->vars[e->n].v = v;
    e->n++;
}

/* steals v */
static void set_global(tl_interp *I, const char *name, tl_value *v)
{
    var *x = find_var(I, name);
    if (x) {
        tl_value_release(x->v);
        x->v = v;
        return;
    }
    if (I->nvars == I->capvars) {
        size_t cap = I->capvars * 2;
        if (I->vars == I->vars_inl) {
            var *v = tl_xmalloc(cap * sizeof *v);
            memcpy(v, I->vars_inl, I->nvars * sizeof *v);
            I->vars = v;
        } else {
            I->vars = tl_xrealloc(I->vars, cap * sizeof *I->vars);
        }
        I->capvars = cap;
    }
    var_name_set(&I->vars[I->nvars], name);
    I->vars[I->nvars].v = v;
    I->nvars++;
}

/* steals v: a comprehension local, the function's local, or a global */
static void set_var(tl_interp *I, const char *name, tl_value *v)
{
    for (size_t i = I->nlocals; i-- > I->local_base;)
        if (strcmp(I->locals[i].name, name) == 0) {
            tl_value_release(I->locals[i].v);
            I->locals[i].v = v;
            return;
        }
    if (I->frame && env_has_name(I->frame, name)) {
        env_set(I->frame, name, v);
        return;
    }
    set_global(I, name, v);
}

void tl_interp_set(tl_interp *I, const char *name, tl_value *v)
{
    set_global(I, name, tl_value_retain(v));
}

tl_snapshot *tl_interp_snapshot(tl_interp *I)
{
    /* only module-level state: no live call, no function scope */
    if (I->envs || I->nlocals || I->frame || I->retval || I->handling)
        return NULL;
    /* a setup that wrote files (memfs.h) reruns: files are not copied */
    if (tl_memfs_files() > 0)
        return NULL;
    const char **names = tl_xmalloc((I->nvars ? I->nvars : 1) * sizeof *names);
    tl_value **values = tl_xmalloc((I->nvars ? I->nvars : 1) * sizeof *values);
    for (size_t i = 0; i < I->nvars; i++) {
        names[i] = var_name(&I->vars[i]);
        values[i] = I->vars[i].v;
    }
    tl_snapshot *s = tl_snapshot_take(I->nvars, names, values, I->next_run);
    free(names);
    free(values);
    return s;
}

int tl_interp_restore(tl_interp *I, const tl_snapshot *s, tl_error *err)
{
    size_t n = tl_snapshot_size(s);
    tl_value **values = tl_xmalloc((n ? n : 1) * sizeof *values);
    if (tl_snapshot_copy(s, values, err) < 0) {
        free(values);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        set_global(I, tl_snapshot_name(s, i), values[i]);
    free(values);
    I->next_run = tl_snapshot_tag(s);
    return 0;
}

/* The value of a name (new reference), or NULL with NameError (or the
 * unsupported-builtin error) set. */
static tl_value *lookup_err(tl_interp *I, const char *name, tl_error *err);

static bool is_python_builtin(const char *name);

static tl_value *lookup_err(tl_interp *I, const char *name, tl_error *err)
{
    for (size_t i = I->nlocals; i-- > I->local_base;)
        if (strcmp(I->locals[i].name, name) == 0)
            return tl_value_retain(I->locals[i].v);
    for (env *e = I->frame; e; e = e->parent) {
        if (!env_has_name(e, name))
            continue;
        local *l = env_find(e, name);
        if (l)
            return tl_value_retain(l->v);
        if (e == I->frame)
            tl_error_set(err, TL_ERR_NAME,
                         "cannot access local variable '%s' where it is not "
                         "associated with a value", name);
        else
            tl_error_set(err, TL_ERR_NAME,
                         "cannot access free variable '%s' where it is not "
                         "associated with a value in enclosing scope", name);
        return NULL;
    }
    var *x = find_var(I, name);
    if (x)
        return tl_value_retain(x->v);
    tl_value *b = tl_builtins_lookup(name);
    if (b)
        return b;
    if (is_python_builtin(name))
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support the builtin '%s'", name);
    else
        tl_error_set(err, TL_ERR_NAME, "name '%s' is not defined", name);
    return NULL;
}

/* del NAME */
static int del_var(tl_interp *I, const char *name, tl_error *err)
{
    env *e = I->frame && env_has_name(I->frame, name) ? I->frame : NULL;
    if (e) {
        for (size_t i = 0; i < e->n; i++)
            if (strcmp(e->vars[i].name, name) == 0) {
                tl_value_release(e->vars[i].v);
                e->vars[i] = e->vars[--e->n];
                return 0;
            }
        return tl_error_set(err, TL_ERR_NAME,
                            "cannot access local variable '%s' where it is not "
                            "associated with a value", name);
    }
    for (size_t i = 0; i < I->nvars; i++)
        if (strcmp(var_name(&I->vars[i]), name) == 0) {
            free(I->vars[i].heap);
            tl_value_release(I->vars[i].v);
            I->vars[i] = I->vars[--I->nvars];
            return 0;
        }
    return tl_error_set(err, TL_ERR_NAME, "name '%s' is not defined", name);
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
/* An augmented assignment's new value: its right side applied in place to
 * cur, the target's value (taken; NULL: getting it failed, located at the
 * target). NULL, located, when something fails. */
static tl_value *aug_value(tl_interp *I, const tl_node *s, tl_value *cur, tl_error *err)
{
    if (!cur) {
        fail_node(s->kids[0], err);
        return NULL;
    }
    tl_value *r = NULL, *v = eval(I, s->kids[1], err);
    if (v) {
        r = tl_pyops_binary_inplace((tl_pyop)s->op, cur, v, err);
        if (!r)
            fail_node(s, err);
        tl_value_release(v);
    }
    tl_value_release(cur);
    return r;
}

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
    case TL_N_ATTR: {
        tl_value *obj = eval(I, t->kids[0], err);
        if (!obj)
            return -1;
        int rc = tl_setattr_assign(obj, t->str, v, err);
        tl_value_release(obj);
        return rc < 0 ? fail_node(t, err) : 0;
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
    /* most calls have a few arguments: their arrays live on the stack */
    enum { SMALL_CALL = 8 };
    tl_value *pos_small[SMALL_CALL], *kwv_small[SMALL_CALL];
    const char *kwn_small[SMALL_CALL];
    bool small = n->n <= SMALL_CALL;
    tl_value **pos = small ? pos_small : tl_xmalloc((cappos ? cappos : 1) * sizeof *pos);
    tl_value **kwv = small ? kwv_small : tl_xmalloc((n->n ? n->n : 1) * sizeof *kwv);
    const char **kwn = small ? kwn_small : tl_xmalloc((n->n ? n->n : 1) * sizeof *kwn);
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
            if (pos == pos_small) {
                tl_value **heap = tl_xmalloc(cappos * sizeof *heap);
                memcpy(heap, pos, npos * sizeof *heap);
                pos = heap;
            } else {
                pos = tl_xrealloc(pos, cappos * sizeof *pos);
            }
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
    {
        tl_args args = {npos, pos, nkw, kwn, kwv};
        result = tl_value_call(fn, &args, err);
        if (!result)
            fail_node(n, err);
    }
done:
    for (size_t i = 0; i < npos; i++)
        tl_value_release(pos[i]);
    for (size_t i = 0; i < nkw; i++)
        tl_value_release(kwv[i]);
    if (pos != pos_small)
        free(pos);
    if (!small) {
        free(kwv);
        free(kwn);
    }
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
        "chr", "classmethod", "compile", "complex", "delattr", "dir", "divmod",
        "eval", "exec", "exit", "filter", "format", "frozenset", "getattr", "globals",
        "hasattr", "hash", "help", "hex", "input", "isinstance", "issubclass", "iter",
        "locals", "map", "memoryview", "next", "object", "oct", "ord", "pow",
        "property", "quit", "round", "set", "setattr", "sorted", "staticmethod",
        "super", "type", "vars"};
    for (size_t i = 0; i < TL_ARRAY_LEN(names); i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static tl_value *eval(tl_interp *I, const tl_node *n, tl_error *err);
static bool stack_exhausted(const tl_interp *I);

/* {k: v, ...}: keys and values left to right, as CPython 3.8+ */
static tl_value *eval_dict(tl_interp *I, const tl_node *n, tl_error *err)
{
    if (tl_pyops_charge_seq(n->n, err) < 0)
        return NULL;
    tl_value *d = tl_dict_new();
    for (size_t i = 0; i + 1 < n->n; i += 2) {
        tl_value *k = eval(I, n->kids[i], err);
        if (!k) {
            tl_value_release(d);
            return NULL;
        }
        tl_value *v = eval(I, n->kids[i + 1], err);
        if (!v) {
            tl_value_release(k);
            tl_value_release(d);
            return NULL;
        }
        if (!tl_value_hashable(k)) {
            tl_error_set(err, TL_ERR_TYPE, "unhashable type: '%s'", tl_value_type_name(k));
            tl_value_release(k);
            tl_value_release(v);
            tl_value_release(d);
            fail_node(n->kids[i], err);
            return NULL;
        }
        tl_dict_set(d, k, v);
        tl_value_release(k);
    }
    return d;
}
/* ---------------------------------------------------------------------- */
/* f-strings */

static tl_value *eval_fstring(tl_interp *I, const tl_node *n, tl_error *err)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    size_t max = (size_t)I->opts.max_seq;
    for (size_t i = 0; i < n->n; i++) {
        const tl_node *k = n->kids[i];
        if (k->kind == TL_N_STR) {
            tl_buf_append(&b, k->str, k->len);
        } else {
            if (k->str)
                tl_buf_append(&b, k->str, k->len);
            tl_value *v = eval(I, k->kids[0], err);
            if (!v)
                goto fail;
            tl_value *spec = NULL;
            if (k->kids[1] && !(spec = eval_fstring(I, k->kids[1], err))) {
                tl_value_release(v);
                goto fail;
            }
            if (k->op) {
                tl_buf t = {0};
                if (k->op == 's')
                    tl_value_str(v, &t);
                else
                    tl_value_repr(v, &t);
                tl_value_release(v);
                v = tl_strn(tl_buf_str(&t), t.len);
                tl_buf_free(&t);
            }
            int rc = tl_format_value(v, spec ? spec->u.str.s : "", spec ? spec->u.str.len : 0,
                                     max, &b, err);
            tl_value_release(v);
            tl_value_release(spec);
            if (rc < 0) {
                fail_node(k, err);
                goto fail;
            }
        }
        if (b.len > max) {
            tl_error_set(err, TL_ERR_LIMIT,
                         "f-string longer than the limit (%zu characters)", max);
            fail_node(n, err);
            goto fail;
        }
    }
    if (tl_pyops_charge_seq(b.len, err) < 0) {
        fail_node(n, err);
        goto fail;
    }
    tl_value *r = tl_strn(tl_buf_str(&b), b.len);
    tl_buf_free(&b);
    return r;
fail:
    tl_buf_free(&b);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* functions */

static int exec_block(tl_interp *I, const tl_node *b, tl_error *err);

typedef struct namevec {
    const char **v;
    size_t n, cap;
} namevec;

static void names_add(namevec *nv, const char *name)
{
    for (size_t i = 0; i < nv->n; i++)
        if (strcmp(nv->v[i], name) == 0)
            return;
    if (nv->n == nv->cap) {
        nv->cap = nv->cap ? nv->cap * 2 : 8;
        nv->v = tl_xrealloc(nv->v, nv->cap * sizeof *nv->v);
    }
    nv->v[nv->n++] = name;
}

static void target_names(const tl_node *t, namevec *nv)
{
    if (!t)
        return;
    if (t->kind == TL_N_NAME)
        names_add(nv, t->str);
    else if (t->kind == TL_N_TUPLE || t->kind == TL_N_LIST)
        for (size_t i = 0; i < t->n; i++)
            target_names(t->kids[i], nv);
}

/* Names a function body binds (its locals, as CPython decides them
 * statically), and the names it declares global. Nested def/lambda bodies
 * are their own scopes; statement nesting is bounded by the parser. */
static void collect_locals(const tl_node *s, namevec *loc, namevec *glob)
{
    if (!s)
        return;
    switch (s->kind) {
    case TL_N_ASSIGN:
        for (size_t i = 0; i + 1 < s->n; i++)
            target_names(s->kids[i], loc);
        break;
    case TL_N_AUGASSIGN:
        target_names(s->kids[0], loc);
        break;
    case TL_N_FOR:
        target_names(s->kids[0], loc);
        collect_locals(s->kids[2], loc, glob);
        collect_locals(s->kids[3], loc, glob);
        break;
    case TL_N_IF:
    case TL_N_WHILE:
        collect_locals(s->kids[1], loc, glob);
        collect_locals(s->kids[2], loc, glob);
        break;
    case TL_N_BLOCK:
    case TL_N_TRY:
        for (size_t i = 0; i < s->n; i++)
            collect_locals(s->kids[i], loc, glob);
        break;
    case TL_N_HANDLER:
        if (s->str)
            names_add(loc, s->str);
        collect_locals(s->kids[1], loc, glob);
        break;
    case TL_N_WITH:
        target_names(s->kids[1], loc);
        collect_locals(s->kids[2], loc, glob);
        break;
    case TL_N_DEF:
        names_add(loc, s->str);
        break;
    case TL_N_IMPORT:
        names_add(loc, s->str2);
        break;
    case TL_N_DEL:
        for (size_t i = 0; i < s->n; i++)
            target_names(s->kids[i], loc);
        break;
    case TL_N_GLOBAL:
        for (size_t i = 0; i < s->n; i++)
            names_add(glob, s->kids[i]->str);
        break;
    default:
        break;
    }
}

static void closure_drop(void *data)
{
    closure *c = data;
    for (size_t i = 0; i < c->nparams; i++)
        tl_value_release(c->defaults[i]);
    free(c->defaults);
    free(c->names);
    env_release(c->scope);
    tl_ast_free(c->ast);
    free(c);
}

static tl_value *closure_call(void *data, const tl_args *a, tl_error *err);

/* what a closure holds for the cycle collector (value.h): its defaults */
static tl_value **closure_refs(void *data, size_t *n)
{
    closure *c = data;
    *n = c->nparams;
    return c->defaults;
}

/* A DEF or LAMBDA node evaluated: defaults now, in the current scope. */
static tl_value *make_function(tl_interp *I, const tl_node *n, tl_error *err)
{
    closure *c = tl_xcalloc(1, sizeof *c);
    c->def = n;
    c->name = n->kind == TL_N_DEF ? n->str : "<lambda>";
    c->nparams = n->n - 1;
    c->defaults = tl_xcalloc(c->nparams ? c->nparams : 1, sizeof *c->defaults);
    for (size_t i = 0; i < c->nparams; i++) {
        const tl_node *d = n->kids[i]->kids[0];
        if (d && !(c->defaults[i] = eval(I, d, err))) {
            for (size_t j = 0; j < i; j++)
                tl_value_release(c->defaults[j]);
            free(c->defaults);
            free(c);
            return NULL;
        }
    }
    c->ast = tl_ast_retain(I->ast);
    c->scope = I->frame;
    if (c->scope)
        c->scope->refcount++;
    namevec loc = {0}, glob = {0};
    for (size_t i = 0; i < c->nparams; i++)
        names_add(&loc, n->kids[i]->str);
    if (n->kind == TL_N_DEF)
        collect_locals(n->kids[n->n - 1], &loc, &glob);
    size_t k = 0;
    for (size_t i = 0; i < loc.n; i++) {
        bool g = false;
        for (size_t j = 0; j < glob.n; j++)
            g = g || strcmp(loc.v[i], glob.v[j]) == 0;
        if (!g)
            loc.v[k++] = loc.v[i];
    }
    free(glob.v);
    c->names = loc.v;
    c->nnames = k;
    c->run_id = I->run_id;
    tl_value_closure_refs_hook(closure_call, closure_refs);
    return tl_value_closure(c->name, c, closure_call, closure_drop);
}

/* "'a'", "'a' and 'b'", "'a', 'b', and 'c'" */
static void name_list(tl_buf *b, const char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            tl_buf_puts(b, n == 2 ? " and " : i + 1 == n ? ", and " : ", ");
        tl_buf_printf(b, "'%s'", names[i]);
    }
}

static int bind_args(const closure *c, env *e, const tl_args *a, tl_error *err)
{
    const tl_node *n = c->def;
    size_t np = c->nparams, ndef = 0;
    for (size_t i = 0; i < np; i++)
        ndef += c->defaults[i] != NULL;
    if (a->npos > np) {
        if (ndef)
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s() takes from %zu to %zu positional arguments but %zu "
                                "were given", c->name, np - ndef, np, a->npos);
        return tl_error_set(err, TL_ERR_TYPE,
                            "%s() takes %zu positional argument%s but %zu %s given", c->name,
                            np, np == 1 ? "" : "s", a->npos, a->npos == 1 ? "was" : "were");
    }
    for (size_t i = 0; i < a->npos; i++)
        env_set(e, n->kids[i]->str, tl_value_retain(a->pos[i]));
    for (size_t k = 0; k < a->nkw; k++) {
        size_t i = 0;
        while (i < np && strcmp(n->kids[i]->str, a->kwnames[k]) != 0)
            i++;
        if (i == np)
            return tl_error_set(err, TL_ERR_TYPE, "%s() got an unexpected keyword argument '%s'",
                                c->name, a->kwnames[k]);
        if (env_find(e, n->kids[i]->str))
            return tl_error_set(err, TL_ERR_TYPE, "%s() got multiple values for argument '%s'",
                                c->name, a->kwnames[k]);
        env_set(e, n->kids[i]->str, tl_value_retain(a->kwvals[k]));
    }
    const char *missing[256];
    size_t nmiss = 0;
    for (size_t i = 0; i < np; i++) {
        if (env_find(e, n->kids[i]->str))
            continue;
        if (c->defaults[i])
            env_set(e, n->kids[i]->str, tl_value_retain(c->defaults[i]));
        else if (nmiss < TL_ARRAY_LEN(missing))
            missing[nmiss++] = n->kids[i]->str;
    }
    if (nmiss) {
        tl_buf b = {0};
        name_list(&b, missing, nmiss);
        tl_error_set(err, TL_ERR_TYPE, "%s() missing %zu required positional argument%s: %s",
                     c->name, nmiss, nmiss == 1 ? "" : "s", tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    return 0;
}

static tl_value *closure_call(void *data, const tl_args *a, tl_error *err)
{
    closure *c = data;
    tl_interp *I = g_cur;
    if (!I) {
        tl_error_set(err, TL_ERR_INTERNAL, "%s() called outside the interpreter", c->name);
        return NULL;
    }
    if (I->calls >= MAX_CALLS || stack_exhausted(I)) {
        tl_error_set(err, TL_ERR_LIMIT, "maximum recursion depth exceeded (RecursionError; "
                                        "limit %d nested calls)", MAX_CALLS);
        return NULL;
    }
    if (tl_context_deadline_check(err) < 0)
        return NULL;
    env *e = tl_xcalloc(1, sizeof *e);
    e->refcount = 1;
    e->owner = I;
    e->next = I->envs;
    if (I->envs)
        I->envs->prev = e;
    I->envs = e;
    e->parent = c->scope;
    if (e->parent)
        e->parent->refcount++;
    e->names = c->names;
    e->nnames = c->nnames;
    tl_value *r = NULL;
    if (bind_args(c, e, a, err) == 0) {
        env *saved_frame = I->frame;
        size_t saved_base = I->local_base;
        int saved_depth = I->depth;
        tl_ast *saved_ast = I->ast;
        I->ast = c->ast; /* a def inside the body belongs to this tree */
        I->frame = e;
        I->local_base = I->nlocals;
        I->depth = 0;
        I->calls++;
        const tl_node *body = c->def->kids[c->def->n - 1];
        if (c->def->kind == TL_N_LAMBDA) {
            r = eval(I, body, err);
        } else {
            int rc = exec_block(I, body, err);
            if (rc == 3 /* X_RETURN */) {
                r = I->retval;
                I->retval = NULL;
            } else if (rc == 0) {
                r = tl_none();
            }
        }
        I->calls--;
        pop_locals(I, I->local_base);
        I->frame = saved_frame;
        I->local_base = saved_base;
        I->depth = saved_depth;
        I->ast = saved_ast;
    }
    env_release(e);
    /* spans inside a function defined by another source text mean nothing
     * here: the caller's call node gets the error instead */
    if (!r && c->run_id != I->run_id && err)
        err->span = TL_NO_SPAN;
    return r;
}

static bool stack_exhausted(const tl_interp *I)
{
    const char *here = __builtin_frame_address(0);
    return I->stack_base && here < I->stack_base &&
           (size_t)(I->stack_base - here) > STACK_BUDGET;
}

static tl_value *eval(tl_interp *I, const tl_node *n, tl_error *err)
{
    if (++I->depth > tl_parse_max_height(I->opts.max_depth) + 8) {
        I->depth--;
        tl_error_set(err, TL_ERR_LIMIT, "expression nested too deeply");
        return located(NULL, n, err);
    }
    if (stack_exhausted(I)) {
        I->depth--;
        tl_error_set(err, TL_ERR_LIMIT, "maximum recursion depth exceeded (RecursionError)");
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
        r = lookup_err(I, n->str, err);
        break;
    case TL_N_FSTRING: r = eval_fstring(I, n, err); break;
    case TL_N_LAMBDA: r = make_function(I, n, err); break;
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
                                         : tl_builtins_attr_memo(obj, n->str,
                                                                 (uintptr_t *)&n->memo, err);
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
    case TL_N_DICT: r = eval_dict(I, n, err); break;
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
/* compound statements */

enum { X_ERR = -1, X_OK = 0, X_BREAK = 1, X_CONTINUE = 2, X_RETURN = 3 };

static int exec_stmt(tl_interp *I, const tl_node *s, tl_error *err);

static int exec_block(tl_interp *I, const tl_node *b, tl_error *err)
{
    if (!b)
        return X_OK;
    for (size_t i = 0; i < b->n; i++) {
        int rc = exec_stmt(I, b->kids[i], err);
        if (rc != X_OK)
            return rc;
    }
    return X_OK;
}

static int truth_of(tl_interp *I, const tl_node *cond, bool *t, tl_error *err)
{
    tl_value *c = eval(I, cond, err);
    if (!c)
        return -1;
    int rc = tl_value_truthy(c, t, err);
    tl_value_release(c);
    if (rc < 0)
        return fail_node(cond, err);
    return 0;
}

/* the per-op deadline, checked on every loop iteration and call */
static int loop_tick(tl_interp *I, const tl_node *n, tl_error *err)
{
    if (tl_context_deadline_check(err) < 0)
        return fail_node(n, err);
    (void)I;
    return 0;
}

static int exec_while(tl_interp *I, const tl_node *s, tl_error *err)
{
    for (;;) {
        if (loop_tick(I, s, err) < 0)
            return X_ERR;
        bool t;
        if (truth_of(I, s->kids[0], &t, err) < 0)
            return X_ERR;
        if (!t)
            return exec_block(I, s->kids[2], err);
        int rc = exec_block(I, s->kids[1], err);
        if (rc == X_BREAK)
            return X_OK;
        if (rc == X_ERR || rc == X_RETURN)
            return rc;
    }
}

static int exec_for(tl_interp *I, const tl_node *s, tl_error *err)
{
    tl_value *it = eval(I, s->kids[1], err);
    if (!it)
        return X_ERR;
    tl_value **items;
    size_t n;
    int rc = tl_pyops_iterate(it, &items, &n, err);
    tl_value_release(it);
    if (rc < 0)
        return fail_node(s->kids[1], err);
    rc = X_OK;
    bool broke = false;
    for (size_t i = 0; i < n; i++) {
        if (loop_tick(I, s, err) < 0 || assign(I, s->kids[0], items[i], err) < 0) {
            rc = X_ERR;
            break;
        }
        rc = exec_block(I, s->kids[2], err);
        if (rc == X_CONTINUE)
            rc = X_OK;
        if (rc == X_BREAK) {
            rc = X_OK;
            broke = true;
            break;
        }
        if (rc != X_OK)
            break;
    }
    tl_pyops_items_free(items, n);
    if (rc == X_OK && !broke)
        rc = exec_block(I, s->kids[3], err);
    return rc;
}

/* Does exception kind `kind` match the handler's type expression value? */
static int handler_matches(tl_value *type, int kind, tl_error *err)
{
    if (type->kind == TL_V_TUPLE) {
        for (size_t i = 0; i < type->u.seq.n; i++) {
            int m = handler_matches(type->u.seq.items[i], kind, err);
            if (m != 0)
                return m;
        }
        return 0;
    }
    return tl_builtins_exc_matches(type, kind, err);
}

static int exec_try(tl_interp *I, const tl_node *s, tl_error *err)
{
    size_t nh = (size_t)s->ival;
    const tl_node *orelse = s->kids[nh + 1], *fin = s->kids[nh + 2];
    int rc = exec_block(I, s->kids[0], err);
    if (rc == X_ERR && nh > 0 && tl_error_is_python(err->kind)) {
        tl_error caught = *err;
        for (size_t h = 1; h <= nh; h++) {
            const tl_node *hd = s->kids[h];
            int m = 1;
            if (hd->kids[0]) {
                tl_error_clear(err);
                tl_value *type = eval(I, hd->kids[0], err);
                if (!type) {
                    rc = X_ERR;
                    goto handled; /* the type expression failed */
                }
                m = handler_matches(type, caught.kind, err);
                tl_value_release(type);
                if (m < 0) {
                    fail_node(hd->kids[0], err);
                    rc = X_ERR;
                    goto handled;
                }
                *err = caught;
            }
            if (!m)
                continue;
            tl_error_clear(err);
            tl_value *exc = tl_value_exc(caught.kind, caught.msg);
            if (hd->str)
                set_var(I, hd->str, tl_value_retain(exc));
            tl_value *saved = I->handling;
            I->handling = exc;
            rc = exec_block(I, hd->kids[1], err);
            I->handling = saved;
            tl_value_release(exc);
            if (hd->str && rc != X_ERR) {
                tl_error scratch;
                tl_error_clear(&scratch);
                (void)del_var(I, hd->str, &scratch); /* Python unbinds `as e` */
            }
            goto handled;
        }
        /* no handler matched: the exception goes on */
    } else if (rc == X_OK && orelse) {
        rc = exec_block(I, orelse, err);
    }
handled:
    if (!fin)
        return rc;
    tl_error pending;
    if (rc == X_ERR)
        pending = *err;
    tl_value *retval = I->retval;
    I->retval = NULL;
    tl_error_clear(err);
    int frc = exec_block(I, fin, err);
    if (frc != X_OK) { /* finally's own exit wins, as in Python */
        tl_value_release(retval);
        return frc;
    }
    I->retval = retval;
    if (rc == X_ERR)
        *err = pending;
    return rc;
}

static int exec_raise(tl_interp *I, const tl_node *s, tl_error *err)
{
    if (!s->kids[0]) {
        if (!I->handling) {
            tl_error_set(err, TL_ERR_RUNTIME, "No active exception to reraise");
            return fail_node(s, err);
        }
        tl_error_set(err, (tl_errkind)I->handling->u.exc.errkind, "%s",
                     I->handling->u.exc.msg);
        return fail_node(s, err);
    }
    tl_value *v = eval(I, s->kids[0], err);
    if (!v)
        return X_ERR;
    if (s->kids[1]) { /* `from cause`: evaluated, not shown */
        tl_value *c = eval(I, s->kids[1], err);
        if (!c) {
            tl_value_release(v);
            return X_ERR;
        }
        tl_value_release(c);
    }
    if (v->kind == TL_V_TYPE && v->u.type.errkind != TL_OK) {
        tl_error_set(err, (tl_errkind)v->u.type.errkind, "%s", "");
    } else if (v->kind == TL_V_EXC) {
        tl_error_set(err, (tl_errkind)v->u.exc.errkind, "%s", v->u.exc.msg);
    } else {
        tl_error_set(err, TL_ERR_TYPE, "exceptions must derive from BaseException");
        tl_value_release(v);
        return fail_node(s->kids[0], err);
    }
    tl_value_release(v);
    return fail_node(s, err);
}

/* obj.name(args...) through attribute lookup */
static tl_value *call_attr(tl_value *obj, const char *name, tl_value **args, size_t n,
                           tl_error *err)
{
    tl_value *m = tl_builtins_attr(obj, name, err);
    if (!m)
        return NULL;
    tl_args a = {n, args, 0, NULL, NULL};
    tl_value *r = tl_value_call(m, &a, err);
    tl_value_release(m);
    return r;
}

static int exec_with(tl_interp *I, const tl_node *s, tl_error *err)
{
    tl_value *ctx = eval(I, s->kids[0], err);
    if (!ctx)
        return X_ERR;
    tl_error probe;
    tl_error_clear(&probe);
    tl_value *exitm = tl_builtins_attr(ctx, "__exit__", &probe);
    if (!exitm) {
        tl_error_set(err, TL_ERR_TYPE,
                     "'%s' object does not support the context manager protocol",
                     tl_value_type_name(ctx));
        tl_value_release(ctx);
        return fail_node(s->kids[0], err);
    }
    tl_value *entered = call_attr(ctx, "__enter__", NULL, 0, err);
    tl_value_release(ctx);
    if (!entered) {
        tl_value_release(exitm);
        return fail_node(s->kids[0], err);
    }
    int rc = X_OK;
    if (s->kids[1] && assign(I, s->kids[1], entered, err) < 0)
        rc = X_ERR;
    tl_value_release(entered);
    if (rc == X_OK)
        rc = exec_block(I, s->kids[2], err);
    tl_value *args[3];
    tl_error saved;
    tl_error_clear(&saved);
    bool failed = rc == X_ERR;
    if (failed) {
        saved = *err;
        args[0] = tl_builtins_exc_type(err->kind);
        args[1] = tl_value_exc(err->kind, err->msg);
    } else {
        args[0] = tl_none();
        args[1] = tl_none();
    }
    args[2] = tl_none();
    tl_error xerr;
    tl_error_clear(&xerr);
    tl_args a = {3, args, 0, NULL, NULL};
    tl_value *r = tl_value_call(exitm, &a, &xerr);
    for (int i = 0; i < 3; i++)
        tl_value_release(args[i]);
    tl_value_release(exitm);
    if (!r) {
        *err = xerr;
        return fail_node(s, err);
    }
    bool suppress = false;
    if (failed && tl_error_is_python(saved.kind))
        (void)tl_value_truthy(r, &suppress, &xerr);
    tl_value_release(r);
    if (failed && suppress) {
        tl_error_clear(err);
        return X_OK;
    }
    return rc;
}

static int exec_del(tl_interp *I, const tl_node *s, tl_error *err)
{
    for (size_t i = 0; i < s->n; i++) {
        const tl_node *t = s->kids[i];
        if (t->kind == TL_N_NAME) {
            if (del_var(I, t->str, err) < 0)
                return fail_node(t, err);
            continue;
        }
        tl_value *obj = eval(I, t->kids[0], err);
        if (!obj)
            return X_ERR;
        tl_value *idx = eval_index(I, t->kids[1], err);
        if (!idx) {
            tl_value_release(obj);
            return X_ERR;
        }
        int rc = 0;
        int64_t k;
        if (obj->kind != TL_V_LIST) {
            rc = tl_error_set(err, TL_ERR_TYPE, "'%s' object doesn't support item deletion",
                              tl_value_type_name(obj));
        } else if (!tl_value_as_index(idx, &k)) {
            rc = tl_error_set(err, idx->kind == TL_V_SLICE ? TL_ERR_UNSUPPORTED : TL_ERR_TYPE,
                              idx->kind == TL_V_SLICE
                                  ? "tlab does not support deleting list slices"
                                  : "list indices must be integers or slices, not %s",
                              tl_value_type_name(idx));
        } else {
            int64_t len = (int64_t)obj->u.seq.n;
            if (k < 0)
                k += len;
            if (k < 0 || k >= len) {
                rc = tl_error_set(err, TL_ERR_INDEX, "list assignment index out of range");
            } else {
                tl_value_release(obj->u.seq.items[k]);
                memmove(obj->u.seq.items + k, obj->u.seq.items + k + 1,
                        (size_t)(len - k - 1) * sizeof *obj->u.seq.items);
                obj->u.seq.n--;
            }
        }
        tl_value_release(obj);
        tl_value_release(idx);
        if (rc < 0)
            return fail_node(t, err);
    }
    return X_OK;
}

static int exec_compound(tl_interp *I, const tl_node *s, tl_error *err)
{
    switch (s->kind) {
    case TL_N_BLOCK:
        return exec_block(I, s, err);
    case TL_N_IF: {
        bool t;
        if (truth_of(I, s->kids[0], &t, err) < 0)
            return X_ERR;
        return exec_block(I, s->kids[t ? 1 : 2], err);
    }
    case TL_N_WHILE: return exec_while(I, s, err);
    case TL_N_FOR: return exec_for(I, s, err);
    case TL_N_BREAK: return X_BREAK;
    case TL_N_CONTINUE: return X_CONTINUE;
    case TL_N_RETURN: {
        tl_value *v = s->kids[0] ? eval(I, s->kids[0], err) : tl_none();
        if (!v)
            return X_ERR;
        tl_value_release(I->retval);
        I->retval = v;
        return X_RETURN;
    }
    case TL_N_DEF: {
        tl_value *f = make_function(I, s, err);
        if (!f)
            return X_ERR;
        set_var(I, s->str, f);
        return X_OK;
    }
    case TL_N_TRY: return exec_try(I, s, err);
    case TL_N_RAISE: return exec_raise(I, s, err);
    case TL_N_WITH: return exec_with(I, s, err);
    case TL_N_DEL: return exec_del(I, s, err);
    case TL_N_GLOBAL: return X_OK;
    default:
        tl_error_set(err, TL_ERR_INTERNAL, "cannot execute a %s node",
                     tl_ast_kind_name(s->kind));
        return fail_node(s, err);
    }
}

/* ---------------------------------------------------------------------- */
/* statements */

/* import einops / from einops import NAME (parse.c allows nothing else) */
static int exec_import_einops(tl_interp *I, const tl_node *s, tl_error *err)
{
    tl_value *mod = tl_value_module("einops");
    if (s->op != TL_IMPORT_FROM) {
        set_var(I, s->str2, mod);
        return 0;
    }
    const char *name = strchr(s->str, '.') + 1;
    tl_value *v = tl_builtins_module_attr(mod, name, err);
    tl_value_release(mod);
    if (!v) {
        tl_error_clear(err);
        tl_error_set(err, TL_ERR_IMPORT, "cannot import name '%s' from 'einops'", name);
        return fail_node(s, err);
    }
    set_var(I, s->str2, v);
    return 0;
}

static int exec_stmt(tl_interp *I, const tl_node *s, tl_error *err)
{
    tl_pywarn_note_statement(s->span.start); /* where a UserWarning points */
    switch (s->kind) {
    case TL_N_IMPORT:
        if (s->op == TL_IMPORT_FROM || strcmp(s->str, "einops") == 0)
            return exec_import_einops(I, s, err);
        set_var(I, s->str2, tl_value_module(s->str)); /* torch numpy os h5py (parse.c) */
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
        if (t->kind == TL_N_ATTR) { /* w.data -= g: get, in-place op, set */
            tl_value *obj = eval(I, t->kids[0], err);
            if (!obj)
                return -1;
            tl_value *cur = obj->kind == TL_V_MODULE ? tl_builtins_module_attr(obj, t->str, err)
                                                     : tl_builtins_attr(obj, t->str, err);
            tl_value *r = aug_value(I, s, cur, err);
            int rc = r ? tl_setattr_assign(obj, t->str, r, err) : -1;
            if (r && rc < 0)
                fail_node(t, err);
            tl_value_release(r);
            tl_value_release(obj);
            return rc;
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
        tl_value *r = aug_value(I, s, tl_pyops_getitem(obj, idx, err), err);
        int rc = r ? tl_pyops_setitem(obj, idx, r, err) : -1;
        if (r && rc < 0)
            fail_node(s, err);
        tl_value_release(r);
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
        return exec_compound(I, s, err);
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
    if (tl_parse_cached(src->text, src->len, o.max_depth > 0 ? o.max_depth : 64, &ast, err) < 0)
        return -1;
    tl_ast_free(ast);
    return 0;
}

/* What a run replaces on this thread, restored when it ends (runs nest:
 * a function of one source called while another runs). */
typedef struct run_state {
    tl_interp *cur;
    double deadline, timeout;
    tl_pyops_budget budget;
    const tl_source *src;
    tl_ast *ast;
    uint64_t run_id;
    char *stack_base;
    bool outermost;
} run_state;

static void enter_run(tl_interp *I, const tl_source *src, tl_ast *ast, run_state *rs)
{
    rs->cur = g_cur;
    rs->deadline = tl_context_deadline_when();
    rs->timeout = tl_context_deadline_budget();
    rs->src = I->src;
    rs->ast = I->ast;
    rs->run_id = I->run_id;
    rs->stack_base = I->stack_base;
    rs->outermost = g_cur != I;
    g_cur = I;
    tl_context_set_backends(I->opts.default_backend, I->opts.cuda_backend);
    rs->budget.active = false;
    if (rs->outermost) { /* a nested run shares its caller's deadline and budgets */
        tl_context_deadline_set(I->opts.timeout > 0 ? tl_now() + I->opts.timeout : 0,
                                I->opts.timeout); /* kernels poll it too */
        rs->budget = tl_pyops_budget_enter(I->opts.max_seq);
        I->depth = 0;
        I->stack_base = __builtin_frame_address(0);
    }
    if (src)
        I->src = src;
    I->ast = ast;
    I->run_id = ++I->next_run;
}

static void leave_run(tl_interp *I, run_state *rs)
{
    if (rs->outermost) {
        pop_locals(I, 0);
        I->local_base = 0;
    }
    I->src = rs->src;
    I->ast = rs->ast;
    I->run_id = rs->run_id;
    I->stack_base = rs->stack_base;
    g_cur = rs->cur;
    if (rs->outermost)
        tl_pyops_budget_leave(rs->budget);
    tl_context_deadline_set(rs->deadline, rs->timeout);
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
    if (tl_parse_cached(src->text, src->len, I->opts.max_depth, &ast, err) < 0)
        return NULL;

    run_state rs;
    enter_run(I, src, ast, &rs);
    tl_value *result = NULL;
    size_t n = ast->nstmts;
    size_t last_expr = want_value && n > 0 && ast->stmts[n - 1]->kind == TL_N_EXPR ? n - 1 : n;
    bool ok = true;
    for (size_t i = 0; i < last_expr; i++)
        if (exec_stmt(I, ast->stmts[i], err) != X_OK) {
            ok = false;
            break;
        }
    if (ok) {
        if (last_expr < n)
            result = eval(I, ast->stmts[last_expr]->kids[0], err);
        else
            result = tl_none();
    }
    leave_run(I, &rs);
    tl_ast_free(ast);
    return result;
}

tl_value *tl_interp_call(tl_interp *I, tl_value *fn, tl_value **args, size_t nargs,
                         tl_error *err)
{
    run_state rs;
    enter_run(I, NULL, I->ast, &rs);
    /* a def's errors keep their spans: they point into its own source */
    if (fn->kind == TL_V_CLOSURE && fn->u.closure.call == closure_call)
        I->run_id = ((closure *)fn->u.closure.data)->run_id;
    I->src = NULL;
    tl_args a = {nargs, args, 0, NULL, NULL};
    tl_value *r = tl_value_call(fn, &a, err);
    leave_run(I, &rs);
    return r;
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
