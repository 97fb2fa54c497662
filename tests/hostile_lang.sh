#!/bin/sh
# tests/hostile_lang.sh - hostile scripts and sheets for the language
# constructs of issue 13: every one ends with one located message and its
# exit status (1: an uncaught Python exception, 2: a limit or unsupported
# construct), never a crash, a hang or a C stack overflow (the suite also
# runs under ASan, whose frames are several times larger).

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

# script NAME: stdin to $work/NAME.py
script() { cat > "$work/$1.py"; }

# deep recursion: Python's RecursionError, as a located limit
script rec <<'PY'
def f(n):
    return f(n + 1) + 1
f(0)
PY
expect 2 exec "$work/rec.py"
stderr_has "rec.py:2:12: error: limit exceeded: maximum recursion depth exceeded"
stderr_lines 3

# mutual recursion through lambdas, each frame a deep expression
script mutual <<'PY'
a = lambda n: [[[[[[[[b(n + 1)]]]]]]]]
b = lambda n: [[[[[[[[a(n + 1)]]]]]]]]
a(0)
PY
expect 2 exec "$work/mutual.py"
stderr_has "error: limit exceeded: maximum recursion depth exceeded"

# a RecursionError or a timeout cannot be caught away
script catchall <<'PY'
def f():
    return f()
try:
    f()
except Exception:
    print("caught")
except:
    print("caught bare")
PY
expect 2 exec "$work/catchall.py"
stdout_empty
script spin <<'PY'
try:
    while True:
        pass
except Exception:
    print("caught")
PY
expect 2 exec --timeout 0.2 "$work/spin.py"
stdout_empty
stderr_has "spin.py:2:5: error: limit exceeded: time limit exceeded (0.2 s per op"

# loops: time and size limits, located at the loop
script forever <<'PY'
i = 0
while True:
    i += 1
    if i < 0:
        break
PY
expect 2 exec --timeout 0.2 "$work/forever.py"
stderr_has "forever.py:2:1: error: limit exceeded: time limit exceeded"
script bigrange <<'PY'
for i in range(10 ** 12):
    pass
PY
expect 2 exec "$work/bigrange.py"
stderr_has "bigrange.py:1:10: error: limit exceeded"

# huge f-string widths and precisions, and f-strings that double
script width <<'PY'
s = f"{1:1000000000}"
PY
expect 2 exec "$work/width.py"
stderr_has "width.py:1:7: error: limit exceeded: format width longer than the limit"
script nestedwidth <<'PY'
w = 10 ** 9
s = f"{'x':>{w}}"
PY
expect 2 exec "$work/nestedwidth.py"
stderr_has "nestedwidth.py:2:7: error: limit exceeded: format width longer than the limit"
script prec <<'PY'
s = f"{1.5:.99999999999999999f}"
PY
expect 2 exec "$work/prec.py"
stderr_has "error: limit exceeded: format precision too large"
script doubling <<'PY'
s = "x"
while True:
    s = f"{s}{s}"
PY
expect 2 exec "$work/doubling.py"
stderr_has "doubling.py:3:9: error: limit exceeded"
script deepspec <<'PY'
s = f"{1:{2:{3:{4}}}}"
PY
expect 2 exec "$work/deepspec.py"
stderr_has "deepspec.py:1:15: error: syntax error: f-string: expressions nested too deeply"

# exceptions escaping finally: the finally's own exception wins
script fin <<'PY'
def f():
    try:
        raise ValueError("first")
    finally:
        raise RuntimeError("second")
try:
    f()
except ValueError:
    print("wrong handler")
PY
expect 1 exec "$work/fin.py"
stdout_empty
stderr_has "fin.py:5:9: error: RuntimeError: second"
stderr_has "Traceback (most recent call last):"
# ... and a return in finally swallows the exception, as in Python
script finret <<'PY'
def g():
    try:
        raise ValueError("gone")
    finally:
        return "kept"
print(g())
for i in range(3):
    try:
        raise KeyError(i)
    finally:
        break
print("after", i)
PY
expect 0 exec "$work/finret.py"
stdout_has "kept"
stdout_has "after 0"
# an exception raised while handling another
script inhandler <<'PY'
try:
    [][1]
except IndexError as e:
    raise TypeError(f"while handling: {e}")
PY
expect 1 exec "$work/inhandler.py"
stderr_has "inhandler.py:4:5: error: TypeError: while handling: list index out of range"

# closures over deleted names
script delglobal <<'PY'
y = 1
f = lambda: y
del y
f()
PY
expect 1 exec "$work/delglobal.py"
stderr_has "delglobal.py:2:13: error: NameError: name 'y' is not defined"
script delfree <<'PY'
def outer():
    v = 1
    def inner():
        return v
    del v
    return inner()
outer()
PY
expect 1 exec "$work/delfree.py"
stderr_has "error: NameError: cannot access free variable 'v' where it is not associated with a value in enclosing scope"
script unbound <<'PY'
x = 1
def f():
    print(x)
    x = 2
f()
PY
expect 1 exec "$work/unbound.py"
stderr_has "unbound.py:3:11: error: NameError: cannot access local variable 'x' where it is not associated with a value"

# a nested recursive def is a reference cycle; many closures in a loop
script cycles <<'PY'
def outer():
    def inner(n):
        return inner(n - 1) if n else 0
    return inner
fs = [outer() for _ in range(2000)]
print(fs[0](3) + fs[-1](2))
PY
expect 0 exec "$work/cycles.py"
stdout_has "0"

# indentation deeper than the nesting limit
{
    i=0
    pad=""
    while [ $i -lt 70 ]; do
        printf '%sif True:\n' "$pad"
        pad="$pad "
        i=$((i + 1))
    done
    printf '%spass\n' "$pad"
} > "$work/deep.py"
expect 2 exec "$work/deep.py"
stderr_has "error: limit exceeded: too many levels of indentation (limit 64)"

# raise of a non-exception, and raise with nothing to re-raise
script raisejunk <<'PY'
raise 42
PY
expect 1 exec "$work/raisejunk.py"
stderr_has "raisejunk.py:1:7: error: TypeError: exceptions must derive from BaseException"
script reraise <<'PY'
raise
PY
expect 1 exec "$work/reraise.py"
stderr_has "reraise.py:1:1: error: RuntimeError: No active exception to reraise"

# the depth limit (issue 28): `a == b` of two different 300,000-deep lists
# is Python's RecursionError, located (it said False); `a == a` is True by
# identity; print() of a deep list raises as str() does (it was cut
# silently); a list that contains itself prints as [...], as in Python
script deepeq <<'PY'
a = []
b = []
for i in range(300000):
    a = [a]
    b = [b]
print(a == a, a != a)
print(a == b)
PY
expect 2 exec --timeout 30 "$work/deepeq.py"
stdout_has "True False"
stderr_has "deepeq.py:7:7: error: limit exceeded: maximum recursion depth exceeded in comparison"
# ... and so is the ordering `a < b` of the same lists (it said False), or
# of two that differ only at the bottom; `a < a` is False by identity
script deeplt <<'PY'
a = []
b = []
for i in range(300000):
    a = [a]
    b = [b]
print(a < a, a <= a, [1, a] < [2, a])
print(a < b)
PY
expect 2 exec --timeout 30 "$work/deeplt.py"
stdout_has "False True True"
stderr_has "deeplt.py:7:7: error: limit exceeded: maximum recursion depth exceeded in comparison"
script deepgt <<'PY'
a = [1]
b = [2]
for i in range(3000):
    a = [a]
    b = [b]
print(b > a)
PY
expect 2 exec "$work/deepgt.py"
stdout_empty
stderr_has "deepgt.py:6:7: error: limit exceeded: maximum recursion depth exceeded in comparison"
script deepprint <<'PY'
a = []
for i in range(3000):
    a = [a]
print(a)
PY
expect 2 exec "$work/deepprint.py"
stdout_empty
stderr_has "deepprint.py:4:1: error: limit exceeded: print() of a value longer than"
stderr_has "or nested deeper than 1000 levels"
script deepstr <<'PY'
a = []
for i in range(3000):
    a = [a]
s = str(a)
PY
expect 2 exec "$work/deepstr.py"
stderr_has "deepstr.py:4:5: error: limit exceeded: str() of a value longer than"
script selfref <<'PY'
a = [1]
a.append(a)
t = (a,)
a.append(t)
print(a, t)
b = []
b.append(b.append)
print(len(b), str(a) == repr(a))
PY
expect 0 exec "$work/selfref.py"
stdout_has "[1, [...], ([...],)] ([1, [...], (...)],)"
stdout_has "1 True"

# list.append charges the one element it adds (it charged the whole list,
# so 9,500 appends in one op spent the sequence budget); the length limit
# still holds
script appends <<'PY'
l = []
for i in range(200000):
    l.append(i)
l.extend(range(5))
print(len(l))
PY
expect 0 exec --timeout 30 "$work/appends.py"
stdout_has "200005"
script appendlong <<'PY'
l = [0] * 10000000
l.append(1)
PY
expect 2 exec --timeout 30 "$work/appendlong.py"
stderr_has "appendlong.py:2:1: error: limit exceeded: sequence of 10000001 elements is longer than the limit"

# the same constructs inside a lab sheet: a located op error, not a crash
cat > "$work/lab.yaml" <<'EOF2'
tlab: 1
id: hostile
title: hostile
threshold: 1
setup: |
  import torch
  x = torch.arange(6.0)
  def f(n):
      return f(n + 1)
ops:
  - id: "1"
    op: f(0)
    predict: error
  - id: "2"
    op: "[1 for _ in iter(int, 1)] if False else f'{x.sum():>{10**9}}'"
    predict: error
EOF2
expect 0 run --format json "$work/lab.yaml"
stdout_has "maximum recursion depth exceeded"
stdout_has "format width longer than the limit"
# files (issue 26): the run's in-memory file system starts empty and never
# reaches the disk; what a sheet writes is bounded by --max-bytes
script passwd <<'PY'
import os
print(os.path.exists('/etc/passwd'), os.listdir())
with open('/etc/passwd') as f:
    print(f.read())
PY
expect 1 exec "$work/passwd.py"
stdout_has "False []"
stderr_has "passwd.py:3:6: error: FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'"
script escape <<'PY'
import torch
torch.save(torch.arange(3), '../escape.pt')
with open('/tmp/tlab_sheet_was_here', 'w') as f:
    f.write('x')
print(torch.load('../escape.pt'))
PY
rm -f /tmp/tlab_sheet_was_here "$work/../escape.pt"
(cd "$work" && "$TLAB" exec escape.py > stdout 2> stderr) || fail "escape.py: exit $?"
[ ! -e /tmp/tlab_sheet_was_here ] && [ ! -e "$work/../escape.pt" ] || fail "a sheet wrote a real file"
stdout_has "tensor([0, 1, 2])"
script fill <<'PY'
s = 'x' * 100000
with open('big.txt', 'w') as f:
    while True:
        f.write(s)
PY
expect 2 exec --max-bytes 8M "$work/fill.py"
stderr_has "fill.py:4:9: error: limit exceeded: memory limit exceeded:"
stderr_has "in the file 'big.txt'"
script saves <<'PY'
import torch
x = torch.zeros(100000)
i = 0
while True:
    torch.save(x, f'ckpt{i}.pt')
    i += 1
PY
expect 2 exec --max-bytes 16M "$work/saves.py"
stderr_has "saves.py:5:5: error: limit exceeded: memory limit exceeded: a checkpoint of"
script h5fill <<'PY'
import h5py
import numpy as np
z = np.zeros(100000)
with h5py.File('d.h5', 'w') as f:
    for i in range(100000):
        f.create_dataset(f'd{i}', data=z)
PY
expect 2 exec --max-bytes 16M "$work/h5fill.py"
stderr_has "h5fill.py:6:9: error: limit exceeded: memory limit exceeded"
script selfdict <<'PY'
import torch
d = {'w': torch.zeros(3)}
d['self'] = d
torch.save(d, 'd.pt')
e = torch.load('d.pt')
print(e['self'] is e, e['self']['w'] is e['w'])
PY
expect 0 exec "$work/selfdict.py"
stdout_has "True True"

echo "ok: hostile language scripts"
