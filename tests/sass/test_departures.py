"""sass/issues.Departures: where an issued group's lanes go, as machine code and with NumPy.

The counters read a branch's uniformity, the warps it splits and the BSYNCs its
lanes reach from Departures. Both ways of working it out (the compiled
two_targets where the batch's rounds are machine code, NumPy otherwise) must
give what bsync_arrivals and a per-warp NumPy reference give, for groups of
whole warps and of scattered lanes going to one, two or three places.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from warpsim.sass.executor.program import NO_WAIT, WAIT_BSYNC
from warpsim.sass.executor.state import Group
from warpsim.sass.issues import Departures, bsync_arrivals

N_PCS = 12
BSYNC_PCS = (3, 7)


def _program():
    wait_kind = np.full(N_PCS + 1, NO_WAIT, dtype=np.int64)
    wait_kind[list(BSYNC_PCS)] = WAIT_BSYNC
    return SimpleNamespace(wait_kind=wait_kind)


def _groups(rng):
    """(lanes, next PCs) of groups: whole warps and scattered lanes, to 1, 2 or 3 places, exits among them."""
    for trial in range(60):
        n_warps = int(rng.integers(1, 9))
        if trial % 3 == 0:
            idx = np.arange(32 * n_warps) + 64
        else:
            idx = np.flatnonzero(rng.random(32 * n_warps) < rng.uniform(0.05, 0.9))
            if not len(idx):
                idx = np.array([5])
        places = rng.choice(np.array([-1, 2, 3, 5, 7, 9]), size=1 + trial % 3, replace=False)
        yield idx, places[rng.integers(0, len(places), len(idx))].astype(np.int64)


def _reference(idx, next_pc):
    """Per warp of the group, whether a lane goes to the lowest and to the highest next PC."""
    warps = np.unique(idx >> 5)
    low, high = next_pc.min(), next_pc.max()
    to_low = np.array([(next_pc[(idx >> 5) == w] == low).any() for w in warps])
    to_high = np.array([(next_pc[(idx >> 5) == w] == high).any() for w in warps])
    return low, high, to_low, to_high


def assert_answers_as_the_reference(found, program, g, next_pc):
    idx = g.idx
    low, high, to_low, to_high = _reference(idx, next_pc)
    assert (found.low, found.high) == (low, high)
    np.testing.assert_array_equal(found.has_low, to_low)
    np.testing.assert_array_equal(found.has_high, to_high)
    assert found.uniform == (len(np.unique(next_pc)) == 1)
    assert found.split_warps() == int((to_low & to_high).sum())
    expected = bsync_arrivals(program, idx, next_pc, g.warp_runs()[0])
    arrived = found.bsync_arrivals(program)
    assert [t for t, _ in arrived] == [t for t, _ in expected]
    for (_, warps), (_, expected_warps) in zip(arrived, expected):
        np.testing.assert_array_equal(warps, expected_warps)


@pytest.mark.parametrize("machine_code", [False, True])
def test_departures_answer_as_the_per_warp_reference(machine_code):
    rng = np.random.default_rng(7)
    program = _program()
    st = SimpleNamespace(select=object() if machine_code else None)
    for idx, next_pc in _groups(rng):
        g = Group(idx)
        found = Departures(st, g, next_pc)
        assert_answers_as_the_reference(found, program, g, next_pc)


def test_departures_of_a_branch_pass_answer_as_the_per_warp_reference():
    """Where the engine ran `@P BRA` in machine code (Select.branch), Departures reads the pass's per-warp
    flags (Group.branched): the same answers as the reference, jump below or above the fall-through,
    every lane or none taking it."""
    from warpsim.sass.compiled.rounds import Select
    from warpsim.sass.disasm import parse_instruction
    rng = np.random.default_rng(9)
    program = _program()
    guard = parse_instruction("@!P2 BRA 0x40").guard
    n = 32 * 8 + 64
    for trial, (idx, _) in enumerate(_groups(rng)):
        p = np.zeros((8, n), dtype=bool)
        p[2] = rng.random(n) < (0.5, 0.0, 1.0)[trial % 3]
        jump, fall = ((2, 9), (9, 3), (7, 7))[trial % 3] if trial % 5 else (3, 7)
        st = SimpleNamespace(P=p, UP=p, pc=np.zeros(n, dtype=np.int64))
        g = Group(idx)
        next_pc = np.empty(len(idx), dtype=np.int64)
        Select.branch(None, st, g, guard, jump, fall, next_pc)
        np.testing.assert_array_equal(next_pc, np.where(~p[2][idx], jump, fall))
        found = Departures(SimpleNamespace(select=object()), g, next_pc)
        assert_answers_as_the_reference(found, program, g, next_pc)
