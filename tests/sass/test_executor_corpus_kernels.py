"""Kernels of tests/kernels whose SASS run used to differ from the PTX run or fault, profiled at
SASS level: each launch must stay at level 'sass' (the SASS run wrote the PTX run's bytes) and
every output must match NumPy.

- half_and_bfloat: `F2F.F16.F32.RM/.RP` and `HADD2.F32` (cvt.f32.f16) of a NaN write the H200's
  canonical NaNs (0x7fff, 0x7fffffff; tests/machine/conformance/h200.npz), as the PTX machine does.
- warp_reduce: cub's 16-lane WarpReduce is `WARPSYNC.EXCLUSIVE mask` + `REDUX.SUM`; the REDUX
  reduces over each mask's lanes, not the whole warp.
- math_f64: sin/cos read libdevice's tables through addresses in constant bank 4
  (`LDC.64 R28, c[0x4][RZ]`), which the driver fills from `.rela.nv.constant4`.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import warpsim as cp
from warpsim.profiler import Profiler

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

KERNELS = pathlib.Path(__file__).parents[1] / "kernels"
RNG = np.random.default_rng(20261202)


def corpus_module(filename: str):
    """tests/kernels/<filename> as the corpus compiles it (NVRTC's defaults, no -ftz)."""
    from warpsim.frontends.nvrtc import compile_cuda
    path = KERNELS / filename
    return cp.RawModule(ptx=compile_cuda(path.read_text(), (f"-I{KERNELS}",), name=str(path)).ptx)


def profile_at_sass_level(function, grid, block, args):
    with Profiler(level="sass") as profiler:
        function(grid, block, args)
    launch = profiler[0]
    assert launch.level == "sass", launch.level_note
    return launch


def nan_filled(shape, dtype):
    return cp.asarray(np.full(shape, np.nan, dtype=dtype))


def test_half_and_bfloat_nans_as_the_h200_writes_them():
    n = 256
    x = (RNG.standard_normal(n) * np.exp2(RNG.integers(-20, 18, n))).astype(np.float32)
    x.view(np.uint32)[:6] = [0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FC12345, 0x7F800000, 0xFF800000]
    bits = cp.asarray(np.full(6 * n, 0x5A5A, dtype=np.uint16))
    back = nan_filled(3 * n, np.float32)
    function = corpus_module("conversions.cu").get_function("half_and_bfloat")
    profile_at_sass_level(function, (n // 128,), (128,), (cp.asarray(x), bits, back, np.int32(n)))
    got, floats = bits.get().reshape(6, n), back.get().reshape(3, n).view(np.uint32)

    nan = np.isnan(x)
    wide = x.astype(np.float64)
    nearest = x.astype(np.float16)
    down = np.where(nearest.astype(np.float64) > wide, np.nextafter(nearest, np.float16(-np.inf)), nearest)
    up = np.where(nearest.astype(np.float64) < wide, np.nextafter(nearest, np.float16(np.inf)), nearest)
    toward_zero = np.where(wide >= 0, down, up)
    for row, expected in enumerate((nearest, toward_zero, down, up)):
        want = np.where(nan, np.uint16(0x7FFF), expected.view(np.uint16))
        np.testing.assert_array_equal(got[row], want, err_msg=f"f16 row {row}")
    raw = x.view(np.uint32)
    bf16_nearest = ((raw + np.uint32(0x7FFF) + ((raw >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))
    bf16 = [np.where(nan, 0x7FFF, bf16_nearest).astype(np.uint16),
            np.where(nan, 0x7FFF, raw >> np.uint32(16)).astype(np.uint16)]
    np.testing.assert_array_equal(got[4], bf16[0])
    np.testing.assert_array_equal(got[5], bf16[1])

    def f32_bits(halves):
        return np.where(np.isnan(halves), np.uint32(0x7FFFFFFF), halves.astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(floats[0], f32_bits(nearest))
    np.testing.assert_array_equal(floats[1], bf16[0].astype(np.uint32) << np.uint32(16))
    np.testing.assert_array_equal(floats[2], f32_bits((nearest.astype(np.float32) + 1).astype(np.float16)))


def test_cub_warp_reduce_over_16_lane_logical_warps():
    threads, blocks = 128, 2
    n = blocks * threads - 20                              # the last warp is partly past n
    x = (RNG.integers(-1000, 1000, n) * 0.5).astype(np.float32)
    sums = nan_filled(blocks * threads // 32, np.float32)
    odd = cp.asarray(np.full(blocks * threads // 16, -7, dtype=np.int32))
    function = corpus_module("cub_collectives.cu").get_function("warp_reduce")
    profile_at_sass_level(function, (blocks,), (threads,), (cp.asarray(x), sums, odd, np.int32(n)))
    padded = np.zeros(blocks * threads, np.float32)
    padded[:n] = x
    np.testing.assert_array_equal(sums.get(), padded.reshape(-1, 32).sum(axis=1))
    index = np.arange(blocks * threads)
    np.testing.assert_array_equal(odd.get(), ((index < n) & (index % 2 == 1)).reshape(-1, 16).sum(axis=1))


def test_f64_math_reads_global_tables_through_bank_4():
    n = 128
    a = RNG.uniform(-300, 300, n)
    a[:6] = [1e6, -3.5e7, 1e15, -2.5e22, 0.5, 1e-3]     # large: the Payne-Hanek reduction's table too
    b = RNG.uniform(-30, 30, n)
    c = RNG.standard_normal(n) * 100
    out = nan_filled(10 * n, np.float64)
    function = corpus_module("math_functions.cu").get_function("math_f64")
    profile_at_sass_level(function, (1,), (n,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), out, np.int32(n)))
    got = out.get().reshape(10, n)
    assert not np.isnan(got).any()
    np.testing.assert_array_equal(got[0], np.sqrt(np.abs(a)))
    np.testing.assert_array_equal(got[1], a / b)
    np.testing.assert_array_equal(got[8], (a + c) * (b * 3.0))
    reference = [a * b + c, np.exp(a * 0.01), np.log(np.abs(a)), np.sin(a), np.cos(b),
                 (np.abs(a) * 0.01 + 0.5) ** (b * 0.1), 1 / np.sqrt(np.abs(a) + 1)]
    np.testing.assert_allclose(got[[2, 3, 4, 5, 6, 7, 9]], np.stack(reference), rtol=1e-13, atol=1e-300)
