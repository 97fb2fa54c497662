/* commands.h - the subcommands of tlab (SPEC 2): check, run, grade,
 * explain, new, key. Each returns an exit status (cli.h) and prints its own
 * diagnostics to stderr; output goes to stdout or, atomically, to -o FILE.
 */
#ifndef TL_COMMANDS_H
#define TL_COMMANDS_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

int tl_commands_run(const tl_cli *cli);

#ifdef __cplusplus
}
#endif

#endif
