"""The profiling observer: counters gathered while a launch runs.

Everything is counted per basic block or per memory instruction, in NumPy
over the lanes that ran it, never per thread in Python:

- per block execution: warp instructions (warps x instructions), thread
  instructions (lanes x instructions), a histogram of active lanes per warp,
  and for a block ending in a conditional `bra`, the warps whose lanes went
  to different blocks (a divergent branch);
- per guarded instruction: threads whose guard was true (the generated code
  counts them when `ctx.count_predicates` is on);
- per memory instruction and state space: requests (warps that issued it),
  and for global and local memory the distinct 32-byte sectors and 128-byte
  lines each request touched, for shared memory the wavefronts (below).

Shared memory has 32 banks of 4 bytes. A request is served in wavefronts; a
wavefront reads at most one 4-byte word from each bank, and lanes reading the
same word share it (broadcast). 32-bit and narrower accesses are one phase of
32 lanes; 64-bit accesses are split into two half-warp phases and 128-bit
ones into four quarter-warp phases, each 128 bytes wide. A phase needs as
many wavefronts as the largest number of distinct words it asks of one bank;
bank conflicts are wavefronts beyond one per phase that has an active lane.
That is how the H200 counted every case in validation/ (32-bit, 64-bit and
128-bit, strided and broadcast).
"""

from __future__ import annotations

import numpy as np

from ..machine.counting import distinct_count, shared_bank_wavefronts
from ..machine.events import LaunchObserver
from ..ptx.ir import Sink
from ..sass.executor.async_copy import TMA_UNIT
from ..sass.issues import Departures, brx_targets
from ..semantics.addresses import SHARED_WINDOW, local_hardware_bytes, window_offsets
from .sectors import LINE_SHIFT, SECTOR_SHIFT, global_counts, whole_warp_starts


# ---------------------------------------------------------------- request arithmetic

def request_count(idx: np.ndarray) -> int:
    """Warps among sorted thread slots idx (each issues one request)."""
    if len(idx) == 0:
        return 0
    w = idx >> 5
    return 1 + int(np.count_nonzero(w[1:] != w[:-1]))


def _distinct_pairs(warp: np.ndarray, key: np.ndarray) -> int:
    """Number of distinct (warp, key) pairs; key < 2**43."""
    return distinct_count((warp.astype(np.int64) << 43) | key.astype(np.int64))


def _units_spanned(starts: np.ndarray, length: int, shift: int) -> int:
    """Distinct 2**shift-byte units the ranges [start, start + length) touch, summed over ranges."""
    return int((((starts + (length - 1)) >> shift) - (starts >> shift) + 1).sum())


def global_sectors(idx: np.ndarray, addrs: np.ndarray, nbytes: int) -> tuple:
    """(requests, sectors, lines) of one warp-level access of nbytes per lane."""
    if len(idx) == 0:
        return 0, 0, 0
    starts = whole_warp_starts(idx, addrs, nbytes)
    if starts is not None:
        return len(starts), _units_spanned(starts, 32 * nbytes, SECTOR_SHIFT), \
            _units_spanned(starts, 32 * nbytes, LINE_SHIFT)
    return global_counts(idx, addrs, nbytes)       # distinct (warp, unit) pairs, warp by warp


def local_sectors(idx: np.ndarray, addrs: np.ndarray, nbytes: int) -> tuple:
    """Local memory is interleaved by 4-byte word across the lanes of a warp, as on the hardware."""
    hw, of_lane, _ = local_hardware_bytes(idx, addrs, nbytes)
    warp = (idx >> 5)[of_lane]
    return (request_count(idx), _distinct_pairs(warp, hw >> SECTOR_SHIFT),
            _distinct_pairs(warp, hw >> LINE_SHIFT))


def shared_offsets(addrs: np.ndarray) -> np.ndarray:
    """Offsets in the CTA's shared memory, from shared-window or generic addresses."""
    return window_offsets(addrs, SHARED_WINDOW)


def shared_wavefronts(idx: np.ndarray, addrs: np.ndarray, nbytes: int, load: bool = True) -> tuple:
    """(requests, wavefronts, ideal wavefronts) of one warp-level shared access (the rule:
    machine.counting.shared_bank_wavefronts)."""
    if len(idx) == 0:
        return 0, 0, 0
    phases = 1 if nbytes <= 4 else min(32, nbytes // 4)
    if nbytes in (1, 2, 4, 8, 16) and whole_warp_starts(idx, addrs, nbytes) is not None:
        # consecutive elements: each phase asks for at most 32 consecutive words, one per bank
        warps = len(idx) >> 5
        return warps, warps * phases, warps * phases
    waves, ideal = shared_bank_wavefronts(idx >> 5, idx & 31, shared_offsets(addrs), nbytes, load)
    return request_count(idx), waves, ideal


# ---------------------------------------------------------------- the observer

class SiteCounts:
    """Counters of one memory instruction in one state space."""

    __slots__ = ("ins", "space", "kind", "op", "requests", "threads", "sectors", "lines",
                 "ideal_sectors", "wavefronts", "ideal_wavefronts")

    def __init__(self, ins, space: str, kind: str, op: str):
        self.ins, self.space, self.kind, self.op = ins, space, kind, op
        self.requests = self.threads = self.sectors = self.lines = self.ideal_sectors = 0
        self.wavefronts = self.ideal_wavefronts = 0

    def add(self, space: str, idx: np.ndarray, addrs: np.ndarray, nbytes: int) -> None:
        """One execution by threads idx, each accessing nbytes at its address (PTX or SASS alike)."""
        self.threads += len(idx)
        if space == "global":
            requests, sectors, lines = global_sectors(idx, addrs, nbytes)
            self.sectors += sectors
            self.lines += lines
            self.ideal_sectors += max(requests, -(-len(idx) * nbytes // 32))   # bytes asked, packed
        elif space == "shared":
            requests, waves, ideal = shared_wavefronts(idx, addrs, nbytes, self.op == "ld")
            self.wavefronts += waves
            self.ideal_wavefronts += ideal
        elif space == "local":
            requests, sectors, lines = local_sectors(idx, addrs, nbytes)
            self.sectors += sectors
            self.lines += lines
        else:
            requests = request_count(idx)
        self.requests += requests


def read_registers(fn) -> set:
    """Every register some instruction of `fn` reads."""
    from .registers import _uses_defs
    out = set()
    for ins in fn.body:
        out.update(_uses_defs(ins)[0])
    return out


def operation(program, site, kind: str, cache: dict) -> str:
    """'ld', 'st', 'atom' or 'red' as Nsight Compute names it: an atom whose result nobody
    reads is a RED on the hardware (ptxas drops the result), so it counts as one."""
    if kind == "load":
        return "ld"
    if kind == "store":
        return "st"
    ins = site.ins
    if ins.opcode == "red" or not ins.dsts or isinstance(ins.dsts[0], Sink):
        return "red"
    read = cache.get(site.function)
    if read is None:
        read = cache[site.function] = read_registers(program.module.functions[site.function])
    dst = ins.dsts[0]
    return "atom" if getattr(dst, "name", None) in read else "red"


NOT_BRANCH, UNIFORM_BRANCH, CONDITIONAL_BRANCH = 0, 1, 2


class LaunchCounters(LaunchObserver):
    """Observer of one launch (all its batches); calls `on_finished(self)` when it ends."""

    def __init__(self, loaded_module, kernel: str, grid: tuple, block: tuple,
                 shared_bytes: int, dynamic_shared: int, on_finished=None):
        self.loaded_module = loaded_module
        self.program = loaded_module.program
        self.kernel, self.grid, self.block = kernel, grid, block
        self.shared_bytes, self.dynamic_shared = shared_bytes, dynamic_shared
        self.on_finished = on_finished
        n = len(self.program.blocks)
        self.warp_execs = [0] * n           # warp-level executions of each block
        self.thread_execs = [0] * n         # thread-level executions of each block
        self.full_warp_execs = [0] * n      # ... by all 32 lanes
        self.partial_lanes = np.zeros((n, 33), dtype=np.int64)   # other warps by active lane count
        self.divergent = [0] * n            # warps whose lanes split at the block's branch
        self.branch_kind = [None] * n
        self.guard_true: dict = {}          # (block, position) -> threads whose guard held
        self.sites: dict = {}               # (id(ins), space, kind) -> SiteCounts
        self._read_cache: dict = {}         # function -> registers it reads
        self.batches = 0
        self.result = None

    # -------------------------------------------------------- observer interface

    def batch_started(self, ctx):
        ctx.count_predicates = True
        ctx.guard_true = self.guard_true
        self.batches += 1

    def batch_finished(self, ctx):
        ctx.count_predicates = False

    def block_executed(self, ctx, block, idx, warps):
        threads = len(idx)
        if threads == 0:
            return
        gid = block.gid
        n_warps = len(warps)
        self.warp_execs[gid] += n_warps
        self.thread_execs[gid] += threads
        if threads == 32 * n_warps:
            self.full_warp_execs[gid] += n_warps
        else:
            w = idx >> 5
            per_warp = np.bincount(w - w.min())
            self.partial_lanes[gid] += np.bincount(per_warp, minlength=33)[:33]
            self.partial_lanes[gid, 0] = 0
        kind = self.branch_kind[gid]
        if kind is None:
            kind = self.branch_kind[gid] = _branch_kind(block)
        if kind == CONDITIONAL_BRANCH and threads > 1 and threads != n_warps:
            nxt = ctx.pc[idx]
            w = idx >> 5
            split = (nxt[1:] != nxt[:-1]) & (w[1:] == w[:-1])
            if split.any():
                self.divergent[gid] += len(np.unique(w[1:][split]))

    def compiled_rounds(self, ctx, record):
        """The same counts for what the compiled round loop ran (machine/compiled/loop.py)."""
        for gid in record.blocks_run.tolist():
            self.warp_execs[gid] += int(record.warp_count[gid])
            self.thread_execs[gid] += int(record.lane_count[gid])
            self.full_warp_execs[gid] += int(record.full_count[gid])
            self.partial_lanes[gid] += record.partial_lanes[gid]
            kind = self.branch_kind[gid]
            if kind is None:
                kind = self.branch_kind[gid] = _branch_kind(self.program.blocks[gid])
            if kind == CONDITIONAL_BRANCH:
                self.divergent[gid] += int(record.split_count[gid])

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if space == "param":                # constant-bank operands on the hardware, not requests
            return
        key = (id(site.ins), space, kind)
        rec = self.sites.get(key)
        if rec is None:
            op = operation(self.program, site, kind, self._read_cache)
            rec = self.sites[key] = SiteCounts(site.ins, space, kind, op)
        rec.add(space, idx, addrs, size * count)

    def launch_finished(self, result):
        self.result = result
        if self.on_finished is not None:
            self.on_finished(self)

    # -------------------------------------------------------- derived per block

    def lane_histogram(self) -> np.ndarray:
        """hist[k]: warp instructions issued with k active lanes (k = 1..32)."""
        hist = np.zeros(33, dtype=np.int64)
        for block in self.program.blocks:
            gid = block.gid
            if self.warp_execs[gid]:
                per_block = self.partial_lanes[gid].copy()
                per_block[32] += self.full_warp_execs[gid]
                hist += per_block * len(block.instructions)
        return hist

    def instruction_rows(self):
        """Per executed instruction: (block, position, ins, warp insts, thread insts, pred-on threads)."""
        for block in self.program.blocks:
            gid = block.gid
            warps = self.warp_execs[gid]
            if not warps:
                continue
            threads = self.thread_execs[gid]
            for position, ins in enumerate(block.instructions):
                pred_on = self.guard_true.get((gid, position), 0) if ins.guard is not None else threads
                yield block, position, ins, warps, threads, pred_on

    def branch_rows(self):
        """Per executed branch block: (block, last instruction, warp executions, divergent ones)."""
        for block in self.program.blocks:
            gid = block.gid
            if self.warp_execs[gid] and _branch_kind(block) != NOT_BRANCH:
                yield block, block.instructions[-1], self.warp_execs[gid], self.divergent[gid]


def _branch_kind(block) -> int:
    last = block.instructions[-1]
    if last.opcode != "bra":
        return NOT_BRANCH
    return UNIFORM_BRANCH if last.guard is None else CONDITIONAL_BRANCH


# ---------------------------------------------------------------- SASS-level counters

class SassInstructionSite:
    """A SASS instruction as the reports see it: its opcode, and the PTX line and source location
    (`loc`, from the PTX instruction of that line) it is attributed to."""

    __slots__ = ("sass", "opcode", "mods", "line", "loc", "guard")

    def __init__(self, sass_ins, ptx_ins):
        self.sass = sass_ins
        self.opcode, self.mods = sass_ins.opcode, sass_ins.mods
        self.line = sass_ins.ptx_line
        self.loc = getattr(ptx_ins, "loc", None)
        self.guard = sass_ins.guard if sass_ins.is_guarded else None

    def __str__(self) -> str:
        return self.sass.text


def ptx_of_line(program) -> dict:
    """PTX line -> the first PTX instruction of `program`'s module on it, kept per program: a scan of
    every function of the module, which each profiled launch with a GPU paid again (about 1 ms of a
    small launch's timing model)."""
    kept = program.__dict__.get("_ptx_of_line")
    if kept is None:
        kept = {}
        for fn in program.module.functions.values():
            for ins in getattr(fn, "body", ()) or ():
                if getattr(ins, "line", None) is not None:
                    kept.setdefault(ins.line, ins)
        program.__dict__["_ptx_of_line"] = kept
    return kept


class SassLaunchCounters(LaunchObserver):
    """Observer of a launch's SASS run (warpsim.sass.executor), counting as Nsight Compute does on
    an H200 (validation/sass_counters: the rules below are what the hardware showed).

    Per SASS instruction (the source page's counts, `per_instruction()`):
    - warp-level executions: one per warp per instruction its group issued; a divergent
      BRA or BRX counts once per warp; a BSYNC once per group of lanes that arrives at it
      (lanes of a warp that get there at different times are separate executions);
    - thread-level: the lanes of the group, guard-false ones included; pred-on: the lanes
      whose guard held.
    smsp__inst_executed adds, for a BRX whose lanes go to k targets, k - 1 issues (the
    hardware serves one target per issue), and the thread counts the lanes each extra issue
    still carries (the smallest target group served first); the source page does not.
    Branches: one per warp-level BRA/BRX executed (EXIT is not a branch); branch targets
    max(1, k - 1) of them, divergent k - 1. Memory: requests, sectors, wavefronts and bank
    conflicts from the addresses and real widths of LDG/STG/LDS/STS/LDL/STL/ATOM/RED, over
    the lanes whose guard held (128-bit shared accesses in quarter-warp phases, as
    shared_wavefronts does); smsp__inst_executed_op_* counts every warp-level execution of
    the instruction, one whose guard held for no lane included.
    """

    BRANCHES = ("BRA", "BRX", "JMP")

    def __init__(self, loaded_module, kernel: str, grid: tuple, block: tuple, dynamic_shared: int):
        self.loaded_module = loaded_module
        self.program = loaded_module.program
        self.kernel, self.grid, self.block = kernel, grid, block
        self.dynamic_shared = dynamic_shared
        self.blocks: dict = {}            # block index -> [ExecBlock, warps, threads, pred_on list]
        self.branches: dict = {}          # block index -> [executions, targets, divergent]
        self.arrivals: dict = {}          # BSYNC instruction index -> groups of lanes that arrived there
        self.brx_extra: dict = {}         # block index -> [extra issues, their threads]
        self.lanes = np.zeros(33, dtype=np.int64)    # issued block-groups of warps by active lanes
        self._loop_sum = None             # (program, summed RoundRecord arrays) not folded in yet
        self.sites: dict = {}
        self._site_of: dict = {}

    # -------------------------------------------------------- SASS observer interface

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        idx = g.idx
        n = g.n
        warps, _, per_warp = g.warp_runs()
        n_warps = len(warps)
        if n == 32 * n_warps:                       # whole warps: the common case
            self.lanes[32] += n_warps * len(block.steps)
        else:
            self.lanes += np.bincount(per_warp, minlength=33)[:33] * len(block.steps)
        rec = self.blocks.get(block.index)
        if rec is None:
            rec = self.blocks[block.index] = [block, 0, 0, [0] * len(block.steps)]
        rec[1] += n_warps
        rec[2] += n
        counts = rec[3]
        for position, count in enumerate(pred_on):
            counts[position] += n if count is None else count
        departures = Departures(st, g, next_pc)
        control = block.control
        opcode = None if control is None else control.ins.opcode
        # groups arriving at a BSYNC: one per warp per place its lanes go to (a BSYNC there)
        for target, arrived in departures.bsync_arrivals(st.program):
            self.arrivals[target] = self.arrivals.get(target, 0) + len(arrived)
        if opcode not in self.BRANCHES:
            return
        branch = self.branches.get(block.index)
        if branch is None:
            branch = self.branches[block.index] = [0, 0, 0]
        branch[0] += n_warps
        if departures.uniform:
            branch[1] += n_warps
            return
        if opcode != "BRX":         # a BRA goes to its label or falls through: k is 1 or 2 per warp
            branch[1] += n_warps
            branch[2] += departures.split_warps()
            return
        _, k, sizes, first = brx_targets(idx, next_pc)
        branch[1] += int(np.maximum(1, k - 1).sum())
        branch[2] += int((k - 1).sum())
        extra = self.brx_extra.setdefault(block.index, [0, 0])
        extra[0] += int((k - 1).sum())
        for w in np.flatnonzero(k > 1):
            groups = np.sort(sizes[first[w]:first[w] + k[w]])
            served = np.cumsum(groups)[:-1]      # after each issue but the last
            extra[1] += int((groups.sum() - served).sum())

    LOOP_FIELDS = ("warp_count", "lane_count", "partial", "split", "guard_true", "arrivals")

    def sass_compiled_rounds(self, st, record):
        """What sass_block_issued counts, for the rounds the compiled loop ran (sass/compiled/round_loop.py:
        its blocks are value instructions, BSSY, BSYNC, a BRA to one label or an EXIT): the records of a
        launch's calls are summed, and folded into the per-block counts once, when they are read."""
        if self._loop_sum is None:
            self._loop_sum = (st.program, [getattr(record, name).copy() for name in self.LOOP_FIELDS])
            return
        for total, name in zip(self._loop_sum[1], self.LOOP_FIELDS):
            total += getattr(record, name)

    def _fold_loop_sum(self) -> None:
        if self._loop_sum is None:
            return
        program, (warp_count, lane_count, partial, split, guard_true, arrivals) = self._loop_sum
        self._loop_sum = None
        blocks = program.blocks
        for index in np.flatnonzero(warp_count).tolist():
            block = blocks[index]
            warps, threads = int(warp_count[index]), int(lane_count[index])
            self.lanes += partial[index] * len(block.steps)
            rec = self.blocks.get(index)
            if rec is None:
                rec = self.blocks[index] = [block, 0, 0, [0] * len(block.steps)]
            rec[1] += warps
            rec[2] += threads
            counts = rec[3]
            for position, guard in enumerate(block.guards):
                counts[position] += threads if guard is None else int(guard_true[block.start + position])
            control = block.control
            if control is not None and control.ins.opcode in self.BRANCHES:
                branch = self.branches.get(index)
                if branch is None:
                    branch = self.branches[index] = [0, 0, 0]
                branch[0] += warps
                branch[1] += warps
                branch[2] += int(split[index])
        for target in np.flatnonzero(arrivals).tolist():
            self.arrivals[target] = self.arrivals.get(target, 0) + int(arrivals[target])

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size):
        if ins.opcode in TMA_UNIT:
            return
        key = (id(ins), space, kind)
        rec = self.sites.get(key)
        if rec is None:
            rec = self.sites[key] = SiteCounts(self.site(ins), space, kind, kind)
        rec.add(space, idx, addrs, size)

    # -------------------------------------------------------- what the reports read

    def site(self, sass_ins) -> SassInstructionSite:
        found = self._site_of.get(id(sass_ins))
        if found is None:
            found = self._site_of[id(sass_ins)] = SassInstructionSite(
                sass_ins, ptx_of_line(self.program).get(sass_ins.ptx_line))
        return found

    def _rows(self, extra: bool):
        self._fold_loop_sum()
        for index in sorted(self.blocks):
            block, warps, threads, pred_on = self.blocks[index]
            if block.steps[0].ins.opcode == "BSYNC" and len(block.steps) == 1:
                warps = self.arrivals.get(block.start, warps)
            for position, step in enumerate(block.steps):
                w, t, p = warps, threads, pred_on[position]
                if extra and position == len(block.steps) - 1 and index in self.brx_extra:
                    issues, lanes = self.brx_extra[index]
                    w, t, p = w + issues, t + lanes, p + lanes
                yield block, position, self.site(step.ins), w, t, p

    def instruction_rows(self):
        """Per executed SASS instruction, as smsp__inst_executed counts (a divergent BRX's extra
        issues included): (block, position, site, warp insts, thread insts, pred-on threads)."""
        return self._rows(extra=True)

    def per_instruction(self) -> dict:
        """SASS offset -> (warp-level executions, thread-level, pred-on threads), as the source
        page of Nsight Compute counts them (smsp__sass_inst_executed: no extra BRX issues)."""
        return {site.sass.offset: (w, t, p) for _, _, site, w, t, p in self._rows(extra=False)}

    def branch_rows(self):
        self._fold_loop_sum()
        for index in sorted(self.branches):
            block = self.blocks[index][0]
            executions, _, divergent = self.branches[index]
            yield block, self.site(block.steps[-1].ins), executions, divergent

    def metric_values(self) -> dict:
        """Metrics whose SASS-level rule differs from the PTX-level formula (warpsim.metrics.names):
        branch targets (a BRX to k targets counts max(1, k - 1)), and the instruction classes,
        which count every warp-level execution (requests count only those with a guard-true lane)."""
        self._fold_loop_sum()
        targets = sum(b[1] for b in self.branches.values())
        divergent = sum(b[2] for b in self.branches.values())
        out = {"smsp__sass_branch_targets.sum": targets,
               "smsp__sass_branch_targets_threads_divergent.sum": divergent,
               "smsp__sass_branch_targets_threads_uniform.sum": targets - divergent,
               "smsp__sass_average_branch_targets_threads_uniform.pct":
                   100.0 * (targets - divergent) / targets if targets else 0.0}
        classes = {("LDG", "global_ld"), ("STG", "global_st"), ("LDS", "shared_ld"), ("STS", "shared_st")}
        totals = dict.fromkeys((name for _, name in classes), 0)
        opcode_class = dict(classes)
        for _, _, site, warps, _, _ in self._rows(extra=False):
            name = opcode_class.get(site.opcode)
            if name is not None:
                totals[name] += warps
        for name, value in totals.items():
            out[f"smsp__inst_executed_op_{name}.sum"] = value
        return out

    def lane_histogram(self) -> np.ndarray:
        self._fold_loop_sum()
        hist = self.lanes.copy()
        hist[0] = 0
        return hist

    def counts_by_offset(self) -> dict:
        """SASS instruction offset -> warp-level executions (for format_listing's counts column)."""
        return {offset: counts[0] for offset, counts in self.per_instruction().items()}
