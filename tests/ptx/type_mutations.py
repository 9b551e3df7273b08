"""Operand-type mutants of real kernels, judged by ptxas and by warpsim's loader.

A mutant changes one instruction of a real module (NVRTC's PTX of tests/kernels/*.cu and
the hand-written fuzz seeds) in one of three ways that concern types:

    register   one register operand replaced by a declared register of another type or width
    type       the instruction's operand type replaced by another (.s32 -> .f32, .u64, .b16, ...)
    immediate  an immediate replaced by a float literal, a 0f/0d bit pattern or a huge integer

`judge(text)` says what ptxas (the PyPI toolchain warpsim's sass layer uses) and warpsim
(parse, verify, load and check every kernel) make of it. tests/ptx/test_verify_types.py
asserts they agree on a sample; `python tests/ptx/type_mutations.py N SEED` prints the
agreement over N mutants and the disagreements by class.
"""

from __future__ import annotations

import glob
import os
import random
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import warpsim
from warpsim.machine.device import Device
from warpsim.ptx.ir import Addr, Imm, Not, Reg, Vec
from warpsim.ptx.parser import parse_ptx

HERE = Path(__file__).parent
KERNELS = HERE.parent / "kernels"
SKIP_SOURCES = ("cub_collectives.cu",)        # seconds to compile; the others cover its forms
TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f32", "f64", "pred",
         "u8", "s8", "b8", "bf16", "f16x2")
IMMEDIATES = ("1.5", "0f3F800000", "0d3FF0000000000000", "4294967296", "-1")
REGISTER = re.compile(r"%[A-Za-z_$][\w$]*")


def seeds() -> dict:
    """name -> PTX text of every real module the mutants start from."""
    from warpsim.frontends.nvrtc import compile_cuda
    found = {Path(p).name: Path(p).read_text() for p in sorted(glob.glob(str(HERE / "fuzz_seeds" / "*.ptx")))}
    for path in sorted(glob.glob(str(KERNELS / "*.cu"))):
        if os.path.basename(path) not in SKIP_SOURCES:
            found[os.path.basename(path)] = compile_cuda(Path(path).read_text(), ("-ftz=true",),
                                                         name=path).ptx
    return found


@dataclass
class Mutant:
    seed: str
    kind: str
    line: int              # 1-based line of the changed instruction
    before: str
    after: str
    text: str

    def __repr__(self) -> str:
        return f"Mutant({self.seed}:{self.line} {self.kind}: {self.before.strip()!r} -> {self.after.strip()!r})"


def _instructions(module):
    for fn in module.functions.values():
        for ins in fn.body:
            if ins.line and ins.opcode not in ("ret", "exit", "bra", "call"):
                yield fn, ins


def _registers_of(ins) -> list:
    found = []
    for op in ins.dsts + ins.srcs:
        if isinstance(op, Not):
            op = op.reg
        if isinstance(op, Reg) and "." not in op.name:
            found.append(op.name)
        elif isinstance(op, Addr) and isinstance(op.base, Reg):
            found.append(op.base.name)
        elif isinstance(op, Vec):
            found.extend(i.name for i in op.items if isinstance(i, Reg))
    return found


def mutate(name: str, text: str, rng: random.Random) -> Mutant | None:
    """One operand-type mutant of `text`, or None if the drawn edit does not apply."""
    module = parse_ptx(text, name)
    candidates = list(_instructions(module))
    if not candidates:
        return None
    fn, ins = rng.choice(candidates)
    lines = text.split("\n")
    before = lines[ins.line - 1]
    kind = rng.choice(["register", "register", "type", "immediate"])
    after = None
    if kind == "register":
        names = _registers_of(ins)
        if not names:
            return None
        old = rng.choice(names)
        others = [r for r, t in fn.regs.items() if t != fn.regs.get(old) and not r.startswith("%envreg")]
        if not others:
            return None
        new = rng.choice(sorted(others))
        hits = [m for m in REGISTER.finditer(before) if m.group(0) == old and m.start() >= ins.col - 1]
        if not hits:
            return None
        hit = rng.choice(hits)
        after = before[:hit.start()] + new + before[hit.end():]
    elif kind == "type":
        if not ins.types:
            return None
        old = rng.choice(ins.types)
        new = rng.choice([t for t in TYPES if t != old])
        at = before.find(f".{old}", ins.col - 1)
        if at < 0:
            return None
        after = before[:at] + f".{new}" + before[at + len(old) + 1:]
    else:
        imms = [op for op in ins.srcs if isinstance(op, Imm) and str(op)]
        if not imms:
            return None
        old = str(rng.choice(imms))
        hits = [m for m in re.finditer(r"(?<![\w%$.])" + re.escape(old) + r"(?![\w.])", before)
                if m.start() >= ins.col - 1]
        if not hits:
            return None
        hit = rng.choice(hits)
        after = before[:hit.start()] + rng.choice(IMMEDIATES) + before[hit.end():]
    if after is None or after == before:
        return None
    lines[ins.line - 1] = after
    return Mutant(name, kind, ins.line, before, after, "\n".join(lines))


def ptxas_accepts(text: str) -> tuple[bool, str]:
    """(accepted, first error line) from ptxas -arch=sm_90."""
    from warpsim.sass.toolchain import ptxas_path
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.ptx")
        Path(path).write_text(text)
        run = subprocess.run([ptxas_path(), "-arch=sm_90", path, "-o", os.path.join(folder, "m.cubin")],
                             capture_output=True, text=True, timeout=120)
    errors = [line for line in run.stderr.splitlines() if "error" in line.lower()]
    return run.returncode == 0, (errors[0] if errors else run.stderr.strip()[:200])


def warpsim_verdict(text: str) -> tuple[bool, warpsim.WarpsimError | None]:
    """(accepted, the error) from warpsim's parser, verifier and loader (every kernel checked)."""
    try:
        Device(memory_size=1 << 20).load_module(text, "mutant.ptx").program.check_all()
    except warpsim.WarpsimError as error:
        return False, error
    return True, None


def judge(mutant: Mutant) -> dict:
    ptxas_ok, ptxas_error = ptxas_accepts(mutant.text)
    ours_ok, our_error = warpsim_verdict(mutant.text)
    return {"ptxas": ptxas_ok, "warpsim": ours_ok, "ptxas_error": ptxas_error,
            "warpsim_error": our_error}


def sample(count: int, seed: int, texts: dict | None = None) -> list:
    """`count` mutants, drawn reproducibly from the seeds."""
    texts = texts or seeds()
    rng = random.Random(seed)
    names = sorted(texts)
    mutants = []
    while len(mutants) < count:
        name = rng.choice(names)
        mutant = mutate(name, texts[name], rng)
        if mutant is not None:
            mutants.append(mutant)
    return mutants


def _class_of(mutant: Mutant) -> str:
    """The instruction form a disagreement is about: opcode and kind of mutation."""
    word = mutant.after.strip().lstrip("@!%").split()
    opcode = next((w for w in word if not w.startswith("%") and not w.startswith("@")), "?")
    return f"{mutant.kind}: {opcode.split('.')[0]}"


if __name__ == "__main__":
    import collections
    import sys
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    agree, results = 0, collections.Counter()
    examples = {}
    for mutant in sample(count, seed):
        verdict = judge(mutant)
        same = verdict["ptxas"] == verdict["warpsim"]
        agree += same
        key = ("agree" if same else "ptxas rejects, warpsim accepts" if verdict["warpsim"]
               else "ptxas accepts, warpsim rejects", "ptxas ok" if verdict["ptxas"] else "ptxas rejects")
        results[key] += 1
        if not same:
            cls = (key[0], _class_of(mutant))
            results[cls] += 0
            examples.setdefault(cls, []).append((mutant, verdict))
    print(f"{count} mutants (seed {seed}): warpsim agrees with ptxas on {agree} ({100 * agree / count:.1f}%)")
    for key, n in sorted(results.items()):
        if n:
            print(f"  {n:4d}  {key}")
    for cls, cases in sorted(examples.items()):
        mutant, verdict = cases[0]
        print(f"  [{len(cases)}] {cls[0]} -- {cls[1]}: {mutant!r}\n        ptxas: {verdict['ptxas_error'][:150]}\n"
              f"        warpsim: {str(verdict['warpsim_error']).splitlines()[0][:150] if verdict['warpsim_error'] else ''}")
