"""Registers per thread of a kernel: from ptxas when there is one, else an estimate.

ptxas is what decides the figure on real hardware (`ptxas -v` prints "Used N
registers"). It is looked for (warpsim.sass.toolchain.find_ptxas) in
WARPSIM_PTXAS, then the version asked for (`ptxas_version` or the `cuda`
setting: the ptxas that makes the SASS), then in PyPI's nvidia-cuda-nvcc
wheel, then on PATH; a ptxas older than the PTX's ISA gets its .version line
lowered, as for the SASS listing. Without one the
figure is an estimate from the PTX, and says so: the largest number of 32-bit
registers live at once (64-bit values count twice, predicates not at all,
they have a register file of their own), by a liveness analysis over the
kernel's control-flow graph, plus the two registers ptxas always keeps for
itself, and at least the largest callee's. Real ptxas output differs from it
both ways: ptxas rematerializes and reuses registers (fewer) and keeps
addresses and unrolled values in more (more).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..ptx.ir import Addr, Not, Reg, Sym, Vec
from ..sass.toolchain import find_ptxas, lowered_ptx_version

RESERVED = 2         # registers ptxas keeps in every kernel in the estimate (stack pointer, zero)


@dataclass(frozen=True)
class RegisterCount:
    registers: int
    source: str                 # 'ptxas' or 'estimate'
    detail: str = ""            # ptxas path and version, or why there was no ptxas
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0

    @property
    def is_estimate(self) -> bool:
        return self.source != "ptxas"


# ---------------------------------------------------------------- ptxas

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_USED = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def parse_ptxas_output(text: str) -> dict:
    """kernel name -> (registers, stack frame, spill stores, spill loads) from `ptxas -v`."""
    result, current, frame = {}, None, (0, 0, 0)
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current, frame = m.group(1), (0, 0, 0)
            continue
        m = _SPILL.search(line)
        if m and current:
            frame = tuple(int(g) for g in m.groups())
            continue
        m = _USED.search(line)
        if m and current:
            result[current] = (int(m.group(1)),) + frame
            current = None
    return result


def _ptxas_v(exe: str, ptx: str, arch: str):
    """`ptxas -v` of the PTX: the CompletedProcess, or the error that kept it from running."""
    with tempfile.TemporaryDirectory(prefix="warpsim-ptxas-") as tmp:
        src = Path(tmp) / "module.ptx"
        src.write_text(ptx)
        try:
            return subprocess.run([exe, "-v", f"-arch={arch}", "-o", str(Path(tmp) / "module.cubin"),
                                   str(src)], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return exc


@lru_cache(maxsize=64)
def _ptxas_counts(ptx_digest: str, ptx: str, arch: str, executables: tuple) -> tuple:
    """(kernel -> figures, detail) running each ptxas until one accepts the PTX (a ptxas older than
    the PTX's .version gets it lowered, as the SASS listing's ptxas does)."""
    reasons = []
    for exe in executables:
        done = _ptxas_v(exe, ptx, arch)
        lowered = lowered_ptx_version(ptx, done.stdout + done.stderr) if not isinstance(done, Exception) \
            and done.returncode else None
        if lowered:
            done = _ptxas_v(exe, lowered[0], arch)
        if isinstance(done, Exception):
            reasons.append(f"{exe}: {done}")
            continue
        if done.returncode == 0:
            return parse_ptxas_output(done.stdout + done.stderr), exe
        first = (done.stderr.strip().splitlines() or ["failed"])[0]
        reasons.append(f"{exe}: {first}")
    return None, "; ".join(reasons) or "no ptxas found (pip install nvidia-cuda-nvcc provides one)"


def ptxas_arch(module) -> str:
    """The sm_XX the module targets (.target), sm_90 when it names none."""
    for t in getattr(module, "target", ()) or ():
        if str(t).startswith("sm_"):
            return str(t)
    return "sm_90"


def registers_per_thread(module, kernel: str, arch: str | None = None) -> RegisterCount:
    """Registers per thread of `kernel` in a parsed PTX Module."""
    arch = arch or ptxas_arch(module)
    text = getattr(module, "text", "") or ""
    if text and os.environ.get("WARPSIM_PTXAS") != "none":
        digest = hashlib.sha256(text.encode()).hexdigest()
        counts, detail = _ptxas_counts(digest, text, arch, find_ptxas())
        if counts and kernel in counts:
            regs, frame, stores, loads = counts[kernel]
            return RegisterCount(regs, "ptxas", detail, stores, loads, frame)
        why = detail if counts is None else f"ptxas printed no figure for {kernel}"
    else:
        why = "ptxas disabled (WARPSIM_PTXAS=none)" if text else "no PTX text"
    return RegisterCount(estimate_registers(module, kernel), "estimate",
                         f"estimated from PTX liveness ({why})")


# ---------------------------------------------------------------- estimate

def _weight(fn, reg: str) -> int:
    t = fn.regs.get(reg)
    if t is None or t == "pred":
        return 0
    bits = int(re.sub(r"\D", "", t) or 32)
    return max(1, bits // 32)


def _regs_of(operand, out: list):
    if isinstance(operand, Reg):
        out.append(operand.name)
    elif isinstance(operand, Addr) and isinstance(operand.base, Reg):
        out.append(operand.base.name)
    elif isinstance(operand, Vec):
        for item in operand.items:
            _regs_of(item, out)
    elif isinstance(operand, Not):
        out.append(operand.reg.name)


def _uses_defs(ins) -> tuple:
    uses, defs = [], []
    for op in ins.srcs:
        _regs_of(op, uses)
    for op in ins.dsts:
        _regs_of(op, defs)
    if ins.guard is not None:
        uses.append(ins.guard.reg.name)
    if ins.call is not None:
        for op in ins.call.args:
            _regs_of(op, uses)
        if isinstance(ins.call.target, Reg):
            uses.append(ins.call.target.name)
        for op in ins.call.returns:
            _regs_of(op, defs)
    return uses, defs


def max_live(fn) -> int:
    """Largest weighted number of registers live at one point of `fn`."""
    from ..ptx.cfg import CFG
    cfg = CFG(fn)
    body = fn.body
    weight = {r: _weight(fn, r) for r in fn.regs}
    info = [_uses_defs(ins) for ins in body]
    live_in = {b.id: frozenset() for b in cfg.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(cfg.blocks):
            live = set().union(*(live_in[s] for s in b.successors)) if b.successors else set()
            for k in range(b.end - 1, b.start - 1, -1):
                uses, defs = info[k]
                if ins_guarded(body[k]):
                    live |= set(uses)            # a guarded write keeps the old value live
                else:
                    live -= set(defs)
                    live |= set(uses)
            new = frozenset(r for r in live if r in weight)
            if new != live_in[b.id]:
                live_in[b.id] = new
                changed = True
    peak = 0
    for b in cfg.blocks:
        live = set().union(*(live_in[s] for s in b.successors)) if b.successors else set()
        for k in range(b.end - 1, b.start - 1, -1):
            uses, defs = info[k]
            # at the instruction: its results and its still-live operands coexist
            here = live | set(defs) | set(uses)
            peak = max(peak, sum(weight.get(r, 0) for r in here))
            if not ins_guarded(body[k]):
                live -= set(defs)
            live |= set(uses)
    return peak


def ins_guarded(ins) -> bool:
    return ins.guard is not None


def estimate_registers(module, kernel: str) -> int:
    """Liveness estimate for a kernel and (conservatively) the functions it calls."""
    seen, stack, peak = set(), [kernel], 0
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        fn = module.functions.get(name)
        if fn is None or not fn.has_body:
            continue
        peak = max(peak, max_live(fn))
        stack += [ins.call.target.name for ins in fn.body
                  if ins.call is not None and isinstance(ins.call.target, Sym)]
    return min(255, peak + RESERVED)
