/* gradescope.h - Gradescope's /autograder/results/results.json (SPEC 2). */
#ifndef TL_GRADESCOPE_H
#define TL_GRADESCOPE_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One results.json object; for n > 1 a JSON array of them. Caller frees;
 * NULL on OOM. */
char *tl_gradescope_render(const tl_report *rs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
