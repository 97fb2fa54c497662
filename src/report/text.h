/* text.h - the terminal report (80 columns; colour only when asked). */
#ifndef TL_TEXT_H
#define TL_TEXT_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n reports, separated by a blank line. Caller frees. */
char *tl_text_render(const tl_report *rs, size_t n, const tl_render_opts *o);

#ifdef __cplusplus
}
#endif

#endif
