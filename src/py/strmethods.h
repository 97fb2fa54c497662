/* strmethods.h - str methods (strmethods.c): "-".join(...), "{}".format(x),
 * split, strip, replace, upper/lower, startswith/endswith. */
#ifndef TL_STRMETHODS_H
#define TL_STRMETHODS_H

#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bound method `name` of the str obj (a new reference; obj is
 * retained by it), or NULL (no error set) when str has no such method
 * here. */
tl_value *tl_strmethods_attr(tl_value *obj, const char *name);

#ifdef __cplusplus
}
#endif

#endif
