"""Lane masks, and how `.sync` warp instructions meet: shared by every model.

A `.sync` instruction (shfl, vote, match, redux, bar.warp) names the lanes
taking part in its member mask. `NamedLaneMeeting.meet` checks that the lanes
issuing it are named (where the GPU stops at one that is not, so does the
launch), that every named lane that has not exited has arrived,
and reports named lanes that exited. What happens to a group whose partners
are elsewhere is the model's call (`not_converged`): the pre-Volta models stop
with an error, independent thread scheduling lets the group wait.
"""

from __future__ import annotations

import numpy as np

from ...errors import IllegalInstruction, LaunchError
from ...ptx.ir import Imm
from ..isa.table import constant_mask
from ..isa.warp import source_values
from ..state import AT_WARP_SYNC, EXITED, RUNNING
from .masks import mask_operand

LANE_SHIFTS = np.arange(32, dtype=np.uint32)


def lane_bits(rows: np.ndarray) -> np.ndarray:
    """Per row of 32 lane flags: the 32-bit word with bit k set where lane k is."""
    return np.packbits(rows, axis=1, bitorder="little").view(np.uint32).ravel()


def lane_flags(words: np.ndarray) -> np.ndarray:
    """The inverse of lane_bits: per 32-bit word, a row of 32 lane flags."""
    return ((np.asarray(words, dtype=np.uint32)[:, None] >> LANE_SHIFTS) & 1).astype(bool)


def member_masks(ctx, block, idx) -> np.ndarray | None:
    """Per thread of idx, the member mask of the block's `.sync` instruction."""
    op = mask_operand(block.instructions[0])
    if op is None:
        return None
    masks = source_values(ctx, block, op, "b32", idx)
    if masks is None:
        raise LaunchError(f"unsupported member mask operand {op}", kernel=ctx.kernel)
    return masks


def _all_lanes_named(block) -> bool:
    """Whether the block's `.sync` instruction names all 32 lanes by an immediate mask (kept on the block)."""
    named = block.__dict__.get("_all_lanes_named")
    if named is None:
        op = mask_operand(block.instructions[0])
        named = block._all_lanes_named = isinstance(op, Imm) and op.value & 0xFFFFFFFF == 0xFFFFFFFF
    return named


def whole_warps(idx: np.ndarray) -> bool:
    """Whether thread slots idx are whole warps, every lane of each, in ascending order: then a
    `.sync` naming all lanes meets at once (a reduction's shuffles, most rounds)."""
    n = len(idx)
    if not n or n % 32:
        return False
    first = idx[::32]
    return bool(((first & 31) == 0).all() and (np.diff(idx) > 0).all() and (idx[31::32] - first == 31).all())


def collective_kind(block) -> tuple | None:
    """What a `.sync` block's collective is for meeting lanes at other ones: its opcode and qualifiers
    (lanes meet only at their kind: an H100 never finishes a ballot meeting a reduction); None for
    a block that is no warp-synchronous one."""
    if block.kind != "warp_sync":
        return None
    ins = block.instructions[0]
    return ins.opcode, ins.mods


class NamedLaneMeeting:
    """`meet` for models whose lanes meet at a `.sync` instruction by being there."""

    def lanes_here(self, ctx, block, idx, slots) -> np.ndarray:
        """Per slot of the issuing warps, whether the lane counts as arrived.

        Lanes at the block that are running or already waiting there: a model
        with one PC per warp narrows this to the issuing group.
        """
        status = ctx.status[slots]
        return (ctx.pc[slots] == block.gid) & ((status == RUNNING) | (status == AT_WARP_SYNC))

    def meet(self, ctx, block, idx):
        if _all_lanes_named(block) and whole_warps(idx):
            return idx                                   # every named lane is here, issuing
        masks = member_masks(ctx, block, idx)
        if masks is None:
            return idx
        self.check_own_lane(ctx, block, idx, masks)
        warp = idx >> 5
        first = np.empty(len(idx), dtype=bool)
        first[0], first[1:] = True, warp[1:] != warp[:-1]
        row = np.cumsum(first) - 1                       # each lane's warp, as a row below
        slots = warp[first][:, None] * 32 + np.arange(32)
        here = self.lanes_here(ctx, block, idx, slots)
        exited = lane_bits(ctx.status[slots] == EXITED)[row]
        missing = masks & ~lane_bits(here)[row]
        lane_ok = (missing & ~exited) == 0
        if self.meets_across_sites and not lane_ok.all():
            lane_ok = self.meet_across_sites(ctx, block, idx, slots, row, missing & ~exited, lane_ok)
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

    meets_across_sites = False      # sm_70 and later: see meet_across_sites (one PC per warp: False)

    def meet_across_sites(self, ctx, block, idx, slots, row, missing, lane_ok):
        """`lane_ok` with the lanes that may go on although named lanes are not at this instruction.

        From sm_70 a `.sync` instruction waits for the named lanes to execute *a* `.sync` instruction
        with the same qualifiers and mask, not this one (the PTX ISA asks for the same instruction
        only of sm_6x; a shuffle in a loop whose half-warps run different trip counts meets the one
        after the loop: HeCBench's jaccard, validation/warp_sync_masks). Lanes released here by
        partners waiting at another such instruction go on at it, and those partners, released,
        go on at theirs without waiting again (ctx.sync_passes). The collective runs once for all
        of them, each lane with its own instruction's operands (machine/isa/warp.py: an H100 gives
        each half-warp of validation/warp_sync_masks/sites.cu the other's votes and values).
        """
        passes = getattr(ctx, "sync_passes", None)
        if passes is not None:                  # released by partners that went on at another site
            lane_ok = lane_ok | passes[idx]
        ins = block.instructions[0]
        kind = collective_kind(block)
        elsewhere = (ctx.status[slots] == AT_WARP_SYNC) & (ctx.pc[slots] != block.gid)
        if elsewhere.any():
            for gid in np.unique(ctx.pc[slots][elsewhere]):
                if collective_kind(ctx.program.blocks[int(gid)]) != kind:
                    elsewhere &= ctx.pc[slots] != gid
        waiting = lane_bits(elsewhere)[row]
        met = ~lane_ok & ((missing & ~waiting) == 0)
        if met.any():
            rows = np.unique(row[met])
            partners = slots[rows][elsewhere[rows]]
            if passes is None:
                passes = ctx.sync_passes = np.zeros(len(ctx.status), dtype=bool)
            passes[partners] = True
            if ins.opcode not in ("bar", "barrier"):        # isa/warp.py: one collective for all of them
                ctx.joint_meeting = (partners, ctx.pc[partners].copy())
            ctx.status[partners] = RUNNING
            lane_ok = lane_ok | met
        if passes is not None:
            passes[idx[lane_ok]] = False          # a release lets its lanes through once
        return lane_ok

    def not_converged(self, ctx, block, idx, masks, ready):
        """Named lanes of the groups `~ready` are elsewhere: with one PC per warp, an error."""
        ins = block.instructions[0]
        bad = int(np.flatnonzero(~ready)[0])
        where = ctx.where(int(idx[bad]))
        raise LaunchError(
            f"{ins.opcode}.sync with member mask 0x{int(masks[bad]):08x} issued by a divergent "
            f"group: under the pre-Volta SIMT stack the named lanes are not converged here "
            f"(they would be under independent thread scheduling)",
            kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=ins.line,
            instruction=str(ins), source_line=ctx.program.source_line(ins))

    stops_unnamed_lanes = True      # sm_70 and later: see check_own_lane (pre-Volta's stack: False)

    def check_own_lane(self, ctx, block, idx, masks):
        """A lane whose member mask leaves itself out (undefined in PTX), as an H200 runs it
        (validation/warp_sync_masks): ptxas puts a WARPSYNC on a mask read at run time, or on a
        constant one where lanes have diverged, and WARPSYNC stops the launch with an illegal
        instruction at a lane its mask leaves out: `__ballot_sync(lanemask_lt, p)` and
        `__shfl_sync(lanemask_lt, ...)` fault. A constant mask in converged code has no WARPSYNC:
        the collective runs for the lanes issuing it (semantics.warp.issued_masks), with a
        diagnostic here. Pre-Volta models only report it."""
        own = (masks >> ctx.lane[idx]) & 1
        if own.all():
            return
        ins = block.instructions[0]
        bad = int(np.flatnonzero(own == 0)[0])
        constant = constant_mask(block.function, ins)
        text = (f"{ins.opcode}.sync executed by lane {int(ctx.lane[idx[bad]])} with member mask "
                f"0x{int(masks[bad]):08x}, which does not name the lane itself (undefined in PTX)")
        if self.stops_unnamed_lanes and (not constant or not _converged(ctx, idx)):
            where = ctx.where(int(idx[bad]))
            why = ("a mask read at run time: ptxas synchronizes on it" if not constant else
                   "the warp's lanes have diverged: ptxas synchronizes on the mask")
            raise IllegalInstruction(
                f"{text}: on sm_70 and later the GPU stops the launch here with an illegal instruction "
                f"(cudaErrorIllegalInstruction; {why})", kernel=ctx.kernel, block=where["block"],
                thread=where["thread"], ptx_line=ins.line, instruction=str(ins),
                source_line=ctx.program.source_line(ins))
        _diagnose(ctx, ins, int(idx[bad]), "sync_mask_without_own_lane",
                  text + ("; the GPU runs it for every lane issuing it (no WARPSYNC in converged code)"
                          if self.stops_unnamed_lanes else ""))

    def report_exited(self, ctx, block, idx, masks, gone):
        """Named lanes that exited: undefined on the hardware, a diagnostic here."""
        ins = block.instructions[0]
        first = int(np.flatnonzero(gone)[0])
        _diagnose(ctx, ins, int(idx[first]), "sync_exited_lanes",
                  f"{ins.opcode}.sync names lanes that have exited "
                  f"(mask 0x{int(masks[first]):08x}, exited 0x{int(gone[first]):08x})")


def _converged(ctx, idx) -> bool:
    """Whether every lane of the issuing warps that has not exited is issuing (idx)."""
    warps = np.unique(idx >> 5)
    slots = (warps[:, None] * 32 + np.arange(32)).ravel()
    issuing = np.zeros(ctx.n, dtype=bool)
    issuing[idx] = True
    return bool((issuing[slots] | (ctx.status[slots] == EXITED)).all())


def _diagnose(ctx, ins, slot: int, kind: str, message: str) -> None:
    """A diagnostic of a .sync instruction, at the thread in `slot` (its PTX and source line)."""
    ctx.diagnostics.append({"kind": kind, "message": message, "ptx_line": ins.line, "instruction": str(ins),
                            "source_line": ctx.program.source_line(ins), **ctx.where(slot)})
