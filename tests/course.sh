#!/bin/sh
# tests/course.sh - an instructor's whole course, played from a fresh layout.
#
# For every lab: the master copied from labs/, the blank sheet students get
# (`tlab new`), and every bundle (`tlab autograder gradescope|prairielearn|
# github`) deployed into a simulated layout of its platform: a root-owned
# /autograder run as root, a root-owned /grade run as the Dockerfile's user
# with the course's serverFilesCourse/ holding every lab side by side, the
# GitHub Classroom workflow and reporter replayed by tests/classroom_sim.py as
# the runner's user in a scrubbed environment, the GitLab job's script. A
# class of sheets goes through each: right (answers/), wrong
# (tests/students/*-fail), blank, one typo'd prediction, another lab's sheet,
# and a tampered one. Asserted:
#   - nothing students can read before grading (the blank sheets, every file
#     of the template repository) holds an answer: no prediction, rule,
#     question answer or classify() filled in, no rule or answer text of the
#     reference sheets, no explanation of the master;
#   - every platform's score is `tlab check --lab`'s (0 for a sheet it
#     cannot read), and Classroom's points and maximum are tlab's;
#   - every document validates: Gradescope and PrairieLearn results against
#     tests/*.schema.json (tests/validate_json), the scorecards and the class
#     record against share/, JUnit against tests/junit.xsd (xmllint), TAP
#     through prove, with README's own pipelines run as written.
# Checks named in PENDING (TLAB_COURSE_PENDING) only report a failure; none
# is listed: every check below holds and fails the test when it does not.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

# typo-op-zero: a malformed prediction scores that op 0, the rest is graded
#   (SPEC 3); wrong-lab-zero: a sheet of another lab scores 0 (SPEC 3);
# blank-rules: a blank sheet fails a required rules check (SPEC 3);
# no-explanations: blank sheets carry no explanation (SPEC 2, 3).
PENDING=${TLAB_COURSE_PENDING-}

command -v python3 > /dev/null 2>&1 || skip "python3 is needed"
python3 -c 'import yaml' 2> /dev/null || skip "python3-yaml is needed (the workflow simulation)"
# the interpreter itself, not a version manager's shim (each call counts)
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
py() { "$PYTHON" - "$@"; }
validate=$top_builddir/tests/validate_json
[ -x "$validate" ] || fail "tests/validate_json is not built"
command -v xmllint > /dev/null 2>&1 || skip "xmllint is needed (JUnit)"
command -v prove > /dev/null 2>&1 || skip "prove is needed (TAP)"

share_tlab_with_users # platform users are root or a dropped uid

pending_failed=""
# spec NAME DESCRIPTION CMD...: CMD must succeed; NAME in PENDING only reports.
spec() {
    name=$1 what=$2
    shift 2
    case " $PENDING " in
    *" $name "*)
        if "$@"; then
            echo "PENDING $name now holds ($what): take it out of PENDING" >&2
        else
            echo "PENDING $name: $what" >&2
            pending_failed="$pending_failed $name"
        fi ;;
    *) "$@" || fail "$name: $what" ;;
    esac
}

# The user PrairieLearn runs run.sh as: the Dockerfile's final USER (root).
image_user=$(sed -n '/^FROM debian:12-slim$/,$p' "$top_srcdir/Dockerfile" | sed -n 's/^USER //p' | tail -n 1)
case ${image_user:-root} in root | 0) image_uid=0 ;; *) image_uid=1000 ;; esac

tarball=$(ls "$top_builddir"/tlab-*.tar.gz 2> /dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
    tar czf "$work/tlab-src.tar.gz" -C "$top_srcdir" configure.ac Makefile.am
    tarball=$work/tlab-src.tar.gz
fi
export TLAB_TARBALL="$tarball"

# ---- the course, from a fresh layout
course=$work/course
mkdir -p "$course/labs" "$course/handout" "$course/gradescope" "$course/github" \
    "$course/pl/serverFilesCourse/tlab" "$course/secrets"
labs="lab01 lab02 lab03 lab04 lab05 lab06 lab07"
for lab in $labs; do
    cp "$top_srcdir/labs/$lab.yaml" "$course/labs/"
    expect 0 new "$course/labs/$lab.yaml"
    cp "$work/stdout" "$course/handout/$lab.yaml"
    expect 0 autograder gradescope --lab "$course/labs/$lab.yaml" -o "$course/gradescope/$lab.zip"
    expect 0 autograder prairielearn --lab "$course/labs/$lab.yaml" -o "$course/pl/serverFilesCourse/tlab/$lab"
    expect 0 autograder github --lab "$course/labs/$lab.yaml" -o "$course/github/$lab"
    stderr_has "TLAB_MASTER_$(echo "$lab" | tr a-z A-Z)"
    py "$course/labs/$lab.yaml" "$lab" > "$course/secrets/$lab.json" <<'PY'
import sys, json, base64
print(json.dumps({"TLAB_MASTER_" + sys.argv[2].upper(): base64.b64encode(open(sys.argv[1], "rb").read()).decode()}))
PY
done

# ---- nothing students can read holds an answer
# the answers' own texts: every rule line and question answer of the
# reference sheets, and the masters' explanations
py "$top_srcdir/answers" "$course/labs" "$work/answer-texts" "$work/explanations" $labs <<'PY'
import sys, yaml, os
answers, masters, out_a, out_e = sys.argv[1:5]
a, e = set(), set()
for lab in sys.argv[5:]:
    ref = yaml.safe_load(open(os.path.join(answers, lab + ".yaml")))
    for op in ref.get("ops", []):
        if isinstance(op.get("rule"), str) and len(op["rule"]) >= 12:
            a.add(op["rule"].strip())
    for q in ref.get("questions", []) or []:
        if isinstance(q.get("answer"), str) and len(q["answer"]) >= 12:
            a.add(q["answer"].strip().split("\n")[0][:60])
    if isinstance(ref.get("classify"), str) and ref["classify"].strip():
        a.add(ref["classify"].strip().split("\n")[0])
    m = yaml.safe_load(open(os.path.join(masters, lab + ".yaml")))
    for op in m.get("ops", []):
        if isinstance(op.get("explanation"), str):
            e.add(" ".join(op["explanation"].split())[:50])
            # a rule quoted by an explanation is the explanation's to hide
            full = " ".join(op["explanation"].split())
            a = {t for t in a if " ".join(t.split()) not in full}
open(out_a, "w").write("\n".join(sorted(a)) + "\n")
open(out_e, "w").write("\n".join(sorted(e)) + "\n")
PY
[ "$(wc -l < "$work/answer-texts")" -gt 100 ] || fail "too few answer texts to look for"
# blank_sheet FILE: a sheet with nothing answered (YAML view)
blank_sheet() {
    py "$1" <<'PY'
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
for op in s.get("ops", []):
    assert op.get("predict") is None and op.get("rule") is None, ("answered", op.get("id"))
for q in s.get("questions", []) or []:
    assert q.get("answer") is None, ("answered", q.get("id"))
assert s.get("classify") in (None, ""), "classify"
PY
}
no_explanation_key() {
    py "$1" <<'PY'
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
assert not [op["id"] for op in s.get("ops", []) if "explanation" in op]
PY
}
# texts_absent LIST FILE...: no line of LIST (normalised spaces) in FILEs
texts_absent() {
    list=$1
    shift
    py "$list" "$@" <<'PY'
import sys
texts = [t for t in open(sys.argv[1]).read().split("\n") if t]
for f in sys.argv[2:]:
    body = " ".join(open(f, encoding="utf-8", errors="replace").read().split())
    hits = [t for t in texts if " ".join(t.split()) in body]
    assert not hits, (f, hits[:3])
PY
}
visible=""
for lab in $labs; do
    blank_sheet "$course/handout/$lab.yaml" || fail "$lab: the handout has answers"
    blank_sheet "$course/github/$lab/$lab.yaml" || fail "$lab: the repository's sheet has answers"
    [ ! -e "$course/github/$lab/.tlab/master.yaml" ] || fail "$lab: the master is in the student repository"
    for f in $(cd "$course/github/$lab" && find . -type f ! -name '*.tar.gz'); do
        visible="$visible $course/github/$lab/$f"
    done
    visible="$visible $course/handout/$lab.yaml"
    spec no-explanations "$lab's handout carries explanations" no_explanation_key "$course/handout/$lab.yaml"
done
# shellcheck disable=SC2086
texts_absent "$work/answer-texts" $visible || fail "an answer text reaches a student-visible file"
# shellcheck disable=SC2086
spec no-explanations "an explanation reaches a student-visible file" texts_absent "$work/explanations" $visible

# ---- the class
# make_sheets LAB: right, wrong, blank, typo, wronglab, tampered in $class/LAB/
class=$work/class
make_sheets() {
    d=$class/$1
    mkdir -p "$d"
    cp "$top_srcdir/answers/$1.yaml" "$d/right.yaml"
    cp "$top_srcdir/tests/students/$1-fail.yaml" "$d/wrong.yaml"
    cp "$course/handout/$1.yaml" "$d/blank.yaml"
    cp "$top_srcdir/answers/$2.yaml" "$d/wronglab.yaml"
    # one prediction misspelt (the first view or copy): remember its op
    py "$d/right.yaml" "$d/typo.yaml" "$d/typo-op" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'^ *predict: *(\{kind: *)?(view|copy)\b', s, re.M)
assert m, "no view/copy prediction"
word = {"view": "veiw", "copy": "cpoy"}[m.group(2)]
s2 = s[:m.start(2)] + word + s[m.end(2):]
open(sys.argv[2], "w").write(s2)
ids = re.findall(r'^ *- id: *"?([^"\n]+)"?', s[:m.start()], re.M)
open(sys.argv[3], "w").write(ids[-1] + "\n")
PY
    # tampered: the threshold lowered and the first op's text changed
    sed -e 's/^threshold: .*/threshold: 1/' -e '0,/^    op: .*/s//    op: x.clone()/' "$d/right.yaml" > "$d/tampered.yaml"
}
for lab in $labs; do
    # the wrong lab's sheet: the next lab's reference sheet
    case $lab in lab07) other=lab01 ;; *) other=lab0$((${lab#lab0} + 1)) ;; esac
    make_sheets "$lab" "$other"
done
sheets="right wrong blank typo wronglab tampered"

# expected LAB SHEET: "POINTS MAX ERROR" from `tlab check --lab` (0 when unreadable)
expected() {
    "$TLAB" check --lab "$course/labs/$1.yaml" --format json -o "$work/exp.json" "$class/$1/$2.yaml" 2> /dev/null || true
    "$validate" "$top_srcdir/share/tlab-scorecard.schema.json" "$work/exp.json" ||
        fail "$1 $2: the scorecard does not validate"
    py "$work/exp.json" <<'PY'
import sys, json
d = json.load(open(sys.argv[1]))
s = d["score"]
err = 1 if d.get("error") else 0
print(0 if err else s["points"], s["max_points"], err)
PY
}
# op_points LAB ID: the op's points in the master
op_points() {
    "$TLAB" check --lab "$course/labs/$1.yaml" --format json -o "$work/op.json" "$top_srcdir/answers/$1.yaml" 2> /dev/null || true
    py "$work/op.json" "$2" <<'PY'
import sys, json
print(next(o["points"] for o in json.load(open(sys.argv[1]))["ops"] if o["id"] == sys.argv[2]))
PY
}
same_number() { py "$1" "$2" <<'PY'
import sys; assert abs(float(sys.argv[1]) - float(sys.argv[2])) < 1e-9, sys.argv[1:]
PY
}

for lab in $labs; do
    entry=$(py "$course/pl/serverFilesCourse/tlab/$lab/externalGradingOptions.json" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])
PY
)
    for sheet in $sheets; do
        set -- $(expected "$lab" "$sheet")
        want=$1 max=$2 unreadable=$3
        file=$class/$lab/$sheet.yaml

        # Gradescope: /autograder owned by root, run_autograder as root
        root=$work/gs/$lab-$sheet
        mkdir -p "$root/source" "$root/submission"
        (cd "$root/source" && unzip -qq "$course/gradescope/$lab.zip")
        cp "$file" "$root/submission/$lab.yaml"
        TLAB_AUTOGRADER_ROOT=$root as_root sh "$root/source/run_autograder" > /dev/null 2>&1 ||
            fail "$lab $sheet: run_autograder exited $?"
        gs=$root/results/results.json
        "$validate" "$top_srcdir/tests/gradescope-results.schema.json" "$gs" ||
            fail "$lab $sheet: Gradescope results.json does not validate"
        got=$(py "$gs" <<'PY'
import sys, json; print(json.load(open(sys.argv[1]))["score"])
PY
)
        same_number "$got" "$want" || fail "$lab $sheet: Gradescope scores $got, check --lab $want"

        # PrairieLearn: /grade owned by root, run.sh as the image's user
        root=$work/pl/$lab-$sheet
        mkdir -p "$root/student" "$root/serverFilesCourse"
        cp -R "$course/pl/serverFilesCourse/tlab" "$root/serverFilesCourse/"
        cp "$file" "$root/student/$lab.yaml"
        TLAB_GRADE_ROOT=$root as_uid "$image_uid" "$root/${entry#/grade/}" > /dev/null 2>&1 ||
            fail "$lab $sheet: run.sh exited $?"
        pl=$root/results/results.json
        "$validate" "$top_srcdir/tests/prairielearn-results.schema.json" "$pl" ||
            fail "$lab $sheet: PrairieLearn results.json does not validate"
        py "$pl" "$want" "$max" "$unreadable" <<'PY' || fail "$lab $sheet: PrairieLearn disagrees with check --lab: $(head -c 400 "$pl")"
import sys, json
r = json.load(open(sys.argv[1]))
want, top, unreadable = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
if unreadable:
    assert r["gradable"] is False and r["format_errors"], r
else:
    assert r["gradable"] is True and abs(r["score"] - want / top) < 1e-9, (r["score"], want / top)
PY

        # GitHub Classroom: the student's repository, the runner's user
        repo=$work/repo/$lab-$sheet
        mkdir -p "$work/repo"
        cp -R "$course/github/$lab" "$repo"
        cp "$file" "$repo/$lab.yaml"
        "$PYTHON" "$top_srcdir/tests/classroom_sim.py" github "$repo" "$TLAB" "$course/secrets/$lab.json" \
            "$work/runner/$lab-$sheet" 1001 > "$work/classroom.json" ||
            fail "$lab $sheet: the Classroom workflow did not run"
        py "$work/classroom.json" "$want" "$max" <<'PY' || fail "$lab $sheet: Classroom disagrees with check --lab: $(head -c 600 "$work/classroom.json")"
import sys, json
r = json.load(open(sys.argv[1]))
assert abs(r["points"] - float(sys.argv[2])) < 1e-9, ("points", r["points"], sys.argv[2])
assert abs(r["max_points"] - float(sys.argv[3])) < 1e-9, ("max", r["max_points"], sys.argv[3])
assert r["summary"].strip(), "no step summary"
PY

        # GitLab: the job's script; its JUnit report validates
        repo=$work/glrepo/$lab-$sheet
        mkdir -p "$work/glrepo"
        cp -R "$course/github/$lab" "$repo"
        cp "$file" "$repo/$lab.yaml"
        "$PYTHON" "$top_srcdir/tests/classroom_sim.py" gitlab "$repo" "$TLAB" "$course/secrets/$lab.json" \
            "$work/gl/$lab-$sheet" 1001 > "$work/gitlab.json" || fail "$lab $sheet: the GitLab job did not run"
        junit=$work/gl/$lab-$sheet/project/tlab-junit.xml
        [ -s "$junit" ] || fail "$lab $sheet: GitLab wrote no JUnit report"
        xmllint --noout --schema "$top_srcdir/tests/junit.xsd" "$junit" 2> "$work/xmllint" ||
            fail "$lab $sheet: tlab-junit.xml does not validate: $(head -c 400 "$work/xmllint")"
        eval "gs_$sheet=$want"
    done
    # what SPEC says those sheets score (checked through Gradescope, which
    # the loop has just found equal to check --lab and every platform)
    set -- $(expected "$lab" right)
    max=$2
    typo_op=$(cat "$class/$lab/typo-op")
    typo_want=$((max - $(op_points "$lab" "$typo_op")))
    spec typo-op-zero "$lab: one misspelt prediction (op $typo_op) scores $gs_typo, not $typo_want" \
        [ "$gs_typo" = "$typo_want" ]
    spec wrong-lab-zero "$lab: another lab's sheet scores $gs_wronglab, not 0" [ "$gs_wronglab" = 0 ]
    if grep -q '^  required: true' "$course/labs/$lab.yaml"; then
        spec blank-rules "$lab: a blank sheet scores $gs_blank, not 0 (rules are required)" [ "$gs_blank" = 0 ]
    fi
    [ "$gs_right" = "$max" ] || fail "$lab: the reference sheet scores $gs_right of $max"
done

# ---- the class record and README's pipelines, as written
mkdir -p "$course/submissions"
for sheet in $sheets; do cp "$class/lab01/$sheet.yaml" "$course/submissions/$sheet.yaml"; done
"$TLAB" grade --lab "$course/labs/lab01.yaml" --format json -o "$work/class.json" "$course"/submissions/*.yaml \
    2> /dev/null || true
"$validate" "$top_srcdir/share/tlab-grade.schema.json" "$work/class.json" || fail "the class record does not validate"
readme=$top_srcdir/README.md
grep -E '^ *tlab grade --lab labs/lab01.yaml --format (junit|tap) ' "$readme" | sed 's/^ *//' > "$work/pipelines"
[ "$(wc -l < "$work/pipelines")" = 2 ] || fail "README: expected the JUnit and TAP pipelines: $(cat "$work/pipelines")"
mkdir -p "$work/bin"
ln -s "$TLAB" "$work/bin/tlab"
while IFS= read -r line; do
    (cd "$course" && PATH=$work/bin:$PATH sh -c "$line" > "$work/pipe.out" 2>&1) || true
    case $line in
    *junit*)
        xmllint --noout --schema "$top_srcdir/tests/junit.xsd" "$course/report.xml" 2> "$work/xmllint" ||
            fail "README's JUnit pipeline: report.xml does not validate: $(head -c 300 "$work/xmllint")" ;;
    *prove*)
        grep -q "^Files=1, Tests=[1-9]" "$work/pipe.out" ||
            fail "README's TAP pipeline: prove read no tests: $(tail -n 5 "$work/pipe.out")"
        ! grep -qi "parse error" "$work/pipe.out" || fail "README's TAP pipeline: parse errors" ;;
    esac
done < "$work/pipelines"

[ -z "$pending_failed" ] ||
    echo "course.sh: PENDING checks that do not hold yet: $(printf '%s\n' $pending_failed | sort -u | tr '\n' ' ')" >&2
exit 0
