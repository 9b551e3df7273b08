"""The occupancy calculation (warpsim.metrics.occupancy) as a terminal table."""

from __future__ import annotations

from ..metrics.occupancy import KB, get_arch
from .terminal import table


def occupancy_table(occ, title: str | None = None):
    """A rich Table of the calculation: each limit per block, per SM and in blocks per SM, the
    limiting ones in bold red."""
    a = get_arch(occ.arch)
    t = table(title or f"Theoretical occupancy on {occ.arch}",
              ["limit", ("per block", dict(justify="right")), ("per SM", dict(justify="right")),
               ("blocks per SM", dict(justify="right"))], title_justify="center")

    def blocks(name, value):
        return (str(value), "bold red") if name in occ.limiters else str(value)

    regs = max(occ.registers_per_thread, a.min_registers_per_thread)
    t.add_row("warps", str(occ.warps_per_block), str(a.max_warps_per_sm), blocks("warps", occ.limit_warps))
    t.add_row("blocks", "1", str(a.max_blocks_per_sm), blocks("blocks", occ.limit_blocks))
    t.add_row("registers", f"{regs}/thread = {occ.registers_allocated_per_warp}/warp",
              f"{a.registers_per_sm}", blocks("registers", occ.limit_registers))
    t.add_row("shared memory", f"{occ.shared_per_block}+{a.reserved_shared_per_block} reserved = "
              f"{occ.shared_allocated_per_block} B", f"{occ.shared_config // KB} KB carveout",
              blocks("shared_mem", occ.limit_shared_mem))
    return t
