"""szext (PTX 8.6: sign- or zero-extend the low N bits of a register) against a reference.

The reference follows the PTX manual's pseudocode with Python ints, one value at a time; the
operands are random words plus every width 0..40 and the u32 corners, so N = 0, N = 32 and
N > 32 (.wrap reads it mod 32, .clamp as 32) are all covered. tests/machine/test_conformance.py
checks the same forms against an H200's bits.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa.evaluate import evaluate

M32 = 0xFFFFFFFF


def reference(mode: str, signed: bool, a: int, b: int) -> int:
    """The manual's pseudocode: b1 = b & 31; clamp with b >= 32 keeps a whole; N = 0 gives 0."""
    b1 = b & 31
    too_large = b >= 32 and mode == "clamp"
    mask = 0 if too_large else (M32 << b1) & M32
    sign = not (b1 == 0 or too_large or not signed) and (a >> ((b1 - 1) & 31)) & 1
    return (a & ~mask & M32) | (mask if sign else 0)


def operands(seed: int = 7, n: int = 600):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, size=n, dtype=np.uint64)
    b = rng.integers(0, 41, size=n, dtype=np.uint64)
    b[:8] = [0, 1, 31, 32, 33, 64, M32, 0x80000000]
    a[:8] = [M32, 0x80000000, 0x7FFFFFFF, 1, 0, 0x55555555, 0xAAAAAAAA, 0x00008000]
    return a.astype(np.uint32), b.astype(np.uint32)


@pytest.mark.parametrize("mode", ["clamp", "wrap"])
@pytest.mark.parametrize("type_name", ["u32", "s32"])
def test_szext_matches_the_manual(mode, type_name):
    a, b = operands()
    got = evaluate(f"szext.{mode}.{type_name}", a.view(np.int32 if type_name == "s32" else np.uint32), b)
    want = [reference(mode, type_name == "s32", int(x), int(y)) for x, y in zip(a, b)]
    assert got.dtype == np.dtype("int32" if type_name == "s32" else "uint32")
    assert got.view(np.uint32).tolist() == want


def test_szext_edge_cases_by_hand():
    assert int(evaluate("szext.wrap.u32", np.uint32(M32), np.uint32(0))) == 0     # the manual's example
    assert int(evaluate("szext.clamp.s32", np.int32(0x80), np.uint32(8))) == -128
    assert int(evaluate("szext.clamp.s32", np.int32(0x7F), np.uint32(8))) == 0x7F
    assert int(evaluate("szext.clamp.s32", np.int32(-5), np.uint32(40))) == -5    # clamped to 32
    assert int(evaluate("szext.wrap.s32", np.int32(-5), np.uint32(32))) == 0      # 32 mod 32 = 0
    assert int(evaluate("szext.wrap.s32", np.int32(0x1F), np.uint32(36))) == -1   # 36 mod 32 = 4


def test_szext_needs_one_mode():
    for mnemonic in ("szext.u32", "szext.clamp.wrap.u32", "szext.clamp.u64"):
        with pytest.raises(UnsupportedInstruction):
            evaluate(mnemonic, np.uint32(1), np.uint32(1))


KERNEL = """
.version 8.6
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
  .reg .b32 %t, %a, %b, %d, %e;
  .reg .b64 %off, %p;
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 4;
  ld.param.u64 %p, [pa];  add.u64 %p, %p, %off;  ld.global.u32 %a, [%p];
  ld.param.u64 %p, [pb];  add.u64 %p, %p, %off;  ld.global.u32 %b, [%p];
  szext.clamp.s32 %d, %a, %b;
  szext.wrap.u32 %e, %d, 16;
  ld.param.u64 %p, [pd];  add.u64 %p, %p, %off;  st.global.u32 [%p], %e;
  ret;
}
"""


def test_szext_runs_in_a_kernel():
    a, b = operands(seed=11, n=256)
    d = cp.zeros(256, dtype=cp.uint32)
    kernel = cp.RawModule(ptx=KERNEL).get_function("k")
    kernel((1,), (256,), (cp.asarray(a), cp.asarray(b), d))
    want = [reference("wrap", False, reference("clamp", True, int(x), int(y)), 16) for x, y in zip(a, b)]
    assert d.get().tolist() == want
