"""The open splits of a warp (sass/compiled/resumes.py): which splits make the hardware resume a kept
half slowly. Masks are lane bits of one warp."""

import numpy as np

from warpsim.sass.compiled.resumes import DEPTH, note_split

ODD = sum(1 << k for k in range(1, 32, 2))
EVEN = ~ODD & 0xFFFFFFFF
ALL = 0xFFFFFFFF


def stacks(warps: int = 2):
    return np.zeros((warps, DEPTH, 3), dtype=np.int64), np.zeros(warps, dtype=np.int64)


def test_a_split_inside_the_half_run_first_is_slow_once():
    """`if (lane & 1)` splits the warp 16 / 16: the lanes that fall through (enter) run first; a loop
    inside splitting them makes the even lanes' resume slow, once however often it splits again."""
    opened, count = stacks()
    assert note_split(opened, count, 0, ALL, EVEN) == 0           # the branch: even lanes jump past it
    leave_first = ODD & 0x0000FFFF                                 # odd lanes 1-15 leave after one trip
    assert note_split(opened, count, 0, ODD, ODD & ~leave_first) == 1
    assert note_split(opened, count, 0, ODD & ~leave_first, ODD & 0x00FF0000) == 0
    assert count[1] == 0                                           # the other warp keeps nothing


def test_a_lone_lane_run_first_blocks_before_the_inner_split():
    """`if (lane != 0)`: lane 0 (one lane) runs first and blocks; the loop's split among the other 31
    lanes is no split inside a half that ran first."""
    opened, count = stacks()
    assert note_split(opened, count, 0, ALL, 1) == 0
    assert note_split(opened, count, 0, ALL & ~1, 0x2) == 0


def test_splits_one_after_the_other_are_not_nested():
    """Two branches that each split the whole warp: the second group is not inside the first's half."""
    opened, count = stacks()
    assert note_split(opened, count, 0, ALL, EVEN) == 0
    assert note_split(opened, count, 0, ALL, 0x0000FFFF) == 0
    assert count[0] == 1                                           # the first closed when the warp rejoined


def test_a_split_inside_the_kept_half_is_not_slow():
    """The half kept runs after the first blocked; its own split is no split inside the first half."""
    opened, count = stacks()
    assert note_split(opened, count, 0, ALL, 0xFFFFFFF0) == 0      # lanes 0-3 fall through, run first
    assert note_split(opened, count, 0, 0xFFFFFFF0, 0xFFFF0000) == 0


def test_two_nested_branches_each_slow():
    """Branches on lane & 1, then lane & 2 inside, then a loop splitting the innermost lanes: two slow
    resumes (the sixty-third batch's two nested branches: twice the one branch's extra cycles)."""
    opened, count = stacks()
    lane3 = sum(1 << k for k in range(32) if k & 3 == 3)
    assert note_split(opened, count, 0, ALL, EVEN) == 0
    assert note_split(opened, count, 0, ODD, ODD & ~lane3) == 1    # lanes 1, 5, 9.. skip the inner branch
    assert note_split(opened, count, 0, lane3, lane3 & 0xF0F0F0F0) == 1
