"""bf16 and fp8 pointers (and bf16 scalars) in Triton launches through warpsim.triton, against NumPy.

A GPU's Triton takes torch tensors of any dtype it names (`*bf16`, `*fp8e4nv`,
`*fp8e5`); warpsim's launcher takes them too, and NumPy or warpsim arrays whose
dtypes are ml_dtypes' (bfloat16, float8_e4m3fn, float8_e5m2), which Triton maps
by the same names. References: ml_dtypes' own conversions (round to nearest
even), every fp8 bit pattern included.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("triton")
ml_dtypes = pytest.importorskip("ml_dtypes")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import warpsim as cp  # noqa: E402
from warpsim.api import triton as wt  # noqa: E402
from warpsim.sass import sass_for_ptx  # noqa: E402

pytestmark = pytest.mark.triton

BLOCK = 256


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


@triton.jit
def widen_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask).to(tl.float32), mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, scale: "bf16", n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


def grid(n):
    return (triton.cdiv(n, BLOCK),)


def every_fp8(dtype) -> np.ndarray:
    """All 256 bit patterns of an fp8 type."""
    return np.arange(256, dtype=np.uint8).view(dtype)


def test_bf16_vector_add_with_host_and_device_arrays():
    rng = np.random.default_rng(5)
    n = 1000
    x = rng.standard_normal(n).astype(ml_dtypes.bfloat16)
    y = (rng.standard_normal(n) * 3).astype(ml_dtypes.bfloat16)
    want = (x.astype(np.float32) + y.astype(np.float32)).astype(ml_dtypes.bfloat16)   # one rounding
    out = np.zeros(n, ml_dtypes.bfloat16)
    compiled = wt.launch(add_kernel, grid(n), x, y, out, n, BLOCK=BLOCK, arch=90)
    assert compiled.signature["x_ptr"] == "*bf16"
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    device_out = cp.zeros(n, dtype=ml_dtypes.bfloat16)
    wt.launch(add_kernel, grid(n), cp.asarray(x), cp.asarray(y), device_out, n, BLOCK=BLOCK, arch=90)
    np.testing.assert_array_equal(device_out.get().view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("fp8, triton_type", [("float8_e4m3fn", "*fp8e4nv"), ("float8_e5m2", "*fp8e5")])
def test_fp8_to_fp32_cast_of_every_bit_pattern(fp8, triton_type):
    x = every_fp8(getattr(ml_dtypes, fp8))
    out = np.full(x.size, -1.0, np.float32)
    compiled = wt.launch(widen_kernel, grid(x.size), x, out, x.size, BLOCK=BLOCK, arch=90)
    assert compiled.signature["x_ptr"] == triton_type
    np.testing.assert_array_equal(out, x.astype(np.float32))       # NaNs where ml_dtypes has them


def test_bf16_scalar_rounds_to_nearest_even():
    """A scalar annotated bf16 is passed as its nearest-even bf16 bits (1.3 is not a bf16)."""
    x = np.linspace(-4, 4, 300).astype(ml_dtypes.bfloat16)
    out = np.zeros(x.size, ml_dtypes.bfloat16)
    compiled = wt.launch(scale_kernel, grid(x.size), x, out, 1.3, x.size, BLOCK=BLOCK, arch=90)
    assert compiled.signature["scale"] == "bf16"
    scale = np.float32(ml_dtypes.bfloat16(1.3))
    assert scale != np.float32(1.3)
    want = (x.astype(np.float32) * scale).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))


def test_torch_bf16_and_fp8_tensors_views_included():
    torch = pytest.importorskip("torch")
    gen = torch.Generator().manual_seed(9)
    n = 700
    storage = torch.randn(2 * n, generator=gen).to(torch.bfloat16)
    x, y = storage[n:], torch.randn(n, generator=gen).to(torch.bfloat16)     # x: a view at an offset
    out = torch.zeros(n, dtype=torch.bfloat16)
    wt.launch(add_kernel, grid(n), x, y, out, n, BLOCK=BLOCK, arch=90)
    want = (x.float() + y.float()).to(torch.bfloat16)
    np.testing.assert_array_equal(out.view(torch.int16).numpy(), want.view(torch.int16).numpy())
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        bits = torch.arange(256, dtype=torch.int32).to(torch.uint8)
        f8, wide = bits.view(dtype), torch.full((256,), -1.0)
        wt.launch(widen_kernel, grid(256), f8, wide, 256, BLOCK=BLOCK, arch=90)
        np.testing.assert_array_equal(wide.numpy(), f8.float().numpy())
    assert torch.equal(storage[n:], x), "inputs are copied back unchanged"


@triton.jit
def scaled_pv_kernel(p_ptr, v_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    p = tl.load(p_ptr + rm[:, None] * K + rk[None, :])
    p = (p * 2.0).to(tl.float8e4nv)                   # computed in registers, as attention's P
    v = tl.load(v_ptr + rk[:, None] * N + rn[None, :])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.dot(p, v))


def test_fp8_dot_with_a_in_registers_runs_at_sass_level():
    """fp8 attention's P @ V: Triton gives the fp8 P it computed to wgmma from registers (four e4m3
    a register, in the layout Triton lowers for the GPU); the PTX run equals NumPy and the SASS run
    (QGMMA with A in registers) writes the same bytes."""
    m, n, k = 64, 32, 64
    rng = np.random.default_rng(12)
    p = (rng.integers(-4, 5, (m, k)) / 2).astype(np.float32)      # 2 p: small integers, exact in e4m3
    v = rng.integers(-4, 5, (k, n)).astype(ml_dtypes.float8_e4m3fn)
    out = np.full((m, n), np.nan, np.float32)
    with cp.profile() as prof:
        compiled = wt.launch(scaled_pv_kernel, (1,), p, v, out, m, n, k, arch=90, num_warps=4)
    assert any("wgmma.mma_async" in line and ".e4m3.e4m3 {" in line and "}, {%r" in line
               for line in compiled.ptx.splitlines()), "A should come from registers"
    np.testing.assert_array_equal(out, (2 * p) @ v.astype(np.float32))
    assert prof.launches[-1].level == "sass", prof.launches[-1].level_note


@triton.jit
def int8_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, out_dtype=tl.int32))


@pytest.mark.parametrize("arch, opcode", [(90, "IGMMA"), (80, "IMMA")])
def test_int8_dot_runs_at_both_levels(arch, opcode):
    """Triton's int8 `tl.dot` into int32: wgmma .s32.s8.s8 at sm_90 (IGMMA), mma.sync m16n8k32 .satfinite at
    sm_80 (IMMA.16832); the PTX run and the SASS-level profile both give A @ B of random bytes."""
    m, n, k = 64, 32, 128
    rng = np.random.default_rng(21)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    want = a.astype(np.int32) @ b.astype(np.int32)
    out = np.full((m, n), -1, np.int32)
    compiled = wt.launch(int8_dot_kernel, (1,), a, b, out, m, n, k, arch=arch, num_warps=4)
    np.testing.assert_array_equal(out, want)
    sass = sass_for_ptx(compiled.ptx, "sm_90a" if arch == 90 else "sm_80").kernel(compiled.name)
    assert opcode in {ins.opcode for ins in sass.instructions}
    out[:] = -1
    with cp.profile() as prof:
        wt.launch(int8_dot_kernel, (1,), a, b, out, m, n, k, arch=arch, num_warps=4)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    np.testing.assert_array_equal(out, want)


BACKEND_SCRIPT = textwrap.dedent("""
    import sys
    import ml_dtypes
    import numpy as np
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
                 mask=mask)

    @triton.jit
    def widen_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask).to(tl.float32), mask=mask)

    rng = np.random.default_rng(1)
    n = 777
    x = rng.standard_normal(n).astype(ml_dtypes.bfloat16)
    y = rng.standard_normal(n).astype(ml_dtypes.bfloat16)
    out = np.zeros(n, ml_dtypes.bfloat16)
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    tx, ty = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16), torch.from_numpy(y.view(np.int16)).view(torch.bfloat16)
    tout = torch.empty_like(tx)
    add_kernel[(triton.cdiv(n, 256),)](tx, ty, tout, n, BLOCK=256)
    f8 = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e4m3fn)
    wide = torch.full((256,), -1.0)
    widen_kernel[(1,)](f8, wide, 256, BLOCK=256)
    np.savez(sys.argv[1], numpy_out=out.view(np.uint16), torch_out=tout.view(torch.int16).numpy().view(np.uint16),
             want=(x.astype(np.float32) + y.astype(np.float32)).astype(ml_dtypes.bfloat16).view(np.uint16),
             wide=wide.numpy(), f8=f8.float().numpy())
""")


@pytest.mark.slow
def test_backend_takes_bf16_and_fp8_arrays_and_tensors_unchanged(tmp_path):
    """The same pointers under `warpsim run` (Triton's own launch path through warpsim's backend):
    ml_dtypes NumPy arrays and torch bf16/fp8 tensors, in place."""
    pytest.importorskip("torch")
    script, out = tmp_path / "narrow.py", tmp_path / "out.npz"
    script.write_text(BACKEND_SCRIPT)
    result = subprocess.run([sys.executable, "-m", "warpsim", "run", str(script), str(out)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    saved = np.load(out)
    np.testing.assert_array_equal(saved["numpy_out"], saved["want"])
    np.testing.assert_array_equal(saved["torch_out"], saved["want"])
    np.testing.assert_array_equal(saved["wide"], saved["f8"])
