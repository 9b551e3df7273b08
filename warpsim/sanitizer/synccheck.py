"""synccheck: barriers and warp-synchronous instructions used where they are undefined.

Divergent barriers. `bar.sync` / `__syncthreads()` is an aligned barrier: every
non-exited thread of a warp must execute the same barrier instruction. When
lanes of a warp arrive at one, the tool notes the warp's other live lanes that
are somewhere else with code still to run; when the barrier releases, those
that never arrived (they went on and exited, or wait at another barrier) and
members of one warp waiting at different barrier instructions are reported,
with the lanes, the barrier's PTX and source line and where the others were.
Lanes that only have `ret`/`exit` left when their warp reaches the barrier are
early exits (`if (i >= n) return;`): the hardware counts exited threads out of
a barrier, so they are not reported. `barrier.sync` without `.aligned` allows
divergence and is not checked.

Warp-synchronous instructions. The machine records `.sync` instructions whose
member mask names lanes that have exited ('sync_exited_lanes') or leaves out
the executing lane ('sync_mask_without_own_lane'), and shuffles that read a
lane not taking part ('shfl_absent_source'); each becomes an error here.
Deadlocks at barriers or `.sync` instructions, and `.sync` misuse that stops a
launch (divergent `.sync` under the pre-Volta stack model), are reported too.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..errors import DeadlockError, LaunchError
from ..machine.isa.table import warp_sync_opcodes
from ..machine.scheduling import lane_bits
from ..machine.state import AT_BARRIER, EXITED
from .report import Access, SanitizerError, lanes_text
from .tool import LaunchTool

DIAGNOSTIC_TITLES = {"sync_exited_lanes": "Warp synchronization error: a .sync mask names exited lanes",
                     "sync_mask_without_own_lane": "Warp synchronization error: a .sync mask leaves out "
                                                   "the executing lane",
                     "shfl_absent_source": "Warp synchronization error: shuffle from a lane not taking part"}


class Synccheck(LaunchTool):
    name = "synccheck"

    def __init__(self, checker, launch, kernel):
        super().__init__(checker, launch, kernel)
        self.found: dict = {}          # key -> [count, error]

    def batch_started(self, ctx):
        self.elsewhere = np.zeros(ctx.n_warps, dtype=np.uint32)     # live lanes not at the barrier
        self.elsewhere_pc = np.full(ctx.n_warps, -1, dtype=np.int64)
        self.exit_only = exit_only_blocks(ctx.program)
        self.seen_diagnostics = 0

    # ------------------------------------------------------------ barriers

    def block_executed(self, ctx, block, idx, warps):
        if block.kind != "barrier" or not is_aligned(block.instructions[0]):
            return
        arrived = idx[ctx.status[idx] == AT_BARRIER]
        if not len(arrived):
            return
        ws = np.unique(arrived >> 5)
        slots = ws[:, None] * 32 + np.arange(32)
        pc = ctx.pc[slots]
        away = (ctx.status[slots] != EXITED) & (pc != block.gid) & ~self.exit_only[np.maximum(pc, 0)]
        if not away.any():
            return
        bits = lane_bits(away)
        fresh = (bits != 0) & (self.elsewhere_pc[ws] < 0)
        first_lane = away.argmax(axis=1)
        self.elsewhere_pc[ws[fresh]] = pc[np.flatnonzero(fresh), first_lane[fresh]]
        self.elsewhere[ws] |= bits

    def barrier_released(self, ctx, members, keys):
        warps, row = np.unique(members >> 5, return_inverse=True)
        grid = np.zeros((len(warps), 32), dtype=bool)
        grid[row, members & 31] = True
        pcs = ctx.pc[members]
        low = np.full(len(warps), np.iinfo(np.int64).max)
        high = np.full(len(warps), -1, dtype=np.int64)
        np.minimum.at(low, row, pcs)
        np.maximum.at(high, row, pcs)
        skipped = self.elsewhere[warps] & ~lane_bits(grid)      # noted elsewhere, never came
        split = low != high                                       # waiting at two barriers
        bad = np.flatnonzero((skipped != 0) | split)
        if len(bad):
            other = np.where(split, high, self.elsewhere_pc[warps])
            found = np.stack([low, other, split], axis=1)[bad]
            uniq, first, counts = np.unique(found, axis=0, return_index=True, return_counts=True)
            for key, k, n in zip(uniq.tolist(), bad[first].tolist(), counts.tolist()):
                key = ("barrier", *key)
                if key not in self.found:
                    self.found[key] = [0, self.divergent(ctx, key, members[row == k], int(skipped[k]))]
                self.found[key][0] += n
        self.elsewhere[warps] = 0
        self.elsewhere_pc[warps] = -1

    def divergent(self, ctx, key, member_slots, skipped: int) -> SanitizerError:
        """The error for one warp: member_slots wait, `skipped` lanes never came."""
        _, barrier_pc, other_pc, split = key
        program = ctx.program
        at_pc = ctx.pc[member_slots]
        here = member_slots[at_pc == barrier_pc]
        lanes_at, others = _bits(here), (_bits(member_slots[at_pc == other_pc]) if split else skipped)
        barrier = program.blocks[barrier_pc].instructions[0]
        where = ctx.where(int(here[0]))
        place = Access("", self.kernel, where["block"], where["thread"], barrier.line,
                       str(barrier), program.source_line(barrier))
        other_at = block_location(program, other_pc) if other_pc >= 0 else "another place"
        warp = int(ctx.warp_in_cta[here[0]])
        if split:
            detail = (f"lanes {lanes_text(lanes_at)} of warp {warp} wait at this barrier and lanes "
                      f"{lanes_text(others)} at a different one, {other_at}: one warp at two "
                      f"barrier instructions")
        else:
            detail = (f"lanes {lanes_text(lanes_at)} of warp {warp} wait at this barrier; lanes "
                      f"{lanes_text(others)} of the warp did not reach it (they were at {other_at} "
                      f"and went on or exited)")
        return SanitizerError(self.name, "divergent barrier",
                              "Barrier error detected. Divergent thread(s) in warp", self.kernel,
                              [place], details=[detail], unit="warps")

    # ------------------------------------------------------------ machine diagnostics, failures

    def batch_finished(self, ctx):
        self.take_diagnostics(ctx)

    def take_diagnostics(self, ctx):
        for d in ctx.diagnostics[self.seen_diagnostics:]:
            title = DIAGNOSTIC_TITLES.get(d["kind"])
            if title is None:
                continue
            key = (d["kind"], d["ptx_line"])
            entry = self.found.get(key)
            if entry is None:
                place = Access("", self.kernel, d["block"], d["thread"], d["ptx_line"],
                               d["instruction"], d.get("source_line", ""))
                entry = self.found[key] = [0, SanitizerError(
                    self.name, d["kind"], title, self.kernel, [place], details=[d["message"]],
                    unit="occurrences")]
            entry[0] += 1
        self.seen_diagnostics = len(ctx.diagnostics)

    def claim(self, ctx, exc) -> bool:
        self.take_diagnostics(ctx)
        if isinstance(exc, DeadlockError):
            lines = [line.strip() for line in str(exc).splitlines()]
            lines = [line for line in lines if line and not line.startswith("kernel:")]
            self.errors.append(SanitizerError(
                self.name, "deadlock", lines[0][:1].upper() + lines[0][1:], self.kernel, [],
                details=lines[1:]))
            return True
        if type(exc) is LaunchError and opcode_of(exc.instruction) in warp_sync_opcodes():
            place = Access("", exc.kernel or self.kernel, tuple(exc.block or ()), tuple(exc.thread or ()),
                           exc.ptx_line or 0, exc.instruction, exc.source_line)
            self.errors.append(SanitizerError(
                self.name, "invalid sync", "Warp synchronization error: " + str(exc).splitlines()[0],
                self.kernel, [place]))
            return True
        return False



def block_location(program, gid: int) -> str:
    """'PTX line N: <first instruction> (the block's source lines)'."""
    instructions = program.blocks[gid].instructions
    lines: dict = {}                         # file -> its line numbers, in order
    for src in filter(None, map(program.source_line, instructions)):
        path, _, number = src.rpartition(":")
        lines.setdefault(path, dict.fromkeys([]))[number] = None
    where = "; ".join(f"{path}:{','.join(list(numbers)[:4])}" for path, numbers in lines.items())
    where = f"  ({where})" if where else ""
    return f"PTX line {instructions[0].line}: {instructions[0]}{where}"


def _bits(slots) -> int:
    word = 0
    for s in np.asarray(slots).tolist():
        word |= 1 << (s & 31)
    return word


def opcode_of(instruction: str) -> str:
    text = (instruction or "").strip()
    if text.startswith("@"):
        text = text.split(None, 1)[1] if " " in text else ""
    return text.split(".", 1)[0].split(None, 1)[0] if text else ""


def is_aligned(ins) -> bool:
    """bar.sync is barrier.sync.aligned; barrier.sync alone lets a warp diverge; arrive waits for nobody."""
    return "arrive" not in ins.mods and (ins.opcode == "bar" or "aligned" in ins.mods)


_EXIT_ONLY: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def exit_only_blocks(program) -> np.ndarray:
    """Per block: it only ends the thread (ret or exit in a kernel, no guard)."""
    found = _EXIT_ONLY.get(program)
    if found is None:
        found = np.zeros(len(program.blocks), dtype=bool)
        for b in program.blocks:
            first = b.instructions[0] if b.instructions else None
            found[b.gid] = (first is not None and b.function.kind == "entry" and first.guard is None
                            and first.opcode in ("ret", "exit"))
        _EXIT_ONLY[program] = found
    return found
