/* fuzz_check.c - libFuzzer harness: the whole `tlab check` command, every
 * output format.
 *
 * The first byte picks the format (text, json, junit, tap, gradescope,
 * prairielearn, github); the rest is the sheet, written to a file and
 * checked through tl_commands_run exactly as the binary does (loading,
 * precheck, every op with its variants, grading, rendering, the atomic
 * -o write), with a 0.25 s per-op limit, a 3 s sheet budget and a 256 MiB
 * ledger so libFuzzer's own limits never decide. Exit status 3 (internal
 * error) aborts: a finding. The report goes to -o into a scratch file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const tl_format fmts[] = {TL_FMT_TEXT,       TL_FMT_JSON,         TL_FMT_JUNIT,
                                     TL_FMT_TAP,        TL_FMT_GRADESCOPE,   TL_FMT_PRAIRIELEARN,
                                     TL_FMT_GITHUB};
    static char path[64], out[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/tlab-fuzz-check-%d.yaml", (int)getpid());
        snprintf(out, sizeof out, "/tmp/tlab-fuzz-check-%d.out", (int)getpid());
    }
    if (size < 1)
        return 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    char *args[] = {path, NULL};
    tl_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.command = "check";
    cli.format = fmts[data[0] % (sizeof fmts / sizeof *fmts)];
    cli.output = out;
    cli.color = TL_COLOR_NEVER;
    cli.quiet = true;
    cli.jobs = 1;
    cli.max_bytes = (size_t)256 << 20;
    cli.timeout = 0.25;
    cli.sheet_timeout = 3.0;
    cli.args = args;
    cli.nargs = 1;
    int rc = tl_commands_run(&cli);
    if (rc == 3) {
        fprintf(stderr, "tlab check exited 3 (internal error)\n");
        abort();
    }
    return 0;
}
