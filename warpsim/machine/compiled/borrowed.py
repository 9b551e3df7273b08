"""Arrays that machine code slices in its inner loops, seen without their owner's reference count.

Every view Numba makes of an array (a row of a tile, a slice of the code) takes a reference to the
array's memory and gives it back: two atomic operations on a count the threads share, and so does
an array handed to a function inlined into a loop. The SASS round loop makes such views per warp and
round, its tile code a few dozen an instruction per chunk of lanes: on collatz
(bench/sass_profiling.py) those atomics were a fifth of the SASS run's time (perf: `lock incq` and
`lock decq` in NRT_MemInfo_acquire/release). `borrowed(array)` is the same array with no owner: its
views count nothing. The caller holds the array itself for as long as they are used (every use
here is within one call that was handed the array). The PTX tier's select phase
(rounds.select_groups) borrows too; its round loop spends a quarter of collatz's plain run in those
atomics, but borrowing its arrays moved LLVM's code both ways (collatz 27 -> 17 ms, row_dot 32 -> 44
ms), so it keeps its counts.
"""

from __future__ import annotations

from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, array):
    """`array`'s data, shape and strides, with no owner (its meminfo and parent left null)."""
    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, value=args[0])
        view = context.make_array(signature.return_type)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()
    return array(array), codegen
