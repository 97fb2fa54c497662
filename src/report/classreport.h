/* classreport.h - the class summary of `tlab grade` (SPEC 2): counts of
 * graded, passed, tampered and unreadable sheets, per-op percentage
 * correct with the most common wrong *answered* prediction and the
 * unanswered count, question and rules pass rates, and the misconceptions
 * ranked by how many students hold them (mcreport.h). */
#ifndef TL_CLASSREPORT_H
#define TL_CLASSREPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Text for stderr ("nothing graded" when no sheet could be graded).
 * Caller frees. */
char *tl_class_summary_text(const tl_lab *master, const tl_report *rs, size_t n);
/* The "summary" object of `grade --format json`. NULL on OOM. */
cJSON *tl_class_summary_json(const tl_lab *master, const tl_report *rs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
