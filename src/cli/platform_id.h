/* platform_id.h - the student id a grading platform hands the autograder
 * (issue #29: per-student variants), for `check --student-from`.
 *
 *   gradescope:FILE    FILE is submission_metadata.json: users[0]'s email,
 *                      else its sid, else its id
 *   prairielearn:FILE  FILE is /grade/data/data.json: params.student (the
 *                      question's server.py puts it in the variant's params)
 *
 * Ownership: the returned id is the caller's (free).
 */
#ifndef TL_PLATFORM_ID_H
#define TL_PLATFORM_ID_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The student id named by spec, or NULL with a one-line message in msg. */
char *tl_platform_id_read(const char *spec, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
