"""cvt.rzi.{s32,u32}.f32 in the compiled tier: the NumPy tier's integers for every float,
NaN, infinities, signed zeros, subnormals and the saturation edges included."""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.compiled.tier import report

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void to_int(const float* x, int* s, unsigned* u, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { s[i] = (int)x[i]; u[i] = (unsigned)x[i]; }
}
"""

EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.17e-38, 0.999999, -0.999999, 1.0,
                  -1.0, 2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0,
                  4294967296.0, 3e9, -3e9, 12345.678, -12345.678], dtype=np.float32)


@pytest.mark.parametrize("options", [(), ("--use_fast_math",)])
def test_compiled_truncation_matches_the_numpy_tier(options):
    kernel = cp.RawModule(code=SOURCE, options=options).get_function("to_int")
    assert any("cvt.rzi" in line for line in kernel.loaded_module.module.text.splitlines())
    rng = np.random.default_rng(7)
    spread = (rng.standard_normal(4096) * 10.0 ** rng.integers(-40, 11, 4096)).astype(np.float32)
    values = np.concatenate([EDGES, spread, rng.integers(0, 2**32, 4096, dtype=np.uint64)
                             .astype(np.uint32).view(np.float32)])
    x = cp.asarray(values)
    out = {}
    for engine in ("numpy", "compiled"):
        s, u = cp.zeros(len(values), np.int32), cp.zeros(len(values), np.uint32)
        with cp.settings(engine=engine):
            kernel(((len(values) + 127) // 128,), (128,), (x, s, u, np.int32(len(values))))
        out[engine] = (s.get(), u.get())
    assert out["numpy"][0].tobytes() == out["compiled"][0].tobytes()
    assert out["numpy"][1].tobytes() == out["compiled"][1].tobytes()
    finite = np.isfinite(values) & (np.abs(values) < 2**31)
    assert (out["compiled"][0][finite] == np.trunc(values[finite]).astype(np.int64)).all()
    rows = report(kernel.loaded_module.program)
    assert all(row["why_numpy"] is None or "cvt" not in row["why_numpy"] for row in rows)
