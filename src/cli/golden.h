/* golden.h - the golden-file test runner built into the binary
 * (`tlab --run-tests FILE`, like jq's --run-tests). Record format in golden.c.
 */
#ifndef TL_GOLDEN_H
#define TL_GOLDEN_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runs every record of FILE; prints failures and "N of M tests passed".
 * Returns 0 when all pass, 1 when some fail, 2 when FILE is unreadable. */
int tl_golden_run(const char *path);

#ifdef __cplusplus
}
#endif

#endif
