"""Conformance vectors recorded on an NVIDIA H200: warpsim must reproduce the GPU's bits exactly.

tests/machine/conformance/h200.npz holds, for each instruction form, the PTX kernel
(validation/conformance/generate.py wrote it), its operand tuples and the result bits the H200
produced (validation/conformance/run_gpu.py, packed by pack.py). No GPU and no NVRTC are needed:
each kernel runs here on warpsim with the same inputs and every result word is compared,
NaN payloads included.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import warpsim as cp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance", "h200.npz")
_data = np.load(DATA)
NAMES = [str(name) for name in _data["names"]]

# Forms where warpsim's bits differ from the H200's (kept visible, strict: a fix makes them fail).
KNOWN = {
    "sqrt.approx.f32": "sqrt.approx.f32(1.5): the H200 gives 0x3f9cc470, warpsim the correctly rounded 0x3f9cc471 (MUFU.RSQ+RCP differs by 1 ulp)",
    "sqrt.approx.ftz.f32": "sqrt.approx.ftz.f32(1.5): the H200 gives 0x3f9cc470, warpsim 0x3f9cc471",
}


def _run(index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, want = _data[f"in{index}"], _data[f"out{index}"]
    n = rows.shape[1]
    inp = cp.asarray(np.ascontiguousarray(rows))
    out = cp.zeros(n, dtype=cp.uint64)
    kernel = cp.RawModule(ptx=str(_data["ptx"][index])).get_function("k")
    kernel(((n + 127) // 128,), (128,), (inp, out, np.uint32(n)))
    return rows, want, cp.asnumpy(out)


def _params():
    for index, name in enumerate(NAMES):
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
        yield pytest.param(index, id=name, marks=marks)


def test_the_recording_covers_every_family():
    assert len(NAMES) > 400
    for prefix in ("add.s32", "div.s64", "shl.b64", "bfe.u32", "fma.rn.f32", "div.rn.f64", "sqrt.rn.f32",
                   "cvt.rni.s32.f32", "cvt.rn.bf16x2.f32", "fma.rn.ftz.f16x2", "add.rn.bf16x2", "szext.clamp.s32", "szext.wrap.u32",
                   "cvt.pack.sat.s16.s32", "cvt.pack.sat.u8.s32.b32", "cvt.pack.sat.s2.s32.b32",
                   "mul.rn.ftz.f16x2 near min", "fma.rn.ftz.f32 near min"):
        assert prefix in NAMES, prefix


@pytest.mark.parametrize("index", list(_params()))
def test_bit_exact_with_the_h200(index):
    rows, want, got = _run(index)
    wrong = np.nonzero(got != want)[0]
    if len(wrong):
        shown = "; ".join(f"({', '.join(hex(int(v)) for v in rows[:, j])}) -> H200 {int(want[j]):#x}, "
                          f"warpsim {int(got[j]):#x}" for j in wrong[:5])
        pytest.fail(f"{NAMES[index]}: {len(wrong)} of {len(want)} results differ: {shown}")


# f32 forms the compiled tier (Numba) has helpers for: its own copy of .ftz's tininess rule must agree.
COMPILED = {name: name.split(".")[0] for name in NAMES if name.endswith(".f32 near min") and ".rn.ftz.f32" in name}


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_tier_flushes_as_the_h200(name):
    from warpsim.machine.compiled import runtime
    helper = {"mul": runtime.mul_f32, "fma": runtime.fma_f32}[COMPILED[name]]
    index = NAMES.index(name)
    rows, want = _data[f"in{index}"], _data[f"out{index}"]
    got = [int(helper(*(np.uint32(v) for v in rows[:, j]), True)) for j in range(rows.shape[1])]
    np.testing.assert_array_equal(np.array(got, dtype=np.uint64), want, err_msg=name)


def test_ftz_edge_cases_differ_from_flushing_only_subnormal_results():
    """The recording holds the cases that tell the H200's rule apart: a product rounding up to
    the smallest normal that the GPU flushed, and one it kept."""
    index = NAMES.index("mul.rn.ftz.f16 near min")
    rows, want = _data[f"in{index}"], _data[f"out{index}"]
    pairs = {(int(a), int(b)): int(w) for a, b, w in zip(rows[0], rows[1], want)}
    assert pairs[(0x3800, 0x07FF)] == 0x0000        # 0x0400 * (1 - 2^-11): flushed
    assert pairs[(0x3801, 0x07FE)] == 0x0400        # 0x0400 * (1 - 2^-20): rounds to normal, kept
