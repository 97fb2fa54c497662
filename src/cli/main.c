/* main.c - the tlab command line (SPEC 2): parse options, map exit codes.
 *
 * One getopt_long pass over the whole argv: options may come before or after
 * operands, whatever POSIXLY_CORRECT says, and `--` ends them. The first
 * operand is the command; the rest are its operands. Nothing is executed
 * here: the parsed tl_cli goes to tl_commands_run (commands.c), or
 * `--run-tests FILE` (hidden, for the test suite) goes to tl_golden_run
 * (golden.c).
 *
 * Errors are collected while parsing and only the first one is reported,
 * after the loop, when the command is known: one line naming the problem and
 * one hint line (`Try 'tlab --help'.` or `Try 'tlab CMD --help'.`), exit 2.
 * Every option belongs to a set of commands (the table below); an option
 * given to a command that does not take it is a usage error, as is a format
 * that the command cannot write.
 *
 * SIGINT and SIGTERM remove the temporary file of an atomic -o write before
 * the process dies of the signal (util.h tl_tempfile_*), so an interrupted
 * run never leaves a `.tlab-out-XXXXXX` behind.
 *
 * SIGPIPE is ignored: standard output closed by its reader (`tlab grade |
 * head`) is a normal end, as for `git log | head`. The write fails with
 * EPIPE, nothing more is written, no message is printed and the exit status
 * is the command's own (output.c, and the final flush below).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include "platform.h"
#if TL_HAVE_SIGNALS
#include <signal.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cli.h"
#include "commands.h"
#include "backend.h"
#include "exec.h"
#include "golden.h"
#include "util.h"

/* ---- options ---------------------------------------------------------- */

enum {
    OPT_FORMAT = 256,
    OPT_OUTPUT,
    OPT_DEVICE,
    OPT_REQUIRE_GPU,
    OPT_COLOR,
    OPT_QUIET,
    OPT_JOBS,
    OPT_LAB,
    OPT_STMT,
    OPT_MAX_BYTES,
    OPT_TIMEOUT,
    OPT_SHEET_TIMEOUT,
    OPT_FOLLOW_LINKS,
    OPT_BLANK,
    OPT_FORCE,
    OPT_IMAGE,
    OPT_KEEP_EXPLANATIONS,
    OPT_STUDENT,
    OPT_KEY,
    OPT_VARIANTS,
    OPT_STUDENT_FROM,
    OPT_BY_STUDENT,
    OPT_HELP,
    OPT_VERSION,
    OPT_RUN_TESTS
};

/* Bit of an option in a command's `opts` mask. */
#define BIT(o) (1u << ((o) - OPT_FORMAT))

/* Options that execute ops take the runtime knobs. */
#define EXEC_OPTS (BIT(OPT_DEVICE) | BIT(OPT_REQUIRE_GPU) | BIT(OPT_MAX_BYTES) | BIT(OPT_TIMEOUT) | \
                   BIT(OPT_SHEET_TIMEOUT) | BIT(OPT_FOLLOW_LINKS))
/* The last option counted in a command's mask. */
#define OPT_LAST_MASKED OPT_BY_STUDENT
#define OUT_OPTS (BIT(OPT_OUTPUT) | BIT(OPT_COLOR) | BIT(OPT_QUIET))

static const struct option longopts[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"require-gpu", no_argument, NULL, OPT_REQUIRE_GPU},
    {"color", required_argument, NULL, OPT_COLOR},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"lab", required_argument, NULL, OPT_LAB},
    {"stmt", required_argument, NULL, OPT_STMT},
    {"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"sheet-timeout", required_argument, NULL, OPT_SHEET_TIMEOUT},
    {"follow-links", no_argument, NULL, OPT_FOLLOW_LINKS},
    {"blank", no_argument, NULL, OPT_BLANK},
    {"force", no_argument, NULL, OPT_FORCE},
    {"image", required_argument, NULL, OPT_IMAGE},
    {"keep-explanations", no_argument, NULL, OPT_KEEP_EXPLANATIONS},
    {"student", required_argument, NULL, OPT_STUDENT},
    {"key", required_argument, NULL, OPT_KEY},
    {"variants", no_argument, NULL, OPT_VARIANTS},
    {"student-from", required_argument, NULL, OPT_STUDENT_FROM},
    {"by-student", no_argument, NULL, OPT_BY_STUDENT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"run-tests", required_argument, NULL, OPT_RUN_TESTS}, /* hidden */
    {NULL, 0, NULL, 0}};

/* '-': operands come back in order as option 1 (immune to POSIXLY_CORRECT);
 * ':': a missing argument returns ':' instead of '?'. */
static const char shortopts[] = "-:o:qs:h";

/* Help lines of the options, in --help order. */
static const struct {
    int opt;
    const char *spelling; /* as shown in help */
    const char *text;
} opthelp[] = {
    {OPT_FORMAT, "    --format FMT", "output format (see Formats below)"},
    {OPT_OUTPUT, "-o, --output FILE", "write to FILE (atomically) instead of stdout"},
    {OPT_DEVICE, "    --device DEV", "auto (default), cpu or cuda; overrides the lab's device:"},
    {OPT_REQUIRE_GPU, "    --require-gpu", "fail (exit 2) unless a real GPU runs the ops"},
    {OPT_COLOR, "    --color WHEN", "auto (default: only on a tty, never with NO_COLOR), always, never"},
    {OPT_QUIET, "-q, --quiet", "print less (only the summary and errors)"},
    {OPT_JOBS, "    --jobs N", "grade N submissions in parallel (default 1)"},
    {OPT_LAB, "    --lab FILE", "the master lab that submissions are graded against (explain: the lab of OP-ID)"},
    {OPT_STMT, "-s, --stmt STMT", "run the statement STMT before EXPR (repeatable)"},
    {OPT_MAX_BYTES, "    --max-bytes N", "limit on live tensor storage; suffixes K, M, G (default 1G)"},
    {OPT_TIMEOUT, "    --timeout SECONDS", "time limit per op (default 2)"},
    {OPT_SHEET_TIMEOUT, "    --sheet-timeout S", "CPU seconds for a whole sheet or submission (default 60)"},
    {OPT_FOLLOW_LINKS, "    --follow-links", "read lab files through symbolic links (default: refuse)"},
    {OPT_BLANK, "    --blank", "autograder: accept a filled-in master; students get it blanked"},
    {OPT_FORCE, "    --force", "autograder: overwrite an existing OUT"},
    {OPT_IMAGE, "    --image IMAGE", "prairielearn: the grader image (default tlab/tlab:VERSION)"},
    {OPT_KEEP_EXPLANATIONS, "    --keep-explanations", "keep the ops' explanation: text in the blank sheet"},
    {OPT_STUDENT, "    --student ID", "new: whose variant's sheet to write (with --key); check --lab: who hands it in"},
    {OPT_KEY, "    --key FILE", "the instructor's secret for variants: new picks, grade checks tags"},
    {OPT_VARIANTS, "    --variants", "key: the verdict of every op in each of the lab's variants"},
    {OPT_STUDENT_FROM, "    --student-from F", "check --lab: the student id from F, gradescope:FILE or prairielearn:FILE"},
    {OPT_BY_STUDENT, "    --by-student", "grade: each student's profile across the labs of several --lab"},
};

/* ---- formats ---------------------------------------------------------- */

static const struct {
    const char *name;
    tl_format fmt;
} formats[] = {
    {"text", TL_FMT_TEXT},           {"json", TL_FMT_JSON},
    {"junit", TL_FMT_JUNIT},         {"tap", TL_FMT_TAP},
    {"gradescope", TL_FMT_GRADESCOPE}, {"prairielearn", TL_FMT_PRAIRIELEARN},
    {"github", TL_FMT_GITHUB},       {"csv", TL_FMT_CSV},
    {"jsonl", TL_FMT_JSONL},         {"html", TL_FMT_HTML},
};

#define FMT(f) (1u << (f))
#define REPORT_FORMATS                                                          \
    (FMT(TL_FMT_TEXT) | FMT(TL_FMT_JSON) | FMT(TL_FMT_JUNIT) | FMT(TL_FMT_TAP) |  \
     FMT(TL_FMT_GRADESCOPE) | FMT(TL_FMT_PRAIRIELEARN) | FMT(TL_FMT_GITHUB))
/* run grades nothing: no grading formats (gradescope, prairielearn) */
#define RUN_FORMATS (REPORT_FORMATS & ~(FMT(TL_FMT_GRADESCOPE) | FMT(TL_FMT_PRAIRIELEARN)))
/* html is a graded page: check's scorecard, grade's class report */
#define CHECK_FORMATS (REPORT_FORMATS | FMT(TL_FMT_HTML))
#define GRADE_FORMATS (FMT(TL_FMT_CSV) | FMT(TL_FMT_JSONL) | CHECK_FORMATS)

/* ---- commands --------------------------------------------------------- */

typedef struct command {
    const char *name;
    const char *operands;   /* synopsis after the options */
    const char *summary;    /* one line for `tlab --help` */
    const char *description; /* a paragraph for `tlab CMD --help` */
    unsigned opts;          /* BIT(OPT_*) accepted */
    unsigned formats;       /* FMT(TL_FMT_*) accepted; 0: no --format */
    tl_format default_format; /* what TL_FMT_DEFAULT means for it */
    const char *operand_name; /* for "missing ... operand" */
    int min_args, max_args; /* operand counts; max -1: unbounded */
} command;

static const command commands[] = {
    {"check", "[--lab MASTER.yaml] LAB.yaml",
     "grade the predictions in a filled-in sheet; print a report",
     "Run every op of the lab sheet LAB.yaml on tlab's tensor runtime, compare what\n"
     "really happened with the predictions in the sheet, and print a scorecard.\n"
     "The sheet passes when enough ops are right (the lab's threshold) and every\n"
     "question and required rule passes its checks. With --lab MASTER.yaml the\n"
     "sheet is graded exactly as `grade` does: on the master's setup, ops, accept\n"
     "lists, threshold and checks (use this in autograders).\n",
     BIT(OPT_FORMAT) | OUT_OPTS | EXEC_OPTS | BIT(OPT_LAB) | BIT(OPT_KEY) | BIT(OPT_STUDENT) |
         BIT(OPT_STUDENT_FROM),
     CHECK_FORMATS,
     TL_FMT_TEXT,
     "LAB.yaml", 1, 1},
    {"run", "LAB.yaml", "execute every op and report what actually happened (no grading)",
     "Run every op of LAB.yaml and report its verdict (view, copy, alias, error or\n"
     "value) with the evidence: shape, stride, storage offset, shared storage,\n"
     "bytes allocated, write-through probe. Predictions are ignored.\n",
     BIT(OPT_FORMAT) | OUT_OPTS | EXEC_OPTS, RUN_FORMATS, TL_FMT_TEXT, "LAB.yaml", 1, 1},
    {"grade", "--lab MASTER.yaml [--by-student --lab MASTER2.yaml...] SUBMISSION...",
     "grade submissions against the master lab (tamper-proof)",
     "Grade each SUBMISSION sheet against MASTER.yaml: setup, ops, accept lists,\n"
     "threshold and question checks come from the master only; a submission that\n"
     "changed any of them is flagged tampered. One record per submission, then a\n"
     "class summary. An unreadable sheet scores 0 and names its error; every format\n"
     "is still written. Exit 0 when every sheet passes, 1 when one fails, 2 when one\n"
     "could not be read.\n"
     "--by-student (text, json or html; --lab may then be repeated): each student's\n"
     "profile across the labs: the score of each sheet, the labs not handed in, and\n"
     "the misconceptions the student holds with the labs and ops that reveal them.\n"
     "Each sheet is graded on the master whose id: is the sheet's id:. A sheet's\n"
     "student is its student: field when it has one; else, when the file's name less\n"
     ".yaml is a lab id (alice/lab01.yaml), the name of its folder; else the file's\n"
     "name less .yaml (lab01/alice.yaml).\n",
     BIT(OPT_FORMAT) | OUT_OPTS | EXEC_OPTS | BIT(OPT_JOBS) | BIT(OPT_LAB) | BIT(OPT_KEY) |
         BIT(OPT_BY_STUDENT),
     GRADE_FORMATS, TL_FMT_CSV,
     "SUBMISSION", 1, -1},
    {"explain", "[-s STMT]... EXPR | --lab LAB.yaml OP-ID",
     "one expression in depth: metadata, verdict, storage picture",
     "Evaluate the expression EXPR after the statements STMT and explain the result:\n"
     "shape, stride, storage offset, contiguity, the verdict against the parent x,\n"
     "and a picture of the storage it reads (for a copy: which parent slot each\n"
     "element was read from). Quote EXPR for the shell; put `--` before an EXPR\n"
     "that starts with '-'. With --lab, explain the op OP-ID of LAB.yaml on its\n"
     "setup and parent (what `check` suggests for a wrong prediction).\n",
     BIT(OPT_FORMAT) | OUT_OPTS | EXEC_OPTS | BIT(OPT_STMT) | BIT(OPT_LAB),
     FMT(TL_FMT_TEXT) | FMT(TL_FMT_JSON), TL_FMT_TEXT, "EXPR", 1, 1},
    {"new", "MASTER.yaml", "a blank sheet for students (predictions and answers emptied)",
     "Print MASTER.yaml as a blank sheet for students: every prediction, rule,\n"
     "question answer and classify body emptied; the ops' explanation: text (unless\n"
     "--keep-explanations) and accept lists dropped; when MASTER.yaml is itself a\n"
     "filled-in sheet, its comments dropped too. Everything else is kept. With\n"
     "--student ID --key FILE (a lab with variants:), the sheet of that student's\n"
     "variant: its setup, student:, variant: and a tag: that grade --key checks.\n",
     OUT_OPTS | BIT(OPT_FOLLOW_LINKS) | BIT(OPT_KEEP_EXPLANATIONS) | BIT(OPT_STUDENT) |
         BIT(OPT_KEY), 0, TL_FMT_DEFAULT, "MASTER.yaml", 1, 1},
    {"key", "MASTER.yaml", "the answer key, computed by executing the ops",
     "Execute every op of MASTER.yaml and print the answer key: the verdict of each\n"
     "op on the parent and on its variants (non-contiguous, other dtype, other\n"
     "device), from which `sometimes` follows. --variants: a table of each op's\n"
     "verdict in every one of the lab's variants: (text).\n",
     BIT(OPT_FORMAT) | OUT_OPTS | EXEC_OPTS | BIT(OPT_VARIANTS), FMT(TL_FMT_TEXT) | FMT(TL_FMT_JSON), TL_FMT_TEXT,
     "MASTER.yaml", 1, 1},
    {"exec", "FILE.py", "run a script in the op language; print what Python would print",
     "Run FILE.py (- for standard input) with the interpreter and limits of lab\n"
     "setups and print what Python with PyTorch would print. An uncaught exception\n"
     "prints a traceback-like located message and exits 1; a syntax error, an\n"
     "unsupported construct or a limit exits 2.\n",
     BIT(OPT_COLOR) | EXEC_OPTS, 0, TL_FMT_DEFAULT, "FILE.py", 1, 1},
    {"autograder", "gradescope|prairielearn|github|web --lab MASTER.yaml -o OUT",
     "a ready bundle for a grading platform that grades with the master",
     "Write what a grading platform needs to grade sheets against MASTER.yaml with\n"
     "`tlab check --lab` (tamper-proof): gradescope, a zip (setup.sh building tlab\n"
     "from the bundled source tarball, run_autograder, the master); prairielearn, a\n"
     "directory for serverFilesCourse/ (run.sh, the master, the\n"
     "externalGradingOptions for info.json, pointing where -o says); github, a\n"
     "directory for the template repository (the GitHub Classroom workflow with\n"
     "per-test points, a .gitlab-ci.yml job with a JUnit report, .tlab/ and the blank\n"
     "sheet; the master goes in a secret, not in the repository). A master with\n"
     "answers filled in is refused unless --blank; an existing OUT unless --force.\n"
     "The source tarball is $TLAB_TARBALL, or the `make dist` tarball next to the\n"
     "tlab binary. web: a static lab page for students (index.html running\n"
     "tlab.wasm in the browser, the blank lab.yaml) for any static host or file://;\n"
     "tlab.wasm is $TLAB_WASM, next to the tlab binary, or installed.\n",
     BIT(OPT_OUTPUT) | BIT(OPT_LAB) | BIT(OPT_BLANK) | BIT(OPT_FORCE) | BIT(OPT_IMAGE) |
         BIT(OPT_KEY), 0,
     TL_FMT_DEFAULT, "platform", 1, 1},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* ---- suggestions ------------------------------------------------------ */

/* The candidate closest to `word` (see tl_suggest), or NULL when none is
 * close: a unique prefix match wins; equally near ones, the first listed. */
static const char *closest(const char *word, const char *const *cands, size_t n)
{
    return tl_suggest(word, cands, n,
                      TL_SUGGEST_FOLD_CASE | TL_SUGGEST_FIRST | TL_SUGGEST_PREFIX);
}

static const char *closest_command(const char *word)
{
    const char *names[TL_ARRAY_LEN(commands) + 1];
    for (size_t i = 0; i < TL_ARRAY_LEN(commands); i++)
        names[i] = commands[i].name;
    names[TL_ARRAY_LEN(commands)] = "help";
    return closest(word, names, TL_ARRAY_LEN(names));
}

static const char *closest_option(const char *word)
{
    const char *names[TL_ARRAY_LEN(longopts)];
    size_t n = 0;
    for (size_t i = 0; longopts[i].name; i++)
        if (longopts[i].val != OPT_RUN_TESTS)
            names[n++] = longopts[i].name;
    return closest(word, names, n);
}

/* ---- the first error -------------------------------------------------- */

static char first_error[512];

static void TL_PRINTF(1, 2) usage_error(const char *fmt, ...)
{
    if (first_error[0])
        return; /* keep the first */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(first_error, sizeof first_error, fmt, ap);
    va_end(ap);
}

/* Prints the collected error and the hint; returns the usage exit status. */
static int report_usage_error(const command *cmd)
{
    if (cmd)
        fprintf(stderr, "tlab: %s: %s\nTry 'tlab %s --help'.\n", cmd->name, first_error,
                cmd->name);
    else
        fprintf(stderr, "tlab: %s\nTry 'tlab --help'.\n", first_error);
    return TL_EXIT_USAGE;
}

/* ---- value parsers ---------------------------------------------------- */

static bool parse_format(const char *s, tl_format *out)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(formats); i++)
        if (strcmp(formats[i].name, s) == 0) {
            *out = formats[i].fmt;
            return true;
        }
    return false;
}

static const char *format_name(tl_format f)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(formats); i++)
        if (formats[i].fmt == f)
            return formats[i].name;
    return "?";
}

/* "text, json or tap" for the formats in mask, the default `first` first. */
static void format_list(unsigned mask, tl_format first, char *buf, size_t size)
{
    size_t n = 0, total = 0, len = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(formats); i++)
        total += (mask & FMT(formats[i].fmt)) != 0;
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < TL_ARRAY_LEN(formats); i++) {
            if (!(mask & FMT(formats[i].fmt)) || (pass == 0) != (formats[i].fmt == first))
                continue;
            const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
            int w = snprintf(buf + len, size - len, "%s%s", sep, formats[i].name);
            if (w < 0 || (size_t)w >= size - len)
                return;
            len += (size_t)w;
            n++;
        }
}

/* A whole decimal number in [lo, hi]. */
static bool parse_int(const char *s, long lo, long hi, long *out)
{
    if (!isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A byte count: digits, then an optional K, M, G or T (powers of 1024),
 * optionally followed by "B" or "iB" ("512", "64K", "2G", "1GiB"). > 0. */
static bool parse_size(const char *s, size_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
        end += 2;
    else if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v == 0)
        return false;
    if (shift && v > (SIZE_MAX >> shift))
        return false;
    if (v > SIZE_MAX)
        return false;
    *out = (size_t)(v << shift);
    return true;
}

/* Seconds: plain decimal ("2", "0.5", ".25"), > 0 and at most a day. */
static bool parse_seconds(const char *s, double *out)
{
    size_t digits = 0, dots = 0;
    for (const char *p = s; *p; p++) {
        if (isdigit((unsigned char)*p))
            digits++;
        else if (*p == '.')
            dots++;
        else
            return false;
    }
    if (digits == 0 || dots > 1)
        return false;
    double v = strtod(s, NULL);
    if (!(v > 0.0) || v > 86400.0)
        return false;
    *out = v;
    return true;
}

/* ---- help and version ------------------------------------------------- */

static void print_option_help(FILE *f, unsigned mask)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(opthelp); i++)
        if (mask & BIT(opthelp[i].opt))
            fprintf(f, "  %-22s %s\n", opthelp[i].spelling, opthelp[i].text);
    fprintf(f, "  %-22s %s\n", "-h, --help", "show this help and exit");
}

static void print_exit_status(FILE *f)
{
    fputs("\nExit status:\n"
          "  0  success (check: the sheet passes)\n"
          "  1  graded and below the threshold\n"
          "  2  usage error or invalid input (bad YAML, unknown op, unsupported syntax)\n"
          "  3  internal failure (bug, out of memory, device failure)\n",
          f);
}

static void print_general_help(FILE *f)
{
    fputs("Usage: tlab COMMAND [OPTION]... [ARG]...\n"
          "       tlab --help | --version | help COMMAND\n"
          "Grade \"view or copy?\" tensor labs: run every op of a lab sheet on a strided\n"
          "tensor runtime (CPU, or an emulated CUDA device with --device cuda), decide\n"
          "from storage pointers whether it made a view or a copy, and score the\n"
          "predictions.\n"
          "\nCommands:\n",
          f);
    for (size_t i = 0; i < TL_ARRAY_LEN(commands); i++) {
        /* the synopsis whole, however long: a long one gets a line of its own */
        size_t len = strlen(commands[i].name) + 1 + strlen(commands[i].operands);
        fprintf(f, "  %s %s", commands[i].name, commands[i].operands);
        if (len > 26)
            fprintf(f, "\n  %-26s %s\n", "", commands[i].summary);
        else
            fprintf(f, "%*s %s\n", (int)(26 - len), "", commands[i].summary);
    }
    fprintf(f, "  %-26s %s\n", "help COMMAND", "show the help of COMMAND");
    fputs("\nOptions (each command takes those that apply; see 'tlab COMMAND --help'):\n", f);
    unsigned all = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(commands); i++)
        all |= commands[i].opts;
    print_option_help(f, all);
    fprintf(f, "  %-22s %s\n", "    --version", "show the version and build configuration and exit");
    char buf[160];
    fputs("\nFormats:\n", f);
    format_list(CHECK_FORMATS, TL_FMT_TEXT, buf, sizeof buf);
    fprintf(f, "  check:         %s (default text)\n", buf);
    format_list(RUN_FORMATS, TL_FMT_TEXT, buf, sizeof buf);
    fprintf(f, "  run:           %s (default text)\n", buf);
    format_list(GRADE_FORMATS, TL_FMT_CSV, buf, sizeof buf);
    fprintf(f, "  grade:         %s (default csv)\n", buf);
    fputs("  explain, key:  text or json (default text)\n", f);
    print_exit_status(f);
    fputs("\nFull documentation: man tlab\n", f);
}

static void print_command_help(FILE *f, const command *c)
{
    fprintf(f, "Usage: tlab %s [OPTION]... %s\n", c->name, c->operands);
    fprintf(f, "%s\n", c->description);
    fputs("Options:\n", f);
    print_option_help(f, c->opts);
    if (c->formats) {
        char buf[160];
        format_list(c->formats, c->default_format, buf, sizeof buf);
        fprintf(f, "\nFormats: %s (default %s)\n", buf, format_name(c->default_format));
    }
    print_exit_status(f);
}

static void print_version(FILE *f)
{
    fprintf(f, "tlab %s\n", PACKAGE_VERSION);
    fprintf(f, "build: %s\n", TL_BUILD_CONFIG);
#ifdef TL_STATIC_BINARY
    fprintf(f, "linked: static (libyaml, cJSON and libc inside; runs on any x86-64 Linux)\n");
#elif !TL_HAVE_PROCESSES
    fprintf(f, "linked: " TL_PLATFORM_NAME " module (single-threaded)\n");
#endif
    const char *cuda_why;
    (void)tl_backend_cuda_probe(&cuda_why);
    fprintf(f, "cuda: %s\n", cuda_why);
}

/* ---- parsing ---------------------------------------------------------- */

/* Name of the long option whose value is val. */
static const char *long_name(int val)
{
    for (size_t i = 0; longopts[i].name; i++)
        if (longopts[i].val == val)
            return longopts[i].name;
    return "?";
}

/* Describes the option that getopt_long rejected (opterr is 0). glibc sets
 * optopt to the short option character, to the val of a known long option
 * (>= 256) that lacks or must not have an argument, or to 0 for an unknown
 * long option (then argv[optind - 1] is the offending word). */
static void bad_option(int c, char *const argv[])
{
    bool is_short = optopt > 0 && optopt < 256;
    if (c == ':') {
        if (is_short)
            usage_error("option '-%c' requires an argument", optopt);
        else
            usage_error("option '--%s' requires an argument", long_name(optopt));
        return;
    }
    if (is_short) {
        usage_error("invalid option -- '%c'", optopt);
        return;
    }
    if (optopt >= 256) {
        usage_error("option '--%s' doesn't allow an argument", long_name(optopt));
        return;
    }
    const char *arg = argv[optind - 1];
    char name[64];
    const char *body = strncmp(arg, "--", 2) == 0 ? arg + 2 : arg;
    size_t len = strcspn(body, "=");
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, body, len);
    name[len] = '\0';
    size_t matches = 0;
    const char *match = NULL;
    for (size_t i = 0; longopts[i].name; i++)
        if (len > 0 && strncmp(longopts[i].name, name, len) == 0) {
            if (strlen(longopts[i].name) == len) {
                matches = 1;
                match = longopts[i].name;
                break;
            }
            matches++;
            match = longopts[i].name;
        }
    if (matches == 1 && body[len] == '=')
        usage_error("option '--%s' doesn't allow an argument", match);
    else if (matches > 1)
        usage_error("option '--%s' is ambiguous", name);
    else {
        const char *near = closest_option(name);
        if (near)
            usage_error("unrecognized option '--%s' (did you mean '--%s'?)", name, near);
        else
            usage_error("unrecognized option '--%s'", name);
    }
}

/* Parses argv into *cli (operands into the caller's array) and runs the
 * command; returns the exit status. All paths return here: main frees. */
static int parse_and_run(int argc, char **argv, tl_cli *clip, char **operands)
{
    tl_cli cli = *clip;
    const char *format_arg = NULL;
    const char *run_tests = NULL;
    bool want_help = false, want_version = false;
    unsigned given = 0;               /* BIT(OPT_*) of the options present */
    const char *given_name[32] = {0}; /* how each was spelled, for messages */
    int noperands = 0;

    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (c) {
        case 'o': c = OPT_OUTPUT; break;
        case 'q': c = OPT_QUIET; break;
        case 's': c = OPT_STMT; break;
        case 'h': c = OPT_HELP; break;
        default: break;
        }
        if (c >= OPT_FORMAT && c <= OPT_LAST_MASKED) {
            given |= BIT(c);
            for (size_t i = 0; longopts[i].name; i++)
                if (longopts[i].val == c)
                    given_name[c - OPT_FORMAT] = longopts[i].name;
        }
        long n;
        switch (c) {
        case OPT_FORMAT:
            format_arg = optarg;
            if (!parse_format(optarg, &cli.format))
                usage_error("unknown format '%s'", optarg);
            break;
        case OPT_OUTPUT:
            if (optarg[0] == '\0')
                usage_error("empty file name for --output");
            cli.output = strcmp(optarg, "-") == 0 ? NULL : optarg;
            break;
        case OPT_DEVICE:
            cli.device_set = true;
            if (strcmp(optarg, "auto") == 0)
                cli.device = TL_DEVREQ_AUTO;
            else if (strcmp(optarg, "cpu") == 0)
                cli.device = TL_DEVREQ_CPU;
            else if (strcmp(optarg, "cuda") == 0)
                cli.device = TL_DEVREQ_CUDA;
            else
                usage_error("invalid --device '%s' (expected auto, cpu or cuda)", optarg);
            break;
        case OPT_REQUIRE_GPU: cli.require_gpu = true; break;
        case OPT_COLOR:
            if (strcmp(optarg, "auto") == 0)
                cli.color = TL_COLOR_AUTO;
            else if (strcmp(optarg, "always") == 0)
                cli.color = TL_COLOR_ALWAYS;
            else if (strcmp(optarg, "never") == 0)
                cli.color = TL_COLOR_NEVER;
            else
                usage_error("invalid --color '%s' (expected auto, always or never)", optarg);
            break;
        case OPT_QUIET: cli.quiet = true; break;
        case OPT_JOBS:
            if (parse_int(optarg, 1, 1024, &n))
                cli.jobs = (int)n;
            else
                usage_error("invalid --jobs '%s' (expected a whole number from 1 to 1024)", optarg);
            if (!TL_HAVE_THREADS && cli.jobs > 1)
                usage_error("--jobs %d is unavailable in this build (" TL_PLATFORM_NAME
                            " has no threads): use --jobs 1", cli.jobs);
            break;
        case OPT_LAB:
            if (optarg[0] == '\0')
                usage_error("empty file name for --lab");
            if (cli.master && cli.nmasters == 0)
                cli.masters[cli.nmasters++] = cli.master;
            if (cli.master)
                cli.masters[cli.nmasters++] = optarg;
            cli.master = cli.master ? cli.master : optarg;
            break;
        case OPT_STMT: cli.stmts[cli.nstmts++] = optarg; break;
        case OPT_MAX_BYTES:
            if (!parse_size(optarg, &cli.max_bytes))
                usage_error("invalid --max-bytes '%s' (expected a byte count > 0 such as 65536, 512M or 2G)",
                            optarg);
            break;
        case OPT_TIMEOUT:
            if (!parse_seconds(optarg, &cli.timeout))
                usage_error("invalid --timeout '%s' (expected seconds, more than 0 and at most 86400, such as 2 or 0.5)",
                            optarg);
            break;
        case OPT_SHEET_TIMEOUT:
            if (!parse_seconds(optarg, &cli.sheet_timeout))
                usage_error("invalid --sheet-timeout '%s' (expected seconds, more than 0 and at most 86400, such as 60)",
                            optarg);
            break;
        case OPT_FOLLOW_LINKS: cli.follow_links = true; break;
        case OPT_BLANK: cli.blank = true; break;
        case OPT_FORCE: cli.force = true; break;
        case OPT_IMAGE:
            if (optarg[0] == '\0')
                usage_error("empty image name for --image");
            cli.image = optarg;
            break;
        case OPT_KEEP_EXPLANATIONS: cli.keep_explanations = true; break;
        case OPT_STUDENT: cli.student = optarg; break;
        case OPT_KEY:
            if (optarg[0] == '\0')
                usage_error("empty file name for --key");
            cli.keyfile = optarg;
            break;
        case OPT_VARIANTS: cli.variants = true; break;
        case OPT_STUDENT_FROM: cli.student_from = optarg; break;
        case OPT_BY_STUDENT: cli.by_student = true; break;
        case OPT_HELP: want_help = true; break;
        case OPT_VERSION: want_version = true; break;
        case OPT_RUN_TESTS: run_tests = optarg; break;
        case 1: operands[noperands++] = optarg; break;
        default: bad_option(c, argv); break;
        }
    }

    /* The command and its operands. */
    const command *cmd = NULL;
    bool help_command = false;
    while (optind < argc) /* after `--` */
        operands[noperands++] = argv[optind++];
    int first = 0;
    if (noperands > 0) {
        cli.command = operands[first++];
        if (strcmp(cli.command, "help") == 0) {
            help_command = true;
        } else if (!(cmd = find_command(cli.command))) {
            const char *near = closest_command(cli.command);
            if (near)
                usage_error("'%s' is not a tlab command (did you mean '%s'?)", cli.command, near);
            else
                usage_error("'%s' is not a tlab command", cli.command);
        }
    }
    cli.args = operands + first;
    cli.nargs = noperands - first;
    *clip = cli;

    if (first_error[0])
        return report_usage_error(cmd);

    /* Informational requests first: they need no valid operands. */
    if (help_command) {
        if (given || want_version || run_tests) {
            usage_error("'help' takes only a command name");
            return report_usage_error(NULL);
        }
        if (cli.nargs == 0) {
            print_general_help(stdout);
            return TL_EXIT_OK;
        }
        if (cli.nargs > 1) {
            usage_error("'help' takes one command name, not %d", cli.nargs);
            return report_usage_error(NULL);
        }
        const command *which = find_command(cli.args[0]);
        if (!which) {
            const char *near = closest_command(cli.args[0]);
            if (near)
                usage_error("no help for '%s': not a tlab command (did you mean '%s'?)",
                            cli.args[0], near);
            else
                usage_error("no help for '%s': not a tlab command", cli.args[0]);
            return report_usage_error(NULL);
        }
        print_command_help(stdout, which);
        return TL_EXIT_OK;
    }
    if (want_help) {
        if (cmd)
            print_command_help(stdout, cmd);
        else
            print_general_help(stdout);
        return TL_EXIT_OK;
    }
    if (want_version) {
        print_version(stdout);
        return TL_EXIT_OK;
    }
    if (run_tests) {
        if (cmd || given) {
            usage_error("--run-tests takes a file and nothing else");
            return report_usage_error(NULL);
        }
        fflush(stdout);
        return tl_golden_run(run_tests);
    }
    if (!cmd) {
        /* every command of the table, and help */
        tl_buf names = {0};
        for (size_t i = 0; i < TL_ARRAY_LEN(commands); i++)
            tl_buf_printf(&names, "%s%s", i ? ", " : "", commands[i].name);
        usage_error("missing command (%s or help)", tl_buf_str(&names));
        tl_buf_free(&names);
        return report_usage_error(NULL);
    }

    /* Options the command does not take. */
    unsigned extra = given & ~cmd->opts;
    if (extra) {
        for (int o = OPT_FORMAT; o <= OPT_LAST_MASKED; o++)
            if (extra & BIT(o)) {
                usage_error("option '--%s' does not apply to this command", given_name[o - OPT_FORMAT]);
                break;
            }
        return report_usage_error(cmd);
    }
    if (format_arg && !(cmd->formats & FMT(cli.format))) {
        char buf[160];
        format_list(cmd->formats, cmd->default_format, buf, sizeof buf);
        usage_error("cannot write format '%s' (choose %s)", format_name(cli.format), buf);
        return report_usage_error(cmd);
    }
    if (cli.require_gpu && cli.device == TL_DEVREQ_CPU) {
        usage_error("--require-gpu contradicts --device cpu");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "autograder") == 0 && (!cli.master || !cli.output)) {
        usage_error("missing %s", !cli.master ? "--lab MASTER.yaml (the master lab to grade against)"
                                              : "-o OUT (the zip or directory to write)");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "explain") == 0 && cli.master && cli.nstmts) {
        usage_error("-s does not apply with --lab (the lab's setup runs first)");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "new") == 0 && !cli.student != !cli.keyfile) {
        usage_error("--student and --key go together (the student's variant comes from both)");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "check") == 0 && cli.student && cli.student_from) {
        usage_error("--student and --student-from are one choice: give one");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "check") == 0 && (cli.keyfile || cli.student || cli.student_from) &&
        !cli.master) {
        usage_error("--%s needs --lab MASTER.yaml (sheets are checked against the master)",
                    cli.keyfile ? "key" : "student");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "key") == 0 && cli.variants && cli.format == TL_FMT_JSON) {
        usage_error("--variants writes text only");
        return report_usage_error(cmd);
    }
    if (strcmp(cmd->name, "grade") == 0 && !cli.master) {
        usage_error("missing --lab MASTER.yaml (the master lab to grade against)");
        return report_usage_error(cmd);
    }
    if (cli.nmasters > 1 && !cli.by_student) {
        usage_error("--lab given %zu times: several masters need --by-student", cli.nmasters);
        return report_usage_error(cmd);
    }
    if (cli.by_student && format_arg && cli.format != TL_FMT_TEXT &&
        cli.format != TL_FMT_JSON && cli.format != TL_FMT_HTML) {
        usage_error("--by-student writes text, json or html, not '%s'", format_name(cli.format));
        return report_usage_error(cmd);
    }
    if (cli.nargs < cmd->min_args) {
        usage_error("missing %s operand", cmd->operand_name);
        return report_usage_error(cmd);
    }
    if (cmd->max_args >= 0 && cli.nargs > cmd->max_args) {
        usage_error("unexpected extra operand '%s'", cli.args[cmd->max_args]);
        return report_usage_error(cmd);
    }

    fflush(stdout);
    int rc;
    if (strcmp(cmd->name, "exec") == 0) {
        rc = tl_exec_run(&cli);
    } else {
        rc = tl_commands_run(&cli);
    }
    if (rc < TL_EXIT_OK || rc > TL_EXIT_INTERNAL) {
        fprintf(stderr, "tlab: internal error: '%s' returned status %d\n", cmd->name, rc);
        rc = TL_EXIT_INTERNAL;
    }
    return rc;
}

/* Is standard output a pipe whose reader has gone (`| head` done)? A
 * write there fails with EPIPE; the pipe itself says so, whatever errno
 * holds by now (POLLERR on the write end of a pipe with no reader). */
static bool stdout_reader_gone(void)
{
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode))
        return false;
    struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int main(int argc, char **argv)
{
    tl_tempfile_install_handlers();
#if TL_HAVE_SIGNALS
    signal(SIGPIPE, SIG_IGN);
#endif
    tl_cli cli = {
        .format = TL_FMT_DEFAULT,
        .device = TL_DEVREQ_AUTO,
        .color = TL_COLOR_AUTO,
        .jobs = 1,
        .max_bytes = TL_DEFAULT_MAX_BYTES,
        .timeout = TL_DEFAULT_TIMEOUT,
        .sheet_timeout = TL_DEFAULT_SHEET_TIMEOUT,
    };
    /* At most argc statements and operands. */
    cli.stmts = tl_xcalloc((size_t)argc + 1, sizeof *cli.stmts);
    cli.masters = tl_xcalloc((size_t)argc + 1, sizeof *cli.masters);
    char **operands = tl_xcalloc((size_t)argc + 1, sizeof *operands);

    int rc = parse_and_run(argc, argv, &cli, operands);

    free(cli.stmts);
    free(cli.masters);
    free(operands);
    if ((fflush(stdout) != 0 || ferror(stdout)) && !stdout_reader_gone()) {
        fprintf(stderr, "tlab: error writing to standard output: %s\n", strerror(errno));
        if (rc == TL_EXIT_OK)
            rc = TL_EXIT_INTERNAL;
    }
    return rc;
}
