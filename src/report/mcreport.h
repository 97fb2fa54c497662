/* mcreport.h - the misconceptions a graded sheet supports (issue #29), as
 * the scorecard's "misconceptions" array; the text section is text.c's,
 * the class ranking classreport.c's, the HTML html.c's. Internal to
 * src/report; recognition itself is src/lab/misconception.h, with the
 * shipped catalogue. Takes the lab-level pieces of a report (not a
 * tl_report), so that scorecard.c can include it without a cycle.
 */
#ifndef TL_MCREPORT_H
#define TL_MCREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "grade.h"
#include "lab.h"
#include "misconception.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The catalogue lab's sheets are graded with (tl_mc_for_lab: the lab
 * was checked when it was loaded, so only OOM-free failure is the shipped
 * catalogue's, tested not to happen: NULL then). Caller frees. */
tl_mc_catalogue *tl_mcreport_catalogue(const tl_lab *lab);
/* The misconceptions of a graded sheet (lab, verdicts and grade all
 * given; else none) over cat (NULL: none): see tl_mc_find. Owned:
 * tl_mc_found_free. */
size_t tl_mcreport_find(const tl_mc_catalogue *cat, const tl_lab *lab,
                        const tl_op_verdict *verdicts, const tl_grade *g, tl_mc_found **out);
/* [{tag, belief, ops: [id, ...], hint}, ...]; an empty array when none.
 * NULL on OOM. */
cJSON *tl_mcreport_json(const tl_lab *lab, const tl_op_verdict *verdicts, const tl_grade *g);

#ifdef __cplusplus
}
#endif

#endif
