/* autograder.h - `tlab autograder gradescope|prairielearn|github` (SPEC 2):
 * a ready bundle for a grading platform that grades with the master lab.
 *
 * Ownership: nothing returned is owned by the caller; tl_autograder_zip's
 * buffers are borrowed for the call.
 */
#ifndef TL_AUTOGRADER_H
#define TL_AUTOGRADER_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the autograder command: cli->args[0] is the platform, cli->master the
 * master lab, cli->output the zip (gradescope) or directory. Exit status. */
int tl_autograder_run(const tl_cli *cli);

/* `autograder web` (autograder_web.c): the static lab page, tlab.wasm and
 * the blank lab written into cli->output, for a lab already checked to be
 * blank (or --blank). Exit status. */
struct tl_lab;
int tl_autograder_web(const tl_cli *cli, const struct tl_lab *lab);

/* One member of a stored (uncompressed) zip archive. */
typedef struct tl_zip_entry {
    const char *name;  /* path inside the archive, '/'-separated */
    const char *data;
    size_t len;
    unsigned mode;     /* Unix permission bits, e.g. 0755 */
} tl_zip_entry;

/* The zip archive of n entries (method 0, stored) in *out (malloc'ed, the
 * caller frees) and its size in *outlen; -1 when a member is too big for
 * zip32 (4 GiB), 0 otherwise. */
int tl_autograder_zip(const tl_zip_entry *e, size_t n, char **out, size_t *outlen);

/* CRC-32 (IEEE 802.3, as zip and gzip use) of len bytes. */
uint32_t tl_autograder_crc32(const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
