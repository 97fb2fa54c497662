#!/usr/bin/python3
"""gen_seed_goldens.py - extract the code blocks of the lesson seeds and
record what real PyTorch prints for them (tests/seeds_exec.sh compares
`tlab exec` with these files).

Run with the Python that has torch: /usr/bin/python3 gen_seed_goldens.py
[SEEDS_DIR]. For every seed listed below it writes, per code block k that
stays within SPEC section 6,
    SEED_kk.py    the block, verbatim
    SEED_kk.out   what Python prints for it, run after blocks 1..k-1 of the
                  same seed (blocks build on the names earlier ones define)
    SEED_syntax_ii.py  block i as printed when CPython itself rejects it
and SKIPPED.txt, the blocks left out and why. A code block is a run of
paragraphs (blank-line separated) that each compile as Python and contain
code punctuation; prose and diagrams do not compile.
"""
import contextlib
import io
import os
import re
import sys

SEEDS = {"001": "001_2976f5f8899cbca7.txt",
         "003": "003_1ec72f17314db6ff.txt",
         "004": "004_8128713de3ee2feb.txt"}

# outside SPEC 6 (no quantized tensors); named tensors, einops, sparse,
# files and h5py are run (issue #26)
OUTSIDE = []


def is_code(par):
    try:
        compile(par, "<block>", "exec")
    except SyntaxError:
        # a block printed with an unterminated f-string is still a block
        # (Python rejects it too); prose never holds one
        return 'print(f"' in par
    return bool(re.search(r"[(=#]|^import ", par, re.M)) and not par.startswith("flowchart")


def blocks_of(text):
    pars = re.split(r"\n\s*\n", text)
    blocks, cur = [], []
    for p in pars:
        p = p.strip("\n")
        if p and is_code(p):
            cur.append(p)
        elif cur:
            blocks.append("\n\n".join(cur) + "\n")
            cur = []
    if cur:
        blocks.append("\n\n".join(cur) + "\n")
    return blocks


def shim_einops():
    """einops is not installed here: its blocks run on the module that
    tests/fixtures/gen_einops.py builds from einops' documented algorithm
    (torch does every reshape/permute), installed as sys.modules['einops']."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "fixtures"))
    import gen_einops  # noqa: F401


def shim_torch_2x():
    """torch 1.13 (the one installed here) lacks Tensor.untyped_storage();
    2.x's is the tensor's whole storage as bytes: storage().untyped()."""
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
    # torch 1.13's weights_only unpickler lacks BINFLOAT (opcode 'G', 71):
    # a checkpoint holding a Python float fails there and loads in 2.x (its
    # _weights_only_unpickler handles BINFLOAT). 2.x is followed: such a
    # load is retried without the restriction, for that error only.
    load = torch.load

    def load_2x(*args, **kw):
        try:
            return load(*args, **kw)
        except Exception as e:  # noqa: BLE001 - _pickle.UnpicklingError
            if kw.get("weights_only") and "Unsupported operand 71" in str(e):
                kw = dict(kw, weights_only=False)
                return load(*args, **kw)
            raise
    torch.load = load_2x


def run(src, env):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "<block>", "exec"), env)
    return out.getvalue()


def main():
    seeds_dir = sys.argv[1] if len(sys.argv) > 1 else "../../../../shared/seeds"
    seeds_dir = os.path.abspath(seeds_dir)
    here = os.path.dirname(os.path.abspath(__file__))
    # the blocks write files (torch.save, h5py): in a scratch folder
    import tempfile
    os.chdir(tempfile.mkdtemp(prefix="seed_goldens_"))
    skipped = []
    shim_torch_2x()
    shim_einops()
    for seed, fname in SEEDS.items():
        text = open(os.path.join(seeds_dir, fname), encoding="utf-8").read()
        env = {}
        k = 0
        for i, b in enumerate(blocks_of(text), 1):
            why = next((w for pat, w in OUTSIDE if re.search(pat, b)), None)
            if why is None:
                try:
                    compile(b, "<block>", "exec")
                except SyntaxError as e:
                    why = "not valid Python as printed (%s)" % e.msg
            if why and why.startswith("not valid Python"):
                # kept: tlab must refuse it as CPython does (exit 2)
                name = "%s_syntax_%02d" % (seed, i)
                with open(os.path.join(here, name + ".py"), "w") as f:
                    f.write(b)
            if why:
                skipped.append("%s block %d: %s: %s" % (seed, i, why, b.splitlines()[0]))
                continue
            k += 1
            name = "%s_%02d" % (seed, k)
            with open(os.path.join(here, name + ".py"), "w") as f:
                f.write(b)
            with open(os.path.join(here, name + ".out"), "w") as f:
                f.write(run(b, env))
    with open(os.path.join(here, "SKIPPED.txt"), "w") as f:
        f.write("# code blocks of the seeds not run by tests/seeds_exec.sh, and why\n")
        f.write("\n".join(skipped) + "\n")


if __name__ == "__main__":
    main()
