/* tap.h - TAP version 13 (SPEC 2), the version Perl's prove and python3-tap
 * read. */
#ifndef TL_TAP_H
#define TL_TAP_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One stream for n reports (test names prefixed by the sheet when n > 1).
 * Caller frees. */
char *tl_tap_render(const tl_report *rs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
