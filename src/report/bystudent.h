/* bystudent.h - `tlab grade --by-student` (issue #29): each student's
 * profile across several labs: the score of every sheet the student handed
 * in, the labs they handed nothing in for, and the misconceptions they
 * hold, each with the labs and ops that reveal it.
 *
 * Who a sheet belongs to (tl_bystudent_key): its `student:` field when it
 * has one; else, when the file's name (less .yaml/.yml) is the id of one of
 * the labs (`alice/lab01.yaml`), the name of the folder holding it; else
 * the file's name less the extension (`lab01/alice.yaml`).
 *
 * Ownership: a tl_bys_sheet borrows everything (the caller keeps the
 * reports, labs and strings alive while rendering).
 */
#ifndef TL_BYSTUDENT_H
#define TL_BYSTUDENT_H

#include <stddef.h>

#include "format.h"
#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_bys_sheet {
    const char *file;        /* as given */
    const char *student;     /* its key (tl_bystudent_key) */
    const char *from;        /* "student", "folder" or "file": where the key came from */
    const tl_report *report; /* graded on its lab; NULL when it matched no lab */
    size_t lab;              /* the index of its lab among the masters (report only) */
    const char *variant;     /* the lab's variant it was graded on, or NULL */
    const char *error;       /* report NULL: why it was not graded (one line) */
} tl_bys_sheet;

/* The student of a sheet at `file` whose `student:` field is field (NULL
 * when absent): a new string in *key, and where it came from in *from
 * ("student", "folder", "file"; static). ids: the labs' ids. */
void tl_bystudent_key(const char *file, const char *field, const char *const *ids,
                      size_t nids, char **key, const char **from);

/* The profiles, students in byte order of their keys and their sheets in
 * lab order: fmt TL_FMT_TEXT, TL_FMT_JSON (a tlab-grade.schema.json
 * document with `students`) or TL_FMT_HTML. Caller frees; NULL on OOM. */
char *tl_bystudent_render(const tl_lab *const *labs, size_t nlabs, const tl_bys_sheet *sheets,
                          size_t n, tl_format fmt);

#ifdef __cplusplus
}
#endif

#endif
