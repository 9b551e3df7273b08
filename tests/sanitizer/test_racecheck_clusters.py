"""racecheck on distributed shared memory: a CTA's ld.shared::cluster of its neighbour's word is
checked against that neighbour's writes (machine.cluster.peer_offsets), not taken for a word of its own."""

import os
import sys

import numpy as np
import pytest

import warpsim as cp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "machine", "isa"))
from hopper_ptx import SPECIAL_WORDS, SPECIALS  # noqa: E402

SYNC = "    barrier.cluster.arrive.aligned;\n    barrier.cluster.wait.aligned;\n"


def _check(ptx):
    out = cp.full((4 * 64, len(SPECIAL_WORDS)), 0xDEADBEEF, cp.uint32)
    with cp.check(tools="racecheck") as chk:
        cp.RawModule(ptx=ptx).get_function("specials")((4,), (64,), (out,), shared_mem=4096)
    return chk, out.get()[:, SPECIAL_WORDS.index("neighbour_value")]


def test_neighbour_reads_after_the_cluster_barrier_are_clean():
    chk, neighbour = _check(SPECIALS)
    cta, tid = np.divmod(np.arange(256), 64)
    np.testing.assert_array_equal(neighbour, 1000 * (1 - cta % 2) + tid)
    assert not chk.errors


def test_neighbour_read_without_the_barrier_is_a_hazard():
    assert SPECIALS.count(SYNC) >= 1
    chk, _ = _check(SPECIALS.replace(SYNC, "", 1))
    assert any(e.kind == "RAW hazard" for e in chk.errors), [e.kind for e in chk.errors]
