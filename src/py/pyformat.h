/* pyformat.h - Python's format(value, spec): the format-spec mini-language
 * of f-strings, `[[fill]align][sign][#][0][width][,|_][.precision][type]`
 * with the types d n x X o b c s e E f F g G %, for str, int, bool, float
 * and 0-d tensors (Tensor.__format__ formats .item()); other values accept
 * only an empty spec (their str()).
 *
 * Errors are Python's (ValueError "Unknown format code 'd' for object of
 * type 'float'", TypeError "unsupported format string passed to
 * Tensor.__format__"); a width or precision that would make the text
 * longer than max_len bytes is a LimitError instead of a huge string.
 */
#ifndef TL_PYFORMAT_H
#define TL_PYFORMAT_H

#include <stddef.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append format(v, spec[0..len)) to out. */
int tl_format_value(const tl_value *v, const char *spec, size_t len, size_t max_len,
                    tl_buf *out, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
