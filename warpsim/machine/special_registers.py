"""Special registers (%tid, %laneid, %clock64, ...) read per thread.

Values that PTX leaves to the implementation are chosen to be stable and
plausible: %smid spreads CTAs round-robin over the simulated GPU's SMs, %clock
counts scheduling rounds, %globaltimer is the host's nanosecond clock.
"""

from __future__ import annotations

import time

import numpy as np

AXES = {"x": 0, "y": 1, "z": 2}
NUM_SMS = 132


def _axis(name):
    return AXES[name.split(".")[1]]


# %lanemask_*: which lanes, relative to the reading lane, are in the mask.
_LANEMASKS = {
    "eq": lambda at, upto: at,                 # the lane itself
    "lt": lambda at, upto: at - 1,             # lanes below it
    "le": lambda at, upto: upto - 1,           # lanes below it and itself
    "gt": lambda at, upto: ~(upto - 1),        # lanes above it
    "ge": lambda at, upto: ~(at - 1),          # the lane and those above
}


def _lanemask(kind):
    def read(ctx, idx):
        lane = ctx.lane[idx].astype(np.uint64)
        at, upto = np.uint64(1) << lane, np.uint64(1) << (lane + np.uint64(1))
        return (_LANEMASKS[kind](at, upto) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return read


SPECIAL_REGISTERS = {
    "%tid": lambda ctx, idx, name: ctx.tid[_axis(name), idx],
    "%ntid": lambda ctx, idx, name: np.full(len(idx), ctx.block[_axis(name)], dtype=np.uint32),
    "%ctaid": lambda ctx, idx, name: ctx.ctaid[_axis(name), idx],
    "%nctaid": lambda ctx, idx, name: np.full(len(idx), ctx.grid[_axis(name)], dtype=np.uint32),
    "%laneid": lambda ctx, idx, name: ctx.lane[idx],
    "%warpid": lambda ctx, idx, name: ctx.warp_in_cta[idx],
    "%nwarpid": lambda ctx, idx, name: np.full(len(idx), 64, dtype=np.uint32),
    "%smid": lambda ctx, idx, name: (ctx.cta_ids[ctx.cta[idx]] % NUM_SMS).astype(np.uint32),
    "%nsmid": lambda ctx, idx, name: np.full(len(idx), NUM_SMS, dtype=np.uint32),
    "%gridid": lambda ctx, idx, name: np.full(len(idx), 1, dtype=np.uint64),
    "%lanemask_eq": lambda ctx, idx, name: _lanemask("eq")(ctx, idx),
    "%lanemask_lt": lambda ctx, idx, name: _lanemask("lt")(ctx, idx),
    "%lanemask_le": lambda ctx, idx, name: _lanemask("le")(ctx, idx),
    "%lanemask_gt": lambda ctx, idx, name: _lanemask("gt")(ctx, idx),
    "%lanemask_ge": lambda ctx, idx, name: _lanemask("ge")(ctx, idx),
    "%clock": lambda ctx, idx, name: np.full(len(idx), ctx.issued & 0xFFFFFFFF, dtype=np.uint32),
    "%clock_hi": lambda ctx, idx, name: np.full(len(idx), (ctx.issued >> 32) & 0xFFFFFFFF, dtype=np.uint32),
    "%clock64": lambda ctx, idx, name: np.full(len(idx), ctx.issued, dtype=np.uint64),
    "%globaltimer": lambda ctx, idx, name: np.full(len(idx), time.time_ns(), dtype=np.uint64),
    "%globaltimer_lo": lambda ctx, idx, name: np.full(len(idx), time.time_ns() & 0xFFFFFFFF, dtype=np.uint32),
    "%globaltimer_hi": lambda ctx, idx, name: np.full(len(idx), time.time_ns() >> 32, dtype=np.uint32),
    "%dynamic_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.dynamic_shared, dtype=np.uint32),
    "%total_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.shared_used, dtype=np.uint32),
    "%aggr_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.shared_used, dtype=np.uint32),
    "%is_explicit_cluster": lambda ctx, idx, name: np.zeros(len(idx), dtype=bool),
    "%clusterid": lambda ctx, idx, name: ctx.ctaid[_axis(name), idx],
    "%nclusterid": lambda ctx, idx, name: np.full(len(idx), ctx.grid[_axis(name)], dtype=np.uint32),
    "%cluster_ctaid": lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32),
    "%cluster_nctaid": lambda ctx, idx, name: np.ones(len(idx), dtype=np.uint32),
    "%cluster_ctarank": lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32),
    "%cluster_nctarank": lambda ctx, idx, name: np.ones(len(idx), dtype=np.uint32),
}
for _k in range(32):
    SPECIAL_REGISTERS[f"%envreg{_k}"] = lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32)
for _k in range(8):
    SPECIAL_REGISTERS[f"%pm{_k}"] = lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32)


def read_special(ctx, idx, name: str) -> np.ndarray:
    return SPECIAL_REGISTERS[name.split(".")[0]](ctx, idx, name)
