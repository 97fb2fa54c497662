/* interp.c - the op-language evaluator: a tree walker over ast.h with
 * Python semantics on the values of value.h.
 *
 * Design:
 *   - Environment: globals are a small name -> value table owned by the
 *     interpreter; comprehension targets live on a local stack searched
 *     first and popped when the comprehension ends (Python 3 scoping).
 *   - Operators on plain values are implemented here (int64 with overflow
 *     checks, Python floor division / modulo signs, sequence repetition);
 *     as soon as an operand is a tensor or ndarray they go to ops.h, and
 *     subscripts of tensors to index.h.
 *   - Attributes and calls resolve through builtins.c and bind.h.
 *   - Errors: every failing node attaches its span (tl_error_locate keeps
 *     the innermost one), so the caret lands on the failing call.
 *   - Bounds: the source length, the parser's depth/height limits (so the
 *     recursion here is bounded by the tree height), a per-call deadline
 *     checked in every loop, and a per-call budget of sequence elements.
 * The running interpreter and its deadline are thread-local, so the
 * free functions tl_interp_check_deadline / tl_interp_current_opts work
 * from kernels and factories.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "bind.h"
#include "builtins.h"
#include "create.h"
#include "format.h"
#include "index.h"
#include "interp.h"
#include "ops.h"
#include "parse.h"
#include "util.h"

typedef struct var {
    char *name;
    tl_value *v;
} var;

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

struct tl_interp {
    tl_interp_opts opts;
    var *vars;
    size_t nvars, capvars;
    local *locals;
    size_t nlocals, caplocals;
    size_t local_base;    /* comprehension locals visible from here up */
    int depth;
    const tl_source *src; /* running source (assert messages) */
    uint64_t seq_used;    /* sequence elements created this call */
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
static _Thread_local double g_deadline;
static _Thread_local double g_timeout;

/* ---------------------------------------------------------------------- */
/* options, deadline */

void tl_interp_opts_default(tl_interp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->default_backend = tl_backend_cpu();
    o->cuda_backend = NULL;
    o->cuda_available = false;
    o->max_source = (size_t)1 << 20;
    o->max_depth = 64;
    o->timeout = 2.0;
    o->max_seq = 10000000;
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

int tl_interp_check_deadline(tl_error *err)
{
    if (g_deadline > 0 && tl_time_past(g_deadline))
        return tl_error_set(err, TL_ERR_LIMIT,
                            "time limit exceeded (%g s per op; see --timeout)",
                            g_timeout);
    return 0;
}

/* cheap deadline check for tight loops */
static int tick(size_t i, tl_error *err)
{
    if ((i & 1023) == 1023)
        return tl_interp_check_deadline(err);
    return 0;
}

int64_t tl_interp_max_seq(void)
{
    return tl_interp_current_opts()->max_seq;
}

int tl_interp_charge_seq(size_t n, tl_error *err)
{
    int64_t max = tl_interp_max_seq();
    if ((uint64_t)n > (uint64_t)max)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "sequence of %zu elements is longer than the limit (%" PRId64 ")",
                            n, max);
    if (g_cur) {
        g_cur->seq_used += n;
        if (g_cur->seq_used > (uint64_t)max * 4)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "too many sequence elements created in one op "
                                "(limit %" PRId64 ")", max * 4);
    }
    /* sequences of tensors: their headers are the memory that counts */
    if (tl_tensor_live() > TL_MAX_LIVE_TENSORS)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "more than %d tensors alive at once (tlab limit)",
                            TL_MAX_LIVE_TENSORS);
    return 0;
}

void tl_interp_set_seed(unsigned long seed)
{
    if (g_cur)
        g_cur->opts.seed = seed;
}

/* ---------------------------------------------------------------------- */
/* environment */

tl_interp *tl_interp_new(const tl_interp_opts *opts)
{
    tl_interp *I = tl_xcalloc(1, sizeof *I);
    if (opts)
        I->opts = *opts;
    else
        tl_interp_opts_default(&I->opts);
    if (!I->opts.default_backend)
        I->opts.default_backend = tl_backend_cpu();
    if (I->opts.max_depth <= 0)
        I->opts.max_depth = 64;
    if (I->opts.max_source == 0)
        I->opts.max_source = (size_t)1 << 20;
    if (I->opts.max_seq <= 0)
        I->opts.max_seq = 10000000;
    /* a fresh interpreter is a fresh process: rand/randn start from the
     * seed, whichever thread (and whatever ran there before) */
    tl_create_manual_seed(I->opts.seed);
    tl_dtype_set_default(TL_FLOAT32); /* and float32 the default dtype */
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
        free(I->vars[i].name);
        tl_value_release(I->vars[i].v);
    }
    free(I->vars);
    for (size_t i = 0; i < I->nlocals; i++)
        tl_value_release(I->locals[i].v);
    free(I->locals);
    tl_value_release(I->retval);
    break_scope_cycles(I);
    for (env *e = I->envs; e; e = e->next)
        e->owner = NULL; /* values that outlive I (returned to the caller) */
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
        I->capvars = I->capvars ? I->capvars * 2 : 16;
        I->vars = tl_xrealloc(I->vars, I->capvars * sizeof *I->vars);
    }
    I->vars[I->nvars].name = tl_xstrdup(name);
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
        if (strcmp(I->vars[i].name, name) == 0) {
            free(I->vars[i].name);
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
/* numbers */

static bool is_num(const tl_value *v)
{
    return v->kind == TL_V_INT || v->kind == TL_V_BOOL || v->kind == TL_V_FLOAT;
}

static bool is_intlike(const tl_value *v)
{
    return v->kind == TL_V_INT || v->kind == TL_V_BOOL;
}

static int64_t ival(const tl_value *v)
{
    return v->kind == TL_V_BOOL ? (int64_t)v->u.b : v->u.i;
}

static double fval(const tl_value *v)
{
    return v->kind == TL_V_FLOAT ? v->u.f : (double)ival(v);
}

static tl_value *int_overflow(tl_error *err)
{
    tl_error_set(err, TL_ERR_OVERFLOW,
                 "integer overflow (tlab integers are 64-bit)");
    return NULL;
}

static const char *const op_symbol[TL_NPYOPS] = {
    "+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">",
    ">=", "&", "|", "^", "<<", ">>"};

static tl_value *unsupported_operands(tl_pyop op, const tl_value *a,
                                      const tl_value *b, tl_error *err)
{
    if (a->kind == TL_V_STR && op == TL_PY_ADD)
        tl_error_set(err, TL_ERR_TYPE, "can only concatenate str (not \"%s\") to str",
                     tl_value_type_name(b));
    else if (op == TL_PY_POW)
        tl_error_set(err, TL_ERR_TYPE,
                     "unsupported operand type(s) for ** or pow(): '%s' and '%s'",
                     tl_value_type_name(a), tl_value_type_name(b));
    else
        tl_error_set(err, TL_ERR_TYPE, "unsupported operand type(s) for %s: '%s' and '%s'",
                     op_symbol[op], tl_value_type_name(a), tl_value_type_name(b));
    return NULL;
}

static tl_value *int_pow(int64_t a, int64_t b, tl_error *err)
{
    if (b < 0) {
        if (a == 0) {
            tl_error_set(err, TL_ERR_ZERODIV, "0.0 cannot be raised to a negative power");
            return NULL;
        }
        return tl_float(pow((double)a, (double)b));
    }
    int64_t r = 1, base = a;
    while (b > 0) {
        if (b & 1) {
            if (tl_mul_overflow(r, base, &r))
                return int_overflow(err);
        }
        b >>= 1;
        if (b > 0 && tl_mul_overflow(base, base, &base))
            return int_overflow(err);
    }
    return tl_int(r);
}

/* Python's float divmod */
static void float_divmod(double vx, double wx, double *floordiv, double *mod)
{
    double m = fmod(vx, wx);
    double div = (vx - m) / wx;
    if (m != 0.0) {
        if ((wx < 0) != (m < 0)) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = copysign(0.0, wx);
    }
    double fd;
    if (div != 0.0) {
        fd = floor(div);
        if (div - fd > 0.5)
            fd += 1.0;
    } else {
        fd = copysign(0.0, vx / wx);
    }
    *floordiv = fd;
    *mod = m;
}

static tl_value *num_binop(tl_pyop op, const tl_value *a, const tl_value *b,
                           tl_error *err)
{
    bool ints = is_intlike(a) && is_intlike(b);
    if (ints) {
        int64_t x = ival(a), y = ival(b), r;
        bool bools = a->kind == TL_V_BOOL && b->kind == TL_V_BOOL;
        switch (op) {
        case TL_PY_ADD:
            if (tl_add_overflow(x, y, &r))
                return int_overflow(err);
            return tl_int(r);
        case TL_PY_SUB:
            if (y == INT64_MIN ? x >= 0 : tl_add_overflow(x, -y, &r))
                return int_overflow(err);
            return tl_int(x - y);
        case TL_PY_MUL:
            if (tl_mul_overflow(x, y, &r))
                return int_overflow(err);
            return tl_int(r);
        case TL_PY_TRUEDIV:
            if (y == 0) {
                tl_error_set(err, TL_ERR_ZERODIV, "division by zero");
                return NULL;
            }
            return tl_float((double)x / (double)y);
        case TL_PY_FLOORDIV:
        case TL_PY_MOD: {
            if (y == 0) {
                tl_error_set(err, TL_ERR_ZERODIV, op == TL_PY_MOD
                                 ? "integer modulo by zero"
                                 : "integer division or modulo by zero");
                return NULL;
            }
            if (x == INT64_MIN && y == -1) {
                if (op == TL_PY_MOD)
                    return tl_int(0);
                return int_overflow(err);
            }
            int64_t q = x / y, m = x % y;
            if (m != 0 && ((m < 0) != (y < 0))) {
                q -= 1;
                m += y;
            }
            return tl_int(op == TL_PY_MOD ? m : q);
        }
        case TL_PY_POW:
            return int_pow(x, y, err);
        case TL_PY_AND:
            return bools ? tl_bool(x & y) : tl_int(x & y);
        case TL_PY_OR:
            return bools ? tl_bool(x | y) : tl_int(x | y);
        case TL_PY_XOR:
            return bools ? tl_bool(x ^ y) : tl_int(x ^ y);
        case TL_PY_LSHIFT:
            if (y < 0) {
                tl_error_set(err, TL_ERR_VALUE, "negative shift count");
                return NULL;
            }
            if (x == 0)
                return tl_int(0);
            if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y)))
                return int_overflow(err);
            return tl_int((int64_t)((uint64_t)x << y));
        case TL_PY_RSHIFT:
            if (y < 0) {
                tl_error_set(err, TL_ERR_VALUE, "negative shift count");
                return NULL;
            }
            return tl_int(y >= 63 ? (x < 0 ? -1 : 0) : (x >> y));
        default:
            return unsupported_operands(op, a, b, err);
        }
    }
    double x = fval(a), y = fval(b);
    switch (op) {
    case TL_PY_ADD: return tl_float(x + y);
    case TL_PY_SUB: return tl_float(x - y);
    case TL_PY_MUL: return tl_float(x * y);
    case TL_PY_TRUEDIV:
        if (y == 0.0) {
            tl_error_set(err, TL_ERR_ZERODIV, "float division by zero");
            return NULL;
        }
        return tl_float(x / y);
    case TL_PY_FLOORDIV:
    case TL_PY_MOD: {
        if (y == 0.0) {
            tl_error_set(err, TL_ERR_ZERODIV, op == TL_PY_MOD ? "float modulo"
                                                              : "float floor division by zero");
            return NULL;
        }
        double q, m;
        float_divmod(x, y, &q, &m);
        return tl_float(op == TL_PY_MOD ? m : q);
    }
    case TL_PY_POW: {
        if (x == 0.0 && y < 0) {
            tl_error_set(err, TL_ERR_ZERODIV, "0.0 cannot be raised to a negative power");
            return NULL;
        }
        if (x < 0 && y != floor(y) && isfinite(y)) {
            tl_error_set(err, TL_ERR_UNSUPPORTED,
                         "tlab does not support complex numbers");
            return NULL;
        }
        double r = pow(x, y);
        if (isinf(r) && isfinite(x) && isfinite(y)) {
            tl_error_set(err, TL_ERR_OVERFLOW, "(34, 'Numerical result out of range')");
            return NULL;
        }
        return tl_float(r);
    }
    default:
        return unsupported_operands(op, a, b, err);
    }
}

/* ---------------------------------------------------------------------- */
/* sequences */

static bool is_tuplelike(const tl_value *v)
{
    return v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE;
}

static tl_value *seq_of_kind(tl_vkind kind, size_t n)
{
    if (kind == TL_V_LIST)
        return tl_list_new(n);
    tl_value *t = tl_tuple_new(n);
    if (kind == TL_V_SIZE)
        t->kind = TL_V_SIZE; /* same representation as a tuple */
    return t;
}

static tl_value *seq_concat(const tl_value *a, const tl_value *b, tl_error *err)
{
    tl_vkind kind = a->kind;
    size_t n = a->u.seq.n + b->u.seq.n;
    if (tl_interp_charge_seq(n, err) < 0)
        return NULL;
    tl_value *r = seq_of_kind(kind, n);
    for (size_t i = 0; i < a->u.seq.n; i++)
        tl_seq_set(r, i, tl_value_retain(a->u.seq.items[i]));
    for (size_t i = 0; i < b->u.seq.n; i++)
        tl_seq_set(r, a->u.seq.n + i, tl_value_retain(b->u.seq.items[i]));
    return r;
}

/* k copies of something n long: k < 0 counts as 0; a LimitError past the
 * longest sequence. */
static int repeat_check(size_t n, int64_t *k, const char *what, tl_error *err)
{
    if (*k < 0)
        *k = 0;
    if (n && (uint64_t)*k > (uint64_t)tl_interp_max_seq() / n)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "%s repetition longer than the limit (%" PRId64 ")", what,
                            tl_interp_max_seq());
    return 0;
}

static tl_value *seq_repeat(const tl_value *a, int64_t k, tl_error *err)
{
    size_t n = a->u.seq.n;
    if (repeat_check(n, &k, "sequence", err) < 0)
        return NULL;
    size_t total = n * (size_t)k;
    if (tl_interp_charge_seq(total, err) < 0)
        return NULL;
    tl_value *r;
    if (a->kind == TL_V_LIST) {
        r = tl_list_new(0);
        for (size_t i = 0; i < total; i++) {
            if (tick(i, err) < 0) {
                tl_value_release(r);
                return NULL;
            }
            tl_list_append(r, tl_value_retain(a->u.seq.items[i % n]));
        }
    } else {
        r = seq_of_kind(a->kind, total);
        for (size_t i = 0; i < total; i++)
            tl_seq_set(r, i, tl_value_retain(a->u.seq.items[i % n]));
    }
    return r;
}

static tl_value *str_repeat(const tl_value *a, int64_t k, tl_error *err)
{
    size_t n = a->u.str.len;
    if (repeat_check(n, &k, "string", err) < 0)
        return NULL;
    if (n == 0 || k <= 0) /* "" * 10**12 is "" at once, not a long loop */
        return tl_strn("", 0);
    tl_buf b = {0};
    for (int64_t i = 0; i < k; i++)
        tl_buf_append(&b, a->u.str.s, n);
    tl_value *r = tl_strn(tl_buf_str(&b), b.len);
    tl_buf_free(&b);
    return r;
}

tl_value *tl_interp_binop(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    if (tl_value_is_tensorlike(a) || tl_value_is_tensorlike(b))
        return tl_ops_binary(op, a, b, err);
    if (is_num(a) && is_num(b))
        return num_binop(op, a, b, err);
    bool sa = tl_value_is_seq(a), sb = tl_value_is_seq(b);
    if (op == TL_PY_ADD) {
        if (a->kind == TL_V_STR && b->kind == TL_V_STR) {
            if (tl_interp_charge_seq(a->u.str.len + b->u.str.len, err) < 0)
                return NULL;
            tl_buf buf = {0};
            tl_buf_append(&buf, a->u.str.s, a->u.str.len);
            tl_buf_append(&buf, b->u.str.s, b->u.str.len);
            tl_value *r = tl_strn(tl_buf_str(&buf), buf.len);
            tl_buf_free(&buf);
            return r;
        }
        if (sa && sb && ((a->kind == TL_V_LIST) == (b->kind == TL_V_LIST)))
            return seq_concat(a, b, err);
        if (sa && a->kind != TL_V_SIZE) {
            tl_error_set(err, TL_ERR_TYPE, "can only concatenate %s (not \"%s\") to %s",
                         tl_value_type_name(a), tl_value_type_name(b),
                         tl_value_type_name(a));
            return NULL;
        }
    }
    if (op == TL_PY_MUL) {
        const tl_value *seq = NULL, *k = NULL;
        if (sa || a->kind == TL_V_STR) {
            seq = a;
            k = b;
        } else if (sb || b->kind == TL_V_STR) {
            seq = b;
            k = a;
        }
        if (seq) {
            if (!is_intlike(k)) {
                int64_t idx;
                if (!tl_value_as_index(k, &idx)) {
                    tl_error_set(err, TL_ERR_TYPE,
                                 "can't multiply sequence by non-int of type '%s'",
                                 tl_value_type_name(k));
                    return NULL;
                }
                return seq->kind == TL_V_STR ? str_repeat(seq, idx, err)
                                             : seq_repeat(seq, idx, err);
            }
            return seq->kind == TL_V_STR ? str_repeat(seq, ival(k), err)
                                         : seq_repeat(seq, ival(k), err);
        }
    }
    if (op == TL_PY_MOD && a->kind == TL_V_STR) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %%-formatting of strings");
        return NULL;
    }
    return unsupported_operands(op, a, b, err);
}

/* a OP= b */
static tl_value *inplace_binop(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    if (tl_value_is_tensorlike(a))
        return tl_ops_binary_inplace(op, a, b, err);
    if (a->kind == TL_V_LIST && op == TL_PY_ADD && !tl_value_is_tensorlike(b)) {
        tl_value **items;
        size_t n;
        if (tl_interp_iterate(b, &items, &n, err) < 0)
            return NULL;
        if (tl_interp_charge_seq(a->u.seq.n + n, err) < 0) {
            tl_interp_items_free(items, n);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            tl_list_append(a, items[i]);
        free(items);
        return tl_value_retain(a);
    }
    if (a->kind == TL_V_LIST && op == TL_PY_MUL && is_intlike(b)) {
        tl_value *r = seq_repeat(a, ival(b), err);
        if (!r)
            return NULL;
        /* replace a's items in place (lists are mutable and may be shared) */
        for (size_t i = 0; i < a->u.seq.n; i++)
            tl_value_release(a->u.seq.items[i]);
        a->u.seq.n = 0;
        for (size_t i = 0; i < r->u.seq.n; i++)
            tl_list_append(a, tl_value_retain(r->u.seq.items[i]));
        tl_value_release(r);
        return tl_value_retain(a);
    }
    return tl_interp_binop(op, a, b, err);
}

static tl_value *unop(int op, tl_value *a, tl_error *err)
{
    if (tl_value_is_tensorlike(a))
        return tl_ops_unary((tl_pyunop)op, a, err);
    const char *sym = op == TL_PY_NEG ? "-" : op == TL_PY_POS ? "+" : "~";
    if (is_intlike(a)) {
        int64_t x = ival(a);
        if (op == TL_PY_NEG) {
            if (x == INT64_MIN)
                return int_overflow(err);
            return tl_int(-x);
        }
        if (op == TL_PY_POS)
            return tl_int(x);
        return tl_int(~x);
    }
    if (a->kind == TL_V_FLOAT && op != TL_PY_INVERT)
        return tl_float(op == TL_PY_NEG ? -a->u.f : a->u.f);
    tl_error_set(err, TL_ERR_TYPE, "bad operand type for unary %s: '%s'", sym,
                 tl_value_type_name(a));
    return NULL;
}

int tl_interp_truthy(tl_value *v, bool *out, tl_error *err)
{
    return tl_value_truthy(v, out, err);
}

/* ---------------------------------------------------------------------- */
/* comparisons */

/* Python ordering of two non-tensor values: -1/0/1 in *out, or an error. */
static int order(const tl_value *a, const tl_value *b, tl_cmpop op, int *out,
                 tl_error *err)
{
    static const char *const sym[] = {"==", "!=", "<", "<=", ">", ">="};
again: /* sequences descend into their first differing items by looping, not
        * recursing: a list can nest 100000 deep */
    if (is_num(a) && is_num(b)) {
        if (is_intlike(a) && is_intlike(b)) {
            int64_t x = ival(a), y = ival(b);
            *out = x < y ? -1 : x > y;
        } else {
            double x = fval(a), y = fval(b);
            if (isnan(x) || isnan(y))
                *out = 2; /* unordered */
            else
                *out = x < y ? -1 : x > y;
        }
        return 0;
    }
    if (a->kind == TL_V_STR && b->kind == TL_V_STR) {
        size_t n = a->u.str.len < b->u.str.len ? a->u.str.len : b->u.str.len;
        int c = memcmp(a->u.str.s, b->u.str.s, n);
        if (c == 0)
            c = a->u.str.len < b->u.str.len ? -1 : a->u.str.len > b->u.str.len;
        *out = c < 0 ? -1 : c > 0;
        return 0;
    }
    if ((a->kind == TL_V_LIST && b->kind == TL_V_LIST) ||
        (is_tuplelike(a) && is_tuplelike(b))) {
        size_t n = a->u.seq.n < b->u.seq.n ? a->u.seq.n : b->u.seq.n;
        for (size_t i = 0; i < n; i++) {
            const tl_value *x = a->u.seq.items[i], *y = b->u.seq.items[i];
            if (tl_value_equal(x, y))
                continue;
            a = x;
            b = y;
            goto again;
        }
        *out = a->u.seq.n < b->u.seq.n ? -1 : a->u.seq.n > b->u.seq.n;
        return 0;
    }
    return tl_error_set(err, TL_ERR_TYPE,
                        "'%s' not supported between instances of '%s' and '%s'",
                        sym[op], tl_value_type_name(a), tl_value_type_name(b));
}

static tl_value *contains(tl_value *container, tl_value *item, tl_error *err)
{
    if (tl_value_is_tensorlike(container)) {
        tl_value *eq = tl_ops_binary(TL_PY_EQ, container, item, err);
        if (!eq)
            return NULL;
        bool any = false;
        if (tl_value_is_tensorlike(eq)) {
            int64_t n = tl_tensor_numel(eq->u.tensor);
            for (int64_t i = 0; i < n && !any; i++) {
                double d;
                if (tl_tensor_get_f64(eq->u.tensor, i, &d, err) < 0) {
                    tl_value_release(eq);
                    return NULL;
                }
                any = d != 0.0;
                if (tick((size_t)i, err) < 0) {
                    tl_value_release(eq);
                    return NULL;
                }
            }
        } else if (tl_value_truthy(eq, &any, err) < 0) {
            tl_value_release(eq);
            return NULL;
        }
        tl_value_release(eq);
        return tl_bool(any);
    }
    if (container->kind == TL_V_STR) {
        if (item->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "'in <string>' requires string as left operand, not %s",
                         tl_value_type_name(item));
            return NULL;
        }
        if (item->u.str.len == 0)
            return tl_bool(true);
        for (size_t i = 0; i + item->u.str.len <= container->u.str.len; i++)
            if (memcmp(container->u.str.s + i, item->u.str.s, item->u.str.len) == 0)
                return tl_bool(true);
        return tl_bool(false);
    }
    if (tl_value_is_seq(container)) {
        for (size_t i = 0; i < container->u.seq.n; i++) {
            tl_value *x = container->u.seq.items[i];
            if (tl_value_is(x, item))
                return tl_bool(true);
            tl_value *eq = tl_interp_compare(TL_CMP_EQ, x, item, err);
            if (!eq)
                return NULL;
            bool t;
            int rc = tl_value_truthy(eq, &t, err);
            tl_value_release(eq);
            if (rc < 0)
                return NULL;
            if (t)
                return tl_bool(true);
        }
        return tl_bool(false);
    }
    tl_error_set(err, TL_ERR_TYPE, "argument of type '%s' is not iterable",
                 tl_value_type_name(container));
    return NULL;
}

tl_value *tl_interp_compare(tl_cmpop op, tl_value *a, tl_value *b, tl_error *err)
{
    switch (op) {
    case TL_CMP_IS:
        return tl_bool(tl_value_is(a, b));
    case TL_CMP_IS_NOT:
        return tl_bool(!tl_value_is(a, b));
    case TL_CMP_IN:
    case TL_CMP_NOT_IN: {
        tl_value *r = contains(b, a, err);
        if (r && op == TL_CMP_NOT_IN)
            r->u.b = !r->u.b;
        return r;
    }
    default:
        break;
    }
    if (tl_value_is_tensorlike(a) || tl_value_is_tensorlike(b)) {
        static const tl_pyop map[] = {TL_PY_EQ, TL_PY_NE, TL_PY_LT, TL_PY_LE,
                                      TL_PY_GT, TL_PY_GE};
        return tl_ops_binary(map[op], a, b, err);
    }
    if (op == TL_CMP_EQ)
        return tl_bool(tl_value_equal(a, b));
    if (op == TL_CMP_NE)
        return tl_bool(!tl_value_equal(a, b));
    int c = 0;
    if (order(a, b, op, &c, err) < 0)
        return NULL;
    if (c == 2)
        return tl_bool(false);
    switch (op) {
    case TL_CMP_LT: return tl_bool(c < 0);
    case TL_CMP_LE: return tl_bool(c <= 0);
    case TL_CMP_GT: return tl_bool(c > 0);
    default: return tl_bool(c >= 0);
    }
}

/* ---------------------------------------------------------------------- */
/* iteration */

void tl_interp_items_free(tl_value **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tl_value_release(items[i]);
    free(items);
}

int tl_interp_iterate(tl_value *v, tl_value ***items, size_t *n, tl_error *err)
{
    *items = NULL;
    *n = 0;
    switch (v->kind) {
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE: {
        size_t k = v->u.seq.n;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++)
            out[i] = tl_value_retain(v->u.seq.items[i]);
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_STR: {
        size_t k = v->u.str.len;
        if (tl_interp_charge_seq(k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++)
            out[i] = tl_strn(v->u.str.s + i, 1);
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_TENSOR:
    case TL_V_NDARRAY: {
        const tl_tensor *t = v->u.tensor;
        if (t->ndim == 0)
            return tl_error_set(err, TL_ERR_TYPE, v->kind == TL_V_TENSOR
                                                      ? "iteration over a 0-d tensor"
                                                      : "iteration over a 0-d array");
        int64_t k = t->sizes[0];
        if (tl_interp_charge_seq((size_t)k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? (size_t)k : 1) * sizeof *out);
        for (int64_t i = 0; i < k; i++) {
            tl_value *idx = tl_int(i);
            out[i] = tl_index_get(v, idx, err);
            tl_value_release(idx);
            if (!out[i] || tick((size_t)i, err) < 0) {
                if (out[i])
                    i++;
                tl_interp_items_free(out, (size_t)i);
                return -1;
            }
        }
        *items = out;
        *n = (size_t)k;
        return 0;
    }
    case TL_V_STORAGE: {
        size_t k = v->u.storage->nbytes;
        if (tl_interp_charge_seq(k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++) {
            tl_value *idx = tl_int((int64_t)i);
            out[i] = tl_builtins_storage_get(v, idx, err);
            tl_value_release(idx);
            if (!out[i]) {
                tl_interp_items_free(out, i);
                return -1;
            }
        }
        *items = out;
        *n = k;
        return 0;
    }
    default:
        return tl_error_set(err, TL_ERR_TYPE, "'%s' object is not iterable",
                            tl_value_type_name(v));
    }
}

/* ---------------------------------------------------------------------- */
/* subscripts of plain sequences */

static int slice_part(const tl_value *v, int64_t *out, bool *none, tl_error *err)
{
    if (v->kind == TL_V_NONE) {
        *none = true;
        return 0;
    }
    *none = false;
    if (!tl_value_as_index(v, out))
        return tl_error_set(err, TL_ERR_TYPE,
                            "slice indices must be integers or None or have an "
                            "__index__ method");
    return 0;
}

/* A given slice start or stop, counted from the end when negative and
 * clamped to the sequence (as PySlice_AdjustIndices). */
static int64_t clamp_bound(int64_t v, int64_t len, int64_t step)
{
    if (v < 0) {
        v += len;
        if (v < 0)
            v = step < 0 ? -1 : 0;
    } else if (v >= len) {
        v = step < 0 ? len - 1 : len;
    }
    return v;
}

/* PySlice_GetIndicesEx: start/step/count for a sequence of length len */
static int slice_indices(const tl_value *sl, int64_t len, int64_t *start,
                         int64_t *step, int64_t *count, tl_error *err)
{
    int64_t st = 0, sp = 0, stp = 1;
    bool n0, n1, n2;
    if (slice_part(sl->u.slice.start, &st, &n0, err) < 0 ||
        slice_part(sl->u.slice.stop, &sp, &n1, err) < 0 ||
        slice_part(sl->u.slice.step, &stp, &n2, err) < 0)
        return -1;
    if (n2)
        stp = 1;
    if (stp == 0)
        return tl_error_set(err, TL_ERR_VALUE, "slice step cannot be zero");
    st = n0 ? (stp < 0 ? len - 1 : 0) : clamp_bound(st, len, stp);
    sp = n1 ? (stp < 0 ? -1 : len) : clamp_bound(sp, len, stp);
    int64_t c = 0;
    if (stp < 0) {
        if (sp < st)
            c = (st - sp - 1) / (-stp) + 1;
    } else if (st < sp) {
        c = (sp - st - 1) / stp + 1;
    }
    *start = st;
    *step = stp;
    *count = c;
    return 0;
}

static const char *seq_noun(const tl_value *v)
{
    return v->kind == TL_V_LIST ? "list" : v->kind == TL_V_STR ? "string" : "tuple";
}

static tl_value *seq_getitem(tl_value *obj, tl_value *idx, tl_error *err)
{
    int64_t len = obj->kind == TL_V_STR ? (int64_t)obj->u.str.len : (int64_t)obj->u.seq.n;
    if (idx->kind == TL_V_SLICE) {
        int64_t start = 0, step = 1, count = 0;
        if (slice_indices(idx, len, &start, &step, &count, err) < 0)
            return NULL;
        if (obj->kind == TL_V_STR) {
            tl_buf b = {0};
            tl_buf_puts(&b, "");
            for (int64_t i = 0; i < count; i++)
                tl_buf_putc(&b, obj->u.str.s[start + i * step]);
            tl_value *r = tl_strn(tl_buf_str(&b), b.len);
            tl_buf_free(&b);
            return r;
        }
        tl_value *r = seq_of_kind(obj->kind, (size_t)count);
        for (int64_t i = 0; i < count; i++)
            tl_seq_set(r, (size_t)i, tl_value_retain(obj->u.seq.items[start + i * step]));
        return r;
    }
    int64_t i;
    if (!tl_value_as_index(idx, &i)) {
        if (obj->kind == TL_V_STR)
            tl_error_set(err, TL_ERR_TYPE, "string indices must be integers, not '%s'",
                         tl_value_type_name(idx));
        else
            tl_error_set(err, TL_ERR_TYPE, "%s indices must be integers or slices, not %s",
                         seq_noun(obj), tl_value_type_name(idx));
        return NULL;
    }
    if (i < 0)
        i += len;
    if (i < 0 || i >= len) {
        tl_error_set(err, TL_ERR_INDEX, "%s index out of range", seq_noun(obj));
        return NULL;
    }
    if (obj->kind == TL_V_STR)
        return tl_strn(obj->u.str.s + i, 1);
    return tl_value_retain(obj->u.seq.items[i]);
}

static tl_value *getitem(tl_value *obj, tl_value *idx, tl_error *err)
{
    switch (obj->kind) {
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        return tl_index_get(obj, idx, err);
    case TL_V_LIST:
    case TL_V_TUPLE:
    case TL_V_SIZE:
    case TL_V_STR:
        return seq_getitem(obj, idx, err);
    case TL_V_STORAGE:
        return tl_builtins_storage_get(obj, idx, err);
    default:
        tl_error_set(err, TL_ERR_TYPE, "'%s' object is not subscriptable",
                     tl_value_type_name(obj));
        return NULL;
    }
}

static int setitem(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err)
{
    switch (obj->kind) {
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        return tl_index_set(obj, idx, v, err);
    case TL_V_LIST: {
        if (idx->kind == TL_V_SLICE)
            return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                "tlab does not support assigning to list slices");
        int64_t i, len = (int64_t)obj->u.seq.n;
        if (!tl_value_as_index(idx, &i))
            return tl_error_set(err, TL_ERR_TYPE,
                                "list indices must be integers or slices, not %s",
                                tl_value_type_name(idx));
        if (i < 0)
            i += len;
        if (i < 0 || i >= len)
            return tl_error_set(err, TL_ERR_INDEX, "list assignment index out of range");
        tl_seq_set(obj, (size_t)i, tl_value_retain(v));
        return 0;
    }
    case TL_V_STORAGE:
        return tl_builtins_storage_set(obj, idx, v, err);
    default:
        return tl_error_set(err, TL_ERR_TYPE,
                            "'%s' object does not support item assignment",
                            tl_value_type_name(obj));
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
            int rc = tl_interp_iterate(v, &items, &m, err);
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
    if (tl_interp_charge_seq(out->u.seq.n, err) < 0) {
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
    if (tl_interp_iterate(v, &items, &n, err) < 0)
        return fail_node(t, err);
    if (n != t->n) {
        if (n > t->n)
            tl_error_set(err, TL_ERR_VALUE, "too many values to unpack (expected %zu)", t->n);
        else
            tl_error_set(err, TL_ERR_VALUE,
                         "not enough values to unpack (expected %zu, got %zu)", t->n, n);
        tl_interp_items_free(items, n);
        return fail_node(t, err);
    }
    for (size_t i = 0; i < n; i++)
        if (bind(I, t->kids[i], items[i], err) < 0) {
            tl_interp_items_free(items, n);
            return -1;
        }
    tl_interp_items_free(items, n);
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
        int rc = setitem(obj, idx, v, err);
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
    int rc = tl_interp_iterate(it, &items, &cnt, err);
    tl_value_release(it);
    if (rc < 0) {
        fail_node(n->kids[2], err);
        return NULL;
    }
    tl_value *out = tl_list_new(0);
    size_t mark = I->nlocals;
    for (size_t i = 0; i < cnt; i++) {
        if (tl_interp_check_deadline(err) < 0) {
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
        if (tl_interp_charge_seq(1, err) < 0) {
            fail_node(n, err);
            goto fail;
        }
    }
    pop_locals(I, mark);
    tl_interp_items_free(items, cnt);
    return out;
fail:
    pop_locals(I, mark);
    tl_interp_items_free(items, cnt);
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
            int rc = tl_interp_iterate(v, &items, &m, err);
            tl_value_release(v);
            if (rc < 0) {
                fail_node(a, err);
                goto done;
            }
            if (m > 4096) {
                tl_interp_items_free(items, m);
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
        tl_value *r = tl_interp_compare((tl_cmpop)n->cmpops[i - 1], left, right, err);
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

static tl_value *eval(tl_interp *I, const tl_node *n, tl_error *err);
static bool stack_exhausted(const tl_interp *I);
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
    if (tl_interp_charge_seq(b.len, err) < 0) {
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
    return tl_closure_value(c->name, c, closure_call, closure_drop);
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
    if (tl_interp_check_deadline(err) < 0)
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
            r = getitem(obj, idx, err);
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
            r = unop(n->op, a, err);
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
            r = tl_interp_binop((tl_pyop)n->op, a, b, err);
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
    if (tl_interp_check_deadline(err) < 0)
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
    int rc = tl_interp_iterate(it, &items, &n, err);
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
    tl_interp_items_free(items, n);
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
            tl_value *exc = tl_exc_value(caught.kind, caught.msg);
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
        args[1] = tl_exc_value(err->kind, err->msg);
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

static int exec_stmt(tl_interp *I, const tl_node *s, tl_error *err)
{
    switch (s->kind) {
    case TL_N_IMPORT:
        set_var(I, s->str2, tl_module_value(strcmp(s->str, "numpy") == 0 ? "numpy" : "torch"));
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
            tl_value *r = inplace_binop((tl_pyop)s->op, cur, v, err);
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
        tl_value *cur = getitem(obj, idx, err);
        if (!cur) {
            fail_node(t, err);
        } else {
            tl_value *v = eval(I, s->kids[1], err);
            if (v) {
                tl_value *r = inplace_binop((tl_pyop)s->op, cur, v, err);
                if (!r) {
                    fail_node(s, err);
                } else {
                    rc = setitem(obj, idx, r, err);
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
    if (tl_parse(src->text, src->len, o.max_depth > 0 ? o.max_depth : 64, &ast, err) < 0)
        return -1;
    tl_ast_free(ast);
    return 0;
}

/* What a run replaces on this thread, restored when it ends (runs nest:
 * a function of one source called while another runs). */
typedef struct run_state {
    tl_interp *cur;
    double deadline, timeout;
    const tl_source *src;
    tl_ast *ast;
    uint64_t run_id;
    char *stack_base;
    bool outermost;
} run_state;

static void enter_run(tl_interp *I, const tl_source *src, tl_ast *ast, run_state *rs)
{
    rs->cur = g_cur;
    rs->deadline = g_deadline;
    rs->timeout = g_timeout;
    rs->src = I->src;
    rs->ast = I->ast;
    rs->run_id = I->run_id;
    rs->stack_base = I->stack_base;
    rs->outermost = g_cur != I;
    g_cur = I;
    tl_create_set_context(I->opts.default_backend, I->opts.cuda_backend);
    if (rs->outermost) { /* a nested run shares its caller's deadline and budgets */
        g_timeout = I->opts.timeout;
        g_deadline = I->opts.timeout > 0 ? tl_now() + I->opts.timeout : 0;
        tl_deadline_set(g_deadline, g_timeout); /* kernels poll it too */
        I->seq_used = 0;
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
    g_deadline = rs->deadline;
    tl_deadline_set(rs->deadline, rs->timeout);
    g_timeout = rs->timeout;
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
