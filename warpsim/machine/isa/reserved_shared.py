"""sm_90's reserved shared memory: %reserved_smem_offset_* and the shared-memory size registers.

Every CTA on sm_80+ has 1 KB of shared memory the system reserves; cooperative
groups keep the barrier and partial results of a thread_block_tile wider than a
warp there (`cg::reduce` over a tile of 64 reads %reserved_smem_offset_1). On
the H200 the reserved kilobyte is at shared address 0 and the kernel's own
variables start at 0x400; a kernel reads %reserved_smem_offset_begin 0,
_end 288, _cap 1024, _0 and _1 0 (validation/hopper/h200.json). warpsim's own
variables start at 0, so a kernel that reads any of these registers gets the
reserved kilobyte after its shared memory, at R = its bytes rounded up to 128,
and reads R, R + 288, R + 1024, R and R: the same region sizes and offsets
relative to its start, at another address. %total_smem_size is the kernel's
own static and dynamic bytes and %aggr_smem_size adds the reserved kilobyte,
as on the H200.
"""

from __future__ import annotations

import numpy as np

from .moves import SPECIAL_REGISTERS

RESERVED_BYTES = 1024
RESERVED_IN_USE = 288            # %reserved_smem_offset_end - _begin on the H200
RESERVED_ALIGN = 128
# register -> its offset from the start of the reserved region, as the H200 gives them
OFFSETS = {"%reserved_smem_offset_begin": 0, "%reserved_smem_offset_end": RESERVED_IN_USE,
           "%reserved_smem_offset_cap": RESERVED_BYTES, "%reserved_smem_offset_0": 0,
           "%reserved_smem_offset_1": 0}


def reads_reserved(program, kernel: str) -> bool:
    """Whether the kernel (or a function it calls) reads a %reserved_smem_offset_* register."""
    cache = program.__dict__.setdefault("_reads_reserved_shared", {})
    if kernel not in cache:
        cache[kernel] = any(
            getattr(op, "name", "") in OFFSETS
            for name in program.reachable_functions(kernel)
            for ins in program.module.functions[name].body for op in ins.srcs)
    return cache[kernel]


def with_reserved(program, kernel: str, shared_bytes: int) -> int:
    """The CTA's shared bytes with the reserved kilobyte after them, if the kernel reads its registers."""
    if not reads_reserved(program, kernel):
        return shared_bytes
    return -(-int(shared_bytes) // RESERVED_ALIGN) * RESERVED_ALIGN + RESERVED_BYTES


def _reserved_start(ctx) -> int:
    return ctx.shared_used - RESERVED_BYTES


def _own_bytes(ctx) -> int:
    return _reserved_start(ctx) if reads_reserved(ctx.program, ctx.kernel) else ctx.shared_used


def _offset_register(name):
    return lambda ctx, idx, _: np.full(len(idx), _reserved_start(ctx) + OFFSETS[name], dtype=np.uint32)


SPECIAL_REGISTERS.update({name: _offset_register(name) for name in OFFSETS})
SPECIAL_REGISTERS.update({
    "%total_smem_size": lambda ctx, idx, name: np.full(len(idx), _own_bytes(ctx), dtype=np.uint32),
    "%aggr_smem_size": lambda ctx, idx, name: np.full(len(idx), _own_bytes(ctx) + RESERVED_BYTES,
                                                      dtype=np.uint32),
})
