/* ynode.h - the YAML node tree of a lab file.
 *
 * Both YAML front ends build it: lab.c from libyaml's events, yaml_fast.c
 * in one pass over the subset lab files use; lab.c validates it into a
 * tl_lab. Every node keeps its 1-based line/col and its byte range.
 *
 * Ownership: the nodes, scalar texts and item arrays live in an arena
 * (arena.h) that owns them all (a tl_lab's lab->arena).
 */
#ifndef TL_YNODE_H
#define TL_YNODE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_ykind { TL_Y_SCALAR, TL_Y_SEQ, TL_Y_MAP } tl_ykind;

typedef struct tl_ynode {
    tl_ykind kind;
    char *value;          /* scalar text (NUL-terminated), NULL otherwise */
    size_t len;
    bool plain;           /* plain (unquoted) scalar */
    bool block_scalar;    /* literal `|` or folded `>` */
    bool flow;            /* flow collection ([..] / {..}) */
    size_t n;             /* SEQ: items; MAP: pairs */
    struct tl_ynode **items; /* SEQ: n items; MAP: 2n (key, value, ...) */
    size_t nslots;        /* items filled (a key may wait for its value) */
    int line, col;        /* 1-based start */
    size_t start, end;    /* byte offsets in the file text */
} tl_ynode;

#ifdef __cplusplus
}
#endif

#endif
