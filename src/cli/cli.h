/* cli.h - the parsed command line (SPEC 2), shared by main.c and commands.c.
 *
 * main.c fills a tl_cli with getopt_long and hands it to tl_commands_run;
 * commands never parse argv themselves. Strings point into argv (borrowed).
 */
#ifndef TL_CLI_H
#define TL_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status (SPEC 2). */
enum {
    TL_EXIT_OK = 0,       /* success; check: the sheet passes */
    TL_EXIT_FAIL = 1,     /* graded and below the threshold */
    TL_EXIT_USAGE = 2,    /* usage error or invalid input */
    TL_EXIT_INTERNAL = 3  /* bug, out of memory, device failure */
};


typedef enum tl_devreq { TL_DEVREQ_AUTO = 0, TL_DEVREQ_CPU, TL_DEVREQ_CUDA } tl_devreq;
typedef enum tl_color { TL_COLOR_AUTO = 0, TL_COLOR_ALWAYS, TL_COLOR_NEVER } tl_color;

typedef struct tl_cli {
    const char *command;    /* "check", "run", "grade", "explain", "new", "key" */
    tl_format format;
    const char *output;     /* -o/--output FILE, NULL for stdout */
    tl_devreq device;
    bool device_set;        /* --device given (overrides the lab's device:) */
    bool require_gpu;       /* --require-gpu */
    tl_color color;
    bool quiet;             /* -q */
    int jobs;               /* --jobs N (grade), default 1 */
    const char *master;     /* grade/check --lab MASTER.yaml (the first) */
    const char **masters;   /* grade --by-student: every --lab, when more than one */
    size_t nmasters;        /* 0 when --lab was given at most once */
    bool by_student;        /* grade --by-student */
    size_t max_bytes;       /* --max-bytes, default 1 GiB */
    double timeout;         /* --timeout seconds per op, default 2 */
    double sheet_timeout;   /* --sheet-timeout CPU seconds per sheet, default 60 */
    bool follow_links;      /* --follow-links: read lab files through symlinks */
    bool blank;             /* autograder --blank: a filled-in master is blanked for students */
    bool force;             /* autograder --force: overwrite an existing -o */
    const char *image;      /* autograder prairielearn --image IMAGE, NULL: the default */
    bool keep_explanations; /* new --keep-explanations */
    const char *student;    /* new --student ID (issue #29: variants) */
    const char *keyfile;    /* new/grade/check --key FILE */
    bool variants;          /* key --variants */
    const char *student_from; /* check --student-from PLATFORM:FILE */
    const char **stmts;     /* explain -s STMT (repeatable) */
    size_t nstmts;
    char **args;            /* operands: files, or the expression for explain */
    int nargs;
} tl_cli;

#ifdef __cplusplus
}
#endif

#endif
