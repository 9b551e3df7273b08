"""Run one SASS instruction and one PTX instruction on the same raw bits, without a toolchain.

`run_sass` decodes an instruction's text as nvdisasm prints it, builds its
step from the SASS executor's table and runs it on one batch of thread slots
whose registers hold the inputs; `run_ptx` evaluates a PTX mnemonic through
the PTX machine's instruction table. `edge_bits` gives random 32- and 64-bit
patterns salted with the values where semantics differ: NaNs of both signs
(quiet and signalling), infinities, zeros of both signs, subnormals, the
smallest normal, the largest finite values and the integer extremes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsim.machine.isa.evaluate import evaluate
from warpsim.sass.disasm import parse_instruction
from warpsim.sass.executor.state import Group, SassState
from warpsim.sass.executor.table import build_step

LANES = 1024

EDGES32 = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
           0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
           0x7F800001, 0xFFBFFFFF, 0x7FFFFFFF, 0x3F800000, 0xBF800000, 0x4F000000, 0xCF000000,
           0x5F000000, 0xDF000000, 0x3F000000, 0x00000002, 0xFFFFFFFF, 0x7FFFFFFE, 0x0000001F,
           0x00000020, 0x00000021, 0x0000003F, 0x00000040]
EDGES64 = [0x0, 0x8000000000000000, 0x1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
           0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
           0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
           0xFFFFFFFFFFFFFFFF, 0x43E0000000000000, 0xC3E0000000000000]


def edge_bits(rng, bits: int = 32, n: int = LANES) -> np.ndarray:
    """n random patterns of `bits` bits, a quarter of them edge values, the rest spread over every exponent."""
    dtype = np.uint32 if bits == 32 else np.uint64
    out = rng.integers(0, 2 ** bits, size=n, dtype=np.uint64).astype(dtype)
    edges = np.array(EDGES32 if bits == 32 else EDGES64, dtype=dtype)
    picks = rng.random(n) < 0.25
    out[picks] = edges[rng.integers(0, len(edges), size=int(picks.sum()))]
    out[:len(edges)] = edges
    return out


@dataclass
class _Program:
    """The register counts a batch needs (all a bare instruction asks of its program)."""
    registers: int = 16
    uniform_registers: int = 8


def run_sass(text: str, registers: dict, read: list, predicates: dict | None = None, n: int = LANES):
    """Run the SASS instruction `text` with R<k> = registers[k] (uint32 arrays) on n lanes.

    Returns the arrays named by `read`: 'R4' (uint32), 'R4.64' (uint64 of R4, R5) or 'P0' (bool).
    """
    step = build_step(parse_instruction(text))
    state = SassState(_Program(), (1, 1, 1), (n, 1, 1), np.arange(1), {}, 0, 0, None)
    for row, values in registers.items():
        state.R[row] = np.asarray(values, dtype=np.uint32)
    for row, values in (predicates or {}).items():
        state.P[row] = np.asarray(values, dtype=bool)
    step.run(state, Group(np.arange(n)))
    out = []
    for name in read:
        if name.startswith("P"):
            out.append(state.P[int(name[1:])].copy())
        elif name.endswith(".64"):
            row = int(name[1:-3])
            out.append(state.R[row].astype(np.uint64) | (state.R[row + 1].astype(np.uint64) << np.uint64(32)))
        else:
            out.append(state.R[int(name[1:])].copy())
    return out


def run_ptx(mnemonic: str, *sources, n_dsts: int = 1):
    """The PTX machine's result for `mnemonic` on typed sources (as the engine passes them)."""
    with np.errstate(all="ignore"):
        return evaluate(mnemonic, *sources, n_dsts=n_dsts)


def as_f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def as_f64(bits):
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def split64(bits):
    """A uint64 array as its (low, high) uint32 words, the register pair SASS reads."""
    bits = np.asarray(bits, dtype=np.uint64)
    return (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32), (bits >> np.uint64(32)).astype(np.uint32)


def assert_same_bits(sass, ptx, what: str, inputs=()):
    """Equal raw bits lane for lane; the message names the first lanes that differ and their inputs."""
    sass, ptx = np.asarray(sass), np.asarray(ptx)
    if ptx.dtype.kind == "f":
        ptx = ptx.view(np.uint32 if ptx.itemsize == 4 else np.uint64)
    if ptx.dtype == bool or sass.dtype == bool:
        wrong = np.flatnonzero(sass.astype(bool) != ptx.astype(bool))
    else:
        wrong = np.flatnonzero(sass.astype(np.uint64) != ptx.astype(np.uint64))
    assert not len(wrong), f"{what}: {len(wrong)} of {len(sass)} lanes differ, e.g. " + "; ".join(
        "(" + ", ".join(hex(int(np.asarray(x)[j])) for x in inputs) + f") -> SASS {int(sass[j]):#x}, PTX {int(ptx[j]):#x}"
        for j in wrong[:4])
