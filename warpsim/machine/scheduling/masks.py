"""Which operand of a warp-synchronous instruction names the lanes taking part."""

from __future__ import annotations


def mask_operand(ins):
    """The member-mask operand of a warp-synchronous instruction (None: no mask)."""
    from ..isa.table import mask_operand as from_table   # each entry of the table says where its mask is
    return from_table(ins)
