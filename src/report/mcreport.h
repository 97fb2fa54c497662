/* mcreport.h - the misconceptions a graded sheet supports (issue #29), as
 * the scorecard's "misconceptions" array and the text and HTML sections.
 * Internal to src/report; recognition itself is src/lab/misconception.h,
 * with the shipped catalogue.
 */
#ifndef TL_MCREPORT_H
#define TL_MCREPORT_H

#include <cjson/cJSON.h>

#include "layout.h"
#include "misconception.h"
#include "scorecard.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The misconceptions of a graded report (mode CHECK with a lab and a
 * grade; else none): see tl_mc_find. Owned: tl_mc_found_free. */
size_t tl_mcreport_find(const tl_report *r, tl_mc_found **out);
/* [{tag, belief, ops: [id, ...], hint}, ...]; an empty array when none.
 * NULL on OOM. */
cJSON *tl_mcreport_json(const tl_report *r);
/* The text section ("Misconceptions", a blank line before), nothing when
 * there are none. */
void tl_mcreport_text(tl_buf *b, const tl_report *r, const tl_render_opts *o);

#ifdef __cplusplus
}
#endif

#endif
