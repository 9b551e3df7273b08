"""machine.counting.shared_bank_wavefronts: one warp-wide shared load by lane pattern, against the
wavefronts the H200 counted (validation/shared_wavefronts/h200/ncu.csv, l1tex__data_pipe_lsu_
wavefronts_mem_shared_op_ld per warp); the counters give the same, and so do the timing model's
passes of the shared pipe (the fiftieth batch, an H100: 16-byte loads of 1 to 8 elements a warp,
two wavefronts, took 2.2 cycles a load an SM; of 32 elements, four, 4.1).

A load of 8 or 16 bytes whose lane quads read (a, a, b, b) or (a, b, a, b) runs in phases of twice
the lanes; any other quad keeps half-warp (8 bytes) or quarter-warp (16 bytes) phases.
"""

import numpy as np
import pytest

from warpsim.machine.counting import shared_bank_wavefronts
from warpsim.machine.memory import SHARED_WINDOW
from warpsim.metrics.counters import shared_wavefronts
from warpsim.timing.execution import shared_request_wavefronts

LANE = np.arange(32)
H200 = [   # (bytes a lane, element each lane reads, wavefronts the H200 counted)
    (8, np.zeros(32, int), 1),
    (8, LANE // 16, 1),
    (8, LANE % 2, 1),
    (8, LANE // 2, 1),
    (8, LANE % 4, 2),
    (8, np.where(LANE == 31, 1, 0), 2),
    (8, np.where(LANE == 31, 16, 0), 3),
    (8, (LANE // 16) * 16, 2),
    (8, LANE // 2 + 16 * (LANE % 2), 4),
    (8, np.tile([0, 32], 16), 2),
    (8, LANE, 2),
    (8, LANE ^ 1, 2),
    (16, np.zeros(32, int), 2),
    (16, LANE % 2, 2),
    (16, LANE // 2, 2),
    (16, LANE % 4, 4),
    (16, np.tile([0, 32], 16), 4),
    (16, LANE, 4),
    (4, np.zeros(32, int), 1),
    (4, LANE % 2, 1),
]


@pytest.mark.parametrize("nbytes, element, expected", H200)
def test_a_warp_load_takes_the_h200s_wavefronts(nbytes, element, expected):
    offsets = element.astype(np.int64) * nbytes
    waves, _ = shared_bank_wavefronts(np.zeros(32, int), LANE, offsets, nbytes)
    assert waves == expected
    assert shared_wavefronts(LANE, SHARED_WINDOW + offsets.astype(np.uint64), nbytes)[1] == expected
    assert shared_request_wavefronts(np.zeros(32, int), offsets, LANE, nbytes) == expected


def test_a_quad_of_three_and_one_keeps_the_narrow_phases():
    element = np.zeros(32, int)
    element[8] = 1                                    # quad 2 reads (1, 0, 0, 0)
    assert shared_bank_wavefronts(np.zeros(32, int), LANE, element * 8, 8)[0] == 2
    element[9] = 1                                    # (1, 1, 0, 0): pairs again
    assert shared_bank_wavefronts(np.zeros(32, int), LANE, element * 8, 8)[0] == 1


def test_absent_lanes_match_any_and_stores_keep_the_narrow_phases():
    lanes = LANE[LANE % 4 != 3]                       # (a, a, b, -): pairs with the absent lane
    offsets = (lanes // 2) * 8
    assert shared_bank_wavefronts(np.zeros(len(lanes), int), lanes, offsets, 8)[0] == 1
    assert shared_bank_wavefronts(np.zeros(32, int), LANE, np.zeros(32, int), 8, load=False)[0] == 2


def test_each_warp_is_judged_alone():
    warps = np.repeat([0, 1], 32)
    lanes = np.tile(LANE, 2)
    element = np.concatenate([np.zeros(32, int), LANE % 4])    # warp 0 merges, warp 1 does not
    assert shared_bank_wavefronts(warps, lanes, element * 8, 8) == (1 + 2, 3)
