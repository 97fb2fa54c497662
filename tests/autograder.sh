#!/bin/sh
# tests/autograder.sh - `tlab autograder gradescope|prairielearn|github`.
#
# Gradescope: the zip is a valid archive (python3 zipfile when present, else
# unzip -t) holding setup.sh, run_autograder (both executable), the master and
# the tarball byte for byte; run_autograder then grades, in a temporary tree
# laid out like /autograder (TLAB_AUTOGRADER_ROOT), a good, a tampered, an
# unreadable and a missing submission (and two sheets), and each
# results.json is checked: score, output, tests[] and what they say.
# PrairieLearn: the same against a fake /grade (TLAB_GRADE_ROOT), plus the
# externalGradingOptions snippet. GitHub/GitLab: the YAML parses (python3-yaml;
# skipped without it) and has the steps, commands and paths the platforms use.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

command -v python3 > /dev/null 2>&1 || skip "python3 is needed to read the zip and the JSON"
py() { python3 - "$@"; }

master=$top_srcdir/answers/lab01.yaml
good=$top_srcdir/tests/students/lab01-pass.yaml
fail_sheet=$top_srcdir/tests/students/lab01-fail.yaml
sed -e 's/threshold: 16/threshold: 1/' "$good" > "$work/tampered.yaml"
printf 'ops: [\n' > "$work/broken.yaml"

# A source tarball to bundle: the build's `make dist` one when it exists
# (not made here: too slow for make check), else a small stand-in; either
# way only its bytes are checked (setup.sh is not run: it apt-gets).
tarball=$(ls "$top_builddir"/tlab-*.tar.gz 2> /dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
    tar czf "$work/tlab-src.tar.gz" -C "$top_srcdir" configure.ac Makefile.am
    tarball=$work/tlab-src.tar.gz
fi
export TLAB_TARBALL="$tarball"

# ---- usage errors
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

# ---- Dockerfile: its build step is the README's first command (which CI
# runs), two Debian 12 slim stages, runtime libraries only, a non-root user
readme_cmd=$(sed -n '/^```sh$/{n;p;q;}' "$top_srcdir/README.md")
case $readme_cmd in apt-get*) ;; *) fail "README's first command is not the apt-get line: $readme_cmd" ;; esac
docker=$top_srcdir/Dockerfile
grep -qxF "RUN $readme_cmd" "$docker" || fail "Dockerfile does not RUN the README's first command"
[ "$(grep -c '^FROM debian:12-slim' "$docker")" = 2 ] || fail "Dockerfile: not two debian:12-slim stages"
final=$(sed -n '/^FROM debian:12-slim$/,$p' "$docker")
case $final in *-dev*|*build-essential*) fail "Dockerfile: build packages in the final stage" ;; esac
printf '%s\n' "$final" | grep -q '^COPY --from=build ' || fail "Dockerfile: final stage copies nothing from the build"
printf '%s\n' "$final" | grep -q '^USER tlab$' || fail "Dockerfile: final stage runs as root"

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
for want in ("apt-get install", "libyaml-dev", "libcjson-dev", "tar xzf tlab.tar.gz",
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

# gradescope_case NAME SHEET...: a fresh /autograder tree with SHEETs as the
# submission; runs run_autograder (it must exit 0) and leaves results.json.
gradescope_case() {
    name=$1
    shift
    root=$work/gs-$name
    mkdir -p "$root/submission"
    cp -R "$work/gs-src" "$root/source"
    for s in "$@"; do cp "$s" "$root/submission/"; done
    TLAB_AUTOGRADER_ROOT=$root "$root/source/run_autograder" > "$work/stdout" 2> "$work/stderr" ||
        fail "run_autograder ($name) exited $?"
    results=$root/results/results.json
    [ -s "$results" ] || fail "run_autograder ($name) wrote no results.json"
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

gradescope_case good "$good"
check_gs "$results" "score > 0" "" 20
cp "$results" "$work/gs-good.json"
gradescope_case fail "$fail_sheet"
check_gs "$results" "0 <= score < $(py "$work/gs-good.json" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["score"])
PY
)" "" 20
gradescope_case tampered "$work/tampered.yaml"
check_gs "$results" "score >= 0" "threshold" 1
grep -qi "tamper" "$results" || fail "tampered sheet not flagged: $(cat "$results")"
gradescope_case unreadable "$work/broken.yaml"
check_gs "$results" "score == 0" "broken.yaml" 0
gradescope_case missing
check_gs "$results" "score == 0" "No sheet found: submit your filled-in lab01.yaml" 0
gradescope_case two "$good" "$work/tampered.yaml"
check_gs "$results" "score == 0" "Found 2 .yaml files" 0
# tlab itself missing: still a results.json, score 0, naming the failure
root=$work/gs-notlab
mkdir -p "$root/submission"
cp -R "$work/gs-src" "$root/source"
cp "$good" "$root/submission/"
TLAB=$work/no-such-tlab TLAB_AUTOGRADER_ROOT=$root "$root/source/run_autograder" 2> /dev/null ||
    fail "run_autograder without tlab exited $?"
check_gs "$root/results/results.json" "score == 0" "tlab could not grade lab01-pass.yaml" 0

# ---- PrairieLearn
expect 0 autograder prairielearn --lab "$master" -o "$work/pl"
[ -x "$work/pl/run.sh" ] || fail "run.sh is not executable"
cmp -s "$work/pl/master.yaml" "$master" || fail "PrairieLearn master differs"
sh -n "$work/pl/run.sh" || fail "run.sh: syntax"
grep -qxF 'ROOT=${TLAB_GRADE_ROOT:-/grade}' "$work/pl/run.sh" || fail "run.sh: root is not /grade by default"
grep -qxF 'SUB=$ROOT/student' "$work/pl/run.sh" || fail "run.sh: not reading /grade/student"
py "$work/pl/externalGradingOptions.json" <<'PY' || fail "externalGradingOptions.json"
import sys, json
o = json.load(open(sys.argv[1]))["externalGradingOptions"]
assert o["enabled"] is True
assert o["entrypoint"] == "/grade/serverFilesCourse/tlab/run.sh", o
assert o["serverFilesCourse"] == ["tlab/"], o
assert isinstance(o["image"], str) and o["image"]
assert 0 < o["timeout"] <= 600
PY

# pl_case NAME SHEET...: a fake /grade with serverFilesCourse/tlab/ and SHEETs
# in student/; leaves $results.
pl_case() {
    name=$1
    shift
    root=$work/pl-$name
    mkdir -p "$root/student" "$root/serverFilesCourse"
    cp -R "$work/pl" "$root/serverFilesCourse/tlab"
    for s in "$@"; do cp "$s" "$root/student/"; done
    TLAB_GRADE_ROOT=$root "$root/serverFilesCourse/tlab/run.sh" > "$work/stdout" 2> "$work/stderr" ||
        fail "run.sh ($name) exited $?"
    results=$root/results/results.json
    [ -s "$results" ] || fail "run.sh ($name) wrote no results.json"
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

pl_case good "$good"
check_pl "$results" "score > 0.5" "" 20
pl_case tampered "$work/tampered.yaml"
check_pl "$results" "score >= 0" "threshold" 1
grep -qi "tamper" "$results" || fail "PrairieLearn: tampered sheet not flagged"
pl_case unreadable "$work/broken.yaml"
check_pl "$results" "score == 0" "broken.yaml" 0
pl_case missing
check_pl "$results" "score == 0" "No sheet found" 0

# ---- GitHub Classroom and GitLab CI
expect 0 autograder github --lab "$master" -o "$work/gh"
for f in .github/workflows/classroom.yml .gitlab-ci.yml .tlab/master.yaml .tlab/tlab.tar.gz lab01.yaml; do
    [ -f "$work/gh/$f" ] || fail "github target: no $f"
done
cmp -s "$work/gh/.tlab/master.yaml" "$master" || fail "github master differs"
cmp -s "$work/gh/.tlab/tlab.tar.gz" "$tarball" || fail "github tarball differs"
# the blank sheet is tlab new's
expect 0 new "$master"
cmp -s "$work/stdout" "$work/gh/lab01.yaml" || fail "the sheet in the repository is not 'tlab new'"
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
build = next(s for s in steps if "run" in s)
for want in ("apt-get install", "libyaml-dev", ".tlab/tlab.tar.gz", "./configure", "make install", "GITHUB_PATH"):
    assert want in build["run"], want
grader = next(s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-command-grader@"))
w = grader["with"]
assert w["command"] == "tlab check --lab .tlab/master.yaml --format github lab01.yaml", w
assert {"test-name", "command", "timeout", "max-score"} <= set(w), w
assert steps.index(build) < steps.index(grader)
rep = steps[-1]
assert rep["uses"].startswith("classroom-resources/autograding-grading-reporter@"), rep
gid = grader["id"]
assert rep["with"]["runners"] == gid
assert rep["env"][gid.upper() + "_RESULTS"] == "${{ steps.%s.outputs.result }}" % gid

gl = yaml.safe_load(open(os.path.join(d, ".gitlab-ci.yml")))
(job,) = gl.values()
assert job["image"].startswith("debian:12"), job["image"]
script = "\n".join(job["script"])
for want in ("apt-get install", ".tlab/tlab.tar.gz", "./configure", "make install",
             "tlab check --lab .tlab/master.yaml --format junit -o tlab-junit.xml lab01.yaml"):
    assert want in script, want
assert job["artifacts"]["when"] == "always"
assert job["artifacts"]["reports"]["junit"] == "tlab-junit.xml"
PY
exit 0
