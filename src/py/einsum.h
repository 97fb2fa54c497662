/* einsum.h - torch.einsum (issue #27): the binding table (einsum.c). */
#ifndef TL_EINSUM_H
#define TL_EINSUM_H

#include "bind.h"

extern const tl_bind_table tl_bind_einsum_tables[];

#endif
