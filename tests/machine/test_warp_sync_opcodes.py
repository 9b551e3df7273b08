"""synccheck's warp-synchronous opcodes are read from the instruction table, not kept by hand."""

from __future__ import annotations

from warpsim.machine.isa.table import OPS, warp_sync_opcodes


def test_every_opcode_whose_entry_meets_a_warp_is_named():
    named = warp_sync_opcodes()
    assert {"bar", "barrier", "shfl", "vote", "match", "redux", "activemask", "wmma", "mma", "ldmatrix",
            "elect", "setmaxnreg", "stmatrix", "wgmma"} <= named
    assert named == {op for op, entries in OPS.items() if any(e.warp_sync for e in entries)}
    assert not named & {"add", "ld", "st", "atom", "bra", "ret"}
