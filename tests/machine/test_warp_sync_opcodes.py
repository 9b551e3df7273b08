"""synccheck's warp-synchronous opcodes are read from the instruction table, not kept by hand."""

from __future__ import annotations

from warpsim.machine.isa.table import OPS, warp_sync_opcodes


def test_every_opcode_whose_entry_meets_a_warp_is_named():
    named = warp_sync_opcodes()
    assert {"bar", "barrier", "shfl", "vote", "match", "redux", "activemask", "wmma", "mma", "ldmatrix",
            "elect", "setmaxnreg", "stmatrix", "wgmma"} <= named
    assert named == {op for op, entries in OPS.items() if any(e.warp_sync for e in entries)}
    assert not named & {"add", "ld", "st", "atom", "bra", "ret"}


def test_whole_warps_are_every_lane_of_each_warp_in_order():
    """A `.sync` naming all lanes meets at once only where every lane of each issuing warp is there."""
    import numpy as np
    from warpsim.machine.scheduling.warp_sync import whole_warps
    two = np.arange(64, 128)
    assert whole_warps(two) and whole_warps(np.r_[np.arange(32), np.arange(96, 128)])
    assert not whole_warps(two[1:]) and not whole_warps(np.arange(16, 48))          # a lane short, straddling
    assert not whole_warps(np.r_[np.arange(31, -1, -1), np.arange(32, 64)])         # out of order
    assert not whole_warps(np.r_[np.arange(31), 30, np.arange(32, 64)]) and not whole_warps(np.arange(0))  # a lane twice
