"""Scheduling models: which lanes of a warp issue next, and how `.sync`
warp instructions meet.

`its` (Volta and later, the default): every thread has its own PC. A warp
issues for the group of lanes at its earliest block, so divergent paths are
serialized and lanes reconverge where they meet again; a group that reaches a
warp-synchronous instruction before the lanes its mask names waits there while
the other groups of the warp run, as independent thread scheduling allows.

`stack` (before Volta): the warp has one PC and a reconvergence stack, so
lanes that diverged cannot meet at a `.sync` instruction: named lanes that are
not converged with the issuing group are an error.
"""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError
from ..ptx.ir import Imm, Reg
from ..ptx.types import TYPES
from .state import AT_WARP_SYNC, EXITED, RUNNING

NO_PC = np.iinfo(np.int64).max


def mask_operand(ins):
    """The member-mask operand of a warp-synchronous instruction (None: no mask)."""
    if ins.opcode in ("bar", "barrier"):
        return ins.srcs[0] if ins.srcs else None
    if ins.opcode in ("wmma", "mma", "ldmatrix"):   # .sync.aligned: the whole warp
        return Imm(0xFFFFFFFF)
    if "sync" not in ins.mods or ins.opcode == "activemask":
        return None
    return ins.srcs[-1]


def member_masks(ctx, block, idx) -> np.ndarray | None:
    op = mask_operand(block.instructions[0])
    if op is None:
        return None
    if isinstance(op, Imm):
        return np.full(len(idx), op.value & 0xFFFFFFFF, dtype=np.uint32)
    if isinstance(op, Reg):
        bits = TYPES[block.function.regs[op.name]].bits
        return ctx.reg(f"{block.function.name}::{op.name}", bits)[idx].astype(np.uint32)
    raise LaunchError(f"unsupported member mask operand {op}", kernel=ctx.kernel)


def lane_bits(rows: np.ndarray) -> np.ndarray:
    """Per row of 32 lane flags: the 32-bit word with bit k set where lane k is."""
    return np.packbits(rows, axis=1, bitorder="little").view(np.uint32).ravel()


class ReconvergenceStack:
    """Pre-Volta: one PC per warp, divergent paths serialized until they rejoin.

    The warp issues the lanes at its earliest block in layout order and keeps
    the others waiting. NVVM lays blocks out so that a branch's immediate
    post-dominator follows both of its sides, so this is the reconvergence
    stack's behaviour: the taken side runs to the join, then the other side,
    then the warp continues together. A group that spins waiting for lanes
    held at the join spins forever, as it did on the hardware.
    """

    name = "stack"

    def select(self, ctx, runnable):
        key = np.where(runnable, ctx.pc, NO_PC).reshape(-1, 32)
        warp_pc = key.min(axis=1)
        return warp_pc, key == warp_pc[:, None]

    def meet(self, ctx, block, idx):
        masks = member_masks(ctx, block, idx)
        if masks is None:
            return idx
        self.check_own_lane(ctx, block, idx, masks)
        warp = idx >> 5
        first = np.empty(len(idx), dtype=bool)
        first[0], first[1:] = True, warp[1:] != warp[:-1]
        row = np.cumsum(first) - 1                       # each lane's warp, as a row below
        slots = warp[first][:, None] * 32 + np.arange(32)
        status = ctx.status[slots]
        here = (ctx.pc[slots] == block.gid) & ((status == RUNNING) | (status == AT_WARP_SYNC))
        exited = lane_bits(status == EXITED)[row]
        missing = masks & ~lane_bits(here)[row]
        lane_ok = (missing & ~exited) == 0
        if lane_ok.all():
            ready = lane_ok
        else:
            bad_rows = np.zeros(len(slots), dtype=bool)
            bad_rows[row[~lane_ok]] = True
            ready = ~bad_rows[row]
        gone = missing & exited
        if gone[ready].any():
            self.report_exited(ctx, block, idx[ready], masks[ready], gone[ready])
        if not ready.all():
            self.not_converged(ctx, block, idx, masks, ready)
            keep = np.zeros(len(slots), dtype=bool)
            keep[row[ready]] = True
            slots, here = slots[keep], here[keep]
        if not len(slots):
            return None
        if ready.all() and here.sum() == len(idx):
            return idx                                   # nobody was waiting: same group
        take = slots[here]
        ctx.status[take] = RUNNING
        return take

    def not_converged(self, ctx, block, idx, masks, ready):
        ins = block.instructions[0]
        bad = int(np.flatnonzero(~ready)[0])
        where = ctx.where(int(idx[bad]))
        raise LaunchError(
            f"{ins.opcode}.sync with member mask 0x{int(masks[bad]):08x} issued by a divergent "
            f"group: under the pre-Volta SIMT stack the named lanes are not converged here "
            f"(they would be under independent thread scheduling)",
            kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=ins.line,
            instruction=str(ins), source_line=ctx.program.source_line(ins))

    def check_own_lane(self, ctx, block, idx, masks):
        own = (masks >> ctx.lane[idx]) & 1
        if own.all():
            return
        ins = block.instructions[0]
        bad = int(np.flatnonzero(own == 0)[0])
        where = ctx.where(int(idx[bad]))
        raise LaunchError(
            f"{ins.opcode}.sync executed by lane {int(ctx.lane[idx[bad]])} with member mask "
            f"0x{int(masks[bad]):08x}, which does not name the lane itself",
            kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=ins.line,
            instruction=str(ins), source_line=ctx.program.source_line(ins))

    def report_exited(self, ctx, block, idx, masks, gone):
        ins = block.instructions[0]
        first = int(np.flatnonzero(gone)[0])
        ctx.diagnostics.append({
            "kind": "sync_exited_lanes",
            "message": (f"{ins.opcode}.sync names lanes that have exited "
                        f"(mask 0x{int(masks[first]):08x}, exited 0x{int(gone[first]):08x})"),
            "ptx_line": ins.line, "instruction": str(ins),
            "source_line": ctx.program.source_line(ins), **ctx.where(int(idx[first])),
        })


class IndependentThreadScheduling(ReconvergenceStack):
    """Volta and later: each thread has its own PC; the scheduler guarantees progress.

    Groups still issue earliest-block-first, so convergent code issues full
    warps and divergent paths cost what they cost on the hardware. But a warp
    whose issuing group has kept its other groups waiting for `patience`
    rounds switches to round-robin among its groups until it has reconverged,
    so a lane spinning on a flag that another lane of its warp will set does
    not starve that lane. A group that reaches a `.sync` instruction before the
    lanes its mask names waits there while the warp's other groups run.
    """

    name = "its"
    patience = 2048

    def select(self, ctx, runnable):
        key = np.where(runnable, ctx.pc, NO_PC).reshape(-1, 32)
        warp_pc = key.min(axis=1)
        others = (key != warp_pc[:, None]) & (key != NO_PC)
        divergent = others.any(axis=1)
        ctx.starved = np.where(divergent, ctx.starved + 1, 0)
        ctx.rotating &= divergent
        ctx.rotating |= ctx.starved > self.patience
        if ctx.rotating.any():
            warp_pc = warp_pc.copy()
            w = np.flatnonzero(ctx.rotating)
            after = np.where(key[w] > ctx.last_pc[w, None], key[w], NO_PC).min(axis=1)
            warp_pc[w] = np.where(after != NO_PC, after, warp_pc[w])
        ctx.last_pc = warp_pc
        return warp_pc, key == warp_pc[:, None]

    def not_converged(self, ctx, block, idx, masks, ready):
        ctx.status[idx[~ready]] = AT_WARP_SYNC


MODELS = {"its": IndependentThreadScheduling(), "stack": ReconvergenceStack()}


def model_for(name: str, target: tuple):
    """'auto' picks its for sm_70 and later, stack before."""
    if name == "auto":
        arch = next((t for t in target if t.startswith("sm_")), "sm_90")
        digits = "".join(ch for ch in arch[3:] if ch.isdigit())
        name = "its" if int(digits or 90) >= 70 else "stack"
    return get_model(name)


def get_model(name: str):
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown scheduling model '{name}' (choose from {', '.join(MODELS)})") from None
