"""SASS executor bugs that whole programs exposed under verification, each with a kernel of its own.

The programs' kernels were profiled with `WARPSIM_SASS_VERIFY=1` (docs/sass.md, "A sweep of
whole programs"); every launch whose SASS run differed from its PTX run, or stopped where the
PTX run did not, gave one test here: the kernel runs on the PTX machine with the SASS beside it
(warpsim.sass.replay), the two must write the same bytes, and the output must match NumPy. Each
test first checks that ptxas really emitted the SASS form it is about.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.memory import GLOBAL_BASE
from warpsim.runtime.context import GPU_PAGE_BYTES
from warpsim.sass import sass_of
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
#include <cuda_fp16.h>
extern "C" __global__ void past_the_end(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;     // one lane per CTA stores past the end
    out[i] = in[i] + 1;
    if (threadIdx.x == 0) out[n + blockIdx.x] = 7;
}
extern "C" __global__ void read_past_the_heap(const int* in, int* out, int* past, long long skip) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;     // in[skip + i]: past the heap's top
    out[i] = in[i] + 1;
    past[i] = in[skip + i];
}
extern "C" __global__ void subtract_shifted(const unsigned long long* n, const unsigned long long* x,
                                             unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = n[i] - (x[i] << 30);                      // LEA R8, P0, -R4, R2, 0x1e; IADD3.X R9, R3, ~R9, RZ, P0
}
extern "C" __global__ void dependent_grid(const float* x, float* y) {
    asm volatile("griddepcontrol.wait;" ::: "memory");        // ACQBULK: the previous grid's writes
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * 3.0f - 1.0f;
    asm volatile("griddepcontrol.launch_dependents;");         // PREEXIT
}
extern "C" __global__ void add_then_min_max(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i], y = b[i], z = c[i];
    o[8 * i + 0] = __vadd2(x, y);                               // VIADD.16x2
    o[8 * i + 1] = __viaddmax_s16x2(x, y, z);                   // VIADDMNMX.S16x2 ..., !PT
    o[8 * i + 2] = __viaddmin_u16x2(x, y, z);                   // VIADDMNMX.U16x2 ..., PT
    o[8 * i + 3] = __viaddmax_s16x2_relu(x, y, z);              // VIADDMNMX.S16x2.RELU
    o[8 * i + 4] = __viaddmin_s32_relu((int)x, (int)y, (int)z); // VIADDMNMX.RELU
    o[8 * i + 5] = __viaddmax_u16x2(x, y, z);
    o[8 * i + 6] = __viaddmin_s16x2_relu(x, y, z);
    o[8 * i + 7] = __viaddmax_s32_relu((int)x, (int)y, (int)z);
}
extern "C" __global__ void lane_difference(const unsigned* a, unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i], y = x + ((i % 2) ? 1 : -1);              // the high lanes equal, as intrinsics-simd's
    o[i] = __vsub2(x, y);                                       // VIADD.16x2 R9, R4, -R13
}
extern "C" __global__ void min_max_of_three(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i], y = b[i], z = c[i];
    o[4 * i + 0] = __vimax3_s16x2(x, y, z);                     // VIMNMX3.S16x2
    o[4 * i + 1] = __vimin3_u16x2(x, y, z);                     // VIMNMX3.U16x2
    o[4 * i + 2] = __vimax3_s16x2_relu(x, y, z);                // VIMNMX3.S16x2.RELU
    o[4 * i + 3] = __vimin3_s32_relu((int)x, (int)y, (int)z);   // VIMNMX3.RELU
}
extern "C" __global__ void half_magnitudes(const __half* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half v = x[i];
    int r = 0;
    if (__habs(v) > __float2half(0.f)) r |= 1;            // HSETP2.GT.AND P0, PT, |R2|.reuse.H0_H0, RZ.H0_H0, PT
    if (__habs(v) >= __float2half(8.5e-6f)) r |= 2;       // HSETP2.GE.AND ..., |R2|.H0_H0, 8.52e-06, 8.52e-06, PT
    if (!(__habs(v) < __float2half(0.25f))) r |= 4;       // HSETP2.GEU.AND
    out[i] = r;
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def run_beside(module, name, grid, block, args):
    """Launch on the PTX machine with a SASS run beside it; the replay's outcome."""
    with ReplayRequest() as request:
        module.get_function(name)(grid, block, args)
        (launch, replay), = request._replays.values()
        return replay.outcome()


def sass(module, name):
    return sass_of(module.get_function(name).loaded_module).kernel(name).instructions


def test_a_store_past_the_end_inside_the_mapped_pages(module, monkeypatch, capfd):
    """histogram's histogram_gmem_accum stores one word past its output (`STG.E desc[UR4][R2.64]`):
    in a whole program the GPU maps device memory in 2 MiB pages and does not fault there, nor does
    the PTX machine (a warning); the SASS run faulted, so the profile fell back to PTX counts, and
    with the SASS run alone (the default) the launch failed."""
    assert any(ins.opcode == "STG" for ins in sass(module, "past_the_end"))
    memory = module.get_function("past_the_end").loaded_module.device.memory
    monkeypatch.setattr(memory, "mapped_page_bytes", GPU_PAGE_BYTES)     # as runtime/context.py does
    x = np.arange(256, dtype=np.int32)
    out = cp.zeros(256, dtype=np.int32)
    outcome = run_beside(module, "past_the_end", (4,), (64,), (cp.asarray(x), out, np.int32(256)))
    assert outcome.level == "sass", outcome.note
    np.testing.assert_array_equal(out.get(), x + 1)
    assert "A GPU does not fault here" in capfd.readouterr().err


def test_a_load_past_the_heaps_top_inside_the_mapped_pages(module, monkeypatch):
    """HeCBench sortKV: cub's DeviceRadixSortHistogramKernel reads whole tiles past the end of its
    keys (LDG.E R26, desc[UR24][R18.64]), the program's last allocation. The PTX run reads the
    bytes there (mapped pages); the SASS run beside it ran on a copy of the heap cut at its top, so
    it faulted ('4865 bytes past the end of the 60927-byte allocation') and the launch fell back.
    The copy now reaches the end of the top's mapped page."""
    assert any(ins.opcode == "LDG" for ins in sass(module, "read_past_the_heap"))
    memory = module.get_function("read_past_the_heap").loaded_module.device.memory
    monkeypatch.setattr(memory, "mapped_page_bytes", GPU_PAGE_BYTES)
    out, past = cp.zeros(256, dtype=np.int32), cp.zeros(256, dtype=np.int32)
    x = cp.asarray(np.arange(256, dtype=np.int32))
    top = GLOBAL_BASE + memory.top
    skip = (top - int(x.data.ptr)) // 4 + 16                           # 64 bytes past the top, 1 KB read
    assert (memory.top + 64 + 1024) <= -(-memory.top // GPU_PAGE_BYTES) * GPU_PAGE_BYTES <= len(memory.buffer)
    outcome = run_beside(module, "read_past_the_heap", (2,), (128,), (x, out, past, np.int64(skip)))
    assert outcome.level == "sass", outcome.note
    np.testing.assert_array_equal(out.get(), np.arange(256) + 1)


def test_grid_dependency_control_runs(module):
    """CUB's sm_90 kernels (HeCBench sortKV, nosync: DeviceScanKernel, DeviceRadixSort*) begin with
    ACQBULK and end with PREEXIT (programmatic dependent launch); the executor did not know them, so
    every such launch fell back to PTX counts. Grids of a stream run one after another in warpsim,
    so both have nothing to do."""
    opcodes = {ins.opcode for ins in sass(module, "dependent_grid")}
    assert {"ACQBULK", "PREEXIT"} <= opcodes
    x = np.random.default_rng(3).random(256, dtype=np.float32)
    y = cp.zeros(256, dtype=np.float32)
    outcome = run_beside(module, "dependent_grid", (2,), (128,), (cp.asarray(x), y))
    assert outcome.level == "sass", outcome.note
    np.testing.assert_array_equal(y.get(), (x.astype(np.float64) * 3.0 - 1.0).astype(np.float32))   # one FFMA


def halves(words, signed: bool) -> np.ndarray:
    return words.view(np.int16 if signed else np.uint16).reshape(-1, 2).astype(np.int64)


def packed(lanes) -> np.ndarray:
    return (lanes & 0xFFFF).astype(np.uint16).reshape(-1).view(np.uint32)


def test_packed_and_relu_add_then_min_max(module):
    """HeCBench intrinsics-simd (kernel simd_intrinsics) fell back to PTX counts: the executor knew
    VIADD and VIADDMNMX only in their 32-bit forms without .RELU. The sums wrap in each 16-bit lane."""
    forms = {ins.full_opcode for ins in sass(module, "add_then_min_max")}
    assert {"VIADD.16x2", "VIADDMNMX.S16x2", "VIADDMNMX.U16x2", "VIADDMNMX.S16x2.RELU", "VIADDMNMX.RELU"} <= forms
    rng = np.random.default_rng(11)
    n = 256
    a, b, c = (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    a[:8] = [0x7FFF7FFF, 0xFFFF8000, 0, 0x80000000, 0x7FFFFFFF, 1, 0xFFFFFFFF, 0x00018001]   # wrap at each lane
    out = cp.zeros(8 * n, dtype=np.uint32)
    outcome = run_beside(module, "add_then_min_max", (2,), (128,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), out))
    assert outcome.level == "sass", outcome.note
    got = out.get().reshape(n, 8)

    def sum_then(signed, pick, relu=False):
        total = halves(packed(halves(a, False) + halves(b, False)), signed)
        result = pick(total, halves(c, signed))
        return packed(np.maximum(result, 0) if relu else result)

    def sum32_then(pick):
        total = (a.astype(np.int64) + b.astype(np.int64)) & 0xFFFFFFFF
        signed = lambda w: np.asarray(w, dtype=np.uint64).astype(np.uint32).view(np.int32).astype(np.int64)
        return np.maximum(pick(signed(total), signed(c)), 0).astype(np.uint32)

    expected = [packed(halves(a, False) + halves(b, False)), sum_then(True, np.maximum),
                sum_then(False, np.minimum), sum_then(True, np.maximum, True), sum32_then(np.minimum),
                sum_then(False, np.maximum), sum_then(True, np.minimum, True), sum32_then(np.maximum)]
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(got[:, k], want, err_msg=f"output {k}")


def test_packed_and_relu_min_max_of_three(module):
    """intrinsics-simd again, once VIADDMNMX ran: VIMNMX3 was known only in its 32-bit forms without .RELU."""
    forms = {ins.full_opcode for ins in sass(module, "min_max_of_three")}
    assert {"VIMNMX3.S16x2", "VIMNMX3.U16x2", "VIMNMX3.S16x2.RELU", "VIMNMX3.RELU"} <= forms
    rng = np.random.default_rng(12)
    n = 256
    a, b, c = (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    out = cp.zeros(4 * n, dtype=np.uint32)
    outcome = run_beside(module, "min_max_of_three", (2,), (128,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), out))
    assert outcome.level == "sass", outcome.note
    got = out.get().reshape(n, 4)
    three = lambda signed: np.stack([halves(w, signed) for w in (a, b, c)])
    words = np.stack([a, b, c]).view(np.int32).astype(np.int64)
    expected = [packed(three(True).max(axis=0)), packed(three(False).min(axis=0)),
                packed(np.maximum(three(True).max(axis=0), 0)), np.maximum(words.min(axis=0), 0).astype(np.uint32)]
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(got[:, k], want, err_msg=f"output {k}")


def test_a_negated_operand_of_a_packed_add_negates_each_lane(module):
    """intrinsics-simd, once VIADD.16x2 ran, differed in 199,998 bytes: __vsub2 is `VIADD.16x2 R9, R4,
    -R13`, and the operand reader negated the 32-bit word, so the low lane's borrow reached the high
    lane (a - (a + 1) gave 0xffffffff, not 0x0000ffff). Each 16-bit lane is negated alone now."""
    assert any(ins.full_opcode == "VIADD.16x2" and any(op.negate for op in ins.operands)
               for ins in sass(module, "lane_difference"))
    x = np.random.default_rng(13).integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    out = cp.zeros(256, dtype=np.uint32)
    outcome = run_beside(module, "lane_difference", (2,), (128,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    y = x + np.where(np.arange(256) % 2 == 1, 1, 0xFFFFFFFF).astype(np.uint32)
    np.testing.assert_array_equal(out.get(), packed(halves(x, False) - halves(y, False)))


def test_the_carry_of_lea_with_a_negated_operand(module):
    """HeCBench sortKV, once ACQBULK ran: cub's DeviceRadixSortHistogramKernel computes the items left,
    num_items - (pass << 30), as `ULEA UR6, UP0, -UR4, UR18, 0x1e` and `UIADD3.X UR12, ~UR12, UR19,
    URZ, UP0`. The executor took -a as (-a) << s, whose sum is right but whose carry-out is not b -
    (a << s)'s: with a = 0 it gave no carry, the high word came out 0xffffffff, every CTA past the
    keys took a full tile, and block 256 faulted 2 MiB past them (the SASS run alone, the default
    profile, stopped the program with cudaErrorIllegalAddress). -a enters the adder as ~(a << s) + 1,
    on the NumPy steps and the compiled tier alike."""
    assert any(ins.opcode == "LEA" and ins.operands[2].negate for ins in sass(module, "subtract_shifted"))
    rng = np.random.default_rng(14)
    n = rng.integers(0, 2**63, 256, dtype=np.uint64)
    x = rng.integers(0, 2**34, 256, dtype=np.uint64)
    x[::4] = 0                                          # (x << 30)'s low word 0: the carry the bug lost
    x[1::8] = 4                                         # the low word 0 again, the high word not
    out = cp.zeros(256, dtype=np.uint64)
    outcome = run_beside(module, "subtract_shifted", (2,), (128,), (cp.asarray(n), cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    np.testing.assert_array_equal(out.get(), n - (x << np.uint64(30)))


def test_half_compares_of_a_magnitude_and_of_an_immediate_pair(module):
    """nlll's half-precision kernels compare |x| with 0 and with a constant: `|R2|.H0_H0` (an absolute
    value with its half swizzle after the bars, which the operand parser did not read) and a second
    source of two immediates (HSETP2 of six operands); both fell back to PTX counts."""
    forms = [ins for ins in sass(module, "half_magnitudes") if ins.opcode == "HSETP2"]
    assert any(op.absolute and op.suffixes == ("H0_H0",) for ins in forms for op in ins.operands)
    assert any(len(ins.operands) == 6 for ins in forms)
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(512) * np.where(rng.random(512) < 0.3, 1e-5, 0.5)).astype(np.float16)
    x[:6] = [0.0, -0.0, np.nan, -np.inf, 8.5e-6, -0.25]
    out = cp.zeros(512, dtype=np.int32)
    outcome = run_beside(module, "half_magnitudes", (2,), (256,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    a = np.abs(x.astype(np.float32))
    want = (a > 0) * 1 | (a >= np.float32(np.float16(8.5e-6))) * 2 | ~(a < 0.25) * 4
    np.testing.assert_array_equal(out.get(), want.astype(np.int32))
