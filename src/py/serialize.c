/* serialize.c - placeholder */
#include "serialize.h"
#include "bind.h"
static const tl_binding torch_fns[] = {{NULL, NULL, false, false}};
const tl_bind_table tl_bind_serialize_tables[] = {{TL_BIND_TORCH, torch_fns}, {TL_BIND_TORCH, NULL}};
