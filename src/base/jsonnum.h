/* jsonnum.h - JSON numbers that keep their value (issue #12 class 7).
 *
 * cJSON stores every number as a double and prints it with %1.15g (or
 * %1.17g when that does not round-trip), so an int64 past 2^53 comes out
 * rounded and a large integer in exponent form. tl_json_int and
 * tl_json_float build ordinary cJSON number nodes (valuedouble is set, so
 * readers such as the grader keep working) that also carry their exact text
 * in valuestring: "%lld" for integers, the shortest of %.15g/%.16g/%.17g
 * that reads back to the same double for floats. The printers here write
 * that text; nodes made by cJSON itself print as cJSON would, except that a
 * whole-valued double that fits int64 prints as an integer.
 *
 * Ownership: nodes are owned by the caller (cJSON_Delete frees the text);
 * printed strings are malloc'd, the caller frees them.
 */
#ifndef TL_JSONNUM_H
#define TL_JSONNUM_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

cJSON *tl_json_int(int64_t v);
/* v must be finite (NaN/inf are no JSON numbers) */
cJSON *tl_json_float(double v);
/* The text of a number node (exact for the nodes above) into buf. */
void tl_json_number_text(const cJSON *n, char *buf, size_t cap);
/* The shortest %.Ng (N = 15, 16, 17) of v that reads back as v. */
void tl_json_shortest(double v, char *buf, size_t cap);
/* Compact JSON of a tree (as cJSON_PrintUnformatted), numbers exact. */
char *tl_json_print_compact(const cJSON *item);
/* Append the compact JSON of item to b. */
void tl_json_append_compact(tl_buf *b, const cJSON *item);

#ifdef __cplusplus
}
#endif

#endif
