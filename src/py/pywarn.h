/* pywarn.h - Python's warnings as `tlab exec` shows them on stderr:
 * "FILE:LINE: Category: message" and the statement's source line.
 * State is per thread; a run (tl_pywarn_set) re-arms everything. */
#ifndef TL_PYWARN_H
#define TL_PYWARN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Warnings go to f (NULL, the default: discarded, as in lab checks),
 * located in the running script (file: its name; text, len: its source,
 * borrowed until the next call). Starts a new run: see tl_pywarn_run. */
void tl_pywarn_set(FILE *f, const char *file, const char *text, size_t len);
/* The interpreter names the statement it is about to run (its first
 * byte's offset in the text above): a warning shows its line. */
void tl_pywarn_note_statement(int32_t start);
/* Show a warning of category (e.g. "UserWarning") as Python's default
 * filter does: once per message and line of the script. */
void tl_pywarn_emit(const char *category, const char *message);
/* The current run's number (0 before the first tl_pywarn_set): a
 * once-per-run warning (TORCH_WARN_ONCE) remembers the run it was shown in. */
unsigned tl_pywarn_run(void);

#ifdef __cplusplus
}
#endif

#endif
