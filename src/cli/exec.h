/* exec.h - `tlab exec FILE.py` (SPEC 2): run a script in the op language
 * and print what Python with PyTorch would print.
 */
#ifndef TL_EXEC_H
#define TL_EXEC_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run cli->args[0] ("-" for standard input). Exit status: 0 success, 1 an
 * uncaught exception (traceback-like message on stderr), 2 unreadable file,
 * syntax, unsupported construct or a limit, 3 internal failure. */
int tl_exec_run(const tl_cli *cli);

#ifdef __cplusplus
}
#endif

#endif
