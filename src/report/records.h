/* records.h - the grade-only formats (SPEC 2): one record per submission
 * with the same keys everywhere (file, correct, total, points, max_points,
 * passed, tampered, changes, error) as csv, jsonl, or a json document with
 * the class summary. */
#ifndef TL_RECORDS_H
#define TL_RECORDS_H

#include <stddef.h>

#include "format.h"
#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fmt: TL_FMT_CSV, TL_FMT_JSONL or TL_FMT_JSON. Caller frees; NULL on OOM. */
char *tl_records_render(const tl_lab *master, const tl_report *rs, size_t n, tl_format fmt);

#ifdef __cplusplus
}
#endif

#endif
