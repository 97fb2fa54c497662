#!/usr/bin/env python3
"""classroom_sim.py - run a `tlab autograder github` bundle the way GitHub
Actions (with GitHub Classroom's reporter) or GitLab CI would, in a temporary
layout, for tests/autograder.sh and tests/course.sh.

  classroom_sim.py github REPO TLAB SECRETS.json OUT [UID]
  classroom_sim.py gitlab REPO TLAB VARS.json OUT [UID]

REPO is the student's repository (the template plus their sheet), TLAB the
binary under test, SECRETS.json / VARS.json the repository secrets / CI/CD
variables, OUT a fresh folder for the simulated runner, UID the user the
steps run as (the runner's non-root user; only when this runs as root).

GitHub: the workflow's steps run in order. `actions/checkout` copies REPO
into the workspace; the step that apt-gets and builds tlab is replaced by
putting TLAB on the PATH (as its `>> $GITHUB_PATH` line does); every other
`run:` step runs with `bash -e` in a scrubbed environment (only what the
runner sets: PATH, HOME, RUNNER_TEMP, GITHUB_WORKSPACE, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_PATH, GITHUB_ENV, GITHUB_ACTIONS, CI, plus the
step's `env:`), with `${{ secrets.X }}`, `${{ runner.temp }}` and
`${{ steps.ID.outputs.NAME }}` expanded; autograding-grading-reporter is
replayed as its source does it (classroom-resources/autograding-grading-
reporter src/main.js, notify-classroom.js: the runners' `<ID>_RESULTS`
base64 JSON, points = the sum of tests[].score over runners with a
max_score, setFailed when a runner's status is fail or error).
GitLab: the job's `script:` lines run with `sh -c` after `before_script:`
(the build) is replaced the same way.

Prints one JSON object: points, max_points, failed, tests, summary (the step
summary file), log (the steps' output), exit (GitLab), junit (its path or
null). Exits 0 unless the workflow itself is broken (exit 1, with why).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys

import yaml


def die(msg):
    print("classroom_sim: " + msg, file=sys.stderr)
    sys.exit(1)


def as_user(uid):
    if uid is None or os.getuid() != 0:
        return []
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--"]


def chown_tree(path, uid):
    if uid is None or os.getuid() != 0:
        return
    for root, dirs, files in os.walk(path):
        os.chown(root, uid, uid)
        for f in files:
            os.lchown(os.path.join(root, f), uid, uid)


def tlab_bin(out, tlab):
    d = os.path.join(out, "bin")
    os.makedirs(d, exist_ok=True)
    link = os.path.join(d, "tlab")
    if not os.path.lexists(link):
        os.symlink(os.path.abspath(tlab), link)
    return d


def expand(text, ctx):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("secrets."):
            return ctx["secrets"].get(expr[len("secrets."):], "")
        if expr == "runner.temp":
            return ctx["temp"]
        m2 = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
        if m2:
            return ctx["outputs"].get(m2.group(1), {}).get(m2.group(2), "")
        die("unsupported expression ${{ %s }}" % expr)
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def read_outputs(path):
    out = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                out[k] = v
    return out


def reporter(step, ctx):
    env = {k: expand(v, ctx) for k, v in (step.get("env") or {}).items()}
    runners = [r for r in re.split(r"[\s,]", (step.get("with") or {}).get("runners", "")) if r]
    if not runners:
        die("the reporter has no runners")
    results = []
    for r in runners:
        enc = env.get(r.strip().upper() + "_RESULTS")
        if enc is None:
            die("the reporter's env has no %s_RESULTS" % r.upper())
        try:
            results.append(json.loads(base64.b64decode(enc).decode("utf-8")))
        except Exception as e:  # the reporter would setFailed(error.message)
            return {"points": 0, "max_points": 0, "failed": True, "tests": [], "status": [],
                    "reporter_error": str(e)}
    points = most = 0
    tests = []
    for res in results:
        tests += res.get("tests", [])
        if not res.get("max_score"):
            continue
        most += res["max_score"]
        points += sum(t["score"] for t in res["tests"])
    failed = any(r.get("status") in ("fail", "error") for r in results)
    return {"points": points, "max_points": most, "failed": failed, "tests": tests,
            "status": [r.get("status") for r in results]}


def github(repo, tlab, secrets, out, uid):
    wf = yaml.safe_load(open(os.path.join(repo, ".github/workflows/classroom.yml")))
    (job,) = wf["jobs"].values()
    ws, temp = os.path.join(out, "workspace"), os.path.join(out, "temp")
    os.makedirs(temp)
    files = {n: os.path.join(out, n) for n in ("output", "summary", "path", "env")}
    for f in files.values():
        open(f, "w").close()
    ctx = {"secrets": secrets, "temp": temp, "outputs": {}}
    log, report, ok = [], None, True
    for step in job["steps"]:
        cond = str(step.get("if", ""))
        if not ok and "always()" not in cond:
            continue
        uses = step.get("uses", "")
        if uses.startswith("actions/checkout@"):
            shutil.copytree(repo, ws, symlinks=True)
            continue
        if uses.startswith("classroom-resources/autograding-grading-reporter@"):
            report = reporter(step, ctx)
            continue
        if uses:
            die("no simulation for the action " + uses)
        script = step["run"]
        if "apt-get" in script:
            if "GITHUB_PATH" not in script:
                die("the build step does not put tlab on the PATH")
            with open(files["path"], "a") as f:
                f.write(tlab_bin(out, tlab) + "\n")
            continue
        paths = [p for p in open(files["path"]).read().split("\n") if p]
        env = {"PATH": ":".join(paths[::-1] + ["/usr/local/bin", "/usr/bin", "/bin"]),
               "HOME": temp, "RUNNER_TEMP": temp, "GITHUB_WORKSPACE": ws,
               "GITHUB_OUTPUT": files["output"], "GITHUB_STEP_SUMMARY": files["summary"],
               "GITHUB_PATH": files["path"], "GITHUB_ENV": files["env"],
               "GITHUB_ACTIONS": "true", "CI": "true", "LC_ALL": "C.UTF-8"}
        for k, v in (step.get("env") or {}).items():
            env[k] = expand(v, ctx)
        open(files["output"], "w").close()
        chown_tree(out, uid)
        p = subprocess.run(as_user(uid) + ["bash", "-e", "-c", expand(script, ctx)], cwd=ws,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log.append(p.stdout.decode("utf-8", "replace"))
        if "id" in step:
            ctx["outputs"][step["id"]] = read_outputs(files["output"])
        if p.returncode != 0:
            ok = False
    if report is None:
        die("the workflow has no autograding-grading-reporter step")
    report["summary"] = open(files["summary"], encoding="utf-8").read()
    report["log"] = "".join(log)
    report["steps_ok"] = ok
    return report


def gitlab(repo, tlab, variables, out, uid):
    ci = yaml.safe_load(open(os.path.join(repo, ".gitlab-ci.yml")))
    (job,) = ci.values()
    ws = os.path.join(out, "project")
    shutil.copytree(repo, ws, symlinks=True)
    if "before_script" in job and "apt-get" not in "\n".join(job["before_script"]):
        die("before_script does not build tlab")
    env = {"PATH": tlab_bin(out, tlab) + ":/usr/local/bin:/usr/bin:/bin", "HOME": ws,
           "CI": "true", "GITLAB_CI": "true", "LC_ALL": "C.UTF-8"}
    env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
    env.update(variables)
    chown_tree(out, uid)
    log, rc = [], 0
    for line in job["script"]:
        p = subprocess.run(as_user(uid) + ["sh", "-c", line], cwd=ws, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log.append(p.stdout.decode("utf-8", "replace"))
        if p.returncode != 0:
            rc = p.returncode
            break
    junit = os.path.join(ws, job["artifacts"]["reports"]["junit"])
    return {"exit": rc, "failed": rc != 0, "log": "".join(log),
            "junit": junit if os.path.exists(junit) else None}


def main():
    if len(sys.argv) not in (6, 7) or sys.argv[1] not in ("github", "gitlab"):
        die("usage: classroom_sim.py github|gitlab REPO TLAB VARS.json OUT [UID]")
    kind, repo, tlab, vars_file, out = sys.argv[1:6]
    repo, tlab, out = os.path.abspath(repo), os.path.abspath(tlab), os.path.abspath(out)
    uid = int(sys.argv[6]) if len(sys.argv) == 7 else None
    values = json.load(open(vars_file))
    os.makedirs(out, exist_ok=True)
    r = (github if kind == "github" else gitlab)(repo, tlab, values, out, uid)
    print(json.dumps(r))


main()
