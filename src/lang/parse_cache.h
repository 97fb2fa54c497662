/* parse_cache.h - parsed sources kept per thread, so that a lab's setup,
 * rerun afresh before every op and every parent variant (60 runs for a
 * 20-op lab), is lexed and parsed once.
 *
 * Ownership: the cache holds one reference to each tree it keeps;
 * tl_parse_cached returns a new reference (release with tl_ast_free).
 * Trees are immutable once parsed (the evaluator only reads them), so a
 * cached tree is shared by every run on its thread; threads never share
 * one (the refcount is not atomic).
 */
#ifndef TL_PARSE_CACHE_H
#define TL_PARSE_CACHE_H

#include <stddef.h>

#include "ast.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tl_parse, answered from this thread's cache when the same text (byte for
 * byte) was parsed with the same max_depth. Failed parses are not kept. */
int tl_parse_cached(const char *text, size_t len, int max_depth, tl_ast **out,
                    tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
