/* yaml_fast.h - a one-pass front end for the YAML subset lab files use.
 *
 * tl_yfast_parse builds, from the text of a lab file, the very tl_ynode tree
 * that lab.c's libyaml event path builds (same kinds, values, styles, item
 * counts, 1-based line/col and byte ranges), or declines ("not mine"):
 * then the caller runs libyaml, which produces the tree or the located
 * error as before. It declines anything outside its subset, every error,
 * a tree over the node or depth limit, and a spent sheet budget
 * (tl_budget_passed), so every message stays libyaml's.
 *
 * The text must have passed lab.c's byte checks (valid UTF-8; no NUL,
 * control character, NEL, U+2028/9 or tab in indentation; a BOM only at
 * the start). It is read within [text, text + len) only, in linear time.
 *
 * Ownership: on success the nodes, their texts and item arrays live in
 * *arena (NULL on entry), which the caller frees with tl_arena_free; on a
 * decline *arena stays NULL and nothing is left allocated.
 */
#ifndef TL_YAML_FAST_H
#define TL_YAML_FAST_H

#include <stddef.h>

#include "arena.h"
#include "ynode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The root of the tree, or NULL when the fast path declines: also when the
 * tree would hold more than max_nodes nodes or more than max_depth nested
 * collections (lab.c: TL_LAB_MAX_NODES, TL_LAB_MAX_DEPTH). */
tl_ynode *tl_yfast_parse(const char *text, size_t len, size_t max_nodes, int max_depth,
                         tl_arena_block **arena);

#ifdef __cplusplus
}
#endif

#endif
