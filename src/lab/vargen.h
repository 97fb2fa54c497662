/* vargen.h - variant generators (issue #29): `variants:` may hold, in
 * place of hand-written {name, setup} items, a `generate:` mapping whose
 * keys each list values, and the generator stands for every combination
 * (the cross product, in the order of the lists, the first key varying
 * slowest), each a named variant with a generated setup:
 *
 *   shape: [[4, 6], [6, 4]]       required: the parent's shapes (1 to 6 dims)
 *   transposed: [false, true]     the dims' order reversed in memory (2+ dims)
 *   step: [1, 2]                  every k-th element of a k-times longer last dim
 *   dtype: [float32, int64]       default float32
 *   channels_last: [false, true]  4-D shapes in channels-last memory format
 *
 * A key may give one value instead of a list. The setup assigns the lab's
 * parent, e.g. `x = torch.arange(48, dtype=torch.float32).reshape(6, 8)[..., ::2].t()`
 * (always torch.arange in the order of the dims, so each variant has the shape
 * asked). The name joins, with '-', the part of each key whose list has more
 * than one value, in the order above: `4x6`, `t`/`n`, `s2`, `int64`,
 * `cl`/`cf`; a generator of one combination names it `g`.
 *
 * Ownership: the items and their strings are the caller's
 * (tl_vargen_free).
 */
#ifndef TL_VARGEN_H
#define TL_VARGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "ynode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_vargen_item {
    char *name;
    char *setup;
} tl_vargen_item;

/* Expand the mapping gen (the value of `generate:`) for a lab whose parent
 * is named parent, into at most max items. true with *out and *n; false
 * with the node at fault in *bad and why in msg. */
bool tl_vargen_expand(const tl_ynode *gen, const char *parent, size_t max,
                      tl_vargen_item **out, size_t *n, const tl_ynode **bad, char *msg,
                      size_t cap);
void tl_vargen_free(tl_vargen_item *items, size_t n);

#ifdef __cplusplus
}
#endif

#endif
