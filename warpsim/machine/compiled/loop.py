"""The scheduling round in machine code: select, run and meet for many rounds per call.

Once blocks are compiled, what is left in Python is the round itself: one
select, one call per block, the guard checks, about 20 us a round however few
lanes run. For the models that keep no stack (its, lowest-pc) this module
puts every block the compiled tier covers into one Numba function of the
program, `run_rounds`, that loops over rounds: per warp the model's choice
(rounds.py's choose, with the same starved/rotating/last_pc state), the
chosen block's lanes (an if-chain on the block id around each block's body
from block.py), and the warp's next choice. A converged warp thus runs block
after block, one per round, inside one call.

It stops, handing the round back to the engine, when
  - a warp chooses a block it does not cover (a store, barrier, exit, a
    .sync block of a warp that is not whole...):
    the loop runs the round's covered blocks that come before it (in the
    engine's ascending block order) and hands back the rest (PENDING);
  - no lane can run (IDLE): the engine's meet phase takes over;
  - a lane's ld.global address is bad (FAULT): the lane has changed nothing
    yet, and the engine runs the rest of the round on the NumPy tier, which
    reports the fault as it always does;
  - it has run `limit` rounds: the engine's guard (round and instruction
    budgets, the watchdog, the livelock watch's rounds) runs between calls,
    so rounds, budgets and errors are those of the round-by-round engine.
Covered blocks only read registers, global memory, kernel parameters and
thread coordinates, and write registers and pc, never memory, status or
barriers, so running each warp's chosen block in warp order instead of block
order changes nothing, and the meet phase has nothing to release in the
rounds it skips. A shfl.sync block reads the registers of its own warp's
lanes only; the loop runs it for a warp whose 32 lanes are all running, all
at the block and all name every lane in their member mask (the engine's
meeting would let that group go as it is, with nothing to report), and hands
any other warp at it back to the engine, like a block it does not cover. What the profiler counts per block execution (lanes, full
and partial warps, divergence, guards, and every issue of the activity
trace's warps) the loop counts too and hands to the observers'
compiled_rounds (LoopRecord); observers without one keep the rounds in
Python, while memory is watched blocks with global loads stay out, and
while warp meetings are watched (warp_sync_met) .sync blocks do.
"""

from __future__ import annotations

import numpy as np

from ...semantics.clock import clock_per_cycle
from .block import BlockSource, compile_seconds, compile_source, compile_time_excluded, is_cached_on_disk
from .shared_log import record_for, shared_rows
from .rounds import NO_PC, group_by_block

STOPPED, IDLE, PENDING, FAULT = 0, 1, 2, 3
MAX_LOOP_BLOCKS = 64        # covered blocks one loop function takes (compile time grows with it)

LOOP_HEADER = """\
from warpsim.machine.compiled.rounds import NO_PC, choose, scan_warp

FAULT = {FAULT}


@njit(cache=True, nogil=True)
def run_rounds(pc, status, starved, rotating, last_pc, patience, independent, enabled, n_ins,
               limit, max_issued, warp_count, lane_count, warp_pc, mem32, mem64, starts, ends,
               heap_bytes, fault, ran, param32, param64, tid, ctaid, dims, full_count, partial_lanes,
               split_count, guard_counts, log_row, log_gid, log_lanes, log_len, warp_issued, block_cycles,
               clock_base, clock_scale, round_out{arrays}):
    n_warps = pc.shape[0] // 32
    allocation_start = np.uint64(1)     # the allocation of the last load: none yet
    allocation_end = np.uint64(0)
    warp_values = np.empty(32, dtype=np.uint32)    # a shfl's source values, copied before any lane writes
    lowest = np.empty(n_warps, dtype=np.int64)
    divergent = np.zeros(n_warps, dtype=np.bool_)
    for w in range(n_warps):
        lowest[w], divergent[w] = scan_warp(pc, status, w * 32)
    rounds = 0
    issued = 0
    clocked = 0.0                       # the issue cycles of those issues (engine.block_cycles)
    while True:
        round_out[0] = clocked          # the round's clock: the issues before it (machine/isa/moves.py)
        round_clock = np.uint64((clock_base + clocked) * clock_scale)
        running = False
        for w in range(n_warps):
            if lowest[w] != NO_PC:
                running = True
                break
        if not running:
            return rounds, issued, clocked, {IDLE}
        first_uncovered = NO_PC
        for w in range(n_warps):
            gid = choose(w, lowest[w], divergent[w], pc, status, starved, rotating, last_pc,
                         patience, independent)
            warp_pc[w] = gid
            ran[w] = False
            if gid != NO_PC and gid < first_uncovered:
                if not enabled[gid]:
                    first_uncovered = gid
{full_warp_checks}        for w in range(n_warps):
            gid = warp_pc[w]
            if gid >= first_uncovered:      # NO_PC, or after a block the engine runs first
                continue
            base = w * 32
            lanes = 0
            low = NO_PC
            high = -1
            split = False
{dispatch}
            warp_count[gid] += 1
            lane_count[gid] += lanes
            issued += n_ins[gid]
            clocked += block_cycles[gid]
            warp_issued[w] += n_ins[gid]
            if lanes == 32:                 # what the profiler counts (metrics/counters.py)
                full_count[gid] += 1
            else:
                partial_lanes[gid, lanes] += 1
            split_count[gid] += split
            row = log_row[w]
            if row >= 0:                    # the activity trace's warps: every issue, in order
                log_gid[row, log_len[row]] = gid
                log_lanes[row, log_len[row]] = lanes
                log_len[row] += 1
            lowest[w] = low                 # the warp's next choice, as scan_warp finds it
            divergent[w] = low != NO_PC and high != low
            ran[w] = True
        if first_uncovered != NO_PC:
            return rounds, issued, clocked, {PENDING}
        rounds += 1
        if rounds >= limit or issued > max_issued:
            return rounds, issued, clocked, {STOPPED}
"""


class RoundLoop:
    """A program's compiled round loop, or why it has none (`why`)."""

    def __init__(self, program):
        self.program = program
        self.arrays: list[tuple] = []
        self.gids: list[int] = []
        self.guard_keys: list[tuple] = []       # (block, position) of each guard counted
        self.loads_global: set[int] = set()     # blocks with ld.global (not run while memory is watched)
        self.warp_sync: set[int] = set()        # .sync blocks (not run while an observer watches meetings)
        branches, full_warp_checks = [], []
        for pblock in program.blocks:
            first_guard = len(self.guard_keys)
            source = BlockSource(program, pblock, arrays=self.arrays, prefix=str(pblock.gid),
                                 guard_base=first_guard, count_guards="local", loop=True)
            if source.source is None:
                continue
            if len(self.gids) == MAX_LOOP_BLOCKS:
                break
            gid = pblock.gid
            self.gids.append(gid)
            self.guard_keys += [(gid, p) for p in source.guarded_positions]
            if any(ins.opcode == "ld" and "global" in ins.flags for ins in pblock.instructions):
                self.loads_global.add(gid)
            guards = range(first_guard, len(self.guard_keys))
            split = self.branch_split(pblock, source, guards)
            body = "".join(f"{' ' * 28}{line}\n" for line in source.body)
            if source.full_warp is not None:
                self.warp_sync.add(gid)
                full_warp_checks.append(f"{' ' * 16}elif gid == {gid}:\n"
                                        f"{' ' * 20}for s in range(w * 32, w * 32 + 32):\n"
                                        f"{' ' * 24}if not ({source.full_warp}):\n"
                                        f"{' ' * 28}first_uncovered = gid\n"
                                        f"{' ' * 28}break\n")
            branches.append(f"{' ' * 12}{'if' if not branches else 'elif'} gid == {gid}:\n"
                            + "".join(f"{' ' * 16}guards_{k} = 0\n" for k in guards)
                            + "".join(f"{' ' * 16}{line}\n" for line in source.prologue) +
                            f"{' ' * 16}for lane in range(32):\n"
                            f"{' ' * 20}i = base + lane\n"
                            f"{' ' * 20}if status[i] == 0:\n"
                            f"{' ' * 24}if pc[i] == {gid}:\n"
                            f"{' ' * 28}lanes += 1\n" + body +
                            f"{' ' * 24}p = pc[i]\n"
                            f"{' ' * 24}low = min(low, p)\n"
                            f"{' ' * 24}high = max(high, p)\n"
                            + "".join(f"{' ' * 16}guard_counts[{k}] += guards_{k}\n" for k in guards)
                            + (f"{' ' * 16}split = {split}\n" if split else ""))
        n = len(program.blocks)
        self.enabled = np.zeros(n, dtype=np.bool_)
        self.enabled[self.gids] = True
        self.n_ins = np.array([len(b.instructions) for b in program.blocks], dtype=np.int64)
        self.why = None if self.gids else "no block of the program is covered by the compiled tier"
        self.source = None
        if self.gids:
            arrays = "".join(f", R{k}" for k in range(len(self.arrays)))
            self.source = LOOP_HEADER.format(arrays=arrays, dispatch="".join(branches),
                                             full_warp_checks="".join(full_warp_checks),
                                             IDLE=IDLE, PENDING=PENDING, STOPPED=STOPPED, FAULT=FAULT)
        self.cached = self.source is not None and is_cached_on_disk(self.source)
        self.compile_cost = compile_seconds(self.source) if self.source is not None else 0.0
        self.dispatcher = None
        self.failed: str | None = None
        self.lanes_by_block: dict[int, int] = {}    # block id -> threads the loop ran it for

    def ready(self, compile_now: bool) -> bool:
        """Whether the machine code is loaded (compiling or loading it when compile_now or cached)."""
        if self.dispatcher is None and self.source is not None and self.failed is None \
                and (compile_now or self.cached):
            try:
                self.dispatcher, _ = compile_source(self.source, "run_rounds")
            except Exception as exc:            # a Numba failure keeps the rounds in Python
                self.failed = f"{type(exc).__name__}: {exc}"
        return self.dispatcher is not None

    def branch_split(self, pblock, source, guards) -> str | None:
        """Whether a warp's lanes left the block for different blocks: for a closing guarded
        bra, some but not all of them took it (its guard count says how many did)."""
        last = pblock.instructions[-1]
        if last.opcode != "bra" or last.guard is None or not guards \
                or source.guarded_positions[-1] != len(pblock.instructions) - 1:
            return None
        if self.program.label_gid(pblock.function, last.srcs[0].name) == pblock.next_gid:
            return None
        return f"0 < guards_{guards[-1]} < lanes"

    def run(self, ctx, patience: int, independent: bool, limit: int, asked=None):
        """Run up to `limit` rounds; the groups of a round it did not finish, else None.

        What the profiler counts per block (LoopRecord) goes to the block observers'
        `compiled_rounds`; asked (id(observer) -> batch warp -> row) names the warps whose every
        issue an observer wants logged, in order (the activity trace's, the timing recorder's)."""
        asked = asked or {}
        logged = shared_rows(list(asked.values()), ctx.n_warps)
        n_blocks = len(self.n_ins)
        record = LoopRecord(self, n_blocks, ctx.n_warps, logged, limit)
        warp_pc = np.empty(ctx.n_warps, dtype=np.int64)
        fault = np.zeros(1, dtype=np.int64)
        ran = np.zeros(ctx.n_warps, dtype=np.bool_)
        arrays = [ctx.reg(key, bits) for key, bits in self.arrays]
        heap = ctx.memory.buffer
        starts, ends = ctx.memory._index()       # live allocations, as GlobalMemory.check reads them
        enabled = self.enabled
        if ctx.memory_observers and self.loads_global:      # their loads must be reported
            enabled = enabled.copy()
            enabled[list(self.loads_global)] = False
        if ctx.warp_sync_observers and self.warp_sync:      # and their meetings
            enabled = enabled.copy()
            enabled[list(self.warp_sync)] = False
        round_out = np.zeros(1, dtype=np.float64)      # the issue cycles before the last round
        with compile_time_excluded(ctx, self.dispatcher):
            rounds, issued, clocked, outcome = self.dispatcher(
                ctx.pc, ctx.status, ctx.starved, ctx.rotating, ctx.last_pc, patience, independent,
                enabled, self.n_ins, limit, ctx.settings.max_instructions - ctx.issued,
                record.warp_count, record.lane_count, warp_pc, heap.view(np.uint32),
                heap.view(np.uint64), starts, ends, np.uint64(len(heap)), fault, ran,
                ctx.params.view(np.uint32), ctx.params.view(np.uint64), ctx.tid, ctx.ctaid,
                np.array([*ctx.block, *ctx.grid], dtype=np.uint32), record.full_count,
                record.partial_lanes, record.split_count, record.guard_counts, record.log_row,
                record.log_gid, record.log_lanes, record.log_len, record.warp_issued, ctx.block_cycles,
                float(ctx.clocked), clock_per_cycle(ctx.n_warps, ctx.grid, ctx.block), round_out, *arrays)
        ctx.round_clocked = ctx.clocked + float(round_out[0])     # (the engine runs the rest of that round)
        ctx.clocked += float(clocked)
        ctx.rounds += int(rounds)
        ctx.issued += int(issued)
        blocks_run = np.flatnonzero(record.lane_count)
        if len(blocks_run):
            ctx.thread_instructions += int(record.lane_count[blocks_run] @ self.n_ins[blocks_run])
            for gid in blocks_run:
                self.lanes_by_block[int(gid)] = self.lanes_by_block.get(int(gid), 0) + int(record.lane_count[gid])
            if ctx.count_predicates:
                for key, count in zip(self.guard_keys, record.guard_counts.tolist()):
                    if count:
                        ctx.guard_true[key] = ctx.guard_true.get(key, 0) + count
            record.blocks_run = blocks_run
            for obs in ctx.block_observers:
                obs.compiled_rounds(ctx, record_for(record, asked.get(id(obs)), LoopRecord.LOG))
        if outcome == FAULT:
            return self.rest_of_round(ctx, warp_pc, ran, int(fault[0]))
        if outcome == PENDING:
            return self.rest_of_round(ctx, warp_pc, ran, 0)
        return None

    @staticmethod
    def rest_of_round(ctx, warp_pc, ran, first_slot: int) -> list:
        """The groups of the round the loop did not run, in the engine's order: warps whose
        block it does not cover or comes after one it does not cover (which may write what
        they read), and after a bad load the lanes from the faulting one on (the NumPy tier
        then reports the fault as it always does)."""
        blocks, lanes, lane_bounds, warps, warp_bounds = group_by_block(ctx.pc, ctx.status, warp_pc,
                                                                        ran, first_slot)
        return [(int(blocks[g]), lanes[lane_bounds[g]:lane_bounds[g + 1]],
                 warps[warp_bounds[g]:warp_bounds[g + 1]]) for g in range(len(blocks))]


class LoopRecord:
    """What one call of the loop ran, per block, as the profiler's observers count it.

    warp_count, lane_count: warp and thread executions; full_count: executions by all 32
    lanes, partial_lanes[block, k]: by k < 32 lanes; split_count: warp executions whose lanes
    left the block for different blocks; guard_counts: threads whose guard held, by
    loop.guard_keys; warp_issued: each batch warp's warp instructions. For the warps `log_row`
    names (-1: none), log_gid/log_lanes[row, :log_len] are every block they issued, in order, and
    its active lanes. Several observers' logged warps share one log (shared_log.py)."""

    LOG = ("log_gid", "log_lanes", "log_len")      # the arrays with a row a logged warp

    def __init__(self, loop, n_blocks: int, n_warps: int, logged, limit: int):
        self.loop = loop
        self.warp_count = np.zeros(n_blocks, dtype=np.int64)
        self.lane_count = np.zeros(n_blocks, dtype=np.int64)
        self.full_count = np.zeros(n_blocks, dtype=np.int64)
        self.partial_lanes = np.zeros((n_blocks, 33), dtype=np.int64)
        self.split_count = np.zeros(n_blocks, dtype=np.int64)
        self.guard_counts = np.zeros(max(1, len(loop.guard_keys)), dtype=np.int64)
        self.warp_issued = np.zeros(n_warps, dtype=np.int64)
        if logged is None or not (logged >= 0).any():
            self.log_row = np.full(n_warps, -1, dtype=np.int64)
            rows = 1
        else:
            self.log_row = np.asarray(logged, dtype=np.int64)
            rows = int(self.log_row.max()) + 1
        columns = limit + 1 if rows > 1 or (self.log_row >= 0).any() else 1
        self.log_gid = np.zeros((rows, columns), dtype=np.int64)
        self.log_lanes = np.zeros((rows, columns), dtype=np.int64)
        self.log_len = np.zeros(rows, dtype=np.int64)
        self.blocks_run = np.zeros(0, dtype=np.int64)


def round_loop(program) -> RoundLoop:
    loop = program.__dict__.get("_round_loop")
    if loop is None:
        loop = program.__dict__["_round_loop"] = RoundLoop(program)
    return loop
