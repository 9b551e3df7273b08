"""The launches of the metrics validation, for CuPy (the real GPU) and warpsim alike.

`run_all(xp)` compiles validation/kernels.cu with `xp.RawModule` and makes
every launch in CASES in order, so the N-th kernel profiled by ncu is the
N-th launch warpsim profiles. Inputs are built on the host and copied in
(`xp.asarray`), so no library kernel runs between them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels.cu")
N_TRANSPOSE = 256


@dataclass
class Case:
    label: str            # unique name of the launch in the comparison table
    kernel: str
    grid: tuple
    block: tuple
    args: object          # function (xp) -> kernel arguments
    note: str = ""
    shared_mem: int = 0
    extra: dict = field(default_factory=dict)


def _f32(xp, n, seed=0):
    return xp.asarray(np.random.default_rng(seed).random(n, dtype=np.float32))


def _zeros(xp, n, dtype=np.float32):
    return xp.asarray(np.zeros(n, dtype=dtype))


def _loop_lengths(xp, n):
    lengths = np.full(n, 10, dtype=np.int32)
    lengths[::32] = 200                    # one long lane per warp (Example 2)
    return xp.asarray(lengths)


def _cases() -> list:
    cases = [
        Case("branch_on_lane", "ws_branch_on_lane", (8,), (128,),
             lambda xp: (_zeros(xp, 1024), np.int32(32)), "document: even/odd lanes diverge"),
        Case("branch_on_warp", "ws_branch_on_warp", (8,), (128,),
             lambda xp: (_zeros(xp, 1024), np.int32(32)), "document: warp-uniform branch"),
        Case("block_sum", "ws_block_sum", (4,), (256,),
             lambda xp: (_f32(xp, 1000), _zeros(xp, 1), np.int32(1000)), "document: shuffles + shared + atomic"),
        Case("variable_loop", "ws_variable_loop", (4,), (128,),
             lambda xp: (_loop_lengths(xp, 512), _zeros(xp, 512)), "document example 2: 31 lanes x10, 1 lane x200"),
        Case("block_of_100", "ws_add_one", (4,), (100,),
             lambda xp: (xp.asarray(np.arange(400, dtype=np.int32)), _zeros(xp, 400, np.int32), np.int32(400)),
             "block of 100 threads: last warp has 4 lanes"),
        Case("block_of_100_tail", "ws_add_one", (4,), (100,),
             lambda xp: (xp.asarray(np.arange(400, dtype=np.int32)), _zeros(xp, 400, np.int32), np.int32(390)),
             "same, n=390: the guard cuts the last block"),
    ]
    for stride in (1, 2, 4, 8, 32):
        cases.append(Case(f"copy_stride_{stride}", "ws_copy_strided", (16,), (256,),
                          lambda xp, s=stride: (_f32(xp, 4096 * s), _zeros(xp, 4096), np.int32(s)),
                          f"float copy, load stride {stride}"))
    cases += [
        Case("copy_float2", "ws_copy_float2", (16,), (256,),
             lambda xp: (_f32(xp, 8192), _zeros(xp, 8192)), "64-bit coalesced load/store"),
        Case("copy_float4", "ws_copy_float4", (16,), (256,),
             lambda xp: (_f32(xp, 16384), _zeros(xp, 16384), np.int32(1)), "128-bit coalesced load/store"),
        Case("copy_float4_stride_2", "ws_copy_float4", (16,), (256,),
             lambda xp: (_f32(xp, 32768), _zeros(xp, 16384), np.int32(2)), "128-bit load, stride 2"),
        Case("copy_byte", "ws_copy_byte", (16,), (256,),
             lambda xp: (xp.asarray(np.arange(4096, dtype=np.uint8)), _zeros(xp, 4096, np.uint8)),
             "8-bit coalesced load/store"),
        Case("transpose_naive", "ws_transpose_naive", (8, 8), (32, 8),
             lambda xp: (_f32(xp, N_TRANSPOSE * N_TRANSPOSE), _zeros(xp, N_TRANSPOSE * N_TRANSPOSE),
                         np.int32(N_TRANSPOSE)), "32x32 tile read column-wise: 32-way conflict"),
        Case("transpose_padded", "ws_transpose_padded", (8, 8), (32, 8),
             lambda xp: (_f32(xp, N_TRANSPOSE * N_TRANSPOSE), _zeros(xp, N_TRANSPOSE * N_TRANSPOSE),
                         np.int32(N_TRANSPOSE)), "32x33 tile: no conflict"),
    ]
    for stride in (1, 2, 4):
        cases.append(Case(f"shared_float2_stride_{stride}", "ws_shared_float2", (4,), (32,),
                          lambda xp, s=stride: (_f32(xp, 4 * 256 * 2), _zeros(xp, 4 * 32 * 2), np.int32(s)),
                          f"64-bit shared accesses, stride {stride}"))
    for stride in (1, 2):
        cases.append(Case(f"shared_float4_stride_{stride}", "ws_shared_float4", (4,), (32,),
                          lambda xp, s=stride: (_f32(xp, 4 * 256 * 4), _zeros(xp, 4 * 32 * 4), np.int32(s)),
                          f"128-bit shared accesses, stride {stride}"))
    cases.append(Case("shared_broadcast", "ws_shared_broadcast", (4,), (32,),
                      lambda xp: (_f32(xp, 256), _zeros(xp, 128)), "broadcast word, then 2-way conflict"))
    return cases


CASES = _cases()


def run_all(xp, on_launch=None) -> None:
    """Every launch of CASES with module `xp` (cupy or warpsim); on_launch(case) after each."""
    with open(KERNELS) as handle:
        source = handle.read()
    module = xp.RawModule(code=source)
    for case in CASES:
        args = case.args(xp)
        module.get_function(case.kernel)(case.grid, case.block, args, shared_mem=case.shared_mem)
        if on_launch is not None:
            on_launch(case)
