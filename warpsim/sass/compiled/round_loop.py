"""Rounds of the SASS run in one machine-code call, while every group stands at a covered block.

Per round the engine calls the select (rounds.select_groups), then, per group,
execute_block (the segments on a tile, the branch pass) and every block observer:
a few hundred microseconds of Python a round however few lanes run. Where every
group of a round stands at a block loop_table.py covers (value instructions on a
tile, BSSY, BSYNC, a BRA to one label or an EXIT), `run_rounds` runs the round
itself, the same select, the same tile code, the same branch, and goes on to the
next round, as the PTX machine's compiled tier does (machine/compiled/loop.py).
It stops, handing the round back to the engine, when

  - a group stands at a block it does not cover (PENDING): the round is selected,
    its starvation, rotation and last PCs written, the groups before that one run
    (they touch no memory, so the clock an uncovered block reads is the engine's),
    and the engine runs the rest (Select.groups reads them from the select's buffers);
  - a live lane waits at a WARPSYNC, BAR or polled wait (NUMPY): nothing changed,
    the engine's NumPy phases take the round;
  - no lane lives (DONE), none can issue (DEADLOCK), or it ran `limit` rounds
    (STOPPED: the engine's round budget is checked between calls).

Covered blocks touch no memory and no other warp, so a round runs as the engine
runs it: the groups in PC order, each its items in order. What the observers
count per issued block (counters, activity trace, the alone run's watch) the loop
counts into a RoundRecord, handed to each block observer's sass_compiled_rounds
once a call; the loop runs only where every block observer has one. The warps
observers ask to have logged (the activity trace's first warps, the timing
model's sampled CTAs) share one log, each observer reading its own rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...machine.events import LaunchObserver
from ..executor.program import WAIT_BSYNC
from .fused import nothing, run_fused
from .loop_table import loop_table, CTL_FALL, CTL_GUARDED, ITEM_BSSY, ITEM_SEGMENT, SEG_C, SEG_C_END, SEG_CODE, \
    SEG_CODE_END, SEG_F, SEG_F_END, SEG_FIRST, SEG_NUMBER, SEG_P, SEG_P_END, SEG_R, SEG_R_END
from ...machine.compiled.borrowed import borrowed
from ...machine.compiled.shared_log import record_for, shared_rows
from .machine_code import forget_if_stale
from .places import UNKNOWN, move_lanes
from .resumes import note_split, open_splits
from .rounds import select_groups
from .segment import machine_code_allowed, segment_buffers
from .tiled import TILE_CHUNK, run_tiled

DONE, NUMPY, PENDING, DEADLOCK, STOPPED = 0, 1, 2, 3, 4
LOOP_ROUNDS = 256       # rounds one call may run (the activity trace's log holds as many issues per warp)


@njit(cache=True, nogil=True)
def run_rounds(limit, pc, wait_kind, bsync_barrier, B, starved, rotating, last_pc, yields, patience, exited,
               chosen, group_pc, bounds, picked, warp_pc, first_chosen, run_warp, run_start, run_lanes, group_runs,
               chosen_u, picked_u, block_at_pc, item_start, items, control, issue_cycles, fused, segment, code, local,
               r_rows, r_uniform, r_read, r_written, p_rows, p_uniform, p_read, p_written, constants, fixed,
               R, P, UR, UP, values, exclusive, tile, tile_p, on, T, TB, O, OB,
               warp_count, lane_count, partial, split, resumed, opened, open_count, guard_true, arrivals, is_bsync,
               n_steps, warp_issued,
               log_row, log_block, log_lanes, log_len, log_arrival, arrival_len, place_pc, place_mask, n_places,
               out):
    """Runs rounds (see the module docstring); returns the status. out gets [rounds run, the issue
    cycles of the blocks they ran (st.clock's step), groups of the last round selected, live lanes, groups of
    it the loop ran]. A segment runs as the program's generated code (fused.py's function `fused`) where that
    covers it, else on the tile. The arrays it slices or takes rows of are borrowed (borrowed.py)."""
    code, local, segment, items, control = borrowed(code), borrowed(local), borrowed(segment), borrowed(items), \
        borrowed(control)
    picked, chosen, picked_u, chosen_u, guard_true = borrowed(picked), borrowed(chosen), borrowed(picked_u), \
        borrowed(chosen_u), borrowed(guard_true)
    r_rows, r_uniform, r_read, r_written = borrowed(r_rows), borrowed(r_uniform), borrowed(r_read), borrowed(r_written)
    p_rows, p_uniform, p_read, p_written = borrowed(p_rows), borrowed(p_uniform), borrowed(p_read), borrowed(p_written)
    constants, fixed, P, UP, place_pc, place_mask = borrowed(constants), borrowed(fixed), borrowed(P), borrowed(UP), \
        borrowed(place_pc), borrowed(place_mask)
    for w in range(n_places.shape[0]):                      # the engine may have moved lanes since the last call
        n_places[w] = UNKNOWN
    rounds = 0
    clock = 0
    status = STOPPED
    groups = 0
    live = 0
    while rounds < limit:
        groups, live = select_groups(pc, wait_kind, bsync_barrier, B, starved, rotating, last_pc, yields, patience,
                                     exited, chosen, group_pc, bounds, picked, warp_pc, first_chosen, run_warp,
                                     run_start, run_lanes, group_runs, place_pc, place_mask, n_places)
        if groups < 0:
            status = NUMPY
            break
        if live == 0:
            status = DONE
            break
        if groups == 0:
            status = DEADLOCK
            break
        covered = 0                                         # the groups before the first it does not cover
        while covered < groups and block_at_pc[group_pc[covered]] >= 0:
            covered += 1
        lanes = picked if groups == 1 else chosen           # one group is not copied (rounds._group_by_pc)
        lanes_u = picked_u if groups == 1 else chosen_u
        for g in range(covered):
            b = block_at_pc[group_pc[g]]
            lo, hi = bounds[g], bounds[g + 1]
            first_run, last_run = group_runs[g], group_runs[g + 1]
            for item in range(item_start[b], item_start[b + 1]):
                kind, arg = items[item, 0], items[item, 1]
                if kind == ITEM_SEGMENT:
                    s = segment[arg]
                    c0, c1, r0, r1, p0, p1 = s[SEG_CODE], s[SEG_CODE_END], s[SEG_R], s[SEG_R_END], s[SEG_P], s[SEG_P_END]
                    if run_fused(fused, s[SEG_NUMBER], R, P, UR, UP, values, lanes_u[lo:hi],
                                 guard_true[s[SEG_FIRST]:s[SEG_FIRST] + c1 - c0]):
                        continue
                    run_tiled(code[c0:c1], local[c0:c1], R, P, UR, UP, values, lanes_u[lo:hi],
                              guard_true[s[SEG_FIRST]:s[SEG_FIRST] + c1 - c0], r_rows[r0:r1], r_uniform[r0:r1],
                              r_read[r0:r1], r_written[r0:r1], p_rows[p0:p1], p_uniform[p0:p1], p_read[p0:p1],
                              p_written[p0:p1], constants[s[SEG_C]:s[SEG_C_END]], fixed[s[SEG_F]:s[SEG_F_END]],
                              tile, tile_p, on, T, TB, O, OB)
                elif kind == ITEM_BSSY:                     # the warp's issuing lanes are Bk's members
                    for r in range(first_run, last_run):
                        w = run_warp[r]
                        for k in range(32):
                            B[arg, w * 32 + k] = False
                    for j in range(lo, hi):
                        B[arg, lanes[j]] = True
                else:                                       # BSYNC: the end of a WARPSYNC.EXCLUSIVE region
                    for j in range(lo, hi):
                        exclusive[lanes[j]] = 0
            ctl = control[b]
            kind, jump, fall = ctl[0], ctl[1], ctl[2]
            guard = P[ctl[4]] if ctl[3] == 0 else UP[ctl[4]]
            invert = ctl[5] != 0
            taken = 0
            for r in range(first_run, last_run):
                w = run_warp[r]
                start, n = run_start[r], run_lanes[r]
                jumped = 0
                moved = 0                                   # the lanes' bits, and those that jumped
                jump_bits = 0
                if kind == CTL_GUARDED:
                    for j in range(start, start + n):
                        lane = lanes[j]
                        holds = guard[lane] != invert
                        jumped += holds
                        pc[lane] = jump if holds else fall
                        bit = np.int64(1) << (lane & 31)
                        moved |= bit
                        jump_bits |= bit if holds else 0
                else:
                    target = fall if kind == CTL_FALL else jump
                    jumped = 0 if kind == CTL_FALL else n
                    for j in range(start, start + n):
                        pc[lanes[j]] = target
                        moved |= np.int64(1) << (lanes[j] & 31)
                    jump_bits = 0 if kind == CTL_FALL else moved
                if n_places[w] >= 0:
                    n_places[w] = move_lanes(place_pc[w], place_mask[w], n_places[w], moved, group_pc[g],
                                             jump_bits, jump, moved & ~jump_bits, fall)
                taken += jumped
                to_jump, to_fall = jumped > 0, jumped < n
                row = log_row[w]
                if to_jump and jump >= 0 and is_bsync[jump]:     # a group of lanes arrives at a BSYNC
                    arrivals[jump] += 1
                    if row >= 0:
                        log_arrival[row, arrival_len[row]] = jump
                        arrival_len[row] += 1
                if to_fall and (fall != jump or not to_jump) and is_bsync[fall]:
                    arrivals[fall] += 1
                    if row >= 0:
                        log_arrival[row, arrival_len[row]] = fall
                        arrival_len[row] += 1
                if to_jump and to_fall and jump != fall:
                    split[b] += 1
                    resumed[b] += note_split(opened, open_count, w, moved, jump_bits)
                partial[b, n] += 1
                warp_issued[w] += n_steps[b]
                if row >= 0:                                # the logged warps: every issue, in order
                    log_block[row, log_len[row]] = b
                    log_lanes[row, log_len[row]] = n
                    log_len[row] += 1
            if kind == CTL_GUARDED:
                guard_true[ctl[6]] += taken
            warp_count[b] += last_run - first_run
            lane_count[b] += hi - lo
            clock += issue_cycles[b]
        if covered < groups:                                # the engine runs the rest of the round
            status = PENDING
            break
        rounds += 1
    out[0] = rounds
    out[1] = clock
    out[2] = groups
    out[3] = live
    out[4] = covered
    return status


forget_if_stale(run_rounds)


class RoundRecord:
    """What one call of the loop issued, per block of the program, as the block observers count it.

    warp_count, lane_count: warp and thread executions; partial[block, k]: warp executions by k
    lanes; split: executions of a warp whose lanes went both to the branch's label and on; resumed:
    those splits that make the warp resume a kept half slowly (resumes.note_split);
    guard_true[instruction]: lanes whose guard held (the segments' and the branch's, where
    guarded); arrivals[instruction]: groups of lanes (one per warp) that arrived at that BSYNC.
    warp_issued[warp]: the instructions each batch warp issued. For the warps log_row names (-1:
    none), log_block/log_lanes[row, :log_len[row]] are every block they issued, in order, and its
    active lanes, and log_arrival[row, :arrival_len[row]] the BSYNCs they arrived at. blocks_run:
    the blocks issued. Several observers' logged warps share one log (machine/compiled/shared_log.py)."""

    LOG = ("log_block", "log_lanes", "log_len", "log_arrival", "arrival_len")     # the arrays with a row a warp

    def __init__(self, table, n_warps: int, logged, limit: int):
        n_blocks, n_pcs = len(table.n_steps), len(table.block_at_pc)
        self.table = table
        self.n_steps, self.block_start = table.n_steps, table.block_start
        self.warp_count = np.zeros(n_blocks, dtype=np.int64)
        self.lane_count = np.zeros(n_blocks, dtype=np.int64)
        self.partial = np.zeros((n_blocks, 33), dtype=np.int64)
        self.split = np.zeros(n_blocks, dtype=np.int64)
        self.resumed = np.zeros(n_blocks, dtype=np.int64)
        self.guard_true = np.zeros(n_pcs, dtype=np.int64)
        self.arrivals = np.zeros(n_pcs, dtype=np.int64)
        self.warp_issued = np.zeros(n_warps, dtype=np.int64)
        if logged is None or not (logged >= 0).any():
            self.log_row = np.full(n_warps, -1, dtype=np.int64)
            rows, columns = 1, 1
        else:
            self.log_row = np.asarray(logged, dtype=np.int64)
            rows, columns = int(self.log_row.max()) + 1, limit
        self.log_block = np.empty((rows, columns), dtype=np.int32)
        self.log_lanes = np.empty((rows, columns), dtype=np.int32)
        self.log_len = np.zeros(rows, dtype=np.int64)
        self.log_arrival = np.empty((rows, 2 * columns), dtype=np.int64)    # (a jump and a fall an issue)
        self.arrival_len = np.zeros(rows, dtype=np.int64)
        self.blocks_run = np.zeros(0, dtype=np.int64)


class RoundLoop:
    """run_rounds for one batch: the program's table and the batch's buffers."""

    def __init__(self, st, table):
        self.table = table
        self.control = np.concatenate((table.control, (table.block_start + table.n_steps - 1)[:, None]), axis=1)
        self.is_bsync = np.append(st.program.wait_kind[:-1] == WAIT_BSYNC, False)     # as issues.bsync_starts
        self.logging = [o for o in st.block_observers if _overrides(o, "sass_logged_warps")]
        self.n_steps = table.n_steps
        buffers = st.select.buffers
        self.views = (buffers[0].view(np.uint64), buffers[3].view(np.uint64))
        self.tile = np.empty((table.tile_rows, TILE_CHUNK), dtype=np.uint64)
        self.tile_p = np.empty((table.tile_p_rows, TILE_CHUNK), dtype=np.bool_)

    def run(self, st, patience: int, limit: int) -> tuple:
        """Up to `limit` rounds; (status, (groups of the last round selected, those of them it ran), live
        lanes). The observers get the record of what ran; st.rounds and st.clock count the rounds run."""
        t, select = self.table, st.select
        asked = {id(o): o.sass_logged_warps(st) for o in self.logging}
        logged = shared_rows(list(asked.values()), st.n_warps)
        limit = min(limit, LOOP_ROUNDS)
        record = RoundRecord(t, st.n_warps, logged, limit)
        out = np.zeros(5, dtype=np.int64)
        values, _, _, on, T, TB, O, OB = segment_buffers(st, t.specs)
        status = run_rounds(limit, st.pc, st.program.wait_kind, select.bsync_barrier, st.B, st.starved, st.rotating,
                            st.last_pc, st.program.yields, patience, select.exited, *select.buffers, *self.views,
                            t.block_at_pc, t.item_start, t.items, self.control, t.issue_cycles,
                            st.fused if st.fused is not None else nothing(), t.segment, t.code, t.local,
                            t.r_rows, t.r_uniform, t.r_read, t.r_written, t.p_rows, t.p_uniform, t.p_read, t.p_written,
                            t.constants, t.fixed, st.R, st.P, st.UR, st.UP, values, st.exclusive, self.tile,
                            self.tile_p, on, T, TB, O, OB, record.warp_count, record.lane_count, record.partial,
                            record.split, record.resumed, *open_splits(st), record.guard_true, record.arrivals,
                            self.is_bsync, self.n_steps, record.warp_issued, record.log_row, record.log_block,
                            record.log_lanes, record.log_len, record.log_arrival, record.arrival_len, *select.places,
                            out)
        rounds, clock, groups, live, ran = (int(v) for v in out)
        st.rounds += rounds
        st.clock += clock
        if clock:
            record.blocks_run = np.flatnonzero(record.warp_count)
            for observer in st.block_observers:
                observer.sass_compiled_rounds(st, record_for(record, asked.get(id(observer)), RoundRecord.LOG))
        return int(status), (groups, ran), live


def _overrides(observer, event: str) -> bool:
    return getattr(type(observer), event, None) is not getattr(LaunchObserver, event)


def loop_allowed(st) -> bool:
    """Whether every block observer of the batch takes the loop's record (sass_compiled_rounds)."""
    return all(_overrides(o, "sass_compiled_rounds") for o in st.block_observers)


def round_loop_for(st, engine: str):
    """The batch's RoundLoop, or None: machine code not allowed (settings engine), no segments, a block
    observer without sass_compiled_rounds, or no block the loop covers."""
    if st.select is None or not st.segments or not loop_allowed(st) \
            or not machine_code_allowed(engine, st.n, run_rounds):
        return None
    table = loop_table(st.program, st.segments)
    return RoundLoop(st, table) if table.covered else None
