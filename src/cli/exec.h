/* exec.h - `tlab exec FILE.py` (SPEC 2): run a script in the op language
 * and print what Python with PyTorch would print.
 */
#ifndef TL_EXEC_H
#define TL_EXEC_H

#include "backend.h"
#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The devices the caller found (the CUDA layer is reached through main.c
 * only): the real GPU backend or NULL, the emulated one, and a sentence for
 * --require-gpu failures. */
typedef struct tl_exec_devices {
    const tl_backend *cuda;
    const tl_backend *emulated;
    const char *cuda_describe;
} tl_exec_devices;

/* Run cli->args[0] ("-" for standard input). Exit status: 0 success, 1 an
 * uncaught exception (traceback-like message on stderr), 2 unreadable file,
 * syntax, unsupported construct or a limit, 3 internal failure. */
int tl_exec_run(const tl_cli *cli, const tl_exec_devices *dev);

#ifdef __cplusplus
}
#endif

#endif
