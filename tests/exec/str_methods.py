# str methods (src/py/strmethods.c) against CPython: join, split, strip,
# upper/lower, replace, startswith/endswith, format and their errors.
import torch
x = torch.arange(6).reshape(2, 3)
print("-".join(["a", "b", "c"]), ", ".join([str(d) for d in x.shape]), "".join(("x", "y")), "/".join("abc"))
print("a b  c ".split(), "a,b,,c".split(","), "a,b,c".split(",", 1), " a b ".split(None, 1), "".split(), "".split(","))
print("  hi  ".strip(), "xxhixx".strip("x"), "  hi".lstrip(), "hi  ".rstrip() + "|")
print("Hello".upper(), "Hello".lower(), "aaa".replace("a", "bb"), "abc".replace("", "-"), "aaaa".replace("a", "b", 2))
print("torch.float32".startswith("torch"), "x.py".endswith((".c", ".py")), "abc".startswith(("x", "y")))
print("{} has shape {}".format("x", tuple(x.shape)), "{0}{1}{0}".format("a", "b"), "{n:>5}|{v:.2f}".format(n="ab", v=3.14159))
print("{!r} {!s} {:d} {{}} {:e}".format("s", "s", 42, 1234.5), "{}".format(x.sum()), "{:.3f}".format(torch.tensor(2.5).item()))
try:
    "{}".format()
except IndexError as e:
    print("IndexError", e)
try:
    "{0}{}".format(1, 2)
except ValueError as e:
    print("ValueError", e)
try:
    "}".format(1)
except ValueError as e:
    print("ValueError", e)
try:
    "{x}".format(y=1)
except KeyError as e:
    print("KeyError", e)
try:
    ",".join([1])
except TypeError as e:
    print("TypeError", e)
try:
    "a".split("")
except ValueError as e:
    print("ValueError", e)
try:
    "{!q}".format(1)
except ValueError as e:
    print("ValueError", e)
print("a  b\tc\n".split(None, 0), "  ".split(None, 0), "x".split("x"), "axbxc".split("x", 0), "axbxc".split("x", -1), "a b".split(maxsplit=1), "".join([]), "a".replace("a", ""), "".replace("", "x"))
print("{:>6}|{:<4}|{:^7}|{:08.3f}|{:,}|{!r:>5}".format("r", "l", "c", 3.14159, 1234567, "q"))
print("%s" if False else "{0} {0!r}".format("x"))
tests = [lambda: "".join(), lambda: "".upper(1), lambda: "".strip(1, 2), lambda: "".replace("a"), lambda: "".replace(1, 2, 3, 4),
         lambda: "".startswith(), lambda: "".upper(x=1), lambda: "".join(x=1), lambda: "".strip(x=1), lambda: "".replace("a", "b", x=1),
         lambda: "".lower(1), lambda: "".startswith(1, 2, 3, 4), lambda: "".endswith(), lambda: "".startswith(x=1)]
for t in tests:
    try:
        t()
    except TypeError as e:
        print("TypeError", e)
