/* format.h - the output formats of SPEC 2 (--format FMT), named by the
 * report layer that renders them; the command line only parses the name.
 */
#ifndef TL_FORMAT_H
#define TL_FORMAT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_format {
    TL_FMT_DEFAULT = 0, /* text for check/run/explain/key, csv for grade */
    TL_FMT_TEXT,
    TL_FMT_JSON,
    TL_FMT_JUNIT,
    TL_FMT_TAP,
    TL_FMT_GRADESCOPE,
    TL_FMT_PRAIRIELEARN,
    TL_FMT_GITHUB,
    TL_FMT_CSV,
    TL_FMT_JSONL,
    TL_FMT_HTML     /* check: the scorecard page; grade: the class report */
} tl_format;

#ifdef __cplusplus
}
#endif

#endif
