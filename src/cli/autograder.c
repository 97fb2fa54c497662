/* autograder.c - `tlab autograder gradescope|prairielearn|github`: a bundle
 * that drops tlab into the grader a course already runs (SPEC 2).
 *
 * Every target grades through one path only: `tlab check --lab MASTER SHEET`,
 * the tamper-proof grading of `grade` (setup, ops, accept lists, threshold and
 * checks come from the master, whatever the sheet says). The scripts written
 * here only find the one sheet, call that, and turn "no sheet", "two sheets"
 * or "tlab could not run" into a score-0 result with a message, so the
 * platform never shows a bare crash.
 *
 * - gradescope: a zip (stored, written here: no zip tool needed) holding
 *   setup.sh (apt-get the build dependencies, build and install tlab from
 *   the bundled `make dist` tarball), run_autograder and master.yaml.
 * - prairielearn: a directory for serverFilesCourse/tlab/: run.sh, the
 *   master, and the externalGradingOptions snippet for info.json.
 * - github: a directory to copy into the assignment's template repository:
 *   the GitHub Classroom workflow (autograding-command-grader and
 *   autograding-grading-reporter), a .gitlab-ci.yml job with a JUnit report,
 *   .tlab/ (master and tarball) and the blank sheet.
 *
 * The source tarball is $TLAB_TARBALL, else tlab-VERSION.tar.gz next to the
 * running binary (where `make dist` leaves it in a build tree), else in the
 * current directory. Templates use @NAME@ placeholders, replaced verbatim.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "autograder.h"
#include "lab.h"
#include "output.h"
#include "util.h"

#define TARBALL_MAX ((size_t)256 << 20) /* 256 MiB: far above a real dist */
#define MASTER_MAX ((size_t)16 << 20)

/* ---- crc32 and the stored zip ----------------------------------------- */

uint32_t tl_autograder_crc32(const void *data, size_t len)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void put16(tl_buf *b, unsigned v)
{
    char s[2] = {(char)(v & 0xFF), (char)((v >> 8) & 0xFF)};
    tl_buf_append(b, s, 2);
}

static void put32(tl_buf *b, uint32_t v)
{
    put16(b, v & 0xFFFF);
    put16(b, v >> 16);
}

/* 1980-01-01 00:00: a fixed date, so the same inputs give the same zip. */
#define DOS_TIME 0
#define DOS_DATE ((0 << 9) | (1 << 5) | 1)

int tl_autograder_zip(const tl_zip_entry *e, size_t n, char **out, size_t *outlen)
{
    tl_buf b = {0};
    uint32_t *offs = tl_xcalloc(n ? n : 1, sizeof *offs);
    uint32_t *crcs = tl_xcalloc(n ? n : 1, sizeof *crcs);
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name);
        if (e[i].len >= 0xFFFFFFFFu || nl > 0xFFFF || b.len >= 0xFFFFFFFFu - e[i].len - 30 - nl) {
            free(offs), free(crcs), tl_buf_free(&b);
            return -1;
        }
        offs[i] = (uint32_t)b.len;
        crcs[i] = tl_autograder_crc32(e[i].data, e[i].len);
        put32(&b, 0x04034b50u);  /* local file header */
        put16(&b, 10);           /* version needed: 1.0 */
        put16(&b, 0);            /* flags */
        put16(&b, 0);            /* method: stored */
        put16(&b, DOS_TIME);
        put16(&b, DOS_DATE);
        put32(&b, crcs[i]);
        put32(&b, (uint32_t)e[i].len);
        put32(&b, (uint32_t)e[i].len);
        put16(&b, (unsigned)nl);
        put16(&b, 0);            /* extra */
        tl_buf_append(&b, e[i].name, nl);
        tl_buf_append(&b, e[i].data, e[i].len);
    }
    size_t cd = b.len;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name);
        put32(&b, 0x02014b50u);  /* central directory header */
        put16(&b, (3 << 8) | 20); /* made by: Unix, 2.0 (modes are meaningful) */
        put16(&b, 10);
        put16(&b, 0);
        put16(&b, 0);
        put16(&b, DOS_TIME);
        put16(&b, DOS_DATE);
        put32(&b, crcs[i]);
        put32(&b, (uint32_t)e[i].len);
        put32(&b, (uint32_t)e[i].len);
        put16(&b, (unsigned)nl);
        put16(&b, 0);            /* extra */
        put16(&b, 0);            /* comment */
        put16(&b, 0);            /* disk */
        put16(&b, 0);            /* internal attributes */
        put32(&b, (uint32_t)(0100000u | (e[i].mode & 07777)) << 16);
        put32(&b, offs[i]);
        tl_buf_append(&b, e[i].name, nl);
    }
    size_t cdlen = b.len - cd;
    put32(&b, 0x06054b50u);      /* end of central directory */
    put16(&b, 0);
    put16(&b, 0);
    put16(&b, (unsigned)n);
    put16(&b, (unsigned)n);
    put32(&b, (uint32_t)cdlen);
    put32(&b, (uint32_t)cd);
    put16(&b, 0);
    free(offs);
    free(crcs);
    *outlen = b.len;
    *out = tl_buf_steal(&b);
    return 0;
}

/* ---- templates --------------------------------------------------------- */

/* The Debian/Ubuntu packages that build tlab (configure.ac's checks). */
#define BUILD_DEPS "build-essential pkg-config libyaml-dev libcjson-dev check"

/* Shell: print $1 as the inside of a JSON string (controls dropped, \ and "
 * escaped, newlines as \n). */
#define SH_JSON_ESCAPE                                                               \
    "json_escape() {\n"                                                              \
    "    printf '%s' \"$1\" | tr -d '\\000-\\011\\013-\\037' |\n"                    \
    "        sed -e 's/\\\\/\\\\\\\\/g' -e 's/\"/\\\\\"/g' |\n"                      \
    "        awk 'NR > 1 { printf \"\\\\n\" } { printf \"%s\", $0 }'\n"              \
    "}\n"

/* Shell: find the one sheet in $SUB (sets $sheet) or call zero MESSAGE. */
#define SH_FIND_SHEET                                                                \
    "n=0\n"                                                                          \
    "for f in \"$SUB\"/*.yaml \"$SUB\"/*.yml; do\n"                                  \
    "    [ -f \"$f\" ] || continue\n"                                                \
    "    n=$((n + 1))\n"                                                             \
    "    sheet=$f\n"                                                                 \
    "done\n"                                                                         \
    "[ \"$n\" -gt 0 ] || zero \"No sheet found: submit your filled-in @SHEET@ (one .yaml file).\"\n" \
    "[ \"$n\" -eq 1 ] || zero \"Found $n .yaml files: submit only your filled-in @SHEET@.\"\n"

/* Shell: grade $sheet into $OUT in format $FMT; a tlab failure that wrote
 * nothing becomes zero with its message. */
#define SH_GRADE                                                                     \
    "rm -f \"$OUT\"\n"                                                               \
    "err=$(mktemp) || exit 1\n"                                                      \
    "\"$TLAB\" check --lab \"$MASTER\" --format \"$FMT\" -o \"$OUT\" \"$sheet\" 2> \"$err\"\n" \
    "rc=$?\n"                                                                        \
    "msg=$(head -c 4000 \"$err\")\n"                                                 \
    "rm -f \"$err\"\n"                                                               \
    "if [ \"$rc\" -le 2 ] && [ -s \"$OUT\" ]; then\n"                                \
    "    exit 0\n"                                                                   \
    "fi\n"                                                                           \
    "zero \"tlab could not grade $(basename \"$sheet\") (exit $rc): $msg\"\n"

static const char gs_run[] =
    "#!/bin/sh\n"
    "# run_autograder - written by `tlab autograder gradescope` (tlab @VERSION@).\n"
    "# Gradescope runs it once per submission: it grades the one .yaml sheet in\n"
    "# $ROOT/submission against $ROOT/source/master.yaml with tlab's tamper-proof\n"
    "# path (`tlab check --lab MASTER SHEET`: setup, ops, accept lists, threshold\n"
    "# and checks come from the master) and writes $ROOT/results/results.json.\n"
    "# ROOT is /autograder (TLAB_AUTOGRADER_ROOT overrides it); TLAB is the binary.\n"
    "ROOT=${TLAB_AUTOGRADER_ROOT:-/autograder}\n"
    "TLAB=${TLAB:-tlab}\n"
    "MASTER=$ROOT/source/master.yaml\n"
    "SUB=$ROOT/submission\n"
    "OUT=$ROOT/results/results.json\n"
    "FMT=gradescope\n"
    "mkdir -p \"$ROOT/results\" || exit 1\n"
    "\n" SH_JSON_ESCAPE
    "\n"
    "# A results.json scoring 0 with the message $1.\n"
    "zero() {\n"
    "    printf '{\"score\": 0, \"output\": \"%s\", \"tests\": []}\\n' \"$(json_escape \"$1\")\" > \"$OUT\"\n"
    "    exit 0\n"
    "}\n"
    "\n" SH_FIND_SHEET "\n" SH_GRADE;

static const char gs_setup[] =
    "#!/bin/sh\n"
    "# setup.sh - written by `tlab autograder gradescope` (tlab @VERSION@).\n"
    "# Gradescope runs it once, as root, when it builds the autograder image:\n"
    "# install the build dependencies, build tlab from the bundled source\n"
    "# tarball (`make dist`) and install it on the PATH.\n"
    "set -eu\n"
    "cd \"$(dirname \"$0\")\"\n"
    "export DEBIAN_FRONTEND=noninteractive\n"
    "apt-get update\n"
    "apt-get install -y --no-install-recommends " BUILD_DEPS "\n"
    "rm -rf tlab-src\n"
    "mkdir tlab-src\n"
    "tar xzf tlab.tar.gz -C tlab-src --strip-components=1\n"
    "cd tlab-src\n"
    "./configure --prefix=/usr/local\n"
    "make -j\"$(nproc)\"\n"
    "make install\n"
    "tlab --version\n";

static const char pl_run[] =
    "#!/bin/sh\n"
    "# run.sh - written by `tlab autograder prairielearn` (tlab @VERSION@).\n"
    "# PrairieLearn's external grader entrypoint: grades the one .yaml sheet in\n"
    "# $ROOT/student against master.yaml (next to this script) with tlab's\n"
    "# tamper-proof path and writes $ROOT/results/results.json.\n"
    "# ROOT is /grade (TLAB_GRADE_ROOT overrides it); TLAB is the binary.\n"
    "ROOT=${TLAB_GRADE_ROOT:-/grade}\n"
    "TLAB=${TLAB:-tlab}\n"
    "MASTER=$(cd \"$(dirname \"$0\")\" && pwd)/master.yaml\n"
    "SUB=$ROOT/student\n"
    "OUT=$ROOT/results/results.json\n"
    "FMT=prairielearn\n"
    "mkdir -p \"$ROOT/results\" || exit 1\n"
    "\n" SH_JSON_ESCAPE
    "\n"
    "# A results.json scoring 0 with the message $1.\n"
    "zero() {\n"
    "    printf '{\"gradable\": true, \"score\": 0, \"message\": \"%s\", \"tests\": []}\\n' \"$(json_escape \"$1\")\" > \"$OUT\"\n"
    "    exit 0\n"
    "}\n"
    "\n" SH_FIND_SHEET "\n" SH_GRADE;

static const char pl_options[] =
    "{\n"
    "  \"externalGradingOptions\": {\n"
    "    \"enabled\": true,\n"
    "    \"image\": \"tlab:@VERSION@\",\n"
    "    \"serverFilesCourse\": [\"tlab/\"],\n"
    "    \"entrypoint\": \"/grade/serverFilesCourse/tlab/run.sh\",\n"
    "    \"timeout\": 120\n"
    "  }\n"
    "}\n";

/* Shell lines (a YAML block) that build and install tlab from .tlab/. */
#define YAML_BUILD(indent, sudo)                                                     \
    indent sudo "apt-get update\n"                                                   \
    indent sudo "apt-get install -y --no-install-recommends " BUILD_DEPS "\n"        \
    indent "mkdir -p \"$TLAB_BUILD\"\n"                                              \
    indent "tar xzf .tlab/tlab.tar.gz -C \"$TLAB_BUILD\" --strip-components=1\n"     \
    indent "(cd \"$TLAB_BUILD\" && ./configure --prefix=\"$TLAB_PREFIX\" && make -j\"$(nproc)\" && make install)\n"

static const char gh_workflow[] =
    "# Written by `tlab autograder github` (tlab @VERSION@): GitHub Classroom\n"
    "# autograding. tlab is built from .tlab/tlab.tar.gz; the sheet is graded\n"
    "# against .tlab/master.yaml with `tlab check --lab` (tamper-proof grading).\n"
    "name: Autograding Tests\n"
    "on: [push, repository_dispatch, workflow_dispatch]\n"
    "permissions:\n"
    "  checks: write\n"
    "  actions: read\n"
    "  contents: read\n"
    "jobs:\n"
    "  run-autograding-tests:\n"
    "    runs-on: ubuntu-latest\n"
    "    if: github.actor != 'github-classroom[bot]'\n"
    "    steps:\n"
    "      - name: Checkout code\n"
    "        uses: actions/checkout@v4\n"
    "      - name: Build tlab\n"
    "        env:\n"
    "          TLAB_BUILD: ${{ runner.temp }}/tlab-src\n"
    "          TLAB_PREFIX: ${{ runner.temp }}/tlab\n"
    "        run: |\n"
    YAML_BUILD("          ", "sudo ")
    "          echo \"$TLAB_PREFIX/bin\" >> \"$GITHUB_PATH\"\n"
    "      - name: tlab\n"
    "        id: tlab\n"
    "        uses: classroom-resources/autograding-command-grader@v1\n"
    "        with:\n"
    "          test-name: tlab @SHEET@\n"
    "          setup-command: tlab --version\n"
    "          command: tlab check --lab .tlab/master.yaml --format github @SHEET@\n"
    "          timeout: 10\n"
    "          max-score: 1\n"
    "      - name: Autograding Reporter\n"
    "        uses: classroom-resources/autograding-grading-reporter@v1\n"
    "        env:\n"
    "          TLAB_RESULTS: \"${{ steps.tlab.outputs.result }}\"\n"
    "        with:\n"
    "          runners: tlab\n";

static const char gl_ci[] =
    "# Written by `tlab autograder github` (tlab @VERSION@): the GitLab CI job.\n"
    "# Builds tlab from .tlab/tlab.tar.gz, grades the sheet against\n"
    "# .tlab/master.yaml (tamper-proof) and uploads the JUnit report; the job\n"
    "# fails when the sheet does not pass.\n"
    "tlab-grade:\n"
    "  image: debian:12-slim\n"
    "  variables:\n"
    "    TLAB_BUILD: /tmp/tlab-src\n"
    "    TLAB_PREFIX: /usr/local\n"
    "  script:\n"
    "    - |\n"
    YAML_BUILD("      ", "")
    "    - tlab check --lab .tlab/master.yaml --format junit -o tlab-junit.xml @SHEET@\n"
    "  artifacts:\n"
    "    when: always\n"
    "    paths:\n"
    "      - tlab-junit.xml\n"
    "    reports:\n"
    "      junit: tlab-junit.xml\n";

/* tmpl with @VERSION@ and @SHEET@ replaced (malloc'ed). */
static char *fill(const char *tmpl, const char *sheet)
{
    tl_buf b = {0};
    for (const char *p = tmpl; *p;) {
        if (!strncmp(p, "@VERSION@", 9)) {
            tl_buf_puts(&b, PACKAGE_VERSION);
            p += 9;
        } else if (!strncmp(p, "@SHEET@", 7)) {
            tl_buf_puts(&b, sheet);
            p += 7;
        } else {
            tl_buf_putc(&b, *p++);
        }
    }
    return tl_buf_steal(&b);
}

/* ---- files ------------------------------------------------------------- */

static int errorf(const char *fmt, const char *a, const char *b)
{
    fputs("tlab: ", stderr);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return TL_EXIT_USAGE;
}

static int slurp(const char *path, size_t max, char **text, size_t *len)
{
    char eb[128];
    switch (tl_read_file(path, max, text, len)) {
    case TL_READ_OK: return 0;
    case TL_READ_TOO_BIG: return errorf("%s: too big%s", path, "");
    default: return errorf("%s: %s", path, tl_strerror(errno, eb, sizeof eb));
    }
}

/* The source tarball's path (static storage), or NULL with a message. */
static const char *find_tarball(void)
{
    static char path[PATH_MAX + 64];
    const char *env = getenv("TLAB_TARBALL");
    if (env && *env)
        return env;
    const char *name = PACKAGE_TARNAME "-" PACKAGE_VERSION ".tar.gz";
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(path, sizeof path, "%s/%s", exe, name);
            if (access(path, R_OK) == 0)
                return path;
        }
    }
    if (access(name, R_OK) == 0)
        return name;
    fprintf(stderr,
            "tlab: no tlab source tarball (%s): run 'make dist' in tlab's build "
            "directory, or set TLAB_TARBALL=FILE\n",
            name);
    return NULL;
}

static int mkdir_p(const char *dir)
{
    char *d = tl_xstrdup(dir);
    for (char *p = d + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(d, 0777) != 0 && errno != EEXIST) {
                char eb[128];
                errorf("cannot create directory %s: %s", d, tl_strerror(errno, eb, sizeof eb));
                free(d);
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    free(d);
    return 0;
}

/* Write dir/rel (creating its directories) with mode. */
static int put_file(const char *dir, const char *rel, const char *data, size_t len, unsigned mode)
{
    char *path = tl_xmalloc(strlen(dir) + strlen(rel) + 2);
    sprintf(path, "%s/%s", dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int rc = mkdir_p(path);
    *slash = '/';
    char eb[256];
    if (rc == 0 && tl_output_write(path, data, len, eb, sizeof eb) != 0)
        rc = errorf("%s%s", eb, "");
    if (rc == 0 && chmod(path, mode) != 0)
        rc = errorf("cannot chmod %s%s", path, "");
    free(path);
    return rc ? -1 : 0;
}

/* A shell- and YAML-safe file name for the student's sheet. */
static char *sheet_name(const char *master)
{
    const char *base = strrchr(master, '/');
    base = base ? base + 1 : master;
    size_t n = strlen(base);
    if (n == 0 || n > 100 || base[0] == '-' || base[0] == '.')
        return tl_xstrdup("lab.yaml");
    for (size_t i = 0; i < n; i++)
        if (!(base[i] == '.' || base[i] == '_' || base[i] == '-' ||
              (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z') ||
              (base[i] >= '0' && base[i] <= '9')))
            return tl_xstrdup("lab.yaml");
    return tl_xstrdup(base);
}

/* ---- targets ------------------------------------------------------------ */

static int gradescope(const tl_cli *cli, const char *master, size_t mlen, const char *sheet)
{
    const char *tb = find_tarball();
    if (!tb)
        return TL_EXIT_USAGE;
    char *tar;
    size_t tlen;
    if (slurp(tb, TARBALL_MAX, &tar, &tlen) != 0)
        return TL_EXIT_USAGE;
    if (tlen < 2 || (unsigned char)tar[0] != 0x1f || (unsigned char)tar[1] != 0x8b) {
        free(tar);
        return errorf("%s: not a gzip'ed tarball%s", tb, "");
    }
    char *setup = fill(gs_setup, sheet), *run = fill(gs_run, sheet);
    tl_zip_entry e[] = {
        {"setup.sh", setup, strlen(setup), 0755},
        {"run_autograder", run, strlen(run), 0755},
        {"master.yaml", master, mlen, 0644},
        {"tlab.tar.gz", tar, tlen, 0644},
    };
    char *zip = NULL;
    size_t zlen = 0;
    int rc = TL_EXIT_OK;
    char eb[256];
    if (tl_autograder_zip(e, TL_ARRAY_LEN(e), &zip, &zlen) != 0)
        rc = errorf("%s: too big for a zip%s", tb, "");
    else if (tl_output_write(cli->output, zip, zlen, eb, sizeof eb) != 0)
        rc = errorf("%s%s", eb, "");
    free(zip), free(setup), free(run), free(tar);
    return rc;
}

static int prairielearn(const tl_cli *cli, const char *master, size_t mlen, const char *sheet)
{
    char *run = fill(pl_run, sheet), *opt = fill(pl_options, sheet);
    int rc = TL_EXIT_OK;
    if (put_file(cli->output, "run.sh", run, strlen(run), 0755) ||
        put_file(cli->output, "master.yaml", master, mlen, 0644) ||
        put_file(cli->output, "externalGradingOptions.json", opt, strlen(opt), 0644))
        rc = TL_EXIT_USAGE;
    free(run), free(opt);
    return rc;
}

static int github(const tl_cli *cli, const tl_lab *lab, const char *master, size_t mlen,
                  const char *sheet)
{
    const char *tb = find_tarball();
    if (!tb)
        return TL_EXIT_USAGE;
    char *tar;
    size_t tlen;
    if (slurp(tb, TARBALL_MAX, &tar, &tlen) != 0)
        return TL_EXIT_USAGE;
    char *wf = fill(gh_workflow, sheet), *gl = fill(gl_ci, sheet);
    char *blank = tl_lab_blank_text(lab);
    int rc = TL_EXIT_OK;
    if (put_file(cli->output, ".github/workflows/classroom.yml", wf, strlen(wf), 0644) ||
        put_file(cli->output, ".gitlab-ci.yml", gl, strlen(gl), 0644) ||
        put_file(cli->output, ".tlab/master.yaml", master, mlen, 0644) ||
        put_file(cli->output, ".tlab/tlab.tar.gz", tar, tlen, 0644) ||
        put_file(cli->output, sheet, blank, strlen(blank), 0644))
        rc = TL_EXIT_USAGE;
    free(wf), free(gl), free(blank), free(tar);
    return rc;
}

int tl_autograder_run(const tl_cli *cli)
{
    const char *target = cli->args[0];
    if (strcmp(target, "gradescope") && strcmp(target, "prairielearn") && strcmp(target, "github"))
        return errorf("'%s' is not an autograder target (gradescope, prairielearn or github)%s",
                      target, "");
    if (!cli->master)
        return errorf("autograder %s needs --lab MASTER.yaml%s", target, "");
    if (!cli->output || !strcmp(cli->output, "-"))
        return errorf("autograder %s needs -o %s", target,
                      strcmp(target, "gradescope") ? "DIR" : "FILE.zip");
    /* The master must be a valid lab: a bundle that can only fail is useless. */
    tl_lab_err err;
    tl_lab *lab = tl_lab_load(cli->master, false, &err);
    if (!lab) {
        fputs(err.rendered, stderr);
        tl_lab_err_free(&err);
        return TL_EXIT_USAGE;
    }
    tl_lab_err_free(&err);
    char *master;
    size_t mlen;
    if (slurp(cli->master, MASTER_MAX, &master, &mlen) != 0) {
        tl_lab_free(lab);
        return TL_EXIT_USAGE;
    }
    char *sheet = sheet_name(cli->master);
    int rc;
    if (!strcmp(target, "gradescope"))
        rc = gradescope(cli, master, mlen, sheet);
    else if (!strcmp(target, "prairielearn"))
        rc = prairielearn(cli, master, mlen, sheet);
    else
        rc = github(cli, lab, master, mlen, sheet);
    free(sheet), free(master);
    tl_lab_free(lab);
    return rc;
}
