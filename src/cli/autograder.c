/* autograder.c - `tlab autograder gradescope|prairielearn|github`: a bundle
 * that drops tlab into the grader a course already runs (SPEC 2), working
 * as the platform deploys it.
 *
 * Every target grades through one path only: `tlab check --lab MASTER SHEET`,
 * the tamper-proof grading of `grade` (setup, ops, accept lists, threshold and
 * checks come from the master, whatever the sheet says). The scripts written
 * here find the one sheet, call that, and turn "no sheet", "two sheets" or
 * "tlab could not run" into a document with a message (Gradescope: score 0;
 * PrairieLearn: gradable false, as tlab's own unreadable sheet), so the
 * platform never shows a bare crash.
 *
 * Nothing students can read carries an answer: a master with predictions,
 * rules, answers or classify() filled in is refused (located, saying what)
 * unless --blank; students only ever get tl_lab_blank_text's sheet. The
 * grader's own copy of the master (the zip, serverFilesCourse, a secret) is
 * the file as given. An existing -o is refused unless --force.
 *
 * - gradescope: a zip (stored, written here: no zip tool needed) holding
 *   setup.sh (apt-get the build dependencies, build and install tlab from
 *   the bundled `make dist` tarball), run_autograder and master.yaml.
 * - prairielearn: a directory for serverFilesCourse/<path>/: run.sh (run as
 *   root, as the Dockerfile's image runs), the master, and the
 *   externalGradingOptions snippet for info.json, whose paths are the part
 *   of -o below serverFilesCourse/ (else tlab/<id>) and whose image is
 *   --image or tlab/tlab:VERSION (README builds it under that name).
 * - github: a directory to copy into the assignment's template repository:
 *   the GitHub Classroom workflow (a plain run: step, .tlab/grade.sh, so
 *   $GITHUB_STEP_SUMMARY is set, giving autograding-grading-reporter one test
 *   per op/question/check with its points), a .gitlab-ci.yml job with a
 *   JUnit report, .tlab/ (grade.sh and the tarball) and the blank sheet. The
 *   master stays out of the repository: the workflow reads it, base64, from
 *   the secret TLAB_MASTER_<ID> (#28 item 11: a student cannot edit it).
 *
 * The source tarball is $TLAB_TARBALL, else tlab-VERSION.tar.gz next to the
 * running binary (where `make dist` leaves it in a build tree), else in the
 * current directory. Templates use @NAME@ placeholders, replaced verbatim by
 * values checked to need no quoting.
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
#include "platform.h"
#include "lab.h"
#include "output.h"
#include "util.h"

#define TARBALL_MAX ((size_t)256 << 20) /* 256 MiB: far above a real dist */
#define MASTER_MAX ((size_t)16 << 20)
#define GH_SECRET_MAX ((size_t)48 << 10) /* GitHub: a secret's value, at most */

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

/* The image PrairieLearn runs (--image overrides it): README builds it
 * with this name from the Dockerfile. */
#define DEFAULT_IMAGE "tlab/tlab:" PACKAGE_VERSION

/* The scripts are plain POSIX sh (tests/autograder.sh runs shellcheck on
 * them and runs each in a simulated platform layout). gs_run and pl_run
 * share their second half: find the one sheet (any case, nested, inside a
 * .zip), grade it from its own folder so every message names it by the
 * student's path, and turn a failure into a document with a message: that
 * half is FIND_AND_GRADE, after each script's own zero(). */
#define FIND_AND_GRADE \
    "tab=$(printf '\\t')\n" \
    "WORK=$(mktemp -d) || exit 1\n" \
    "trap 'rm -rf \"$WORK\"' EXIT\n" \
    "\n" \
    "# A JSON string's inside from $1: controls dropped, \\ and \" escaped,\n" \
    "# newlines as \\n.\n" \
    "json_escape() {\n" \
    "    printf '%s' \"$1\" | tr -d '\\000-\\011\\013-\\037' |\n" \
    "        sed -e 's/\\\\/\\\\\\\\/g' -e 's/\"/\\\\\"/g' |\n" \
    "        awk 'NR > 1 { printf \"\\\\n\" } { printf \"%s\", $0 }'\n" \
    "}\n" \
    "\n" \
    "# yaml_in DIR: \"DIR<TAB>PATH\" for every .yaml/.yml (any case) under DIR,\n" \
    "# PATH relative to DIR; hidden files and folders and __MACOSX/ are skipped.\n" \
    "yaml_in() {\n" \
    "    find \"$1\" -mindepth 1 \\( -name '.*' -o -name __MACOSX \\) -prune -o \\\n" \
    "        -type f \\( -iname '*.yaml' -o -iname '*.yml' \\) -print |\n" \
    "        while IFS= read -r f; do printf '%s\\t%s\\n' \"$1\" \"${f#\"$1\"/}\"; done\n" \
    "}\n" \
    "\n" \
    "# The one sheet: in $SUB, in a folder there, or inside a .zip there (only\n" \
    "# its .yaml/.yml members are extracted, each cut at a few MiB).\n" \
    "list=$WORK/sheets\n" \
    "yaml_in \"$SUB\" > \"$list\"\n" \
    "find \"$SUB\" -mindepth 1 \\( -name '.*' -o -name __MACOSX \\) -prune -o -type f -iname '*.zip' -print |\n" \
    "    while IFS= read -r z; do\n" \
    "        d=$WORK/zip/${z#\"$SUB\"/}\n" \
    "        mkdir -p \"$d\" || continue\n" \
    "        (ulimit -f 4096; unzip -qq -o -C \"$z\" '*.yaml' '*.yml' -d \"$d\") > /dev/null 2>&1 || true\n" \
    "    done\n" \
    "if [ -d \"$WORK/zip\" ]; then\n" \
    "    yaml_in \"$WORK/zip\" >> \"$list\"\n" \
    "fi\n" \
    "n=$(wc -l < \"$list\" | tr -d ' ')\n" \
    "if [ \"$n\" -gt 1 ]; then\n" \
    "    # several: the one named @SHEET@ (any case) wins\n" \
    "    awk -F '\\t' -v want=@SHEET@ '{ b = $2; sub(/.*\\//, \"\", b); if (tolower(b) == tolower(want)) print }' \\\n" \
    "        \"$list\" > \"$list.named\"\n" \
    "    if [ \"$(wc -l < \"$list.named\" | tr -d ' ')\" -eq 1 ]; then\n" \
    "        mv \"$list.named\" \"$list\"\n" \
    "        n=1\n" \
    "    fi\n" \
    "fi\n" \
    "[ \"$n\" -gt 0 ] || zero \"No sheet found: submit your filled-in @SHEET@ (one .yaml file, or a .zip holding it).\"\n" \
    "if [ \"$n\" -gt 1 ]; then\n" \
    "    names=$(cut -f 2 \"$list\" | head -n 5 | awk 'NR > 1 { printf \", \" } { printf \"%s\", $0 }')\n" \
    "    zero \"Found $n .yaml files ($names): submit only your filled-in @SHEET@.\"\n" \
    "fi\n" \
    "line=$(cat \"$list\")\n" \
    "base=${line%%\"$tab\"*}\n" \
    "rel=${line#*\"$tab\"}\n" \
    "\n" \
    "# Grade it from its own folder, so that every message names it by the\n" \
    "# path the student knows (lab01.yaml, hw.zip/lab01.yaml), not the grader's.\n" \
    "rm -f \"$OUT\"\n" \
    "(cd \"$base\" && exec \"$TLAB\" check --lab \"$MASTER\"@VARGS@ --format \"$FMT\" -o \"$OUT\" -- \"$rel\") 2> \"$WORK/stderr\"\n" \
    "rc=$?\n" \
    "if [ \"$rc\" -le 2 ] && [ -s \"$OUT\" ]; then\n" \
    "    exit 0\n" \
    "fi\n" \
    "zero \"tlab could not grade $rel (exit $rc): $(head -c 4000 \"$WORK/stderr\")\"\n"

static const char gs_run[] =
    "#!/bin/sh\n"
    "# run_autograder - written by `tlab autograder gradescope` (tlab @VERSION@).\n"
    "# Gradescope runs it as root once per submission: it grades the one sheet in\n"
    "# $ROOT/submission (any case, in a folder or in a .zip) against\n"
    "# $ROOT/source/master.yaml with tlab's tamper-proof path (`tlab check --lab\n"
    "# MASTER SHEET`: setup, ops, accept lists, threshold and checks come from the\n"
    "# master) and writes $ROOT/results/results.json. No sheet, several sheets or\n"
    "# a tlab that cannot run give a results.json scoring 0 with a message.\n"
    "# ROOT is /autograder (TLAB_AUTOGRADER_ROOT overrides it); TLAB is the binary.\n"
    "ROOT=${TLAB_AUTOGRADER_ROOT:-/autograder}\n"
    "TLAB=${TLAB:-tlab}\n"
    "case $TLAB in /*) ;; */*) TLAB=$(pwd)/$TLAB ;; esac\n"
    "mkdir -p \"$ROOT/results\" || exit 1\n"
    "ROOT=$(cd \"$ROOT\" && pwd) || exit 1\n"
    "MASTER=$ROOT/source/master.yaml\n"
    "SUB=$ROOT/submission\n"
    "OUT=$ROOT/results/results.json\n"
    "FMT=gradescope\n"
    "\n"
    "# A results.json scoring 0 with the message $1 (shown to the student).\n"
    "zero() {\n"
    "    printf '{\"score\": 0, \"output\": \"%s\", \"output_format\": \"text\", \"visibility\": \"visible\", \"stdout_visibility\": \"hidden\", \"execution_time\": 0, \"tests\": []}\\n' \\\n"
    "        \"$(json_escape \"$1\")\" > \"$OUT\" || exit 1\n"
    "    exit 0\n"
    "}\n"
    "\n"
    FIND_AND_GRADE;

static const char gs_setup[] =
    "#!/bin/sh\n"
    "# setup.sh - written by `tlab autograder gradescope` (tlab @VERSION@).\n"
    "# Gradescope runs it once, as root, when it builds the autograder image:\n"
    "# install the build dependencies (and unzip, for sheets handed in as a\n"
    "# .zip), build tlab from the bundled source tarball (`make dist`) and\n"
    "# install it on the PATH.\n"
    "set -eu\n"
    "cd \"$(dirname \"$0\")\"\n"
    "export DEBIAN_FRONTEND=noninteractive\n"
    "apt-get update\n"
    "apt-get install -y --no-install-recommends " BUILD_DEPS " unzip\n"
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
    "# PrairieLearn's external grader entrypoint, run as root in the image (PrairieLearn\n"
    "# mounts /grade owned by root): it grades the one sheet in $ROOT/student (any\n"
    "# case, in a folder or in a .zip) against master.yaml next to this script with\n"
    "# tlab's tamper-proof path and writes $ROOT/results/results.json. No sheet,\n"
    "# several sheets or a tlab that cannot run are `gradable: false` with a\n"
    "# message (the student's attempt is not used), as tlab's own unreadable sheet is.\n"
    "# ROOT is /grade (TLAB_GRADE_ROOT overrides it); TLAB is the binary.\n"
    "ROOT=${TLAB_GRADE_ROOT:-/grade}\n"
    "TLAB=${TLAB:-tlab}\n"
    "case $TLAB in /*) ;; */*) TLAB=$(pwd)/$TLAB ;; esac\n"
    "MASTER=$(cd \"$(dirname \"$0\")\" && pwd)/master.yaml\n"
    "mkdir -p \"$ROOT/results\" || exit 1\n"
    "ROOT=$(cd \"$ROOT\" && pwd) || exit 1\n"
    "SUB=$ROOT/student\n"
    "OUT=$ROOT/results/results.json\n"
    "FMT=prairielearn\n"
    "\n"
    "# A results.json that is not gradable, with the message $1.\n"
    "zero() {\n"
    "    m=$(json_escape \"$1\")\n"
    "    printf '{\"gradable\": false, \"score\": 0, \"message\": \"%s\", \"format_errors\": [\"%s\"], \"tests\": []}\\n' \\\n"
    "        \"$m\" \"$m\" > \"$OUT\" || exit 1\n"
    "    exit 0\n"
    "}\n"
    "\n"
    FIND_AND_GRADE;

static const char gh_grade[] =
    "#!/bin/sh\n"
    "# .tlab/grade.sh - written by `tlab autograder github` (tlab @VERSION@).\n"
    "# Grades the student's @SHEET@ against the master, which is not in this\n"
    "# repository: the workflow hands it over from the secret @SECRET@ (the\n"
    "# master's file, base64-encoded) as $TLAB_MASTER.\n"
    "#   sh .tlab/grade.sh classroom   GitHub Classroom: annotations and the step\n"
    "#       summary (`--format github`), then the per-test points for\n"
    "#       autograding-grading-reporter as the step output `result`.\n"
    "#   sh .tlab/grade.sh gitlab      GitLab CI: tlab-junit.xml; exits as tlab does.\n"
    "# TLAB is the binary (default: tlab on the PATH).\n"
    "mode=${1:-classroom}\n"
    "SHEET=@SHEET@\n"
    "TLAB=${TLAB:-tlab}\n"
    "WORK=$(mktemp -d \"${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tlab.XXXXXX\") || exit 1\n"
    "trap 'rm -rf \"$WORK\"' EXIT\n"
    "MASTER=$WORK/master.yaml\n"
    "\n"
    "# result STATUS MESSAGE: the reporter's runner result for a sheet tlab could\n"
    "# not grade (one test, 0 points of 1).\n"
    "result() {\n"
    "    printf '%s' \"$2\" > \"$WORK/message\"\n"
    "    python3 - \"$1\" \"$WORK/message\" > \"$WORK/result.json\" <<'PY'\n"
    "import json, sys\n"
    "msg = open(sys.argv[2], encoding=\"utf-8\", errors=\"replace\").read()\n"
    "print(json.dumps({\"version\": 1, \"status\": sys.argv[1], \"max_score\": 1,\n"
    "                  \"tests\": [{\"name\": \"tlab\", \"status\": sys.argv[1], \"score\": 0,\n"
    "                             \"message\": msg, \"test_code\": \"\", \"filename\": \"\",\n"
    "                             \"line_no\": 0, \"duration\": 0}]}))\n"
    "PY\n"
    "}\n"
    "\n"
    "emit() {\n"
    "    if [ -n \"${GITHUB_OUTPUT:-}\" ]; then\n"
    "        echo \"result=$(base64 -w 0 < \"$WORK/result.json\")\" >> \"$GITHUB_OUTPUT\"\n"
    "    else\n"
    "        cat \"$WORK/result.json\"\n"
    "    fi\n"
    "}\n"
    "\n"
    "# fail MESSAGE: say why on the log (a workflow command, escaped) and in\n"
    "# the result; GitLab: exit 2.\n"
    "fail() {\n"
    "    printf '::error title=tlab::%s\\n' \"$(printf '%s' \"$1\" | tr -d '\\r' | sed 's/%/%25/g' |\n"
    "        awk 'NR > 1 { printf \"%%0A\" } { printf \"%s\", $0 }')\"\n"
    "    if [ \"$mode\" = gitlab ]; then\n"
    "        echo \"tlab: $1\" >&2\n"
    "        exit 2\n"
    "    fi\n"
    "    result error \"$1\"\n"
    "    emit\n"
    "    exit 0\n"
    "}\n"
    "\n"
    "[ -n \"${TLAB_MASTER:-}\" ] ||\n"
    "    fail \"the master is missing: the instructor has to add it as the secret @SECRET@ (see tlab's README, GitHub Classroom)\"\n"
    "printf '%s' \"$TLAB_MASTER\" | base64 -d > \"$MASTER\" 2> /dev/null ||\n"
    "    fail \"the secret @SECRET@ is not a base64-encoded master (make it with: base64 -w 0 MASTER.yaml)\"\n"
    "[ -f \"$SHEET\" ] || fail \"no $SHEET in the repository: fill in the blank $SHEET and push it\"\n"
    "\n"
    "if [ \"$mode\" = gitlab ]; then\n"
    "    \"$TLAB\" check --lab \"$MASTER\" --format junit -o tlab-junit.xml \"$SHEET\"\n"
    "    exit $?\n"
    "fi\n"
    "\n"
    "# Annotations on stdout and the Markdown table in $GITHUB_STEP_SUMMARY (this\n"
    "# is a plain `run:` step, so the variable is set; say so when it is not).\n"
    "if [ -z \"${GITHUB_STEP_SUMMARY:-}\" ]; then\n"
    "    echo \"::warning title=tlab::GITHUB_STEP_SUMMARY is not set: no summary table is written\"\n"
    "fi\n"
    "\"$TLAB\" check --lab \"$MASTER\" --format github \"$SHEET\" || true\n"
    "\n"
    "# The points: every test of the Gradescope document (each op, question, the\n"
    "# rules, the tamper check and the verdict) with its own score, so Classroom\n"
    "# shows per-op points and their sum is tlab's points.\n"
    "\"$TLAB\" check --lab \"$MASTER\" --format gradescope -o \"$WORK/gs.json\" \"$SHEET\" 2> \"$WORK/stderr\"\n"
    "rc=$?\n"
    "if [ \"$rc\" -gt 2 ] || [ ! -s \"$WORK/gs.json\" ]; then\n"
    "    fail \"tlab could not grade $SHEET (exit $rc): $(head -c 2000 \"$WORK/stderr\")\"\n"
    "fi\n"
    "python3 - \"$WORK/gs.json\" \"$SHEET\" > \"$WORK/result.json\" <<'PY' || fail \"python3 could not turn tlab's results into points\"\n"
    "import json, sys\n"
    "r = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
    "tests, total, most, verdict, unreadable = [], 0, 0, None, False\n"
    "for t in r.get(\"tests\", []):\n"
    "    score, top = t.get(\"score\", 0) or 0, t.get(\"max_score\", 0) or 0\n"
    "    status = t.get(\"status\") or (\"passed\" if score >= top else \"failed\")\n"
    "    if t.get(\"number\") == \"verdict\":\n"
    "        verdict = status == \"passed\"\n"
    "    if t.get(\"number\") == \"read\":\n"
    "        unreadable = True\n"
    "    total += score\n"
    "    most += top\n"
    "    tests.append({\"name\": t.get(\"name\", \"\"), \"status\": \"pass\" if status == \"passed\" else \"fail\",\n"
    "                  \"score\": score, \"message\": t.get(\"output\", \"\"), \"test_code\": \"\",\n"
    "                  \"filename\": sys.argv[2], \"line_no\": 0, \"duration\": 0})\n"
    "overall = r.get(\"score\", total)\n"
    "if overall != total:\n"
    "    # tlab's score overrides its tests (as on Gradescope): keep the sum right\n"
    "    for t in tests:\n"
    "        t[\"score\"] = 0\n"
    "    tests.append({\"name\": \"score\", \"status\": \"pass\" if verdict else \"fail\", \"score\": overall,\n"
    "                  \"message\": r.get(\"output\", \"\"), \"test_code\": \"\", \"filename\": sys.argv[2],\n"
    "                  \"line_no\": 0, \"duration\": 0})\n"
    "status = \"error\" if unreadable else \"pass\" if verdict else \"fail\"\n"
    "print(json.dumps({\"version\": 1, \"status\": status, \"max_score\": most, \"tests\": tests}))\n"
    "PY\n"
    "emit\n"
    "exit 0\n";

static const char gh_workflow[] =
    "# Written by `tlab autograder github` (tlab @VERSION@): GitHub Classroom\n"
    "# autograding of @SHEET@. tlab is built from .tlab/tlab.tar.gz; .tlab/grade.sh\n"
    "# grades the sheet with `tlab check --lab MASTER` (tamper-proof grading)\n"
    "# against the master in the secret @SECRET@ (the master's file,\n"
    "# base64-encoded): the master is not in this repository. Every op, question\n"
    "# and check is a test with its own points, so the Classroom grade is tlab's\n"
    "# points; annotations and a summary table come with it.\n"
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
    "          sudo apt-get update\n"
    "          sudo apt-get install -y --no-install-recommends " BUILD_DEPS "\n"
    "          mkdir -p \"$TLAB_BUILD\"\n"
    "          tar xzf .tlab/tlab.tar.gz -C \"$TLAB_BUILD\" --strip-components=1\n"
    "          (cd \"$TLAB_BUILD\" && ./configure --prefix=\"$TLAB_PREFIX\" && make -j\"$(nproc)\" && make install)\n"
    "          echo \"$TLAB_PREFIX/bin\" >> \"$GITHUB_PATH\"\n"
    "      - name: tlab\n"
    "        id: tlab\n"
    "        env:\n"
    "          TLAB_MASTER: ${{ secrets.@SECRET@ }}\n"
    "        run: sh .tlab/grade.sh classroom\n"
    "      - name: Autograding Reporter\n"
    "        if: always()\n"
    "        uses: classroom-resources/autograding-grading-reporter@v1\n"
    "        env:\n"
    "          TLAB_RESULTS: \"${{ steps.tlab.outputs.result }}\"\n"
    "        with:\n"
    "          runners: tlab\n";

static const char gl_ci[] =
    "# Written by `tlab autograder github` (tlab @VERSION@): the GitLab CI job.\n"
    "# Builds tlab from .tlab/tlab.tar.gz, grades @SHEET@ against the master in\n"
    "# the CI/CD variable @SECRET@ (the master's file, base64-encoded; masked,\n"
    "# set on the group or project) and uploads the JUnit report; the job fails\n"
    "# when the sheet does not pass.\n"
    "tlab-grade:\n"
    "  image: debian:12-slim\n"
    "  variables:\n"
    "    TLAB_BUILD: /tmp/tlab-src\n"
    "    TLAB_PREFIX: /usr/local\n"
    "  before_script:\n"
    "    - |\n"
    "      apt-get update\n"
    "      apt-get install -y --no-install-recommends " BUILD_DEPS "\n"
    "      mkdir -p \"$TLAB_BUILD\"\n"
    "      tar xzf .tlab/tlab.tar.gz -C \"$TLAB_BUILD\" --strip-components=1\n"
    "      (cd \"$TLAB_BUILD\" && ./configure --prefix=\"$TLAB_PREFIX\" && make -j\"$(nproc)\" && make install)\n"
    "  script:\n"
    "    - TLAB_MASTER=\"$@SECRET@\" sh .tlab/grade.sh gitlab\n"
    "  artifacts:\n"
    "    when: always\n"
    "    paths:\n"
    "      - tlab-junit.xml\n"
    "    reports:\n"
    "      junit: tlab-junit.xml\n";

static const char pl_options[] =
    "{\n"
    "  \"externalGradingOptions\": {\n"
    "    \"enabled\": true,\n"
    "    \"image\": \"@IMAGE@\",\n"
    "    \"serverFilesCourse\": [\"@PATH@/\"],\n"
    "    \"entrypoint\": \"/grade/serverFilesCourse/@PATH@/run.sh\",\n"
    "    \"timeout\": 120\n"
    "  }\n"
    "}\n";

/* The placeholders of one bundle, replaced verbatim (each is checked to
 * be shell-, YAML- and JSON-safe before it gets here). */
typedef struct subst {
    const char *sheet;  /* @SHEET@: the student's file name */
    const char *secret; /* @SECRET@: github's secret / CI variable name */
    const char *image;  /* @IMAGE@: prairielearn's image */
    const char *path;   /* @PATH@: the bundle's path in serverFilesCourse */
    const char *vargs;  /* @VARGS@: the variants' options of `check` ("" when none) */
} subst;

/* tmpl with every @NAME@ replaced (malloc'ed). */
static char *fill(const char *tmpl, const subst *s)
{
    const struct {
        const char *key;
        const char *val;
    } keys[] = {{"@VERSION@", PACKAGE_VERSION}, {"@SHEET@", s->sheet}, {"@SECRET@", s->secret},
                {"@IMAGE@", s->image},          {"@PATH@", s->path},
                {"@VARGS@", s->vargs}};
    tl_buf b = {0};
    for (const char *p = tmpl; *p;) {
        size_t k = 0;
        while (k < TL_ARRAY_LEN(keys) && strncmp(p, keys[k].key, strlen(keys[k].key)))
            k++;
        if (k < TL_ARRAY_LEN(keys) && keys[k].val) {
            tl_buf_puts(&b, keys[k].val);
            p += strlen(keys[k].key);
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
#if TL_HAVE_FILE_MODES
    if (rc == 0 && chmod(path, mode) != 0)
        rc = errorf("cannot chmod %s%s", path, "");
#else
    (void)mode; /* no file modes (wasm32-wasi) */
#endif
    free(path);
    return rc ? -1 : 0;
}

/* Letters, digits, '.', '_' and '-' only, not starting with '.' or '-'. */
static bool safe_name(const char *s, size_t n)
{
    if (n == 0 || n > 100 || s[0] == '-' || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '.' || s[i] == '_' || s[i] == '-' || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* A shell- and YAML-safe file name for the student's sheet. */
static char *sheet_name(const char *master)
{
    const char *base = strrchr(master, '/');
    base = base ? base + 1 : master;
    return tl_xstrdup(safe_name(base, strlen(base)) ? base : "lab.yaml");
}

/* TLAB_MASTER_<ID>: the lab id upper-cased, other than letters and digits
 * as '_' (a GitHub secret and GitLab variable name). */
static char *secret_name(const tl_lab *lab)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "TLAB_MASTER_");
    const char *id = lab->id && lab->id[0] ? lab->id : "LAB";
    for (size_t i = 0; id[i] && i < 60; i++) {
        char c = id[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        tl_buf_putc(&b, (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
    }
    return tl_buf_steal(&b);
}

/* An image reference with a namespace (`owner/name[:tag][@digest]`, a
 * registry host in front allowed), in characters that need no quoting in
 * JSON or a shell. */
static bool valid_image(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 255 || !strchr(s, '/') || s[0] == '/' || s[0] == '-' || s[n - 1] == '/' ||
        strstr(s, "//"))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(strchr("._-/:@", s[i]) || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* ---- a master with answers in it -------------------------------------- */

typedef struct filled {
    size_t predictions, rules, answers;
    bool classify;
    int line, col; /* the first one */
} filled;

static void note_at(filled *f, const tl_ynode *n, int line, int col)
{
    if (f->line)
        return;
    f->line = n ? n->line : line;
    f->col = n ? n->col : col;
}

/* What of an answer sheet the master holds: predictions, rule lines,
 * question answers, a classify() body (what `tlab new` empties). */
static void find_filled(const tl_lab *lab, filled *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_lab_op *op = &lab->ops[i];
        if (!op->predict.blank) {
            f->predictions++;
            note_at(f, tl_ynode_get(op->node, "predict"), op->line, op->col);
        }
        if (op->rule) {
            f->rules++;
            note_at(f, tl_ynode_get(op->node, "rule"), op->line, op->col);
        }
    }
    for (size_t i = 0; i < lab->nquestions; i++)
        if (lab->questions[i].answer) {
            f->answers++;
            note_at(f, tl_ynode_get(lab->questions[i].node, "answer"), lab->questions[i].line,
                    lab->questions[i].col);
        }
    if (lab->classify && lab->classify[0]) {
        f->classify = true;
        note_at(f, NULL, lab->classify_line, lab->classify_col);
    }
}

/* "21 predictions, 21 rules, 5 answers and classify" */
static void describe_filled(const filled *f, tl_buf *b)
{
    char part[4][48];
    int n = 0;
    if (f->predictions)
        snprintf(part[n++], sizeof part[0], "%zu prediction%s", f->predictions,
                 f->predictions == 1 ? "" : "s");
    if (f->rules)
        snprintf(part[n++], sizeof part[0], "%zu rule%s", f->rules, f->rules == 1 ? "" : "s");
    if (f->answers)
        snprintf(part[n++], sizeof part[0], "%zu answer%s", f->answers,
                 f->answers == 1 ? "" : "s");
    if (f->classify)
        snprintf(part[n++], sizeof part[0], "classify()");
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", part[i]);
}

/* 0 when the master is blank or --blank was given (then said on stderr),
 * else the located error and exit 2. */
static int check_blank(const tl_cli *cli, const tl_lab *lab, const char *target)
{
    filled f;
    find_filled(lab, &f);
    if (!f.line)
        return 0;
    tl_buf what = {0}, out = {0};
    describe_filled(&f, &what);
    if (cli->blank) {
        fprintf(stderr, "tlab: autograder %s: --blank: %s has %s filled in; ", target, lab->file,
                what.data);
        if (!strcmp(target, "github") || !strcmp(target, "web"))
            fputs("the blank sheet students get has them emptied, and the master itself stays "
                  "out of the repository\n",
                  stderr);
        else
            fputs("students get nothing of them (the bundle's master.yaml is read by the grader "
                  "only and is kept as given)\n",
                  stderr);
        tl_buf_free(&what);
        return 0;
    }
    char msg[400];
    snprintf(msg, sizeof msg,
             "the master has %s filled in: a bundle must not carry answers to students; use the "
             "blank master (labs/), or --blank to blank them",
             what.data);
    tl_diag_render_at(&out, lab->file, f.line, f.col, msg, lab->text, lab->len, false);
    fputs(out.data, stderr);
    tl_buf_free(&out);
    tl_buf_free(&what);
    return TL_EXIT_USAGE;
}

/* The bundle's path below serverFilesCourse/: what follows a
 * `serverFilesCourse` component of -o when it has one, else tlab/<id>.
 * NULL (with a message) when that path is not safe to name. */
static char *course_path(const char *out, const tl_lab *lab, bool *from_out)
{
    const char *key = "serverFilesCourse/";
    const char *at = NULL;
    for (const char *p = strstr(out, key); p; p = strstr(p + 1, key))
        if (p == out || p[-1] == '/')
            at = p;
    *from_out = at != NULL;
    tl_buf b = {0};
    if (at) {
        const char *s = at + strlen(key);
        while (*s) {
            const char *e = strchr(s, '/');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n == 0 || (n == 1 && s[0] == '.')) {
                s += n + (e != NULL);
                continue;
            }
            if (!safe_name(s, n)) {
                tl_buf_free(&b);
                errorf("-o %s: the path below serverFilesCourse/ may hold only letters, digits, "
                       "'.', '_' and '-'%s",
                       out, "");
                return NULL;
            }
            if (b.len)
                tl_buf_putc(&b, '/');
            tl_buf_append(&b, s, n);
            s += n + (e != NULL);
        }
        if (!b.len) {
            errorf("-o %s: name a folder inside serverFilesCourse/ (such as "
                   "serverFilesCourse/tlab/lab01)%s",
                   out, "");
            return NULL;
        }
        return tl_buf_steal(&b);
    }
    tl_buf_puts(&b, "tlab/");
    const char *id = lab->id ? lab->id : "";
    tl_buf_puts(&b, safe_name(id, strlen(id)) ? id : "lab");
    return tl_buf_steal(&b);
}

/* ---- targets ------------------------------------------------------------ */

/* Gradescope scores with the tests' points: the assignment's points must
 * equal them. Ops, questions and the rules check (grade.c's max_points). */
static int64_t max_points(const tl_lab *lab)
{
    int64_t n = 0;
    for (size_t i = 0; i < lab->nops; i++)
        n += lab->ops[i].points;
    for (size_t i = 0; i < lab->nquestions; i++)
        n += lab->questions[i].points;
    if (lab->has_rules)
        n += lab->rules_points;
    return n;
}

static int gradescope(const tl_cli *cli, const tl_lab *lab, const char *master, size_t mlen,
                      const subst *s)
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
    /* issue #29: a master with variants and --key grades each sheet with
     * the key and the student id Gradescope gives (submission_metadata.json) */
    char *key = NULL;
    size_t klen = 0;
    subst sv = *s;
    if (cli->keyfile && lab->nvariants) {
        if (slurp(cli->keyfile, 1 << 20, &key, &klen) != 0) {
            free(tar);
            return TL_EXIT_USAGE;
        }
        sv.vargs = " --key \"$ROOT/source/variants.key\" --student-from "
                   "\"gradescope:$ROOT/submission_metadata.json\"";
    }
    char *setup = fill(gs_setup, &sv), *run = fill(gs_run, &sv);
    tl_zip_entry e[] = {
        {"setup.sh", setup, strlen(setup), 0755},
        {"run_autograder", run, strlen(run), 0755},
        {"master.yaml", master, mlen, 0644},
        {"tlab.tar.gz", tar, tlen, 0644},
        {"variants.key", key, klen, 0600},
    };
    char *zip = NULL;
    size_t zlen = 0;
    int rc = TL_EXIT_OK;
    char eb[256];
    if (tl_autograder_zip(e, TL_ARRAY_LEN(e) - (key == NULL), &zip, &zlen) != 0)
        rc = errorf("%s: too big for a zip%s", tb, "");
    else if (tl_output_write(cli->output, zip, zlen, eb, sizeof eb) != 0)
        rc = errorf("%s%s", eb, "");
    if (rc == TL_EXIT_OK)
        fprintf(stderr,
                "tlab: wrote %s: upload it as the assignment's zip autograder, and set the "
                "assignment's points to %lld (the lab's max_points)\n",
                cli->output, (long long)max_points(lab));
    if (rc == TL_EXIT_OK && key)
        fprintf(stderr, "tlab: each sheet is checked against its student: the student id is "
                        "Gradescope's (submission_metadata.json: the student's email), so make "
                        "the sheets with `tlab new --student EMAIL --key KEY`\n");
    free(zip), free(setup), free(run), free(tar), free(key);
    return rc;
}

static int prairielearn(const tl_cli *cli, const tl_lab *lab, const char *master, size_t mlen,
                        subst *s)
{
    bool from_out;
    char *path = course_path(cli->output, lab, &from_out);
    if (!path)
        return TL_EXIT_USAGE;
    s->path = path;
    char *key = NULL;
    size_t klen = 0;
    if (cli->keyfile && lab->nvariants) {
        if (slurp(cli->keyfile, 1 << 20, &key, &klen) != 0) {
            free(path);
            s->path = NULL;
            return TL_EXIT_USAGE;
        }
        s->vargs = " --key \"$(dirname \"$MASTER\")/variants.key\" --student-from "
                   "\"prairielearn:$ROOT/data/data.json\"";
    }
    char *run = fill(pl_run, s), *opt = fill(pl_options, s);
    s->vargs = "";
    int rc = TL_EXIT_OK;
    if (put_file(cli->output, "run.sh", run, strlen(run), 0755) ||
        (key && put_file(cli->output, "variants.key", key, klen, 0600)) ||
        put_file(cli->output, "master.yaml", master, mlen, 0644) ||
        put_file(cli->output, "externalGradingOptions.json", opt, strlen(opt), 0644))
        rc = TL_EXIT_USAGE;
    if (rc == TL_EXIT_OK && from_out)
        fprintf(stderr,
                "tlab: wrote %s (serverFilesCourse/%s/): merge its externalGradingOptions.json "
                "(image %s) into the question's info.json\n",
                cli->output, path, s->image);
    else if (rc == TL_EXIT_OK)
        fprintf(stderr,
                "tlab: wrote %s: copy it to the course's serverFilesCourse/%s/ (where its "
                "externalGradingOptions.json points) and merge that file (image %s) into the "
                "question's info.json\n",
                cli->output, path, s->image);
    if (rc == TL_EXIT_OK && key)
        fprintf(stderr, "tlab: each sheet is checked against its student: the student id is "
                        "the variant's params.student (set it in the question's server.py), so "
                        "make the sheets with `tlab new --student ID --key KEY`\n");
    s->path = NULL;
    free(run), free(opt), free(path), free(key);
    return rc;
}

static int github(const tl_cli *cli, const tl_lab *lab, const subst *s)
{
    const char *tb = find_tarball();
    if (!tb)
        return TL_EXIT_USAGE;
    char *tar;
    size_t tlen;
    if (slurp(tb, TARBALL_MAX, &tar, &tlen) != 0)
        return TL_EXIT_USAGE;
    char *wf = fill(gh_workflow, s), *gl = fill(gl_ci, s), *gr = fill(gh_grade, s);
    char *blank = tl_lab_blank_text(lab);
    int rc = TL_EXIT_OK;
    /* a bundle of an older tlab put the master here: it must not stay */
    char *old = tl_xmalloc(strlen(cli->output) + 32);
    sprintf(old, "%s/.tlab/master.yaml", cli->output);
    if (unlink(old) == 0)
        fprintf(stderr, "tlab: removed %s: the master stays out of the repository\n", old);
    free(old);
    if (put_file(cli->output, ".github/workflows/classroom.yml", wf, strlen(wf), 0644) ||
        put_file(cli->output, ".gitlab-ci.yml", gl, strlen(gl), 0644) ||
        put_file(cli->output, ".tlab/grade.sh", gr, strlen(gr), 0755) ||
        put_file(cli->output, ".tlab/tlab.tar.gz", tar, tlen, 0644) ||
        put_file(cli->output, s->sheet, blank, strlen(blank), 0644))
        rc = TL_EXIT_USAGE;
    if (rc == TL_EXIT_OK)
        fprintf(stderr,
                "tlab: wrote %s for the template repository; the master is not in it: add it as "
                "the organization secret %s (GitHub) or CI/CD variable (GitLab), e.g.\n"
                "  base64 -w 0 '%s' | gh secret set %s --org ORG\n",
                cli->output, s->secret, lab->file, s->secret);
    /* GitHub keeps at most 48 KB in a secret: say so before the first push */
    if (rc == TL_EXIT_OK && (lab->len + 2) / 3 * 4 > GH_SECRET_MAX)
        fprintf(stderr,
                "tlab: warning: %s is %zu bytes, %zu in base64: more than a GitHub secret holds "
                "(48 KB); shorten its comments and explanations\n",
                lab->file, lab->len, (lab->len + 2) / 3 * 4);
    free(wf), free(gl), free(gr), free(blank), free(tar);
    return rc;
}

int tl_autograder_run(const tl_cli *cli)
{
    const char *target = cli->args[0];
    if (strcmp(target, "gradescope") && strcmp(target, "prairielearn") && strcmp(target, "github") &&
        strcmp(target, "web"))
        return errorf("'%s' is not an autograder target (gradescope, prairielearn, github or "
                      "web)%s",
                      target, "");
    if (!cli->master)
        return errorf("autograder %s needs --lab MASTER.yaml%s", target, "");
    if (!cli->output || !strcmp(cli->output, "-"))
        return errorf("autograder %s needs -o %s", target,
                      strcmp(target, "gradescope") ? "DIR" : "FILE.zip");
    if (cli->image && strcmp(target, "prairielearn"))
        return errorf("--image applies to prairielearn only, not %s%s", target, "");
    const char *image = cli->image ? cli->image : DEFAULT_IMAGE;
    if (!valid_image(image))
        return errorf("--image '%s': not an image name with a namespace (such as "
                      "yourname/tlab:%s)",
                      image, PACKAGE_VERSION);
    /* The master must be a valid lab: a bundle that can only fail is useless. */
    tl_lab_err err;
    tl_lab *lab = tl_lab_load(cli->master, false, &err);
    if (!lab) {
        fputs(err.rendered, stderr);
        tl_lab_err_free(&err);
        return TL_EXIT_USAGE;
    }
    tl_lab_err_free(&err);
    int rc = check_blank(cli, lab, target);
    if (rc == 0 && cli->keyfile && (!lab->nvariants || (strcmp(target, "gradescope") &&
                                                        strcmp(target, "prairielearn"))))
        rc = errorf("--key applies to gradescope and prairielearn bundles of a master with "
                    "variants: (%s%s)", !lab->nvariants ? "the master has none" : target,
                    "");
    struct stat st;
    if (rc == 0 && !cli->force && lstat(cli->output, &st) == 0)
        rc = errorf("%s already exists: not overwriting it (--force to write over it)%s",
                    cli->output, "");
    if (rc) {
        tl_lab_free(lab);
        return rc;
    }
    char *sheet = sheet_name(cli->master), *secret = secret_name(lab);
    subst s = {sheet, secret, image, NULL, ""};
    if (!strcmp(target, "web")) {
        rc = tl_autograder_web(cli, lab); /* autograder_web.c */
    } else if (!strcmp(target, "github")) {
        rc = github(cli, lab, &s);
    } else {
        char *master;
        size_t mlen;
        if (slurp(cli->master, MASTER_MAX, &master, &mlen) != 0) {
            rc = TL_EXIT_USAGE;
        } else {
            rc = !strcmp(target, "gradescope") ? gradescope(cli, lab, master, mlen, &s)
                                               : prairielearn(cli, lab, master, mlen, &s);
            free(master);
        }
    }
    free(sheet), free(secret);
    tl_lab_free(lab);
    return rc;
}
