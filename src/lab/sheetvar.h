/* sheetvar.h - per-student lab variants (issue #29): which of a master's
 * `variants:` a student gets, the student's sheet, and the tag that binds
 * a sheet to (lab id, student id, variant name).
 *
 * The instructor's key file is a secret (any bytes; trailing whitespace
 * ignored). The variant is HMAC-SHA-256(key, "tlab-variant" NUL lab-id NUL
 * student) read as a big-endian 64-bit number, modulo the number of
 * variants; the tag is the first 32 hex digits of HMAC-SHA-256(key,
 * "tlab-tag" NUL lab-id NUL student NUL variant). Without the key neither
 * can be computed, so a student cannot forge a tag for another variant or
 * another student.
 *
 * Ownership: returned strings are the caller's (free); a lab from
 * tl_sheetvar_lab borrows everything from the master.
 */
#ifndef TL_SHEETVAR_H
#define TL_SHEETVAR_H

#include <stdbool.h>
#include <stddef.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_SHEETVAR_TAG_HEX 32

/* The key file's bytes (trailing spaces, tabs and newlines dropped), or
 * NULL with a one-line message in msg ("tlab: ...") when it cannot be
 * read or is empty. *len: the key's length. */
char *tl_sheetvar_read_key(const char *path, size_t *len, char *msg, size_t cap);

/* A student id is non-empty, at most 200 bytes, with no control
 * characters. NULL when fine, else why not (static). */
const char *tl_sheetvar_bad_student(const char *student);

/* The index of student's variant among m->variants (m->nvariants > 0). */
size_t tl_sheetvar_pick(const tl_lab *m, const void *key, size_t keylen,
                        const char *student);

/* The tag of (lab id, student, variant): TL_SHEETVAR_TAG_HEX hex digits. */
void tl_sheetvar_tag(const tl_lab *m, const void *key, size_t keylen, const char *student,
                     const char *variant, char tag[TL_SHEETVAR_TAG_HEX + 1]);

/* m's variant named name, or NULL. */
const tl_lab_variant *tl_sheetvar_find(const tl_lab *m, const char *name);

/* *out: m as seen by a sheet of variant var: the same lab (shallow copy,
 * everything borrowed) with var's setup in place of m's. Never free it
 * with tl_lab_free. */
void tl_sheetvar_lab(const tl_lab *m, const tl_lab_variant *var, tl_lab *out);

/* The student's sheet: blank (tl_lab_blank_text of m) with var's setup in
 * place of the setup, the `variants:` list removed, and `student:`,
 * `variant:`, `tag:` appended. NULL with err filled (not rendered) when m
 * cannot be made into one (a flow-style top level, a master that already
 * has `student:`/`variant:`/`tag:`). */
char *tl_sheetvar_sheet(const tl_lab *m, const char *blank, const tl_lab_variant *var,
                        const char *student, const char *tag, tl_lab_err *err);

/* grade --key: NULL when sheet's student:, variant: and tag: agree with
 * the key; else the located one-line error (FILE:LINE:COL: error: ...) and
 * its position. */
char *tl_sheetvar_check(const tl_lab *m, const tl_lab *sheet, const void *key, size_t keylen,
                        int *line, int *col);

/* check --student ID: NULL when sheet's student: is ID; else the located
 * error (a classmate's sheet handed in as is). */
char *tl_sheetvar_check_student(const tl_lab *sheet, const char *student, int *line,
                                int *col);

/* A sheet's variant of m: NULL and *vi untouched when the sheet names none
 * (graded on m's own setup); else the located error when m has no such
 * variant (or no variants at all), or NULL with *vi its index. */
char *tl_sheetvar_select(const tl_lab *m, const tl_lab *sheet, size_t *vi, int *line,
                         int *col);

#ifdef __cplusplus
}
#endif

#endif
