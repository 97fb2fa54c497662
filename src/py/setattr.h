/* setattr.h - `obj.NAME = v` in lab programs (setattr.c). obj and v are
 * borrowed; a successful assignment may retain v (a tensor's grad) or
 * its storage (`x.data = y`). */
#ifndef TL_SETATTR_H
#define TL_SETATTR_H

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0, or -1 with err set (torch's error for the attribute, or
 * TL_ERR_UNSUPPORTED outside tlab's subset) */
int tl_setattr_assign(tl_value *obj, const char *name, tl_value *v, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
