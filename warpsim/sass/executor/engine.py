"""The SASS run loop: rounds of issue over a batch of CTAs, as warpsim's `its` model issues PTX.

Each round has three phases:
  1. ready    lanes at a BSYNC, WARPSYNC or BAR wait until the lanes they wait
              for are there too, lanes at a polled wait (UCGABAR_WAIT) until
              its test holds for them; every other live lane is ready; a rotating
              warp (below) whose last block had a YIELD lets its lanes past
              a BSYNC, so a lane held there can set the flag another spins on;
  2. select   each warp issues the ready lanes at its lowest instruction
              address (divergent paths run one after the other, lower
              addresses first, and meet again where they arrive together);
              a warp that has kept lanes waiting for `its`'s patience
              rotates among its paths until they meet, as `its` does, but
              leaves a path only after a block with a YIELD, where the
              hardware may switch (elsewhere ptxas may keep the loop counters
              of divergent paths in one uniform register);
  3. execute  groups at the same block, across all warps and CTAs, run it as
              one vectorized call: every instruction for all their lanes
              (a guarded one for the lanes whose guard holds), then the
              block's branch sends each lane on.
No ready lane while some live is a deadlock; too many rounds a runaway.

While every live lane stands at one PC (a kernel's start, and wherever its
lanes reconverge) the three phases have one answer known without looking at a
lane: all of them are ready (at a BSYNC or WARPSYNC nobody is missing, at a
BAR of one immediate id and no count every live thread of each CTA has
arrived), each warp issues at that PC and none is divergent. The run keeps
that group and issues it directly (`converged`), until a block sends its lanes
to more than one place; most rounds of convergent code cost only the block.
"""

from __future__ import annotations

import numpy as np

from ...machine.scheduling.base import warp_any
from ...machine.scheduling.its import IndependentThreadScheduling, issue_with_rotation
from ...semantics import barriers
from ..compiled.round_loop import DEADLOCK as LOOP_DEADLOCK, DONE as LOOP_DONE, PENDING as LOOP_PENDING, \
    STOPPED as LOOP_STOPPED
from .errors import SassDeadlock, SassExecutionError, where
from .program import NO_WAIT, WAIT_BAR, WAIT_BSYNC, WAIT_POLL, WAIT_WARPSYNC
from .state import EXITED, Group, SassState
from .warp import ballot, warp_bits
from .warp_meeting import apart, pull_partners, release_held_partners, sync_masks

NO_PC = np.iinfo(np.int64).max
PATIENCE = IndependentThreadScheduling.patience


def ready_lanes(st: SassState, alive: np.ndarray, yielding: np.ndarray) -> tuple:
    """(the lanes that may issue this round, per warp whether lanes of it are held at a BSYNC)."""
    program = st.program
    pc = st.pc
    kinds = program.wait_kind[pc]                   # an exited lane's -1 reads the last entry, 0
    waiting = kinds != 0
    ready = alive.copy()
    held = np.zeros(st.n_warps, dtype=bool)
    if not waiting.any():
        return ready, held
    bar_lanes = []
    at_sync, sync_masks_ = sync_masks(st, kinds)
    if sync_masks_ is not None:
        release_held_partners(st, alive, kinds, at_sync, sync_masks_)
        sync_warps = warp_bits(at_sync)
    for p in np.flatnonzero(np.bincount(pc[waiting])):      # the few places lanes wait at
        here = pc == p
        step = program.steps[int(p)]
        kind = program.wait_kind[p]
        if kind == WAIT_BSYNC:                      # per warp, in lane masks: no gather of the lanes
            k = step.wait[1]
            members = st.B[k]
            missing = warp_any(members & alive & ~here)
            blocked = missing & ~yielding
            if blocked.any():
                ready &= ~(here & np.repeat(blocked, 32))
            # a lane here that is no member of Bk waits while members are here too: it arrived at an
            # outer instance of this BSYNC (a recursive call's caller), whose mask BMOV saved and
            # restores; the members of the inner region go on without it
            stray = here & ~members & np.repeat(warp_any(members & here), 32)
            ready &= ~stray
            held |= (missing & warp_any(here)) | warp_any(stray)
            continue
        at = np.flatnonzero(here)
        if kind == WAIT_WARPSYNC:
            # partners at any WARPSYNC count (sm_70: control.release_partners; warp_meeting.py)
            if not len(at):
                continue                                    # pulled into another's region this round
            live = warp_bits(alive)[at >> 5]
            go = (sync_masks_[at] & live & ~sync_warps[at >> 5]) == 0
            passes = getattr(st, "sync_passes", None)
            if passes is not None:
                go |= passes[at]
            go &= ~apart(st, int(p), at, sync_masks_, at_sync)
            ready[at] = go
            ready[pull_partners(st, int(p), at, go, sync_masks_, at_sync)] = True
        elif kind == WAIT_BAR:
            g = Group(at)
            ids = np.broadcast_to(np.asarray(step.wait[1](st, g), dtype=np.int64), (g.n,))
            counts = None if step.wait[2] is None else \
                np.broadcast_to(np.asarray(step.wait[2](st, g), dtype=np.int64), (g.n,))
            bar_lanes.append((at, ids, counts))
            ready[at] = False
        elif kind == WAIT_POLL:
            ready[at] = step.wait[1](st, Group(at))
    if bar_lanes:
        live_per_cta = np.bincount(st.cta[alive], minlength=st.n_ctas)
        at = np.concatenate([a for a, _, _ in bar_lanes])
        keys = st.cta[at] * barriers.BARRIERS_PER_CTA + np.concatenate([i for _, i, _ in bar_lanes])
        counts = np.concatenate([np.zeros(len(a), dtype=np.int64) if c is None else c for a, _, c in bar_lanes])
        ready[at] = barriers.release(keys, counts, live_per_cta, st.arrivals)
    return ready, held


def run_batch(st: SassState, max_rounds: int) -> None:
    program = st.program
    n_warps = st.n_warps
    converged = Converged.at_start(st)
    while True:
        if converged is not None:
            if converged.group.n == 0:
                return
            step = program.steps[converged.pc]
            if converged.all_ready(st, step):
                st.starved = np.zeros(n_warps, dtype=np.int64)
                st.rotating = np.zeros(n_warps, dtype=bool)
                st.last_pc = np.where(converged.live_warps(n_warps), converged.pc, NO_PC)
                next_pc = execute_block(st, program.block_at[converged.pc], converged.group)
                converged = converged.after(next_pc)
                _count_round(st, max_rounds)
                continue
        selected = None
        if st.round_loop is not None:              # rounds of covered blocks in one machine-code call
            status, groups, live = st.round_loop.run(st, PATIENCE, max_rounds + 1 - st.rounds)
            if status == LOOP_DONE:
                return
            if status == LOOP_DEADLOCK:
                raise deadlock(st, st.pc >= 0)
            if status == LOOP_STOPPED:
                _check_rounds(st, max_rounds)
                continue
            if status == LOOP_PENDING:             # the round is selected: the engine runs the groups left
                selected = (st.select.groups(*groups), live)
        elif st.select is not None:                # 1. and 2. as machine code, where no lane waits for operands
            selected = st.select(st, PATIENCE)
        if selected is not None:
            groups, live = selected
            if not live:
                return
            if not groups:
                raise deadlock(st, st.pc >= 0)
            converged = None
            if len(groups) == 1:
                pc, group = groups[0]
                next_pc = execute_block(st, program.block_at[pc], group)
                if group.n == live:
                    converged = Converged(group).after(next_pc)
            else:
                for pc, group in groups:
                    execute_block(st, program.block_at[pc], group)
            _count_round(st, max_rounds)
            continue
        alive = st.pc >= 0
        if not alive.any():
            return
        # 1. ready
        may_switch = program.yields[np.minimum(st.last_pc, len(program.yields) - 1)]
        ready, held = ready_lanes(st, alive, st.rotating & may_switch)
        if not ready.any():
            raise deadlock(st, alive)
        # 2. select
        pcs = np.where(ready, st.pc, NO_PC).reshape(n_warps, 32)
        issue_pc = issue_with_rotation(pcs, st, PATIENCE, held, may_switch)
        chosen = np.flatnonzero((pcs == issue_pc[:, None]).ravel() & ready)
        chosen_pc = st.pc[chosen]
        # 3. execute
        converged = None
        if chosen_pc[0] == chosen_pc[-1] and (chosen_pc == chosen_pc[0]).all():
            group = Group(chosen)                    # every warp at one place: the common case
            next_pc = execute_block(st, program.block_at[int(chosen_pc[0])], group)
            if group.n == np.count_nonzero(alive):   # and every live lane with them
                converged = Converged(group).after(next_pc)
        else:                                        # a stable counting sort (radix on 16 bits)
            keys = chosen_pc.astype(np.int16) if len(program.instructions) < 32768 else chosen_pc
            order = np.argsort(keys, kind="stable")
            bounds = np.flatnonzero(np.diff(chosen_pc[order])) + 1
            for group in np.split(chosen[order], bounds):
                execute_block(st, program.block_at[int(st.pc[group[0]])], Group(group))
        _count_round(st, max_rounds)


def _count_round(st: SassState, max_rounds: int) -> None:
    st.rounds += 1
    _check_rounds(st, max_rounds)


def _check_rounds(st: SassState, max_rounds: int) -> None:
    if st.rounds > max_rounds:
        raise SassExecutionError(f"the SASS run of '{st.program.name}' ran past {max_rounds} rounds")


class Converged:
    """Every live lane of the batch at one PC: the group they issue as, and the warps it has."""

    __slots__ = ("group", "pc", "_live_warps")

    def __init__(self, group: Group, pc: int = 0, live_warps=None):
        self.group, self.pc, self._live_warps = group, pc, live_warps

    @classmethod
    def at_start(cls, st: SassState):
        return cls(Group(np.flatnonzero(st.pc >= 0)), 0)

    def live_warps(self, n_warps: int) -> np.ndarray:
        """Per warp of the batch, whether it has a live lane (the warps that issue)."""
        if self._live_warps is None:
            self._live_warps = np.zeros(n_warps, dtype=bool)
            self._live_warps[self.group.idx >> 5] = True
        return self._live_warps

    def all_ready(self, st: SassState, step) -> bool:
        """Whether every lane of the group may issue at its PC (see the module docstring)."""
        kind = st.program.wait_kind[self.pc]
        if kind == NO_WAIT or kind == WAIT_BSYNC or kind == WAIT_WARPSYNC:
            return True
        if kind != WAIT_BAR or step.wait[2] is not None or st.arrivals:
            return False
        ids = np.asarray(step.wait[1](st, self.group))
        return ids.ndim == 0 and 0 <= int(ids) < barriers.BARRIERS_PER_CTA

    def after(self, next_pc: np.ndarray):
        """The converged state after the group ran a block that sent its lanes to next_pc; None
        when they went to more than one place (exited lanes aside)."""
        first, last = int(next_pc[0]), int(next_pc[-1])
        if first == last and (next_pc == first).all():
            if first == EXITED:
                return Converged(Group(self.group.idx[:0]), EXITED)
            return Converged(self.group, first, self._live_warps)
        staying = next_pc != EXITED
        places = next_pc[staying]
        if len(places) and (places == places[0]).all():
            return Converged(self.group.subset(staying), int(places[0]))
        return None


def execute_block(st: SassState, block, g: Group) -> np.ndarray:
    """Run `block` for the lanes of g; where each lane goes next (also stored in st.pc)."""
    pred_on = [None] * len(block.steps)
    steps = block.steps if block.control is None else block.steps[:-1]
    # machine code for lanes scattered by control flow; a contiguous run of lanes is a slice, which
    # the NumPy steps read and write without gathering (bench/sass_profiling.py: faster there)
    segments = None if isinstance(g.sel, slice) else st.segments.get(block.index)
    position = -1
    while position + 1 < len(steps):
        position += 1
        if segments is not None:
            segment = segments.get(position)
            if segment is not None:             # a run of value instructions as machine code
                segment.run(st, g, pred_on)
                position = segment.stop - 1
                continue
        step = steps[position]
        guard = block.guards[position]
        if guard is None:
            step.run(st, g)
            continue
        on = np.broadcast_to(np.asarray(guard(st, g), dtype=bool), (g.n,))
        count = int(np.count_nonzero(on))
        pred_on[position] = count
        if count == g.n:
            step.run(st, g)
        elif count:
            step.run(st, g.subset(on))
    control = block.control
    g.branched = None                               # (a converged group issues again, round after round)
    if control is not None and control.jump is not None and block.guards[-1] is not None \
            and st.select is not None and not isinstance(g.sel, slice):
        next_pc = np.empty(g.n, dtype=np.int64)     # a guarded BRA to one label: one machine-code pass
        pred_on[-1] = st.select.branch(st, g, control.ins.guard, control.jump, block.end, next_pc)
    else:
        next_pc = np.full(g.n, block.end, dtype=np.int64)
        if control is not None:
            guard = block.guards[-1]
            if guard is None:
                next_pc = control.target(st, g)
            else:
                on = np.broadcast_to(np.asarray(guard(st, g), dtype=bool), (g.n,))
                pred_on[-1] = int(np.count_nonzero(on))
                if on.any():
                    next_pc[on] = control.target(st, g.subset(on))
        st.pc[g.sel] = next_pc
    st.clock += block.issue_cycles
    for observer in st.block_observers:
        observer.sass_block_issued(st, block, g, pred_on, next_pc)
    return next_pc


def deadlock(st: SassState, alive: np.ndarray) -> SassDeadlock:
    program = st.program
    lines = []
    for p in np.unique(st.pc[alive])[:6]:
        lanes = np.flatnonzero(alive & (st.pc == p))
        ins = program.instructions[int(p)]
        lines.append(f"  {len(lanes)} lanes wait at {where(ins)}")
    return SassDeadlock(f"the SASS run of '{program.name}' deadlocked: no lane can issue\n" + "\n".join(lines))
