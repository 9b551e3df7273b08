"""sm_90's asynchronous pipeline at SASS level: mbarriers (SYNCS.*), ELECT and TMA copies (UTMALDG/UTMASTG).

Triton's TMA matmul at small sizes.

Each launch runs under the profiler at level 'sass', whose replay compares the
SASS run's heap with the PTX run's byte for byte; the results are checked
against NumPy.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_for_ptx

pytestmark = [pytest.mark.sass]

@pytest.mark.slow
@pytest.mark.parametrize("shape, blocks, warps", [((100, 72, 80), (64, 64, 64), 4),
                                                  ((64, 96, 48), (64, 32, 16), 4)], ids=["edges-128B", "32B"])
def test_triton_tma_matmul_runs_at_sass_level(shape, blocks, warps):
    pytest.importorskip("triton")
    import triton
    from warpsim.api import triton as wt
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontends"))
    from triton_kernels import matmul_tma_kernel
    rng = np.random.default_rng(7)
    (m, n, k), (bm, bn, bk) = shape, blocks
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    descs = [wt.tensor_descriptor(a, [bm, bk]), wt.tensor_descriptor(b, [bk, bn]), wt.tensor_descriptor(c, [bm, bn])]
    with cp.settings(gpu="h200"), cp.profile() as prof:
        compiled = wt.launch(matmul_tma_kernel, (triton.cdiv(m, bm), triton.cdiv(n, bn)), *descs, k, BLOCK_M=bm,
                             BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, arch=90)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    sass = sass_for_ptx(compiled.ptx, "sm_90a").kernel(compiled.name)
    for opcode in ("UTMALDG", "UTMASTG", "SYNCS", "ELECT"):
        offsets = [ins.offset for ins in sass.instructions if ins.opcode == opcode]
        assert offsets and any(launch.sass_counts.get(o, 0) > 0 for o in offsets), opcode
    np.testing.assert_allclose(c.astype(np.float64), a.astype(np.float64) @ b, rtol=4e-3, atol=2e-2)


def _triton_matmul_at_sass_level(kernel_name, grid, shape, **meta):
    """A Triton TMA matmul of fp16 tensors under a SASS-level profile: (level, note, c, a @ b)."""
    pytest.importorskip("triton")
    from warpsim.api import triton as wt
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontends"))
    import triton_kernels
    rng = np.random.default_rng(11)
    m, n, k = shape
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    descs = [wt.tensor_descriptor(t, [64, 64]) for t in (a, b, c)]
    with cp.settings(gpu="h200"), cp.profile() as prof:
        wt.launch(getattr(triton_kernels, kernel_name), grid, *descs, *meta.pop("scalars"), BLOCK_M=64, BLOCK_N=64,
                  BLOCK_K=64, num_warps=4, num_stages=3, arch=90, **meta)
    launch = prof.launches[-1]
    return launch.level, launch.level_note, c, a.astype(np.float64) @ b


@pytest.mark.slow
def test_triton_warp_specialized_matmul_runs_at_sass_level():
    """Producer and consumer warpgroups hand stages over through mbarriers whose waits alternate parity:
    the producer's first wait (parity 1, bit 31 of the SYNCS.PHASECHK operand) passes at once."""
    level, note, c, want = _triton_matmul_at_sass_level("matmul_tma_warp_specialized", (2, 2), (128, 128, 128),
                                                        scalars=(128,))
    assert level == "sass", note
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=4e-3, atol=2e-2)


@pytest.mark.slow
def test_triton_persistent_matmul_runs_at_sass_level():
    """Three programs loop over nine tiles, each stage's mbarrier going through several phases."""
    level, note, c, want = _triton_matmul_at_sass_level("matmul_tma_persistent", (3,), (150, 136, 104),
                                                        scalars=(150, 136, 104), NUM_PROGRAMS=3)
    assert level == "sass", note
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=4e-3, atol=2e-2)


@pytest.mark.slow
def test_triton_matmul_with_descriptors_made_in_the_kernel_runs_at_sass_level():
    """tl.make_tensor_descriptor: ptxas's stores of the tensormap.replace fields write the GPU's layout,
    which UTMALDG reads back from global memory (semantics.tensor_maps)."""
    pytest.importorskip("triton")
    import triton
    from warpsim.api import triton as wt
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontends"))
    from triton_kernels import matmul_device_descriptors
    rng = np.random.default_rng(13)
    m, n, k = 100, 72, 80
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    with cp.settings(gpu="h200"), cp.profile() as prof:
        wt.launch(matmul_device_descriptors, (triton.cdiv(m, 64), triton.cdiv(n, 64)), a, b, c, m, n, k,
                  BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, num_warps=4, arch=90)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    np.testing.assert_allclose(c.astype(np.float64), a.astype(np.float64) @ b, rtol=4e-3, atol=2e-2)


CONSTANT_MAP_KERNEL = r"""
__constant__ float scale_table[40];                       // bank 3 holds this first: the map is not at 0
__constant__ __align__(64) unsigned char box_map[128];
extern "C" __global__ void box_through_constant_map(unsigned short* out, int row) {
    __shared__ __align__(8) unsigned long long bar;
    extern __shared__ __align__(1024) unsigned short box[];  // ptxas pads the static bytes to 1024
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("{\n.reg .b64 s;\nmbarrier.arrive.expect_tx.shared::cta.b64 s, [%0], %1;\n}"
                     :: "r"(b), "r"(64 * 16 * 2) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[%0], [%1, {%2, %3}], [%4];"
                     :: "r"((unsigned)__cvta_generic_to_shared(box)), "l"(box_map), "r"(0), "r"(row), "r"(b)
                     : "memory");
    }
    __syncthreads();
    asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}"
                 :: "r"(b) : "memory");
    for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) out[i] = box[i] + (unsigned short)scale_table[0];
}
"""


def test_a_tensor_map_in_constant_memory_loads_its_box_at_sass_level():
    """A __constant__ tensor map is named by its address: ptxas reads constant bank 3's place in device
    memory from c[0x0][0xd0] and adds the map's offset. The box lands in dynamic shared memory aligned
    to 1024 bytes, past the static bytes ptxas padded to that alignment (more than the PTX declares)."""
    from warpsim.machine.isa.bulk_copy import encode_tiled
    rng = np.random.default_rng(21)
    source = cp.asarray(rng.integers(0, 1 << 15, (256, 64), dtype=np.uint16))
    mod = cp.RawModule(code=CONSTANT_MAP_KERNEL)
    kernel = mod.get_function("box_through_constant_map")
    words = np.frombuffer(encode_tiled(source.data.ptr, 2, [64, 256], [128], [64, 16]), dtype=np.uint32).copy()
    mod.get_global("box_map").copy_from_host(words.ctypes.data, words.nbytes)
    table = np.full(40, 3.0, np.float32)
    mod.get_global("scale_table").copy_from_host(table.ctypes.data, table.nbytes)
    out = cp.zeros(64 * 16, dtype=np.uint16)
    with cp.profile(level="sass") as prof:
        kernel((1,), (128,), (out, np.int32(48)), shared_mem=64 * 16 * 2)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    np.testing.assert_array_equal(out.get(), (source.get()[48:64] + 3).ravel())
