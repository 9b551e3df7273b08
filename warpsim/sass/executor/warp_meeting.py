"""How a warp's lanes waiting at different WARPSYNCs meet (sm_70 and later).

A WARPSYNC waits for the lanes of its mask at *a* WARPSYNC, not this one. Where ptxas cannot prove a
collective's warp converged it branches (BRA.DIV) to a region `WARPSYNC.COLLECTIVE Rm, end` ...
`ENDCOLLECTIVE` holding the collective, each such region with the same registers for the mask, the
operands and the result. An H100 runs `validation/warp_sync_masks/sites.cu` (half-warps whose loops
of a ballot and a `__reduce_add_sync` run two and one times) as one collective for both halves:
each half's ballot word holds the other's votes. So here:

- lanes at a WARPSYNC whose named partners a BSYNC holds (waiting in turn for them: the BSYNC after
  a loop whose lanes run different trip counts) dissolve that convergence barrier for their warp,
  as BREAK would for all its lanes: the partners go on to their own WARPSYNC;
- once every named live lane waits at a WARPSYNC.COLLECTIVE, the lanes at the others come to the
  lowest one's region (`pull_partners`) and run it with its lanes, each with its own registers;
  its ENDCOLLECTIVE sends each back to the end of its own region (`collective_return`);
- lanes at WARPSYNCs guarding different collectives never meet (`apart`).
"""

from __future__ import annotations

import numpy as np

from .state import Group
from .table import WAIT_BSYNC, WAIT_WARPSYNC
from .warp import warp_bits

NO_RETURN = -1


def sync_masks(st, kinds: np.ndarray) -> tuple:
    """(lanes at a WARPSYNC, per lane the mask it waits for: 0 elsewhere; None if no lane is at one)."""
    at_sync = kinds == WAIT_WARPSYNC
    if not at_sync.any():
        return at_sync, None
    masks = np.zeros(len(kinds), dtype=np.uint64)
    for p in np.unique(st.pc[at_sync]):
        at = np.flatnonzero(st.pc == p)
        g = Group(at)
        masks[at] = np.broadcast_to(np.asarray(st.program.steps[int(p)].wait[1](st, g), dtype=np.uint64), (g.n,))
    return at_sync, masks


def release_held_partners(st, alive: np.ndarray, kinds: np.ndarray, at_sync: np.ndarray,
                          masks: np.ndarray) -> None:
    """Dissolve, per warp, the convergence barriers whose BSYNC holds lanes a WARPSYNC waits for."""
    held = alive & (kinds == WAIT_BSYNC)
    if not held.any():
        return
    named = np.bitwise_or.reduce(np.where(at_sync, masks, np.uint64(0)).reshape(-1, 32), axis=1)
    wanted = (named & warp_bits(held)) != 0
    if not wanted.any():
        return
    lanes_wanted = np.repeat(wanted, 32) & held
    for q in np.unique(st.pc[lanes_wanted]):
        k = st.program.steps[int(q)].wait[1]
        warps = np.unique(np.flatnonzero(lanes_wanted & (st.pc == q)) >> 5)
        st.B[k].reshape(-1, 32)[warps] = False


def _per_place(program, p: int, name: str, compute):
    """compute(program, p), kept on the program by `name` and place (a kernel's places are few)."""
    known = program.__dict__.setdefault(name, {})
    if p not in known:
        known[p] = compute(program, p)
    return known[p]


def _region_end(program, p: int) -> int | None:
    """The index its label names, for a WARPSYNC.COLLECTIVE at p (None for another WARPSYNC)."""
    def compute(program, p):
        ins = program.steps[p].ins
        return program.labels.get(ins.branch_target) if "COLLECTIVE" in ins.mods else None
    return _per_place(program, p, "_collective_ends", compute)


COLLECTIVES = frozenset({"SHFL", "VOTE", "VOTEU", "MATCH", "REDUX"})
GUARDED_WITHIN = 4          # instructions after a WARPSYNC where ptxas puts the collective it guards


def _collective(program, p: int):
    """The collective the WARPSYNC at p guards: the first of the next few instructions that is one,
    before any that has a target or a wait (its opcode and modifiers); None where there is none (a
    `__syncwarp`), which meets any."""
    def compute(program, p):
        for k in range(p + 1, min(p + 1 + GUARDED_WITHIN, len(program.steps))):
            step = program.steps[k]
            if step is None:
                return None
            if step.ins.opcode in COLLECTIVES:
                return step.ins.opcode, tuple(step.ins.mods)
            if step.target is not None or step.wait is not None or step.ins.opcode == "ENDCOLLECTIVE":
                return None
        return None
    return _per_place(program, p, "_guarded_collectives", compute)


def apart(st, p: int, at: np.ndarray, masks: np.ndarray, at_sync: np.ndarray) -> np.ndarray:
    """Per lane of `at` (lanes at the WARPSYNC p), whether a lane its mask names waits at a WARPSYNC
    guarding another collective: they never meet (an H100 never finishes half-warps whose loop of
    ballots meets the reduction after it, or whose __any_sync meets an __all_sync, where a shuffle
    loop's lanes meet the shuffle after it)."""
    kind = _collective(st.program, p)
    if kind is None:
        return np.zeros(len(at), dtype=bool)
    others = [q for q in np.unique(st.pc[at_sync]) if q != p
              and _collective(st.program, int(q)) not in (None, kind)]
    if not others:
        return np.zeros(len(at), dtype=bool)
    waiting = warp_bits(at_sync & np.isin(st.pc, others))
    return (masks[at] & waiting[at >> 5]) != 0


def pull_partners(st, p: int, at: np.ndarray, ready: np.ndarray, masks: np.ndarray,
                  at_sync: np.ndarray) -> np.ndarray:
    """The named lanes of the lanes `at` the WARPSYNC p that may go (`ready`) that wait at another
    WARPSYNC.COLLECTIVE, moved to p with the end of their own region to return to (p one too)."""
    none = np.zeros(0, dtype=np.int64)
    if _region_end(st.program, p) is None or not ready.any():
        return none
    going = at[ready]
    named = np.zeros(len(st.pc) // 32, dtype=np.uint64)
    np.bitwise_or.at(named, going >> 5, masks[going])
    warps = np.unique(going >> 5)
    lanes = (warps[:, None] * 32 + np.arange(32)).ravel()
    bits = ((named[warps][:, None] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)).astype(bool).ravel()
    partners = lanes[bits & at_sync[lanes] & (st.pc[lanes] != p)]
    if not len(partners):
        return none
    places, which = np.unique(st.pc[partners], return_inverse=True)
    ends = [_region_end(st.program, int(q)) for q in places]
    if any(e is None for e in ends):
        return none
    back = getattr(st, "collective_return", None)
    if back is None:
        back = st.collective_return = np.full(len(st.pc), NO_RETURN, dtype=np.int64)
    back[partners] = np.asarray(ends, dtype=np.int64)[which]
    st.pc[partners] = p
    return partners


def returns(st, g, fall: int) -> np.ndarray:
    """ENDCOLLECTIVE: per lane of g, the end of its own region (lanes pulled in from another
    WARPSYNC.COLLECTIVE) or the next instruction; the returns are spent."""
    back = getattr(st, "collective_return", None)
    if back is None:
        return np.full(g.n, fall, dtype=np.int64)
    to = back[g.idx]
    back[g.idx] = NO_RETURN
    return np.where(to == NO_RETURN, fall, to).astype(np.int64)
