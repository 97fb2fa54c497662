/* lab.h - the lab file (SPEC 3): loading, validation, and the model.
 *
 * A lab file is parsed into a small node tree (ynode.h: tl_ynode) that
 * keeps every node's position, by yaml_fast.c for the subset lab files use
 * and by libyaml's event API for the rest, then validated into a tl_lab. Every error is located (`FILE:LINE:COL: error: MSG`, 1-based) and
 * the loader never returns a half-built lab.
 *
 * Ownership: a tl_lab owns its file text, its node tree and every string in
 * it; tl_lab_free releases all. Nodes referenced from the lab (op->node,
 * prediction value nodes) are borrowed from lab->root.
 */
#ifndef TL_LAB_H
#define TL_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sha256.h"
#include "util.h"
#include "ynode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (SPEC 7). */
#define TL_LAB_MAX_BYTES ((size_t)1 << 20)
#define TL_LAB_MAX_OPS 1000
#define TL_LAB_MAX_DEPTH 64
#define TL_LAB_MAX_NODES 200000

/* What an op did (verdict) or what a student predicted. */
typedef enum tl_kind {
    TL_KIND_NONE = 0,   /* no kind (blank prediction / mapping without kind) */
    TL_KIND_VIEW,
    TL_KIND_COPY,
    TL_KIND_ALIAS,
    TL_KIND_ERROR,
    TL_KIND_SOMETIMES,  /* prediction only */
    TL_KIND_VALUE,      /* non-tensor result */
    TL_KIND_MIXED       /* tuple whose elements disagree (verdict only) */
} tl_kind;

const char *tl_kind_name(tl_kind k); /* "view", ..., "" for NONE */
bool tl_kind_from_name(const char *s, tl_kind *out);

/* ---- YAML node tree (ynode.h: tl_ynode) ---- */
/* Lookup in a mapping node by key text; NULL if absent. */
const tl_ynode *tl_ynode_get(const tl_ynode *map, const char *key);
/* YAML null: plain ~, null, Null, NULL or empty. */
bool tl_ynode_is_null(const tl_ynode *n);
/* Structural equality (kinds, scalar texts; positions ignored). */
bool tl_ynode_equal(const tl_ynode *a, const tl_ynode *b);

/* ---- the model ---- */
typedef struct tl_prediction {
    bool blank;           /* ~ or empty: unanswered */
    bool mapping;         /* given as a mapping of fields */
    tl_kind kind;         /* NONE if a mapping gives no kind */
    bool has_shape, has_stride, has_offset, has_contiguous, has_dtype,
        has_value, has_error;
    int shape_n, stride_n;
    int64_t *shape, *stride;
    int64_t offset;
    bool contiguous;
    char *dtype;          /* as written, "torch." prefix removed */
    const tl_ynode *value; /* borrowed */
    char *error;          /* predicted exception type */
    char *text;           /* display form: "view", "{kind: view, shape: [2, 2]}";
                           * as written (flow form, cut) when malformed */
    /* malformed (`veiw`, `a view`, a tensor-field mapping without kind):
     * the sheet still loads, this op scores 0 with the located message
     * (SPEC 3); every other field is empty then */
    bool malformed;
    int bad_line, bad_col;
    char *bad_msg;        /* "FILE:LINE:COL: error: MSG", one line, escaped */
} tl_prediction;

typedef struct tl_lab_op {
    char *id;
    char *op;             /* op-language text */
    int op_line, op_col, op_block_col; /* position of op text in the file */
    tl_prediction predict;
    char *rule;           /* NULL when blank */
    int64_t points;
    bool has_accept;
    unsigned accept;      /* bit (1u << tl_kind) */
    char *explanation;    /* instructor text, NULL if none */
    int line, col;        /* the op item */
    const tl_ynode *node; /* the op mapping */
} tl_lab_op;

typedef struct tl_lab_question {
    char *id;
    char *prompt;
    char *answer;         /* NULL when blank */
    char **mention_any;
    size_t n_mention;
    char **reject;
    size_t n_reject;
    int64_t min_words;
    int64_t points;       /* points: (default 1), scored when it passes */
    int line, col;
    const tl_ynode *node;
} tl_lab_question;

typedef enum tl_lab_device { TL_LAB_DEV_NONE = 0, TL_LAB_DEV_CPU, TL_LAB_DEV_CUDA } tl_lab_device;

/* `feedback:` (SPEC 3): what a graded student sees in the student-facing
 * formats (tlab-lab(5) lists them). FULL: marks, verdicts, evidence and
 * explanations; WRONG_OPS: which ops are right or wrong and the score, no
 * verdict, evidence or explanation; SCORE_ONLY: the score alone. */
typedef enum tl_lab_feedback {
    TL_FEEDBACK_FULL = 0,
    TL_FEEDBACK_WRONG_OPS,
    TL_FEEDBACK_SCORE_ONLY
} tl_lab_feedback;

/* `visibility:`: the Gradescope visibility of what the policy holds back
 * (the full feedback is still in results.json, for later). */
typedef enum tl_lab_visibility {
    TL_VIS_AFTER_DUE_DATE = 0,
    TL_VIS_AFTER_PUBLISHED,
    TL_VIS_HIDDEN
} tl_lab_visibility;

/* `variants:` (issue #29): a named parent for some students. Its setup
 * runs after the lab's setup, in the same namespace (the lab's imports and
 * common state, then the variant's parent): full_setup is the two texts
 * joined by a line break, what a student's sheet of that variant holds as
 * its setup (sheetvar.h). Positions are those of the variant's setup. */
typedef struct tl_lab_variant {
    char *name;           /* a plain word, unique in the lab */
    char *setup;          /* as written */
    char *full_setup;     /* lab setup + "\n" + setup */
    int setup_line, setup_col, setup_block_col;
    int line, col;        /* the variant's item */
} tl_lab_variant;

const char *tl_lab_feedback_name(tl_lab_feedback f);     /* "full", ... */
const char *tl_lab_visibility_name(tl_lab_visibility v); /* "after_due_date", ... */

typedef struct tl_lab {
    char *file;           /* path as given */
    char *text;           /* whole file, NUL-terminated */
    size_t len;
    char sha256[65];      /* hex digest of the file bytes: read it through
                           * tl_lab_sha256, which computes it on first use */
    int sha256_known;     /* set (atomically) once sha256 holds it */
    tl_ynode *root;       /* its nodes, scalar texts and item arrays live in
                           * `arena` (base/arena.h), freed with the lab */
    struct tl_arena_block *arena;

    int64_t version;      /* tlab: */
    char *id;
    char *title;
    tl_lab_device device;
    bool has_threshold;
    bool threshold_pct;   /* "80%" */
    double threshold_value; /* count, or percentage */
    int threshold_line, threshold_col;
    char *setup;          /* "" when none */
    int setup_line, setup_col, setup_block_col;
    char *parent;         /* default "x" */
    int parent_line, parent_col;

    tl_lab_op *ops;
    size_t nops;
    tl_lab_question *questions;
    size_t nquestions;

    bool has_rules;
    bool rules_required;
    char **rules_reject;
    size_t n_rules_reject;
    int64_t rules_points; /* rules: points: (default 1) for the rules check */

    char *warnings;       /* "FILE:LINE:COL: warning: ..." lines, or NULL */
    char *errors;         /* the malformed predictions' diagnostics (located,
                           * with the source line and caret), or NULL */

    /* the stretch goal: `classify:` defines classify(op_result, parent);
     * graded as one test of classify_points (default 1), outside the
     * threshold. classify is NULL when the key is absent, "" when blank. */
    char *classify;
    int classify_line, classify_col, classify_block_col;
    int64_t classify_points;

    tl_lab_feedback feedback;     /* feedback: (default full) */
    tl_lab_visibility visibility; /* visibility: (default after_due_date) */

    /* issue #29: a master's `variants:` (none: nvariants 0), and what a
     * student's sheet records (`student:`, `variant:`, `tag:`; NULL when
     * absent) */
    tl_lab_variant *variants;
    size_t nvariants;
    char *student, *variant, *tag;
    int variant_line, variant_col;
} tl_lab;

/* A loading error: position (1-based; 0 when none) and message, plus the
 * rendered diagnostic (`FILE:LINE:COL: error: MSG` + source line + caret). */
typedef struct tl_lab_err {
    int line, col;
    char msg[512];
    char *rendered;       /* owned; tl_lab_err_free */
} tl_lab_err;

void tl_lab_err_free(tl_lab_err *e);

/* Read and validate a lab file. NULL with *err filled on failure. The file
 * must be a regular file ("not a regular file": FIFOs, devices and
 * directories are never read, and opening one never blocks); a symbolic
 * link is refused unless follow_links (tl_lab_load: never followed). */
tl_lab *tl_lab_open(const char *path, bool color, bool follow_links, tl_lab_err *err);
tl_lab *tl_lab_load(const char *path, bool color, tl_lab_err *err);
/* Validate text already in memory (copied). */
tl_lab *tl_lab_parse(const char *file, const char *text, size_t len,
                     bool color, tl_lab_err *err);
void tl_lab_free(tl_lab *lab);

/* The YAML front end: yaml_fast.c with libyaml as the fallback (AUTO, the
 * default), only the fast one, or only libyaml. For tests
 * (tests/check_yaml_fast), which build every tree both ways. */
typedef enum tl_lab_yaml { TL_LAB_YAML_AUTO, TL_LAB_YAML_FAST, TL_LAB_YAML_LIBYAML } tl_lab_yaml;
/* The front end tl_lab_parse/open/load use; set it before any loading
 * (a plain variable, read by every loader thread). */
void tl_lab_set_yaml(tl_lab_yaml how);
/* The hex SHA-256 of lab's file bytes, computed the first time it is
 * asked for (a `tlab check` that prints no digest never hashes); any
 * thread may ask. */
const char *tl_lab_sha256(const tl_lab *lab);

/* Byte checks and the YAML tree only, no validation: a lab whose file,
 * text, len, root and arena are set, and nothing else. With
 * TL_LAB_YAML_FAST, NULL and an empty err->msg when the fast path
 * declines; otherwise NULL with *err filled on an error. */
tl_lab *tl_lab_parse_tree(const char *file, const char *text, size_t len, tl_lab_yaml how,
                          tl_lab_err *err);

/* Op-language sources for setup and an op (borrow from lab). */
void tl_lab_setup_source(const tl_lab *lab, tl_source *src);
void tl_lab_op_source(const tl_lab *lab, const tl_lab_op *op, tl_source *src);
/* The classify block's source (lab->classify must not be NULL). */
void tl_lab_classify_source(const tl_lab *lab, tl_source *src);

/* The threshold as a count of ops for this lab. */
int64_t tl_lab_threshold_count(const tl_lab *lab);

/* `tlab new`: the text of a blank sheet (blank.c): predictions, rules,
 * question answers and classify emptied; explanations and accept lists
 * dropped (explanations kept with TL_BLANK_KEEP_EXPLANATIONS); when the lab
 * is itself filled in (tl_lab_has_answers), its comments dropped too (they
 * were written beside the answers). Everything else (order, quoting, line
 * breaks, the other comments) as written. Caller frees. */
enum { TL_BLANK_KEEP_EXPLANATIONS = 1 };
char *tl_lab_blank_text_opts(const tl_lab *lab, unsigned flags);
char *tl_lab_blank_text(const tl_lab *lab); /* flags 0 */

/* What in lab would reveal an answer to a student (blank.c): a bit per
 * field that is filled in somewhere (a prediction, a rule line, a question
 * answer, a classify body, an explanation, an accept list); 0 when none.
 * tl_lab_has_answers: any but explanations and accept lists (the lab is a
 * filled-in sheet, not a master with blanks). tl_lab_answers_text: the
 * names of the bits, ", "-separated ("predictions, rules"), static. */
enum {
    TL_LAB_FILLED_PREDICT = 1u << 0,
    TL_LAB_FILLED_RULE = 1u << 1,
    TL_LAB_FILLED_ANSWER = 1u << 2,
    TL_LAB_FILLED_CLASSIFY = 1u << 3,
    TL_LAB_FILLED_EXPLANATION = 1u << 4,
    TL_LAB_FILLED_ACCEPT = 1u << 5
};
unsigned tl_lab_filled(const tl_lab *lab);
bool tl_lab_has_answers(const tl_lab *lab);
const char *tl_lab_filled_text(unsigned filled, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
