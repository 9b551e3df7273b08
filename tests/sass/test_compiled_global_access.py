"""LDG and STG as machine code (sass/compiled/global_access.py) give the NumPy steps' bytes and counts.

Kernels with loads and stores of every width (1 and 2 bytes signed and unsigned, 4, 8, 16), guarded
and in scattered groups, and many lanes storing to one word, run profiled at SASS level (the SASS run
alone) on the NumPy steps (engine='numpy') and with machine code; outputs must match a NumPy
reference and each other, every counter must be equal, and the machine-code path must have run. An
access out of bounds faults with the same message both ways (the machine code hands it to the step).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass.compiled import global_access

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void widths(const unsigned char* b, const signed char* sb, const unsigned short* h,
                                  const short* sh, const int* w, const long long* d, const int4* q,
                                  int* out32, long long* out64, int4* out128, unsigned char* out8,
                                  short* out16) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = w[i];
    int s16;                                    // ptxas loads a short as .U16 and widens it: ask for .S16
    asm volatile("ld.global.s16 %0, [%1];" : "=r"(s16) : "l"(sh + i));
    out32[i] = (int)b[i] + (int)sb[i] * 3 + (int)h[i] * 5 + s16 * 7 + v;
    out64[i] = d[i] * 3 + v;
    int4 e = q[i];
    out128[i] = make_int4(e.w, e.x + 1, e.y, e.z ^ v);
    out8[i] = (unsigned char)(v >> 3);
    out16[i] = (short)(v >> 5);
}
extern "C" __global__ void scattered(const int* x, int* out, int* last) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    if (v & 1) {
        out[i] = v * 3 + 1;
    } else {
        int k = 0;
        for (int t = 0; t < (v & 6); ++t) k += x[(i & ~63) | ((v >> t) & 63)];
        out[i] = k;
    }
    last[i >> 3] = i;
}
extern "C" __global__ void beyond(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = x[i + n];
}
"""

N = 4096


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def _run(module, kernel, arrays, scalars, engine, monkeypatch):
    """(the arrays after the launch, its profile, accesses the machine code ran)."""
    ran = []
    original = global_access.GlobalAccess.run

    def counted(self, st, g):
        done = original(self, st, g)
        ran.append(done)
        return done
    monkeypatch.setattr(global_access.GlobalAccess, "run", counted)
    device = [cp.asarray(a) for a in arrays]
    with cp.settings(engine=engine, sass_verify=False), cp.profile() as prof:
        module.get_function(kernel)((N // 128,), (128,), tuple(device) + tuple(scalars))
    launch = prof.launches[0]
    assert launch.execution == "sass", launch.execution_note
    return [d.get() for d in device], launch, sum(ran)


def _both(module, kernel, arrays, scalars, monkeypatch):
    found = {}
    for engine in ("numpy", "compiled"):
        found[engine] = _run(module, kernel, arrays, scalars, engine, monkeypatch)
    (numpy_out, numpy_launch, numpy_ran), (out, launch, ran) = found["numpy"], found["compiled"]
    assert numpy_ran == 0 and ran > 0
    for a, b in zip(numpy_out, out):
        assert a.tobytes() == b.tobytes()
    assert launch.metrics == numpy_launch.metrics
    assert launch.sass_counts == numpy_launch.sass_counts
    return out


def test_every_width_loads_and_stores_as_the_numpy_steps_do(module, monkeypatch):
    rng = np.random.default_rng(31)
    b = rng.integers(0, 256, N).astype(np.uint8)
    sb = rng.integers(-128, 128, N).astype(np.int8)
    h = rng.integers(0, 65536, N).astype(np.uint16)
    sh = rng.integers(-32768, 32768, N).astype(np.int16)
    w = rng.integers(-2**31, 2**31, N).astype(np.int32)
    d = rng.integers(-2**62, 2**62, N).astype(np.int64)
    q = rng.integers(-2**31, 2**31, (N, 4)).astype(np.int32)
    outs = [np.zeros(N, np.int32), np.zeros(N, np.int64), np.zeros((N, 4), np.int32), np.zeros(N, np.uint8),
            np.zeros(N, np.int16)]
    out32, out64, out128, out8, out16 = _both(module, "widths", [b, sb, h, sh, w, d, q] + outs, (), monkeypatch)[7:]
    with np.errstate(over="ignore"):
        wide = w.astype(np.int64)
        np.testing.assert_array_equal(out32, (b.astype(np.int64) + sb.astype(np.int64) * 3 + h.astype(np.int64) * 5
                                       + sh.astype(np.int64) * 7 + wide)
                                      .astype(np.int32))
        np.testing.assert_array_equal(out64, d * 3 + wide)
        expected = np.stack([q[:, 3], (q[:, 0].astype(np.int64) + 1).astype(np.int32), q[:, 1], q[:, 2] ^ w], axis=1)
    np.testing.assert_array_equal(out128, expected)
    np.testing.assert_array_equal(out8, (w >> 3).astype(np.uint8))
    np.testing.assert_array_equal(out16, (w >> 5).astype(np.int16))


def test_scattered_groups_and_shared_words_as_the_numpy_steps_do(module, monkeypatch):
    rng = np.random.default_rng(32)
    x = rng.integers(-2**31, 2**31, N).astype(np.int32)
    out, last = _both(module, "scattered", [x, np.zeros(N, np.int32), np.zeros(N // 8, np.int32)], (),
                      monkeypatch)[1:]
    expected = np.empty(N, dtype=np.int64)
    for i, v in enumerate(int(v) for v in x):
        if v & 1:
            expected[i] = v * 3 + 1
        else:
            expected[i] = sum(int(x[(i & ~63) | ((v >> t) & 63)]) for t in range(v & 6))
    np.testing.assert_array_equal(out, ((expected + 2**31) % 2**32 - 2**31).astype(np.int32))
    np.testing.assert_array_equal(last, np.arange(N // 8) * 8 + 7)     # the last lane of each eight wins


def test_an_access_out_of_bounds_faults_as_the_numpy_step_says(module, monkeypatch):
    x = np.arange(N, dtype=np.int32)
    messages = {}
    for engine in ("numpy", "compiled"):
        with pytest.raises(cp.WarpsimError) as raised:
            _run(module, "beyond", [x, np.zeros(N, np.int32)], (np.int32(7),), engine, monkeypatch)
        messages[engine] = re.sub(r"0x[0-9a-f]{12}", "ADDRESS", str(raised.value))  # each run's allocations
    assert "out-of-bounds" in messages["numpy"] and "block" in messages["numpy"]
    assert messages["numpy"] == messages["compiled"]
    ok, _, _ = _run(module, "beyond", [x, np.zeros(N, np.int32)], (np.int32(0),), "compiled", monkeypatch)
    np.testing.assert_array_equal(ok[1], x)
