"""tests/tap_check.py - read a TAP stream with python3-tap (tappy), a TAP
consumer other than Perl's prove, and check what it understood.

Usage: python3 tests/tap_check.py FILE.tap [bail]
Exit 0 when tappy reads the stream as TAP version 13 with a plan whose
count matches the numbered tests (1..N in order), every line is TAP (YAML
diagnostic blocks: parsed when tappy has its YAML support, else indented
lines under a failed test, and always loaded with PyYAML when it is
installed), and every failed test carries its YAML block;
with `bail`, when the stream is a bail out instead. Exit 77 when the tap
module is missing. Used by tests/tap.sh; tlab itself never needs Python.
"""
import sys
import warnings

import io

_stderr, sys.stderr = sys.stderr, io.StringIO()  # tappy warns about its YAML support
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tap.parser import Parser
except ImportError:
    sys.exit(77)
finally:
    sys.stderr = _stderr


def main():
    path = sys.argv[1]
    want_bail = len(sys.argv) > 2 and sys.argv[2] == "bail"
    text = open(path, encoding="utf-8").read()
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lines = list(Parser().parse_text(text))
    finally:
        sys.stderr = saved
    problems = []
    cats = [line.category for line in lines]
    if not cats or cats[0] != "version" or lines[0].version != 13:
        problems.append("no 'TAP version 13' first line")
    if want_bail:
        if "bail" not in cats:
            problems.append("no bail out")
    else:
        plans = [line for line in lines if line.category == "plan"]
        tests = [line for line in lines if line.category == "test"]
        if len(plans) != 1:
            problems.append("%d plans" % len(plans))
        elif plans[0].expected_tests != len(tests):
            problems.append("plan 1..%d for %d tests" % (plans[0].expected_tests, len(tests)))
        for k, t in enumerate(tests, 1):
            if t.number != k:
                problems.append("test %s out of order (expected %d)" % (t.number, k))
            if t.directive.skip or t.directive.todo:
                problems.append("test %d has a directive: %s" % (k, t.description))
        raw = text.split("\n")
        for line, src in zip(lines, raw):
            if line.category == "unknown" and not src.startswith("  "):
                problems.append("not TAP: %r" % src)
        yaml_ok = any(getattr(t, "yaml_block", None) is not None for t in tests)
        if yaml_ok:
            for t in tests:
                if not t.ok and t.yaml_block is None:
                    problems.append("failed test %d without a YAML block" % t.number)
    # every YAML diagnostic block must be YAML (PyYAML, when installed)
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        block = None
        for src in text.split("\n"):
            if src == "  ---":
                block = []
            elif src == "  ..." and block is not None:
                try:
                    doc = yaml.safe_load("\n".join(line[2:] for line in block))
                    if not isinstance(doc, dict) or "message" not in doc:
                        problems.append("a YAML block without a message: %r" % block[:2])
                except yaml.YAMLError as e:
                    problems.append("a YAML block that is not YAML: %s" % e)
                block = None
            elif block is not None:
                block.append(src)
    for p in problems:
        print("tap_check: %s: %s" % (path, p), file=sys.stderr)
    sys.exit(1 if problems else 0)


main()
