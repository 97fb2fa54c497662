/* value.h - the interpreter's values (a small Python object model).
 *
 * Ownership: values are refcounted. Every function returning `tl_value *`
 * returns a NEW reference the caller releases with tl_value_release; every
 * function taking `tl_value *` BORROWS it unless its comment says "steals".
 * Constructors never fail (bookkeeping allocations abort on OOM).
 *
 * Identity: Python `is` is pointer identity of tl_value for most kinds, and
 * tl_tensor pointer identity for tensors and ndarrays (two tl_value boxes
 * can wrap one tl_tensor object).
 *
 * Ints are int64 (operations check overflow and raise OverflowError).
 * torch.Size is a tuple of ints with kind TL_V_SIZE (equal to tuples).
 */
#ifndef TL_VALUE_H
#define TL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_args;
struct tl_value;

typedef enum tl_vkind {
    TL_V_NONE,
    TL_V_BOOL,
    TL_V_INT,
    TL_V_FLOAT,
    TL_V_STR,
    TL_V_TUPLE,
    TL_V_LIST,
    TL_V_SIZE,     /* torch.Size: a tuple of ints */
    TL_V_SLICE,
    TL_V_ELLIPSIS,
    TL_V_DTYPE,    /* torch.float32 / np.float32 (u.dtype) */
    TL_V_DEVICE,   /* torch.device('cpu') */
    TL_V_MEMFMT,   /* torch.contiguous_format etc. (u.memfmt) */
    TL_V_TENSOR,   /* u.tensor */
    TL_V_NDARRAY,  /* numpy array: u.tensor is its strided header */
    TL_V_STORAGE,  /* x.untyped_storage() (u.storage) */
    TL_V_MODULE,   /* torch, np, torch.cuda ... (u.str holds the name) */
    TL_V_FUNC,     /* builtin function or bound method (u.func) */
    TL_V_TYPE,     /* a class: int, torch.Tensor, RuntimeError ... (u.type) */
    TL_V_EXC,      /* an exception object (u.exc) */
    TL_V_CLOSURE,  /* a function written in the program (u.closure) */
    TL_V_DICT,     /* dict: u.seq.items holds key, value, key, value ... in
                      insertion order (u.seq.n is twice the length); in the
                      cycle registry as lists are */
    TL_V_OBJECT,   /* an object of a host class (u.obj): a file, an h5py File */
    TL_V_NKINDS
} tl_vkind;

/* A callable implemented in C. `self` is the bound receiver (NULL for a
 * plain function). Returns a new reference, or NULL with err set. */
typedef struct tl_value *(*tl_cfunc)(struct tl_value *self,
                                     const struct tl_args *args,
                                     tl_error *err);

typedef struct tl_value {
    int refcount;
    tl_vkind kind;
    size_t charged;    /* bytes charged to the memory ledger (value.c) */
    /* STORAGE only: x.storage() is the typed (legacy TypedStorage) view of
     * the bytes, elements of sdtype; x.untyped_storage() is bytes */
    bool typed;
    tl_dtype sdtype;
    /* DTYPE: TL_NPDT_TORCH (torch.float32), TL_NPDT_TYPE (np.float32, a
     * NumPy scalar type) or TL_NPDT_DTYPE (an ndarray's dtype('float32')).
     * BOOL/INT/FLOAT: TL_NPDT_DTYPE marks a NumPy scalar of dtype sdtype
     * (an element of an ndarray: a[0, 0]) */
    unsigned char npdt;
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            char *s;   /* NUL-terminated, owned */
            size_t len;
        } str;
        struct {
            size_t n;
            struct tl_value **items; /* owned references */
            /* TUPLE: a torch.return_types structseq ("max", "min", "sort",
             * "topk": static) with fields values and indices; NULL for a
             * plain tuple. A slice or sum of one is a plain tuple. */
            const char *rtype;
            uint32_t gc_slot; /* LIST: its place in the thread's list registry */
            uint8_t gc_gen;   /* 0: not registered, 1 young, 2 old (value.c) */
        } seq;         /* TUPLE, LIST, SIZE */
        struct {
            struct tl_value *start, *stop, *step; /* owned; NONE or INT */
        } slice;
        tl_dtype dtype;
        tl_device device;
        tl_memfmt memfmt;
        tl_tensor *tensor; /* owned reference (TENSOR, NDARRAY) */
        tl_storage *storage;
        struct {
            const char *name;      /* static string, e.g. "view" */
            tl_cfunc fn;
            struct tl_value *self; /* owned; NULL if unbound */
        } func;
        struct {
            const char *name;      /* static: "int", "torch.Tensor", "RuntimeError" */
            int errkind;           /* exception classes: tl_errkind, else TL_OK */
            int vkind;             /* instances' tl_vkind, or -1 */
            tl_cfunc ctor;         /* calling the class (NULL: exceptions) */
        } type;
        struct {
            int errkind;           /* tl_errkind */
            char *msg;             /* owned; str(e) */
        } exc;
        struct {
            const char *name;      /* owned by data; the def's name or "<lambda>" */
            void *data;            /* owned (the language layer's function) */
            struct tl_value *(*call)(void *data, const struct tl_args *args,
                                     tl_error *err);
            void (*drop)(void *data);
        } closure;
        struct {
            const struct tl_objclass *cls; /* static */
            void *data;                    /* owned: cls->drop(data) */
        } obj;
    } u;
} tl_value;

/* ---- constructors (new references) ---- */
tl_value *tl_none(void);
tl_value *tl_ellipsis(void);
tl_value *tl_bool(bool b);
tl_value *tl_int(int64_t i);
tl_value *tl_float(double f);
tl_value *tl_str(const char *s);
tl_value *tl_strn(const char *s, size_t n);
/* Sequence of n items, each initialised to None; fill with tl_seq_set. */
tl_value *tl_tuple_new(size_t n);
tl_value *tl_list_new(size_t n);
tl_value *tl_size_new(int ndim, const int64_t *sizes);
/* torch.return_types.NAME(values=..., indices=...); steals both. */
tl_value *tl_return_pair(const char *name, tl_value *values, tl_value *indices);
void tl_seq_set(tl_value *seq, size_t i, tl_value *item); /* steals item */
void tl_list_append(tl_value *list, tl_value *item);      /* steals item */
tl_value *tl_slice_new(tl_value *start, tl_value *stop, tl_value *step); /* steal */
tl_value *tl_value_dtype(tl_dtype dt);
enum { TL_NPDT_TORCH, TL_NPDT_TYPE, TL_NPDT_DTYPE };
/* A NumPy dtype value: npdt TL_NPDT_TYPE or TL_NPDT_DTYPE. NumPy's compare
 * equal to each other by dtype, never to torch's. */
tl_value *tl_value_np_dtype(tl_dtype dt, int npdt);
tl_value *tl_value_device(tl_device dev);
tl_value *tl_value_memfmt(tl_memfmt f);
tl_value *tl_value_tensor(tl_tensor *t);  /* steals the tensor reference */
tl_value *tl_value_ndarray(tl_tensor *t); /* steals */
tl_value *tl_value_storage(tl_storage *s); /* retains s */
/* dtype=float / int / bool: the Python types torch accepts as dtypes
 * (float64, int64, bool); false for anything else. */
bool tl_value_python_dtype(const tl_value *v, tl_dtype *dt);
/* x.storage(): the typed storage of s with elements of dt (retains s) */
tl_value *tl_value_typed_storage(tl_storage *s, tl_dtype dt);
tl_value *tl_value_module(const char *name);
tl_value *tl_value_func(const char *name, tl_cfunc fn, tl_value *self); /* retains self */
tl_value *tl_value_type(const char *name, int errkind, int vkind, tl_cfunc ctor);
tl_value *tl_value_exc(int errkind, const char *msg);
/* data is owned by the value: drop(data) runs when it is released. */
tl_value *tl_value_closure(const char *name, void *data,
                           tl_value *(*call)(void *, const struct tl_args *, tl_error *),
                           void (*drop)(void *));
/* A host class (py/memfs.c files, py/h5py.c objects): attributes come from
 * attr (a new reference, or NULL with AttributeError set); repr appends
 * the object's repr (NULL: <NAME object>); drop frees data. The objects it
 * makes hold no interpreter values (so no cycle runs through them). */
typedef struct tl_objclass {
    const char *name;   /* type(obj).__name__, e.g. "TextIOWrapper" */
    struct tl_value *(*attr)(struct tl_value *obj, const char *name, tl_error *err);
    void (*repr)(const struct tl_value *obj, tl_buf *b);
    void (*drop)(void *data);
    /* optional protocols (NULL: Python's TypeError for the class): obj[idx]
     * (a new reference), obj[idx] = v, len(obj), `item in obj`, iter(obj)
     * (a new list of the items) */
    struct tl_value *(*getitem)(struct tl_value *obj, struct tl_value *idx, tl_error *err);
    int (*setitem)(struct tl_value *obj, struct tl_value *idx, struct tl_value *v,
                   tl_error *err);
    int (*len)(struct tl_value *obj, int64_t *out, tl_error *err);
    int (*contains)(struct tl_value *obj, struct tl_value *item, bool *out, tl_error *err);
    struct tl_value *(*iter)(struct tl_value *obj, tl_error *err);
} tl_objclass;
tl_value *tl_value_object(const tl_objclass *cls, void *data); /* steals data */
/* v's data when v is an object of class cls, else NULL */
void *tl_value_object_data(const tl_value *v, const tl_objclass *cls);

/* dict: an empty one; d[k] = v (steals v, retains k; a key that is equal
 * to one already there keeps the old key); the value at key k (borrowed,
 * NULL when absent); removal; the number of entries. Keys are compared
 * with tl_value_equal (hashability is the caller's check). */
tl_value *tl_dict_new(void);
void tl_dict_set(tl_value *d, tl_value *k, tl_value *v);
tl_value *tl_dict_get(const tl_value *d, const tl_value *k);
bool tl_dict_del(tl_value *d, const tl_value *k);
size_t tl_dict_len(const tl_value *d);
/* Python's hashable check: None, bool, int, float, str, dtype, device and
 * tuples of those; tensors hash by identity. */
bool tl_value_hashable(const tl_value *v);

/* Call any callable (builtin, closure, class); TypeError for others. */
tl_value *tl_value_call(tl_value *fn, const struct tl_args *args, tl_error *err);
/* A builtin function or bound method is called through hook when one is
 * set (named.c's tl_named_call: PyTorch's name rules); set once, before
 * any interpreter runs (tl_named_install). */
typedef tl_value *(*tl_value_call_hook)(const char *name, tl_cfunc fn, tl_value *self,
                                        const struct tl_args *a, tl_error *err);
void tl_value_set_call_hook(tl_value_call_hook hook);
/* A builtin is called through this hook when one is set (outarg.c's
 * tl_outarg_call: out= keywords); it calls tl_value_call_plain for the
 * call itself. Set once, like the call hook. */
typedef tl_value *(*tl_value_out_hook)(tl_value *fn, const struct tl_args *a, tl_error *err);
void tl_value_set_out_hook(tl_value_out_hook hook);
/* A NumPy scalar type called as a constructor (np.float32(1)) goes
 * through this hook when one is set (bind_numpy.c); else the type is not
 * callable. Set once, like the call hook. */
typedef tl_value *(*tl_value_np_ctor)(tl_value *type, const struct tl_args *a, tl_error *err);
void tl_value_set_np_ctor(tl_value_np_ctor ctor);
/* tl_value_call of a builtin (TL_V_FUNC) without the out= hook. */
tl_value *tl_value_call_plain(tl_value *fn, const struct tl_args *args, tl_error *err);

tl_value *tl_value_retain(tl_value *v);
void tl_value_release(tl_value *v);

/* Reference cycles (`a = []; a.append(a)`) are collected, never left
 * charged to the ledger. Invariant: every cycle of values runs through a
 * list (the only value that can be changed to point at something made
 * after it), and every list made on a thread is in that thread's registry
 * until it is destroyed. tl_value_collect finds, among the registered
 * lists and the tuples and bound methods they reach, the ones whose every
 * reference comes from inside that set (CPython's trial deletion: nothing
 * outside, no variable, C caller, snapshot or kept result, holds them)
 * and frees them. `full` false looks only at lists made since the last
 * collection (and, amortised, runs a full one when the lists that
 * survived have doubled). The interpreter calls it when a run's
 * interpreter is freed, so an op's cycles are gone before the next op.
 * A closure's defaults are followed through the hook its layer sets
 * (tl_value_closure_refs_hook); scope cycles are the interpreter's
 * (lang/interp.c), broken when it is freed. */
void tl_value_collect(bool full);
/* The language layer's closures: for the closures whose call function is
 * `call`, the references their data holds (an array of n values, NULL
 * where none, that the collector may clear). Set once (any thread, the
 * same pair every time); other closures are not followed (what they hold
 * is then kept). */
typedef tl_value *(*tl_closure_call_fn)(void *, const struct tl_args *, tl_error *);
void tl_value_closure_refs_hook(tl_closure_call_fn call,
                                tl_value **(*refs)(void *data, size_t *n));
/* Lists now registered on this thread (young + old; tests). */
size_t tl_value_tracked(void);

/* ---- inspection ---- */
const char *tl_value_type_name(const tl_value *v); /* "int", "Tensor", "tuple", ... */
bool tl_value_is_seq(const tl_value *v);            /* tuple, list or Size */
bool tl_value_is_tensorlike(const tl_value *v);     /* tensor or ndarray */
/* Python truth value; tensors with one element use their value, others
 * raise RuntimeError ("Boolean value of Tensor with more than one value is
 * ambiguous"). */
int tl_value_truthy(const tl_value *v, bool *out, tl_error *err);
/* Python ==: numbers compare by value, sequences elementwise (Size == tuple),
 * dtypes/devices by value. Tensors are not handled here (the interpreter
 * dispatches them to torch.eq). */
bool tl_value_equal(const tl_value *a, const tl_value *b);
/* Python's ==, as `a == b` evaluates it: -1 with a LimitError (Python's
 * RecursionError) when two different sequences nest deeper than
 * TL_VALUE_MAX_DEPTH before they differ (tl_value_equal then says false). */
int tl_value_equal_checked(const tl_value *a, const tl_value *b, bool *out, tl_error *err);
/* The same for items already `depth` levels down a nesting (the ordering
 * loop descends by iterating): the limit counts from the outermost value,
 * so comparing a deep nesting is linear, not quadratic, in its depth, and
 * `a < b` raises the LimitError where `a == b` does, as Python does. */
int tl_value_equal_at_checked(const tl_value *a, const tl_value *b, int depth,
                              bool *out, tl_error *err);
/* Python `is` */
bool tl_value_is(const tl_value *a, const tl_value *b);
/* repr() into b: 3, 2.5, 'abc', (2, 3), [1, 2], torch.Size([2, 3]),
 * torch.float32, device(type='cpu'), tensor([...]) ...
 * Bounded: at most about TL_VALUE_REPR_MAX bytes and TL_VALUE_MAX_DEPTH
 * levels of nesting; a longer or deeper value is cut with "...". */
void tl_value_repr(const tl_value *v, tl_buf *b);
/* str(v) into b: strings unquoted, devices "cpu", exceptions their
 * message, arrays NumPy's str; everything else its repr. */
void tl_value_str(const tl_value *v, tl_buf *b);
/* str(v) with a cap of about max_bytes (repr's, for the values whose str
 * is their repr); false when it was cut (too long or nested too deep:
 * print() then raises as str() does). */
bool tl_value_str_bounded(const tl_value *v, tl_buf *b, size_t max_bytes);
/* The same with an explicit cap of about max_bytes bytes (a cut adds "...").
 * false when the value was cut (too long or nested too deep). */
bool tl_value_repr_bounded(const tl_value *v, tl_buf *b, size_t max_bytes);

/* Nesting depth up to which the recursive helpers above descend (Python's
 * default recursion limit): deeper sequences compare by identity and
 * repr as "...". A list nested deeper can still be built (`a = [a]` in a
 * loop of statements) and is released without recursion. */
#define TL_VALUE_MAX_DEPTH 1000
#define TL_VALUE_REPR_MAX ((size_t)1 << 20)

/* ---- conversions used by bindings (raise Python-style TypeErrors) ---- */
/* int or bool or 0-d integral tensor (an __index__-able value) */
bool tl_value_as_index(const tl_value *v, int64_t *out);
/* int, bool, float, or one-element tensor */
bool tl_value_as_double(const tl_value *v, double *out);

#ifdef __cplusplus
}
#endif

#endif
