/* github.h - GitHub Actions workflow commands and the job summary. */
#ifndef TL_GITHUB_H
#define TL_GITHUB_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Annotations for n reports on stdout. Caller frees. */
char *tl_github_render(const tl_report *rs, size_t n);
/* The Markdown job summary ($GITHUB_STEP_SUMMARY) of n reports. */
char *tl_github_markdown(const tl_report *rs, size_t n);

/* At most this many annotations of each level (GitHub shows about 10 per
 * step); the rest are folded into the first (summary) annotation. */
#define TL_GITHUB_MAX_ANNOTATIONS 10

#ifdef __cplusplus
}
#endif

#endif
