"""setmaxnreg: a warpgroup asks for more or fewer registers per thread (sm_90a).

Warp-specialized kernels (CUTLASS's and Triton's producer/consumer warpgroups)
give registers from the warpgroups that load to the ones that multiply.
warpsim keeps every register of every thread whatever the count, so there is
nothing to reallocate: the instruction is checked and does nothing. (The SASS
and timing views take register counts from ptxas, which sees setmaxnreg.)
"""

from __future__ import annotations

from ...ptx.ir import Imm
from .table import WARP, emitted, whole_warp


def check_setmaxnreg(ins):
    if not {"inc", "dec"} & set(ins.mods) or not ins.srcs or not isinstance(ins.srcs[0], Imm):
        return "setmaxnreg.{inc,dec}.sync.aligned.u32 takes an immediate register count"
    count = ins.srcs[0].value
    if not 24 <= count <= 256 or count % 8:
        return f"setmaxnreg count {count}: the PTX manual allows 24 to 256 in steps of 8"
    return None


@emitted("setmaxnreg", family="warpgroup", kind=WARP, pipe="misc", check=check_setmaxnreg,
         warp_sync=True, member_mask=whole_warp)
def emit_setmaxnreg(c, ins):
    """Every thread keeps all its registers in warpsim: nothing to give or take."""
    return False
