/* mccat.h - the misconceptions catalogue (issue #29): the one shipped with
 * tlab (share/misconceptions.yaml, compiled into the binary) and a lab's
 * own entries and op tags. Recognition is misconception.h's.
 *
 * An entry is data: a `when:` predicate over an op's facts (the op's kind
 * from its text, what it did, the scoring answer, the result's contiguity
 * and storage sharing, whether the op is in-place) and the answers the
 * belief `predicts:`; `min_ops:` ops must support it (default 2).
 *
 * Ownership: a tl_mc_catalogue owns its entries and strings
 * (tl_mc_catalogue_free); the shipped one (tl_mc_builtin) lives for the
 * process. This header includes no lab.h (lab.c includes it).
 */
#ifndef TL_MCCAT_H
#define TL_MCCAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ynode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_MC_MAX_NAMES 24

/* One predicate list: a field holds when its value is one of names[]
 * (n == 0: the field is not constrained). Bool fields use want (-1: not
 * constrained). */
typedef struct tl_mc_names {
    size_t n;
    char *names[TL_MC_MAX_NAMES];
} tl_mc_names;

typedef struct tl_mc_entry {
    char *tag;             /* "transpose-copies" */
    char *belief;          /* one sentence */
    char *hint;            /* corrects it without giving any op's answer */
    tl_mc_names op_kind, not_op_kind, actual, truth;
    int contiguous, shares_storage, inplace, is_tensor; /* 1 / 0 / -1 */
    unsigned predicts;     /* bit (1u << tl_kind); the first kind << 16 */
    int64_t min_ops;       /* ops that must support it (>= 1) */
    bool has_when;         /* false: a lab's entry only its tagged ops support */
    int line, col;         /* the entry in its file */
} tl_mc_entry;

typedef struct tl_mc_catalogue {
    char *file;
    size_t n;
    tl_mc_entry *entries;  /* in file order: earlier is more specific */
} tl_mc_catalogue;

/* Parse a catalogue file. NULL on bad input with *err set to one owned line
 * `FILE:LINE:COL: error: MSG` (no newline). */
tl_mc_catalogue *tl_mc_catalogue_parse(const char *file, const char *text, size_t len,
                                       char **err);
void tl_mc_catalogue_free(tl_mc_catalogue *c);
/* The catalogue shipped with tlab (share/misconceptions.yaml, compiled
 * in), parsed once (thread-safe). NULL only if it does not parse (the
 * tests see to it that it does). */
const tl_mc_catalogue *tl_mc_builtin(void);
/* The shipped catalogue's text. */
const char *tl_mc_builtin_text(void);

/* The catalogue a lab's sheets are graded with: the lab's own entries
 * (its `misconceptions:` list, where `when:` may be left out) first, then
 * the shipped ones, a shipped one's min_ops changed by a lab entry of its
 * tag with only `min_ops:`; and every op's `misconceptions:` tags checked
 * to name one. root: the lab's tree (NULL: the shipped ones). NULL on bad
 * input, with *err `FILE:LINE:COL: error: MSG` and *line, *col, *msg (MSG
 * alone), each owned (any may be NULL). Caller frees. */
tl_mc_catalogue *tl_mc_for_lab(const char *file, const tl_ynode *root, char **err, int *line,
                               int *col, char **msg);

#ifdef __cplusplus
}
#endif

#endif
