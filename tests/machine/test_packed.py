"""SIMD-within-a-register: 16x2 integer arithmetic and the video instructions behind __v*4."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.isa.evaluate import evaluate

SIMD = r"""
extern "C" __global__ void simd(const unsigned* a, const unsigned* b, unsigned* out) {
    int i = threadIdx.x;
    unsigned x = a[i], y = b[i];
    out[8*i+0] = __vadd2(x, y);
    out[8*i+1] = __vabsdiffu4(x, y);
    out[8*i+2] = __vcmpeq4(x, y);
    out[8*i+3] = __vmaxu2(x, y);
    out[8*i+4] = __vmins2(x, y);
    out[8*i+5] = __vsub4(x, y);
    out[8*i+6] = __vavgu4(x, y);
    out[8*i+7] = __sad((int)x, (int)y, 3u) + __vsads4(x, y);
}
"""


def lanes(v, width, signed=False):
    values = [(int(v) >> (width * k)) & ((1 << width) - 1) for k in range(32 // width)]
    return [x - (1 << width) if signed and x >= 1 << (width - 1) else x for x in values]


def pack(values, width):
    return sum((int(x) & ((1 << width) - 1)) << (width * k) for k, x in enumerate(values))


def reference(x, y):
    a2, b2, a4, b4 = lanes(x, 16), lanes(y, 16), lanes(x, 8), lanes(y, 8)
    s2a, s2b, s4a, s4b = lanes(x, 16, True), lanes(y, 16, True), lanes(x, 8, True), lanes(y, 8, True)
    return [pack([p + q for p, q in zip(a2, b2)], 16),
            pack([abs(p - q) for p, q in zip(a4, b4)], 8),
            pack([0xFF if p == q else 0 for p, q in zip(a4, b4)], 8),
            pack([max(p, q) for p, q in zip(a2, b2)], 16),
            pack([min(p, q) for p, q in zip(s2a, s2b)], 16),
            pack([p - q for p, q in zip(a4, b4)], 8),
            pack([(p + q + 1) >> 1 for p, q in zip(a4, b4)], 8),
            (abs(int(np.int32(np.uint32(x).view(np.int32))) - int(np.uint32(y).view(np.int32))) + 3
             + sum(abs(p - q) for p, q in zip(s4a, s4b))) & 0xFFFFFFFF]


@pytest.mark.nvrtc
def test_simd_intrinsics_match_a_lane_by_lane_reference():
    rng = np.random.default_rng(9)
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    a[::3] = b[::3] ^ 0x00FF0000                     # some equal bytes for __vcmpeq4
    out = cp.full(64 * 8, 0xDEADBEEF, dtype=cp.uint32)
    module = cp.RawModule(code=SIMD)
    assert "vabsdiff4" in module.ptx and "add.u16x2" in module.ptx
    module.get_function("simd")((1,), (64,), (cp.asarray(a), cp.asarray(b), out))
    got = out.get().reshape(64, 8)
    for i in range(64):
        assert got[i].tolist() == reference(a[i], b[i]), i


def test_16x2_relu_and_video_accumulate_forms():
    x = np.array([0x8000_7FFF], dtype=np.uint32)        # lanes (0x7FFF, -0x8000 as s16)
    y = np.array([0x0001_0001], dtype=np.uint32)
    assert evaluate("max.s16x2.relu", x, y)[0] == 0x0001_7FFF
    assert evaluate("add.s16x2", x, y)[0] == 0x8001_8000     # wraps per lane
    c = np.array([100], dtype=np.uint32)
    assert evaluate("vabsdiff4.u32.u32.u32.add", np.array([0x0A141E28], np.uint32),
                    np.array([0x05050505], np.uint32), c)[0] == 100 + 5 + 15 + 25 + 35
    assert evaluate("vadd4.u32.u32.u32.sat", np.array([0xF0F0F0F0], np.uint32),
                    np.array([0x20202020], np.uint32), c)[0] == 0xFFFFFFFF
