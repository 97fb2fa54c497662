#!/bin/sh
# tests/autograder.sh - `tlab autograder gradescope|prairielearn|github`, each
# bundle run in a simulated layout of its platform, as the user the platform
# runs it as.
#
# Usage errors and refusals: a filled-in master (located, saying what is
# filled; --blank accepts it and says so), an existing -o (--force), --image.
# Dockerfile and .dockerignore: build packages only (no valgrind or groff),
# a final stage that runs as PrairieLearn runs graders (root), README's image
# name = the bundle's default, and a context without build outputs.
# Gradescope: the zip's members; run_autograder as root in a temporary
# /autograder (TLAB_AUTOGRADER_ROOT): good, failing, tampered, unreadable,
# missing and doubled sheets, LAB01.YAML, a sheet in a folder, in a .zip,
# with hidden .yml files beside it; no grader path in what students see.
# PrairieLearn: run.sh, as the Dockerfile's user, in a root-owned /grade
# (TLAB_GRADE_ROOT); its own failures are gradable: false; two labs side by
# side in serverFilesCourse, each graded against its own master.
# GitHub Classroom: tests/classroom_sim.py runs the workflow as the runner's
# user (uid 1001) in a scrubbed environment and replays the reporter: the
# points are tlab's, per test, the summary is written; the master is not in
# the repository. GitLab: the job's script, exit status and JUnit file.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

command -v python3 > /dev/null 2>&1 || skip "python3 is needed to read the zip and the JSON"
# the interpreter itself, not a version manager's shim (each call counts)
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
py() { "$PYTHON" - "$@"; }

master=$top_srcdir/labs/lab01.yaml
answers=$top_srcdir/answers/lab01.yaml
good=$top_srcdir/tests/students/lab01-pass.yaml
fail_sheet=$top_srcdir/tests/students/lab01-fail.yaml
validate=$top_builddir/tests/validate_json
sed -e 's/threshold: 16/threshold: 1/' "$good" > "$work/tampered.yaml"
printf 'ops: [\n' > "$work/broken.yaml"

share_tlab_with_users # platform users are root or a dropped uid

# The points `tlab check --lab` gives a sheet: "POINTS MAX".
points_of() {
    "$TLAB" check --lab "$1" --format json -o "$work/points.json" "$2" 2> /dev/null || true
    py "$work/points.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["score"]
print(s["points"], s["max_points"])
PY
}

# A source tarball to bundle: the build's `make dist` one when it exists
# (not made here: too slow for make check), else a small stand-in; either
# way only its bytes are checked (setup.sh is not run: it apt-gets).
tarball=$(ls "$top_builddir"/tlab-*.tar.gz 2> /dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
    tar czf "$work/tlab-src.tar.gz" -C "$top_srcdir" configure.ac Makefile.am
    tarball=$work/tlab-src.tar.gz
fi
export TLAB_TARBALL="$tarball"

# ---- usage errors and refusals
expect 2 autograder gradescope -o "$work/x.zip"
stderr_has "missing --lab MASTER.yaml"
expect 2 autograder gradescope --lab "$master"
stderr_has "missing -o OUT"
expect 2 autograder moodle --lab "$master" -o "$work/x"
stderr_has "'moodle' is not an autograder target"
expect 2 autograder gradescope --lab "$work/broken.yaml" -o "$work/x.zip"
stderr_has "broken.yaml:2:1"
[ ! -e "$work/x.zip" ] || fail "a zip was written for a broken master"
TLAB_TARBALL=$work/none.tar.gz
expect 2 autograder gradescope --lab "$master" -o "$work/x.zip"
stderr_has "none.tar.gz"
TLAB_TARBALL=$master
expect 2 autograder gradescope --lab "$master" -o "$work/x.zip"
stderr_has "not a gzip'ed tarball"
TLAB_TARBALL=$tarball
# a filled-in master (an answer sheet) is refused for every target, located
# at its first answer, saying what is filled in; nothing is written
first=$(grep -n 'predict: [a-z{]' "$answers" | head -n 1 | cut -d: -f1)
for target in gradescope prairielearn github; do
    expect 2 autograder "$target" --lab "$answers" -o "$work/filled-$target"
    stderr_has "answers/lab01.yaml:$first:14: error: the master has 21 predictions, 21 rules, 5 answers and classify() filled in"
    stderr_has "--blank"
    [ ! -e "$work/filled-$target" ] || fail "$target: a bundle was written for a filled-in master"
done
# one filled field is named alone
sed -e '0,/    rule: ~/s//    rule: slicing moves the offset/' "$master" > "$work/one-rule.yaml"
expect 2 autograder prairielearn --lab "$work/one-rule.yaml" -o "$work/one-rule"
stderr_has "the master has 1 rule filled in"
# --blank: accepted, said on stderr; the grader's copy stays as given, the
# students' sheet is blank
expect 0 autograder github --blank --lab "$answers" -o "$work/gh-blank"
stderr_has "--blank: $answers has 21 predictions, 21 rules, 5 answers and classify() filled in"
expect 0 new "$answers"
cmp -s "$work/stdout" "$work/gh-blank/lab01.yaml" || fail "--blank: the sheet is not 'tlab new'"
! grep -q '^ *predict: [a-z{]' "$work/gh-blank/lab01.yaml" || fail "--blank: a prediction reached the sheet"
[ ! -e "$work/gh-blank/.tlab/master.yaml" ] || fail "--blank: the master is in the repository"
expect 0 autograder prairielearn --blank --lab "$answers" -o "$work/pl-blank"
stderr_has "kept as given"
cmp -s "$work/pl-blank/master.yaml" "$answers" || fail "--blank: the grader's copy was changed"
# an existing -o is not overwritten unless --force
expect 0 autograder gradescope --lab "$master" -o "$work/exists.zip"
stderr_has "set the assignment's points to 27 (the lab's max_points)"
[ "$(points_of "$master" "$answers")" = "27 27" ] || fail "max_points printed differs from check --lab's"
cp "$work/exists.zip" "$work/exists.before"
expect 2 autograder gradescope --lab "$master" -o "$work/exists.zip"
stderr_has "exists.zip already exists: not overwriting it (--force to write over it)"
cmp -s "$work/exists.zip" "$work/exists.before" || fail "an existing zip was changed"
expect 2 autograder prairielearn --lab "$master" -o "$work/pl-blank"
stderr_has "already exists"
expect 0 autograder gradescope --force --lab "$master" -o "$work/exists.zip"
# --image: prairielearn only, a name with a namespace
expect 2 autograder gradescope --image me/tlab:1 --lab "$master" -o "$work/img.zip"
stderr_has "--image applies to prairielearn only"
for bad in tlab 'me/tlab"x' '/me/tlab' 'me//tlab' 'me/tl ab'; do
    expect 2 autograder prairielearn --image "$bad" --lab "$master" -o "$work/img"
    stderr_has "not an image name with a namespace"
done
[ ! -e "$work/img" ] || fail "a bundle was written for a bad --image"

# ---- Dockerfile and .dockerignore
docker=$top_srcdir/Dockerfile
[ "$(grep -c '^FROM debian:12-slim' "$docker")" = 2 ] || fail "Dockerfile: not two debian:12-slim stages"
! grep -v '^#' "$docker" | grep -Eq 'valgrind|groff' || fail "Dockerfile installs valgrind or groff"
build_pkgs=$(sed -n '/^FROM .* AS build$/,/^FROM /p' "$docker" | grep -o 'no-install-recommends [^\\&]*' | head -n 1)
for p in $build_pkgs; do
    case $p in
    no-install-recommends | build-essential | autoconf | automake | pkg-config | libyaml-dev | libcjson-dev | check) ;;
    *) fail "Dockerfile: the build stage installs $p, which building does not need" ;;
    esac
done
final=$(sed -n '/^FROM debian:12-slim$/,$p' "$docker")
case $final in *-dev*|*build-essential*) fail "Dockerfile: build packages in the final stage" ;; esac
printf '%s\n' "$final" | grep -q '^COPY --from=build ' || fail "Dockerfile: final stage copies nothing from the build"
printf '%s\n' "$final" | grep -q 'unzip' || fail "Dockerfile: no unzip for zipped sheets"
# the user the image runs as (PrairieLearn runs the entrypoint as it)
image_user=$(printf '%s\n' "$final" | sed -n 's/^USER //p' | tail -n 1)
case ${image_user:-root} in
root | 0) image_uid=0 ;;
*) image_uid=$(printf '%s\n' "$final" | grep -o "uid [0-9]*" | tail -n 1 | cut -d' ' -f2)
   image_uid=${image_uid:-1000} ;;
esac
grep -q 'Gradescope does not use it' "$docker" || fail "Dockerfile: not described as unused by Gradescope"
# README builds the image the bundle names, from a clean export
readme_build=$(grep -E '^ *git archive .*\| docker build -t ' "$top_srcdir/README.md" | head -n 1)
[ -n "$readme_build" ] || fail "README does not build the image from a git archive"
readme_image=$(printf '%s\n' "$readme_build" | sed 's/.*docker build -t \([^ ]*\) -$/\1/')
# .dockerignore: nothing tracked is left out; a build tree's outputs are
ignore=$top_srcdir/.dockerignore
[ -f "$ignore" ] || fail "no .dockerignore"
top_abs=$(cd "$top_srcdir" && pwd -P)
if [ "$(git -C "$top_srcdir" rev-parse --show-toplevel 2> /dev/null || true)" = "$top_abs" ]; then
    git -C "$top_srcdir" ls-files > "$work/tracked"
else
    # an unpacked tarball: its files, less any build tree inside it
    # (distcheck builds in _build/sub under the unpacked sources)
    (cd "$top_srcdir" && find . -mindepth 1 -type d -exec test -f '{}/config.status' ';' -prune \
        -o -type f -print | sed 's|^\./||') > "$work/tracked"
fi
cat > "$work/built" <<'EOF'
.git/HEAD
src/base/util.o
libtlab.a
tlab
config.status
config.log
config.h
stamp-h1
autom4te.cache/output.0
Makefile
src/.deps/util.Po
tests/check_tensor
tests/validate_json
tests/cli.sh.log
tests/cli.sh.trs
build/Makefile
build-san/src/base/util.o
tlab-0.1.0/configure
tlab-0.1.0.tar.gz
EOF
py "$ignore" "$work/tracked" "$work/built" <<'PY' || fail ".dockerignore"
# Docker's rules: patterns relative to the context root, * and ? within a
# path element, ** across elements, a match on a folder excludes what is
# under it, the last matching line wins, ! re-includes.
import re, sys
rules = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    neg = line.startswith("!")
    pat = line[1:] if neg else line
    pat = pat.strip("/")
    rx = ""
    i = 0
    while i < len(pat):
        if pat.startswith("**/", i):
            rx += "(?:.*/)?"; i += 3
        elif pat.startswith("**", i):
            rx += ".*"; i += 2
        elif pat[i] == "*":
            rx += "[^/]*"; i += 1
        elif pat[i] == "?":
            rx += "[^/]"; i += 1
        else:
            rx += re.escape(pat[i]); i += 1
    rules.append((neg, re.compile(rx + "$")))
def excluded(path):
    parts = path.split("/")
    out = False
    for neg, rx in rules:
        if any(rx.match("/".join(parts[:k])) for k in range(1, len(parts) + 1)):
            out = not neg
    return out
bad = [p for p in open(sys.argv[2]).read().split() if excluded(p)]
assert not bad, ("tracked files left out of the context", bad[:10])
kept = [p for p in open(sys.argv[3]).read().split() if not excluded(p)]
assert not kept, ("build outputs sent to the build", kept)
PY

# ---- Gradescope: the bundle
expect 0 autograder gradescope --lab "$master" -o "$work/autograder.zip"
mkdir "$work/gs-src"
py "$work/autograder.zip" "$work/gs-src" "$master" "$tarball" <<'PY' || fail "bad Gradescope zip"
import sys, zipfile, stat
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None, "crc mismatch"
names = sorted(z.namelist())
assert names == ["master.yaml", "run_autograder", "setup.sh", "tlab.tar.gz"], names
for n in ("setup.sh", "run_autograder"):
    mode = z.getinfo(n).external_attr >> 16
    assert stat.S_ISREG(mode) and mode & 0o111, (n, oct(mode))
assert z.read("master.yaml") == open(sys.argv[3], "rb").read()
assert z.read("tlab.tar.gz") == open(sys.argv[4], "rb").read()
setup = z.read("setup.sh").decode()
for want in ("apt-get install", "libyaml-dev", "libcjson-dev", "unzip", "tar xzf tlab.tar.gz",
             "./configure", "make install"):
    assert want in setup, want
for n in names:
    z.extract(n, sys.argv[2])
PY
if command -v unzip > /dev/null 2>&1; then
    unzip -tq "$work/autograder.zip" > /dev/null || fail "unzip -t rejects the zip"
fi
chmod +x "$work/gs-src/run_autograder" "$work/gs-src/setup.sh"
# Gradescope's real paths are the defaults
grep -qxF 'ROOT=${TLAB_AUTOGRADER_ROOT:-/autograder}' "$work/gs-src/run_autograder" ||
    fail "run_autograder: root is not /autograder by default"
grep -qxF 'OUT=$ROOT/results/results.json' "$work/gs-src/run_autograder" ||
    fail "run_autograder: not writing results/results.json"
sh -n "$work/gs-src/setup.sh" || fail "setup.sh: syntax"
sh -n "$work/gs-src/run_autograder" || fail "run_autograder: syntax"
if command -v shellcheck > /dev/null 2>&1; then
    shellcheck -s sh "$work/gs-src/setup.sh" "$work/gs-src/run_autograder" || fail "shellcheck"
fi

# gradescope_case NAME FILE...: a fresh /autograder tree (root's, as
# Gradescope has it) with FILEs as the submission (FILE=DEST puts it at
# submission/DEST); run_autograder runs as root and must exit 0.
gradescope_case() {
    name=$1
    shift
    root=$work/gs-$name
    mkdir -p "$root/submission"
    cp -R "$work/gs-src" "$root/source"
    for s in "$@"; do
        case $s in
        *=*) mkdir -p "$(dirname "$root/submission/${s#*=}")"; cp "${s%%=*}" "$root/submission/${s#*=}" ;;
        *) cp "$s" "$root/submission/" ;;
        esac
    done
    TLAB_AUTOGRADER_ROOT=$root as_root "$root/source/run_autograder" > "$work/stdout" 2> "$work/stderr" ||
        fail "run_autograder ($name) exited $?"
    results=$root/results/results.json
    [ -s "$results" ] || fail "run_autograder ($name) wrote no results.json"
    ! grep -qF "$root" "$results" || fail "run_autograder ($name): a grader path reaches the student: $(cat "$results")"
    if [ -x "$validate" ]; then
        "$validate" "$top_srcdir/tests/gradescope-results.schema.json" "$results" ||
            fail "run_autograder ($name): results.json does not validate"
    fi
}

# check_gs RESULTS SCORE_TEST OUTPUT_SUBSTRING NTESTS_MIN
check_gs() {
    py "$@" <<'PY' || fail "Gradescope results.json ($2): $(cat "$1")"
import sys, json
r = json.load(open(sys.argv[1]))
assert isinstance(r.get("score"), (int, float)), "score"
score = r["score"]
assert eval(sys.argv[2], {"score": score, "r": r}), ("score", score)
out = r.get("output", "") + " ".join(t.get("output", "") + " " + t.get("name", "")
                                    for t in r.get("tests", []))
assert sys.argv[3] in out, ("output", sys.argv[3], out[:500])
tests = r.get("tests")
assert isinstance(tests, list) and len(tests) >= int(sys.argv[4]), "tests"
for t in tests:
    assert "name" in t or "output" in t, t
    assert "score" not in t or t["score"] <= t.get("max_score", t["score"]), t
PY
}
score_of() { py "$1" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["score"])
PY
}

good_points=$(points_of "$master" "$good" | cut -d' ' -f1)
fail_points=$(points_of "$master" "$fail_sheet" | cut -d' ' -f1)
gradescope_case good "$good"
check_gs "$results" "score == $good_points" "" 20
gradescope_case fail "$fail_sheet"
check_gs "$results" "score == $fail_points" "" 20
gradescope_case tampered "$work/tampered.yaml"
check_gs "$results" "score >= 0" "threshold" 1
grep -qi "tamper" "$results" || fail "tampered sheet not flagged: $(cat "$results")"
gradescope_case unreadable "$work/broken.yaml"
check_gs "$results" "score == 0" "broken.yaml:2:1" 0
gradescope_case missing
check_gs "$results" "score == 0" "No sheet found: submit your filled-in lab01.yaml" 0
gradescope_case two "$good" "$work/tampered.yaml"
check_gs "$results" "score == 0" "Found 2 .yaml files (" 0
# any case, in a folder, in a .zip (relative names in every message)
gradescope_case upper "$good=LAB01.YAML"
check_gs "$results" "score == $good_points" "" 20
gradescope_case nested "$fail_sheet=My Work/week 3/lab01.yml"
check_gs "$results" "score == $fail_points" "" 20
gradescope_case nested-broken "$work/broken.yaml=hw/lab01.yaml"
check_gs "$results" "score == 0" "hw/lab01.yaml:2:1: error" 0
(cd "$work" && mkdir -p zipsrc/hw && cp "$good" zipsrc/hw/Lab01.yaml && cp "$work/broken.yaml" zipsrc/hw/.hidden.yaml &&
    mkdir -p zipsrc/__MACOSX && cp "$work/broken.yaml" zipsrc/__MACOSX/lab01.yaml &&
    cd zipsrc && python3 -c 'import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1], "w")
for d, _, fs in os.walk("."):
    for f in fs:
        z.write(os.path.join(d, f)[2:])' "$work/sub.zip")
gradescope_case zip "$work/sub.zip"
check_gs "$results" "score == $good_points" "" 20
cp "$work/broken.yaml" "$work/zipsrc/hw/Lab01.yaml"
(cd "$work/zipsrc" && rm -f "$work/sub2.zip" && python3 -c 'import sys, zipfile
zipfile.ZipFile(sys.argv[1], "w").write("hw/Lab01.yaml")' "$work/sub2.zip")
gradescope_case zip-broken "$work/sub2.zip=Handin.ZIP"
check_gs "$results" "score == 0" "Handin.ZIP/hw/Lab01.yaml:2:1: error" 0
# a repository submitted from GitHub: its .github/*.yml and other .yml files
# do not count against the sheet named like the blank one
mkdir -p "$work/wf/.github/workflows"
printf 'on: push\n' > "$work/wf/.github/workflows/classroom.yml"
gradescope_case github "$good=lab01.yaml" "$work/wf/.github/workflows/classroom.yml=.github/workflows/classroom.yml" \
    "$work/tampered.yaml=notes.yml"
check_gs "$results" "score == $good_points" "" 20
# tlab itself missing: still a results.json, score 0, naming the failure
root=$work/gs-notlab
mkdir -p "$root/submission"
cp -R "$work/gs-src" "$root/source"
cp "$good" "$root/submission/"
TLAB=$work/no-such-tlab TLAB_AUTOGRADER_ROOT=$root as_root "$root/source/run_autograder" 2> /dev/null ||
    fail "run_autograder without tlab exited $?"
check_gs "$root/results/results.json" "score == 0" "tlab could not grade lab01-pass.yaml" 0

# ---- PrairieLearn
expect 0 autograder prairielearn --lab "$master" -o "$work/pl"
stderr_has "copy it to the course's serverFilesCourse/tlab/lab01/"
[ -x "$work/pl/run.sh" ] || fail "run.sh is not executable"
cmp -s "$work/pl/master.yaml" "$master" || fail "PrairieLearn master differs"
sh -n "$work/pl/run.sh" || fail "run.sh: syntax"
if command -v shellcheck > /dev/null 2>&1; then
    shellcheck -s sh "$work/pl/run.sh" || fail "shellcheck run.sh"
fi
grep -qxF 'ROOT=${TLAB_GRADE_ROOT:-/grade}' "$work/pl/run.sh" || fail "run.sh: root is not /grade by default"
grep -qxF 'SUB=$ROOT/student' "$work/pl/run.sh" || fail "run.sh: not reading /grade/student"
# check_options FILE PATH IMAGE: the snippet points at serverFilesCourse/PATH
check_options() {
    py "$@" <<'PY' || fail "externalGradingOptions.json ($2): $(cat "$1")"
import sys, json
o = json.load(open(sys.argv[1]))["externalGradingOptions"]
assert o["enabled"] is True
assert o["entrypoint"] == "/grade/serverFilesCourse/%s/run.sh" % sys.argv[2], o
assert o["serverFilesCourse"] == [sys.argv[2] + "/"], o
assert o["image"] == sys.argv[3], o
assert 0 < o["timeout"] <= 600
PY
}
check_options "$work/pl/externalGradingOptions.json" tlab/lab01 "$readme_image"
# two labs side by side in one course, paths following -o
course=$work/course
lab02=$top_srcdir/labs/lab02.yaml
expect 0 autograder prairielearn --lab "$master" -o "$course/serverFilesCourse/tlab/lab01"
stderr_has "(serverFilesCourse/tlab/lab01/)"
expect 0 autograder prairielearn --image ghcr.io/course/tlab:2 --lab "$lab02" -o "$course/serverFilesCourse/tlab/lab02"
check_options "$course/serverFilesCourse/tlab/lab01/externalGradingOptions.json" tlab/lab01 "$readme_image"
check_options "$course/serverFilesCourse/tlab/lab02/externalGradingOptions.json" tlab/lab02 ghcr.io/course/tlab:2
cmp -s "$course/serverFilesCourse/tlab/lab01/master.yaml" "$master" || fail "lab01's master was overwritten"
expect 2 autograder prairielearn --force --lab "$master" -o "$course/serverFilesCourse/"
stderr_has "name a folder inside serverFilesCourse/"

# pl_case LAB NAME FILE...: a /grade (root-owned, as PrairieLearn mounts it)
# with the course's serverFilesCourse/tlab/LAB copied as the options say
# and FILEs in student/; run.sh (the entrypoint) runs as the image's user.
pl_case() {
    lab=$1 name=$2
    shift 2
    root=$work/pl-$lab-$name
    mkdir -p "$root/student" "$root/serverFilesCourse/tlab"
    cp -R "$course/serverFilesCourse/tlab/$lab" "$root/serverFilesCourse/tlab/$lab"
    for s in "$@"; do cp "$s" "$root/student/"; done
    chmod -R go-w "$root"
    entry=$(py "$course/serverFilesCourse/tlab/$lab/externalGradingOptions.json" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])
PY
)
    entry=$root/${entry#/grade/}
    TLAB_GRADE_ROOT=$root as_uid "$image_uid" "$entry" > "$work/stdout" 2> "$work/stderr" ||
        fail "run.sh ($lab $name) as uid $image_uid exited $?: $(cat "$work/stderr")"
    results=$root/results/results.json
    [ -s "$results" ] || fail "run.sh ($lab $name) wrote no results.json"
    ! grep -qF "$root" "$results" || fail "run.sh ($name): a grader path reaches the student: $(cat "$results")"
    if [ -x "$validate" ]; then
        "$validate" "$top_srcdir/tests/prairielearn-results.schema.json" "$results" ||
            fail "run.sh ($lab $name): results.json does not validate"
    fi
}

# check_pl RESULTS SCORE_TEST MESSAGE_SUBSTRING NTESTS_MIN
check_pl() {
    py "$@" <<'PY' || fail "PrairieLearn results.json ($2): $(cat "$1")"
import sys, json
r = json.load(open(sys.argv[1]))
score = r.get("score")
assert isinstance(score, (int, float)) and 0 <= score <= 1, ("score", score)
assert r.get("gradable", True) in (True, False)
assert eval(sys.argv[2], {"score": score, "r": r}), ("score", score)
text = json.dumps(r)
assert sys.argv[3] in text, ("message", sys.argv[3], text[:500])
assert isinstance(r.get("tests", []), list) and len(r.get("tests", [])) >= int(sys.argv[4])
PY
}

set -- $(points_of "$master" "$good")
pl_case lab01 good "$good"
check_pl "$results" "r['gradable'] and abs(score - $1 / $2) < 1e-9" "" 20
pl_case lab01 tampered "$work/tampered.yaml"
check_pl "$results" "score >= 0" "threshold" 1
grep -qi "tamper" "$results" || fail "PrairieLearn: tampered sheet not flagged"
pl_case lab01 unreadable "$work/broken.yaml"
check_pl "$results" "not r['gradable'] and score == 0" "broken.yaml:2:1" 0
pl_case lab01 missing
check_pl "$results" "not r['gradable'] and r['format_errors']" "No sheet found" 0
pl_case lab01 two "$good" "$work/tampered.yaml"
check_pl "$results" "not r['gradable'] and r['format_errors']" "Found 2 .yaml files" 0
# lab02's question grades against lab02's master (not lab01's)
set -- $(points_of "$lab02" "$top_srcdir/tests/students/lab02-pass.yaml")
pl_case lab02 good "$top_srcdir/tests/students/lab02-pass.yaml"
check_pl "$results" "r['gradable'] and abs(score - $1 / $2) < 1e-9" "" 20

# ---- GitHub Classroom and GitLab CI
expect 0 autograder github --lab "$master" -o "$work/gh"
stderr_has "the organization secret TLAB_MASTER_LAB01"
for f in .github/workflows/classroom.yml .gitlab-ci.yml .tlab/grade.sh .tlab/tlab.tar.gz lab01.yaml; do
    [ -f "$work/gh/$f" ] || fail "github target: no $f"
done
[ ! -e "$work/gh/.tlab/master.yaml" ] || fail "github target: the master is in the student's repository"
cmp -s "$work/gh/.tlab/tlab.tar.gz" "$tarball" || fail "github tarball differs"
sh -n "$work/gh/.tlab/grade.sh" || fail "grade.sh: syntax"
if command -v shellcheck > /dev/null 2>&1; then
    shellcheck -s sh "$work/gh/.tlab/grade.sh" || fail "shellcheck grade.sh"
fi
# the blank sheet is tlab new's
expect 0 new "$master"
cmp -s "$work/stdout" "$work/gh/lab01.yaml" || fail "the sheet in the repository is not 'tlab new'"
# --force over an older bundle removes the master it left in the repository
mkdir -p "$work/gh-old/.tlab"
cp "$master" "$work/gh-old/.tlab/master.yaml"
expect 0 autograder github --force --lab "$master" -o "$work/gh-old"
[ ! -e "$work/gh-old/.tlab/master.yaml" ] || fail "--force left an old bundle's master in the repository"
# a master too big for a GitHub secret is said at once
{ cat "$master"; i=0; while [ $i -lt 700 ]; do echo "# filler line $i ........................................................"; i=$((i + 1)); done; } > "$work/big.yaml"
expect 0 autograder github --lab "$work/big.yaml" -o "$work/gh-big"
stderr_has "more than a GitHub secret holds (48 KB)"
expect 0 autograder github --lab "$master" -o "$work/gh-small"
stderr_lacks "GitHub secret holds"
python3 -c 'import yaml' 2> /dev/null || skip "python3-yaml is not installed (YAML checks)"
py "$work/gh" <<'PY' || fail "GitHub/GitLab YAML"
import sys, yaml, os
d = sys.argv[1]
wf = yaml.safe_load(open(os.path.join(d, ".github/workflows/classroom.yml")))
on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
assert "push" in on, on
assert wf["permissions"]["checks"] == "write"
(job,) = wf["jobs"].values()
assert job["runs-on"] == "ubuntu-latest"
steps = job["steps"]
uses = [s.get("uses", "") for s in steps]
assert uses[0].startswith("actions/checkout@"), uses
assert not any("autograding-command-grader" in u for u in uses), "the command grader scrubs the env"
build = next(s for s in steps if "apt-get" in s.get("run", ""))
for want in ("apt-get install", "libyaml-dev", ".tlab/tlab.tar.gz", "./configure", "make install", "GITHUB_PATH"):
    assert want in build["run"], want
grader = next(s for s in steps if s.get("id") == "tlab")
assert grader["run"] == "sh .tlab/grade.sh classroom", grader
assert grader["env"]["TLAB_MASTER"] == "${{ secrets.TLAB_MASTER_LAB01 }}", grader
assert steps.index(build) < steps.index(grader)
rep = steps[-1]
assert rep["uses"].startswith("classroom-resources/autograding-grading-reporter@"), rep
assert rep["with"]["runners"] == "tlab"
assert rep["env"]["TLAB_RESULTS"] == "${{ steps.tlab.outputs.result }}"
gl = yaml.safe_load(open(os.path.join(d, ".gitlab-ci.yml")))
(job,) = gl.values()
assert job["image"].startswith("debian:12"), job["image"]
assert job["artifacts"]["when"] == "always"
assert job["artifacts"]["reports"]["junit"] == "tlab-junit.xml"
PY

# secrets.json MASTER: the repository secrets, the master as README says
secrets() {
    py "$1" <<'PY'
import sys, json, base64
print(json.dumps({"TLAB_MASTER_LAB01": base64.b64encode(open(sys.argv[1], "rb").read()).decode()}))
PY
}
secrets "$master" > "$work/secrets.json"
echo '{}' > "$work/no-secrets.json"

# classroom_case NAME SHEET SECRETS: the template with SHEET pushed as
# lab01.yaml, run by the simulated runner (uid 1001); leaves $report.
classroom_case() {
    repo=$work/repo-$1
    cp -R "$work/gh" "$repo"
    cp "$2" "$repo/lab01.yaml"
    report=$work/classroom-$1.json
    "$PYTHON" "$top_srcdir/tests/classroom_sim.py" github "$repo" "$TLAB" "$3" "$work/runner-$1" 1001 \
        > "$report" || fail "classroom ($1): the workflow did not run"
}
# check_classroom REPORT POINTS MAX FAILED [SUMMARY_SUBSTRING]
check_classroom() {
    py "$@" <<'PY' || fail "classroom: $(head -c 3000 "$1")"
import sys, json
r = json.load(open(sys.argv[1]))
assert r["points"] == float(sys.argv[2]) and r["max_points"] == float(sys.argv[3]), (r["points"], r["max_points"])
assert r["failed"] == (sys.argv[4] == "true"), r["failed"]
if len(sys.argv) > 5:
    assert sys.argv[5] in r["summary"], ("summary", r["summary"][:300], r["log"][:1000])
    ops = [t for t in r["tests"] if t["name"][:1].isdigit()]
    assert len(ops) >= 20 and all(t["score"] in (0, 1) for t in ops), "one test per op"
PY
}
set -- $(points_of "$master" "$good")
classroom_case good "$good" "$work/secrets.json"
check_classroom "$report" "$1" "$2" false "| 1 | <code>x\\[1\\:\\]</code> |"
set -- $(points_of "$master" "$fail_sheet")
classroom_case fail "$fail_sheet" "$work/secrets.json"
check_classroom "$report" "$1" "$2" true "FAIL"
classroom_case unreadable "$work/broken.yaml" "$work/secrets.json"
check_classroom "$report" 0 "$2" true
grep -q 'lab01.yaml:2:1' "$report" || fail "classroom: the unreadable sheet's error is not shown"
# no secret: an error that says what the instructor must do, 0 points
classroom_case nosecret "$good" "$work/no-secrets.json"
check_classroom "$report" 0 1 true
grep -q 'the secret TLAB_MASTER_LAB01' "$report" || fail "classroom: a missing secret is not explained"
# outside a run: step (GITHUB_STEP_SUMMARY unset), the loss is stated
(cd "$work/repo-good" && env -i PATH="$(dirname "$TLAB"):/usr/bin:/bin" TLAB_MASTER="$(py "$work/secrets.json" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["TLAB_MASTER_LAB01"])
PY
)" sh .tlab/grade.sh classroom > "$work/scrubbed.out" 2>&1) || fail "grade.sh in a scrubbed environment exited $?"
grep -q '::warning title=tlab::GITHUB_STEP_SUMMARY is not set: no summary table is written' "$work/scrubbed.out" ||
    fail "grade.sh does not state the lost summary: $(head -c 500 "$work/scrubbed.out")"
# GitLab: the job's script, its status and its JUnit report
gitlab_case() {
    repo=$work/glrepo-$1
    cp -R "$work/gh" "$repo"
    cp "$2" "$repo/lab01.yaml"
    report=$work/gitlab-$1.json
    "$PYTHON" "$top_srcdir/tests/classroom_sim.py" gitlab "$repo" "$TLAB" "$3" "$work/gl-$1" 1001 \
        > "$report" || fail "gitlab ($1): the job did not run"
}
gitlab_case good "$good" "$work/secrets.json"
py "$report" <<'PY' || fail "gitlab good: $(cat "$report")"
import sys, json
r = json.load(open(sys.argv[1]))
assert r["exit"] == 0 and r["junit"], r
PY
if command -v xmllint > /dev/null 2>&1; then
    xmllint --noout --schema "$top_srcdir/tests/junit.xsd" "$work/gl-good/project/tlab-junit.xml" 2> "$work/xmllint" ||
        fail "gitlab: tlab-junit.xml does not validate: $(cat "$work/xmllint")"
fi
gitlab_case fail "$fail_sheet" "$work/secrets.json"
py "$report" <<'PY' || fail "gitlab fail: $(cat "$report")"
import sys, json
r = json.load(open(sys.argv[1]))
assert r["exit"] == 1 and r["junit"], r
PY
exit 0
