/* verdict.h - what an op really did (SPEC 4): alias / view / copy / error /
 * value, with the evidence, the write-through probe and the `sometimes`
 * parent variants.
 *
 * Two layers:
 *   - tl_verdict_classify: a result value against a parent value (pure
 *     runtime; testable on hand-built tensors);
 *   - tl_verdict_run: setup afresh in a new interpreter, evaluate the op,
 *     classify, then re-run against the parent variants.
 *
 * Ownership: a tl_evidence / tl_op_verdict owns its strings, arrays, items
 * and cJSON value; release with tl_evidence_free / tl_op_verdict_free.
 */
#ifndef TL_VERDICT_H
#define TL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "classify.h"
#include "diag.h"
#include "err.h"
#include "interp.h"
#include "lab.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Items of a tuple result kept in the evidence (all are classified). */
#define TL_VERDICT_MAX_ITEMS 1000
/* Larger tensors are not probed (write_through = -1). */
#define TL_PROBE_MAX_BYTES ((size_t)256 << 20)

typedef struct tl_evidence {
    tl_kind kind;          /* VIEW COPY ALIAS ERROR VALUE, or MIXED (tuple) */
    bool is_tensor;        /* shape..device below are meaningful */
    bool is_tuple;
    int ndim;
    int64_t *shape, *stride; /* ndim entries each */
    int64_t offset;
    bool contiguous;
    tl_dtype dtype;
    char device[32];       /* "cpu", "cuda:0" */
    bool shares_storage;
    bool same_object;
    int64_t bytes_allocated;
    int write_through;     /* 1 / 0, or -1 when not applicable */
    char *err_type;        /* "RuntimeError", ... (kind ERROR) */
    char *err_msg;
    char *err_where;       /* "FILE:LINE:COL" when known */
    cJSON *value;          /* kind VALUE: the value as JSON (owned) */
    char *value_type;      /* "int", "tuple", ... */
    size_t nitems;         /* tuple items kept (<= TL_VERDICT_MAX_ITEMS) */
    size_t nitems_total;
    struct tl_evidence *items;
    char *reason;          /* the rule that decided it, one line */
} tl_evidence;

void tl_evidence_free(tl_evidence *ev);
/* "view", or "view,copy,view" for tuples (compared across variants). */
char *tl_evidence_signature(const tl_evidence *ev);

typedef struct tl_variant {
    const char *parent;    /* "non-contiguous", "float64", "float32", "cpu", "cuda" */
    tl_kind kind;
    char *signature;
} tl_variant;

/* Which storage slot holds which element of a kept tensor result
 * (job.keep_values), for `explain`'s storage picture, so that reports never
 * walk runtime storages themselves. A window of at most 256 slots
 * [lo, hi) is mapped, starting at the result's offset when the storage is
 * larger; cell[k] is the flat index of the result stored in slot lo + k,
 * -1 when none, -2 when several. cell is NULL (and too_large set) for a
 * result of more than 100000 elements. Owns cell: tl_storage_map_free. */
typedef struct tl_storage_map {
    int64_t nslots;       /* storage elements */
    int64_t numel;        /* elements of the result */
    int64_t lo, hi;
    int64_t *cell;
    int64_t *reads;       /* reads[k]: how many result elements slot lo + k
                           * holds (2 and more for an expand) */
    bool too_large;
    tl_dtype dtype;
} tl_storage_map;

/* Largest parent storage (elements) the gather trace tags. */
#define TL_TRACE_MAX_SLOTS ((int64_t)1 << 20)
/* Result elements whose source the trace records (a picture shows fewer). */
#define TL_TRACE_MAX_ELEMS ((int64_t)1 << 16)

typedef struct tl_op_verdict {
    tl_evidence ev;
    bool have_parent;
    int parent_ndim;
    int64_t *parent_shape, *parent_stride;
    int64_t parent_offset;
    bool parent_contiguous;
    size_t nvariants;
    tl_variant variants[4];
    bool sometimes;
    tl_classify_out cls;   /* the sheet's classify() on the result (job->classify) */
    tl_classify_out vcls[4]; /* ... and on each variant's, parallel to variants */
    tl_value *result;      /* kept only when asked (explain); new reference */
    tl_value *parent;
    /* job.trace: the pictures' data, taken at run time (nothing kept) */
    bool traced;
    tl_storage_map map;    /* the result's storage map (map.cell NULL: none) */
    int64_t parent_nslots; /* the parent's storage, in elements */
    tl_dtype parent_dtype;
    int64_t *gather;       /* a copy: gather[k] is the parent storage slot the
                            * result's flat element k was read from, -1 when
                            * it was computed or came from elsewhere */
    int64_t ngather;       /* min(numel, TL_TRACE_MAX_ELEMS); 0: no trace */
} tl_op_verdict;

void tl_op_verdict_free(tl_op_verdict *v);

/* Classify `result` against `parent` (may be NULL: no parent). Fills ev
 * (kind, metadata, sharing, probe). bytes_allocated is left 0 for the
 * caller. Returns 0, or -1 with err (TL_ERR_INTERNAL when the probe
 * disagrees with the pointer verdict, or a device failure). */
int tl_verdict_classify(tl_value *result, tl_value *parent, tl_evidence *ev,
                        tl_error *err);

/* An op that raised: error evidence from err (and where, may be NULL). */
void tl_verdict_from_error(const tl_error *err, const char *where, tl_evidence *ev);

/* Value -> JSON (numbers, bools, strings, lists; others as repr). */
cJSON *tl_value_to_json(const tl_value *v);

/* How ops are run. */
typedef struct tl_runner {
    tl_interp_opts opts;      /* default_backend: the device ops run on */
    const tl_backend *other;  /* the other device for the variants, or NULL */
    bool color;               /* diagnostics */
} tl_runner;

typedef struct tl_job {
    const tl_source *setup;   /* statements run first, afresh for each run */
    size_t nsetup;
    const tl_source *op;      /* statements whose last line is an expression */
    const char *parent;       /* variable the result is compared with */
    bool parent_optional;     /* explain: no parent is fine */
    int parent_line, parent_col; /* where `parent:` is, for its error */
    bool variants;            /* run the `sometimes` variants */
    bool keep_values;         /* keep result/parent in the verdict */
    bool trace;               /* fill the pictures' data (tl_op_verdict.map,
                               * gather: two more runs of a copy) */
    const char *id;           /* the op's id (sheet-budget message), or NULL */
    const tl_source *classify; /* the sheet's classify block, or NULL */
    tl_classify_stop *classify_stop; /* shared by the lab's jobs (classify.h) */
    struct tl_setup_cache *setup_cache; /* shared by the lab's jobs; NULL:
                                           the setup runs for every run */
} tl_job;

/* The setup of a lab's jobs runs once per thread, and every later run
 * starts from copies of what it left (py/snapshot.h; a setup whose state
 * cannot be copied keeps running every time). One cache serves one lab's
 * jobs, identified by their setup array; the caller frees it (any thread)
 * after the last run. */
typedef struct tl_setup_cache tl_setup_cache;
tl_setup_cache *tl_setup_cache_new(void);
void tl_setup_cache_free(tl_setup_cache *c);

/* A run that could not produce a verdict. */
typedef struct tl_verdict_fail {
    int exit_code;            /* 2 lab/usage error, 3 internal */
    char *rendered;           /* located diagnostic, newline-terminated */
} tl_verdict_fail;

void tl_verdict_fail_free(tl_verdict_fail *f);


/* false when the verdict kept no tensor result (nor traced one); out is a
 * copy the caller frees. */
bool tl_verdict_storage_map(const tl_op_verdict *v, tl_storage_map *out);
/* A copy's provenance (job.trace): *src = v->gather, *n = v->ngather.
 * false when there is none (not a copy, nothing traced, or no element of
 * the result was read from the parent).
 *
 * How it is found: the op runs twice more with every slot of the parent's
 * storage overwritten by a tag, ascending (B1 + slot) in one run and
 * descending (B2 - slot) in the other, in tags the parent's dtype holds
 * exactly. Element k was read from slot s when both runs decode to s and,
 * for a result of the parent's dtype, its real value has the bytes of the
 * real parent's slot s. Arithmetic (x + 1 decodes to s + 1 and s - 1),
 * value-dependent ops (a sort, a mask) and values from elsewhere fail one
 * of the three and are -1. bool parents are never traced. */
bool tl_verdict_gather(const tl_op_verdict *v, const int64_t **src, int64_t *n);
void tl_storage_map_free(tl_storage_map *m);

/* Run one op (and its variants). 0 with *out filled; -1 with *fail. An op
 * that raises a Python exception or passes a limit is an `error` verdict,
 * not a failure; syntax/unsupported errors in the op, a failing setup or a
 * missing parent are failures with exit 2; internal errors exit 3. */
int tl_verdict_run(const tl_runner *r, const tl_job *job, tl_op_verdict *out,
                   tl_verdict_fail *fail);

#ifdef __cplusplus
}
#endif

#endif
