/* parse.h - recursive-descent parser for the op language (SPEC 6).
 *
 * tl_parse tokenizes and parses a whole source text into a tl_ast of
 * statements (ast.h). Python constructs outside the subset (class, dict
 * literals, *args, generators, ...) fail with TL_ERR_UNSUPPORTED, invalid
 * Python with TL_ERR_SYNTAX using CPython's wording where it has one;
 * both carry the span of the offending text. Nesting is bounded by
 * max_depth (brackets, unary operators, conditional expressions) and the
 * height of any expression tree by 8 * max_depth (long operator chains),
 * so that evaluation recursion is bounded too; past either: TL_ERR_LIMIT.
 *
 * Ownership: on success *out is a new tree the caller frees with
 * tl_ast_free; on failure returns -1, *out is NULL and err is filled.
 */
#ifndef TL_PARSE_H
#define TL_PARSE_H

#include <stddef.h>

#include "ast.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

int tl_parse(const char *text, size_t len, int max_depth, tl_ast **out,
             tl_error *err);

/* Largest expression-tree height tl_parse accepts for a max_depth. */
int tl_parse_max_height(int max_depth);

#ifdef __cplusplus
}
#endif

#endif
