"""How the H200's tensor cores add: mma.sync, wmma and wgmma words on inputs that expose the rule.

    python validation/hopper/mma_rounding.py OUT.npz [FORM ...]     # on the GPU (CuPy), or
    warpsim run python validation/hopper/mma_rounding.py OUT.npz     # the same kernels on warpsim
    python validation/hopper/mma_rounding.py OUT.npz --sass=SASS.txt    # and the SASS ptxas makes of them
    python validation/hopper/mma_rounding.py compare GPU.npz SIM.npz    # words equal, per form
    python validation/hopper/mma_rounding.py compact FULL.npz OUT.npz   # the cases the tests keep

Each form is one hand-written PTX kernel (sm_90a) run once over many independent cases: a warp
per case for mma.sync and wmma (D = A B + C of one 16 x 8 or 16 x 16 tile), a warpgroup per CTA
for wgmma (m64n8). Lanes load their fragment registers as words the host packed in the PTX
manual's fragment layouts (wmma, whose layout is opaque, loads row-major A and C and column-major
B from memory), run the one instruction, and store the result words. Nothing of warpsim is
imported: the script needs only NumPy and CuPy (or warpsim's CuPy under `warpsim run`).

The cases mix input families chosen to tell accumulation rules apart (`STRATEGIES`): uniform
and normal data, exponents spread over the type's range, sparse tiles whose few products lie
0-40 binades apart, exact and near cancellation (C = -A B rounded, pairs of opposite products),
products just above and below the 24-26th bit of a large accumulator, ties of f32 rounding, and
subnormal inputs. OUT.npz keeps, per form, the inputs as element bit patterns (`<form>_a`
(cases, M, K), `<form>_b` (cases, K, N), `<form>_c` (cases, M, N)) and the results' bits
(`<form>_d`), with the strategy of each case (`<form>_strategy`).
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

HEADER = ".version 8.4\n.target sm_90a\n.address_size 64\n"

# form -> (instruction family, M, N, K, input type, accumulator type, cases)
FORMS = {
    "mma_f16_f32": ("mma", 16, 8, 16, "f16", "f32", 512),
    "mma_bf16_f32": ("mma", 16, 8, 16, "bf16", "f32", 512),
    "mma_tf32_f32": ("mma", 16, 8, 8, "tf32", "f32", 512),
    "mma_e4m3_f32": ("mma", 16, 8, 32, "e4m3", "f32", 512),
    "mma_e5m2_f32": ("mma", 16, 8, 32, "e5m2", "f32", 512),
    "mma_f16_f16": ("mma", 16, 8, 16, "f16", "f16", 256),
    "wmma_f16_f32": ("wmma", 16, 16, 16, "f16", "f32", 256),
    "wgmma_f16_f32": ("wgmma", 64, 8, 16, "f16", "f32", 128),
    "wgmma_bf16_f32": ("wgmma", 64, 8, 16, "bf16", "f32", 128),
    "wgmma_tf32_f32": ("wgmma", 64, 8, 8, "tf32", "f32", 128),
    "wgmma_e4m3_f32": ("wgmma", 64, 8, 32, "e4m3", "f32", 128),
    "wgmma_e5m2_f32": ("wgmma", 64, 8, 32, "e5m2", "f32", 128),
    "wgmma_f16_f16": ("wgmma", 64, 8, 16, "f16", "f16", 64),
    "wmma_bf16_f32": ("wmma", 16, 16, 16, "bf16", "f32", 256),        # forms are seeded by their place
    "wmma_tf32_f32": ("wmma", 16, 16, 8, "tf32", "f32", 256),         # here: new ones go last
    "wgmma_e4m3_f16": ("wgmma", 64, 8, 32, "e4m3", "f16", 64),
    "wgmma_e5m2_f16": ("wgmma", 64, 8, 32, "e5m2", "f16", 64),
}

STRATEGIES = ("uniform", "normal", "wide", "sparse", "cancel_c", "cancel_pairs", "boundary", "ties", "subnormal")

# ---------------------------------------------------------------- number formats (no warpsim)

# type -> (bytes, exponent bits, mantissa bits): the fp8 formats' values come from a table of all codes
ELEMENT = {"f16": (2, 5, 10), "bf16": (2, 8, 7), "tf32": (4, 8, 10), "f32": (4, 8, 23), "e4m3": (1, 4, 3),
           "e5m2": (1, 5, 2)}
EXPONENT_RANGE = {"f16": (-14, 15), "bf16": (-126, 127), "tf32": (-126, 127), "e4m3": (-6, 8), "e5m2": (-14, 15)}


def fp8_values(atype: str) -> np.ndarray:
    """The float64 value of each of the 256 codes (NaN for e4m3's 0x7f/0xff and e5m2's inf/NaN codes)."""
    _, ebits, mbits = ELEMENT[atype]
    bias = (1 << (ebits - 1)) - 1
    code = np.arange(256)
    exponent, mantissa = (code >> mbits) & ((1 << ebits) - 1), code & ((1 << mbits) - 1)
    magnitude = np.where(exponent == 0, mantissa * 2.0 ** (1 - bias - mbits),
                         (1 + mantissa / (1 << mbits)) * 2.0 ** (exponent - bias))
    values = np.where(code & 0x80, -magnitude, magnitude)
    if atype == "e4m3":
        values[(code & 0x7F) == 0x7F] = np.nan
    else:
        values[exponent == (1 << ebits) - 1] = np.nan
    return values


def to_bits(x: np.ndarray, etype: str) -> np.ndarray:
    """Float64 values -> the nearest element bit patterns (finite; large values saturate)."""
    x = np.asarray(x, np.float64)
    if etype == "f16":
        return np.clip(x, -65504, 65504).astype(np.float16).view(np.uint16)
    if etype in ("e4m3", "e5m2"):
        table = fp8_values(etype)[:128]
        finite = np.flatnonzero(np.isfinite(table))
        order = finite[np.argsort(table[finite])]
        sorted_values = table[order]
        magnitude = np.minimum(np.abs(x), sorted_values[-1])
        at = np.clip(np.searchsorted(sorted_values, magnitude), 1, len(order) - 1)
        lower = magnitude - sorted_values[at - 1] <= sorted_values[at] - magnitude
        code = np.where(lower, order[at - 1], order[at])
        return (code | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)
    bits = np.clip(x, -3.0e38, 3.0e38).astype(np.float32).view(np.uint32)
    if etype == "bf16":
        return ((bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    if etype == "tf32":
        return (bits + np.uint32(0xFFF) + ((bits >> 13) & 1)) & np.uint32(0xFFFFE000)
    return bits


def from_bits(bits: np.ndarray, etype: str) -> np.ndarray:
    """Element bit patterns -> float64 values."""
    if etype == "f16":
        return bits.view(np.float16).astype(np.float64)
    if etype in ("e4m3", "e5m2"):
        return fp8_values(etype)[bits]
    if etype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bits.view(np.float32).astype(np.float64)


def quantize(x: np.ndarray, etype: str) -> np.ndarray:
    return from_bits(to_bits(x, etype), etype)


# ---------------------------------------------------------------- inputs

def signed(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def strategy_inputs(strategy: str, rng, m: int, n: int, k: int, atype: str, ctype: str):
    """(A, B, C) float64 for one case, representable in the input and accumulator types."""
    lo, hi = EXPONENT_RANGE[atype]
    top = 100 if ctype == "f32" else 13             # largest exponent a sum may reach in the accumulator
    spread = min(6 if ctype == "f32" else 3, (hi - lo) // 3)
    mant = lambda shape: 1 + rng.random(shape)                                   # noqa: E731
    q = lambda x: quantize(x, atype)                                             # noqa: E731
    qc = lambda x: quantize(x, ctype)                                            # noqa: E731
    if strategy == "uniform":
        A, B = q(rng.random((m, k))), q(rng.random((k, n)))
        return A, B, qc(rng.random((m, n)) * k / 4)
    if strategy == "normal":
        A, B = q(rng.standard_normal((m, k))), q(rng.standard_normal((k, n)))
        return A, B, qc(rng.standard_normal((m, n)) * np.sqrt(k))
    if strategy == "wide":
        A = q(rng.standard_normal((m, k)) * 2.0 ** rng.integers(-spread, spread + 1, (m, k)))
        B = q(rng.standard_normal((k, n)) * 2.0 ** rng.integers(-spread, spread + 1, (k, n)))
        return A, B, qc(rng.standard_normal((m, n)) * 2.0 ** rng.integers(-2 * spread, 2 * spread + 1, (m, n)))
    if strategy == "sparse":          # a few products per output, 0-40 binades apart, and C at any scale
        A = q(signed(rng, (m, k)) * mant((m, k)) * 2.0 ** rng.integers(lo + 2, min(hi, top - 10) - 1, (m, k))
              * (rng.random((m, k)) < 0.35))
        B = q(signed(rng, (k, n)) * mant((k, n)) * 2.0 ** rng.integers(max(lo, -8), min(hi, 8) + 1, (k, n))
              * (rng.random((k, n)) < 0.35))
        top = np.abs(A).max(axis=1, keepdims=True) * np.abs(B).max(axis=0, keepdims=True)
        top = np.where(top > 0, top, 1.0)
        C = signed(rng, (m, n)) * mant((m, n)) * top * 2.0 ** rng.integers(-40, 12, (m, n))
        return A, B, qc(C * (rng.random((m, n)) < 0.8))
    if strategy == "cancel_c":        # C = -(A B) rounded: what is left shows what the sum kept
        A = q(rng.standard_normal((m, k)) * 2.0 ** rng.integers(-spread, spread + 1, (m, k)))
        B = q(rng.standard_normal((k, n)) * 2.0 ** rng.integers(-spread, spread + 1, (k, n)))
        return A, B, qc(-(A @ B) * (1 + (rng.random((m, n)) < 0.3) * rng.standard_normal((m, n)) * 2.0 ** -20))
    if strategy == "cancel_pairs":    # products in opposite pairs, some pairs off by a last bit, small C
        A = q(rng.standard_normal((m, k)) * 2.0 ** rng.integers(-spread, spread + 1, (m, k)))
        A[:, 1::2] = A[:, 0::2]
        B = q(rng.standard_normal((k, n)) * 2.0 ** rng.integers(-spread, spread + 1, (k, n)))
        nudge = np.where(rng.random((k // 2, n)) < 0.4, 1 + 2.0 ** -(ELEMENT[atype][2]), 1.0)
        B[1::2] = -q(B[0::2] * nudge)
        small = rng.standard_normal((m, n)) * 2.0 ** rng.integers(-30, 0, (m, n))
        return A, B, qc(small * (rng.random((m, n)) < 0.6))
    if strategy == "boundary":        # one product near C's exponent, the rest 20-30 binades below it
        e_c = rng.integers(max(lo, -4), min(hi, 4) + 1)
        big = rng.random((m, k)) < 1.0 / k
        ea = np.where(big, e_c // 2, e_c // 2 - rng.integers(8, 16, (m, k)))
        eb = np.where(rng.random((k, n)) < 0.5, e_c - e_c // 2, e_c - e_c // 2 - rng.integers(4, 16, (k, n)))
        A = q(signed(rng, (m, k)) * mant((m, k)) * 2.0 ** np.clip(ea, lo, hi))
        B = q(signed(rng, (k, n)) * mant((k, n)) * 2.0 ** np.clip(eb, lo, hi))
        return A, B, qc(signed(rng, (m, n)) * mant((m, n)) * 2.0 ** e_c)
    if strategy == "ties":            # C = 2^e (1 + j 2^-23), one product of +-2^(e-24) (x 1, 3 or 1.5)
        # (fp8 into f16: C = 2^e (1 + j 2^-10), products near 2^(e-11): f16's ties; C cannot sit 2^24 above)
        bits = 11 if ctype == "f16" and atype in ("e4m3", "e5m2") else 24
        e_p = rng.integers(max(2 * lo + 2, -20), min(2 * hi, 20, top - bits - 2), (m, n))
        A = np.zeros((m, k))
        B = np.zeros((k, n))
        ka = rng.integers(0, k, m)
        A[np.arange(m), ka] = q(2.0 ** (e_p[:, 0] // 2) * rng.choice([1.0, 1.5, 1.25], m))
        A[np.arange(m), (ka + 1) % k] = q(2.0 ** (e_p[:, 0] // 2) * signed(rng, m))
        B[:, :] = q(signed(rng, (k, n)) * 2.0 ** (e_p[0] - e_p[0] // 2) * rng.choice([1.0, 1.5], (k, n)))
        shift = rng.choice([bits - 1, bits, bits + 1], (m, n))
        C = signed(rng, (m, n)) * (1 + rng.integers(0, 1 << (bits - 1), (m, n)) * 2.0 ** (1 - bits)) \
            * 2.0 ** (e_p[:, :1] // 2 + (e_p[0] - e_p[0] // 2)[None, :] + shift)
        return A, B, qc(C)
    if strategy == "subnormal":       # inputs (or products) below the normal range
        A = q(rng.standard_normal((m, k)) * 2.0 ** rng.integers(lo - 8, lo + 2, (m, k)))
        B = q(rng.standard_normal((k, n)) * 2.0 ** rng.integers(lo - 4, lo + 8, (k, n)))
        tiny = np.abs(A).max() * np.abs(B).max() or 1.0
        return A, B, qc(rng.standard_normal((m, n)) * tiny * 2.0 ** rng.integers(-4, 4, (m, n)))
    raise ValueError(f"unknown input strategy {strategy!r}")


def form_inputs(form: str, seed: int = 7):
    """(A, B, C) element bits of every case of a form, and each case's strategy index."""
    family, m, n, k, atype, ctype, cases = FORMS[form]
    rng = np.random.default_rng([seed, list(FORMS).index(form)])
    A = np.empty((cases, m, k)); B = np.empty((cases, k, n)); C = np.empty((cases, m, n))    # noqa: E702
    strategy = np.arange(cases) % len(STRATEGIES)
    for case in range(cases):
        A[case], B[case], C[case] = strategy_inputs(STRATEGIES[strategy[case]], rng, m, n, k, atype, ctype)
    return to_bits(A, atype), to_bits(B, atype), to_bits(C, ctype), strategy


# ---------------------------------------------------------------- mma.sync: fragments and kernel

def mma_positions(matrix: str, k: int, atype: str):
    """(rows, cols), each (32, elements): where lane l's fragment element i of A, B or C sits (PTX manual,
    mma.m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 e4m3/e5m2)."""
    lane = np.arange(32)
    g, t = (lane >> 2)[:, None], (lane & 3)[:, None]
    if matrix == "c":
        i = np.arange(4)
        return g + 8 * (i >= 2), 2 * t + i % 2
    per = 4 // ELEMENT[atype][0]                  # elements a register
    if matrix == "a":
        i = np.arange(4 * per)
        return g + 8 * ((i // per) % 2), per * t + i % per + 4 * per * (i >= 2 * per)
    i = np.arange(2 * per)
    return per * t + i % per + 4 * per * (i >= per), np.broadcast_to(g, (32, 2 * per))


def pack_fragment(bits: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(cases, 32, registers) words of each lane's fragment: elements in register order, low first."""
    elements = bits[:, rows, cols]                                   # (cases, 32, elements)
    return np.ascontiguousarray(elements).view(np.uint32)


def mma_ptx(form: str) -> tuple[str, tuple]:
    """PTX of kernel `probe(in, out)`: lane t of warp w loads its A, B, C words from in[(32 w + t) * W + i],
    runs one mma.sync, stores D's words at out[(32 w + t) * D + j]; returns (ptx, (A, B, C, D) words)."""
    _, m, n, k, atype, ctype, _ = FORMS[form]
    na, nb = 4, 2                             # A and B registers, whatever the input type
    nc = 4 if ctype == "f32" else 2
    words = na + nb + nc
    regs = lambda p, c: "{" + ",".join(f"%{p}{i}" for i in range(c)) + "}"       # noqa: E731
    loads = "\n".join(f"    ld.global.b32 %{p}{i}, [%rd3+{4 * (off + i)}];"
                      for p, c, off in (("a", na, 0), ("b", nb, na), ("c", nc, na + nb)) for i in range(c))
    stores = "\n".join(f"    st.global.b32 [%rd4+{4 * i}], %d{i};" for i in range(nc))
    ptx = HEADER + f"""
.visible .entry probe(.param .u64 src, .param .u64 dst)
{{
    .reg .b32 %r<4>;
    .reg .b32 %a<{na}>;
    .reg .b32 %b<{nb}>;
    .reg .b32 %c<{nc}>;
    .reg .b32 %d<{nc}>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r1, %r1, %r2, %r3;
    mul.wide.u32 %rd5, %r1, {4 * words};
    add.s64 %rd3, %rd1, %rd5;
    mul.wide.u32 %rd6, %r1, {4 * nc};
    add.s64 %rd4, %rd2, %rd6;
{loads}
    mma.sync.aligned.m{m}n{n}k{k}.row.col.{ctype}.{atype}.{atype}.{ctype} {regs('d', nc)}, {regs('a', na)}, {regs('b', nb)}, {regs('c', nc)};
{stores}
    ret;
}}
"""
    return ptx, (na, nb, nc, nc)


def run_mma(xp, load, form: str, A, B, C):
    _, m, n, k, atype, ctype, _ = FORMS[form]
    cases = len(A)                                  # a multiple of 4: four warps a CTA
    ptx, (na, nb, nc, nd) = mma_ptx(form)
    words = np.concatenate([pack_fragment(A, *mma_positions("a", k, atype)),
                            pack_fragment(B, *mma_positions("b", k, atype)),
                            pack_fragment(C, *mma_positions("c", k, atype))], axis=2)
    out = xp.zeros((cases, 32, nd), dtype=np.uint32)
    load(ptx).get_function("probe")((cases // 4,), (128,), (xp.asarray(words), out))
    got = xp.asnumpy(out)
    rows, cols = mma_positions("c", k, atype)
    D = np.zeros((cases, m, n), dtype=np.uint32 if ctype == "f32" else np.uint16)
    D[:, rows, cols] = got.view(D.dtype).reshape(cases, 32, -1)
    return D


# ---------------------------------------------------------------- wmma (fragments opaque: memory in, memory out)

def wmma_ptx(form: str = "wmma_f16_f32") -> str:
    """A warp per case: A (row-major) and B (column-major) of 512 bytes, C and D of 16 x 16 f32."""
    _, m, n, k, atype, _, _ = FORMS[form]
    fragment = 8 if atype == "f16" else 4                  # A and B registers a lane
    types = "f32.f32" if atype == "f16" else f"f32.{atype}.{atype}.f32"
    a = "{" + ",".join(f"%a{i}" for i in range(fragment)) + "}"
    b = "{" + ",".join(f"%b{i}" for i in range(fragment)) + "}"
    c = "{" + ",".join(f"%c{i}" for i in range(8)) + "}"
    d = "{" + ",".join(f"%d{i}" for i in range(8)) + "}"
    return HEADER + f"""
.visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .b32 %r<4>;
    .reg .b32 %a<8>;
    .reg .b32 %b<8>;
    .reg .f32 %c<8>;
    .reg .f32 %d<8>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u64 %rd4, [pd];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    shr.u32 %r2, %r2, 5;
    mad.lo.u32 %r1, %r1, 4, %r2;
    mul.wide.u32 %rd5, %r1, 512;
    mul.wide.u32 %rd6, %r1, 1024;
    add.s64 %rd7, %rd1, %rd5;
    add.s64 %rd8, %rd2, %rd5;
    add.s64 %rd9, %rd3, %rd6;
    add.s64 %rd10, %rd4, %rd6;
    wmma.load.a.sync.aligned.row.m16n16k{k}.global.{atype} {a}, [%rd7], {k};
    wmma.load.b.sync.aligned.col.m16n16k{k}.global.{atype} {b}, [%rd8], {k};
    wmma.load.c.sync.aligned.row.m16n16k{k}.global.f32 {c}, [%rd9], 16;
    wmma.mma.sync.aligned.row.col.m16n16k{k}.{types} {d}, {a}, {b}, {c};
    wmma.store.d.sync.aligned.row.m16n16k{k}.global.f32 [%rd10], {d}, 16;
    ret;
}}
"""


def run_wmma(xp, load, form: str, A, B, C):
    cases = len(A)
    out = xp.zeros((cases, 16, 16), dtype=np.uint32)
    args = (xp.asarray(np.ascontiguousarray(A)), xp.asarray(np.ascontiguousarray(B.transpose(0, 2, 1))),
            xp.asarray(np.ascontiguousarray(C)), out)
    load(wmma_ptx(form)).get_function("probe")((cases // 4,), (128,), args)
    return xp.asnumpy(out)


# ---------------------------------------------------------------- wgmma (m64n8, A and B from shared memory)

TILE_LBO, TILE_SBO = 128, 256          # K-major, no swizzle: 16-byte core rows, K chunks 128 bytes apart
B_TILE_AT = 2048                       # bytes of A's 64 x 32-byte tile


def tile_image(bits: np.ndarray, esize: int) -> np.ndarray:
    """Bytes of (cases, rows, 32-byte K) tiles in the canonical K-major layout without a swizzle:
    element (r, k) at (r % 8) 16 + (r // 8) SBO + (k // per chunk) LBO + (k % per chunk) esize."""
    cases, rows, k = bits.shape
    per_chunk = 16 // esize
    r, kk = np.arange(rows)[:, None], np.arange(k)[None, :]
    offset = (r % 8) * 16 + (r // 8) * TILE_SBO + (kk // per_chunk) * TILE_LBO + (kk % per_chunk) * esize
    size = ((rows + 7) // 8) * TILE_SBO
    image = np.zeros((cases, size), np.uint8)
    element_bytes = np.ascontiguousarray(bits).view(np.uint8).reshape(cases, rows, k, esize)
    for byte in range(esize):
        image[:, (offset + byte).ravel()] = element_bytes[..., byte].reshape(cases, -1)
    return image


def wgmma_ptx(form: str) -> str:
    _, m, n, k, atype, ctype, _ = FORMS[form]
    regs = n // 2 if ctype == "f32" else n // 4
    d = "{" + ",".join(f"%d{i}" for i in range(regs)) + "}"
    loads = "\n".join(f"    ld.global.b32 %d{i}, [%rd20+{4 * i}];" for i in range(regs))
    stores = "\n".join(f"    st.global.b32 [%rd21+{4 * i}], %d{i};" for i in range(regs))
    transposes = ", 0, 0" if atype in ("f16", "bf16") else ""
    return HEADER + f"""
.shared .align 1024 .b8 smem[2304];
.visible .entry probe(.param .u64 image, .param .u64 c_in, .param .u64 out, .param .u64 layout)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b32 %d<{regs}>;
    .reg .b64 %rd<24>;
    ld.param.u64 %rd1, [image];
    ld.param.u64 %rd4, [c_in];
    ld.param.u64 %rd5, [out];
    ld.param.u64 %rd2, [layout];
    mov.u32 %r2, %tid.x;
    mov.u32 %r10, %ctaid.x;
    mul.wide.u32 %rd14, %r10, 2304;
    add.s64 %rd1, %rd1, %rd14;
    mov.u32 %r3, smem;
    mov.u32 %r4, %r2;
COPY:
    setp.ge.u32 %p1, %r4, 576;
    @%p1 bra COPIED;
    mul.wide.u32 %rd10, %r4, 4;
    add.s64 %rd11, %rd1, %rd10;
    ld.global.u32 %r5, [%rd11];
    shl.b32 %r6, %r4, 2;
    add.s32 %r7, %r3, %r6;
    st.shared.u32 [%r7], %r5;
    add.u32 %r4, %r4, 128;
    bra COPY;
COPIED:
    bar.sync 0;
    fence.proxy.async.shared::cta;
    shr.u32 %r8, %r3, 4;
    cvt.u64.u32 %rd7, %r8;
    add.s64 %rd8, %rd2, %rd7;
    add.s64 %rd9, %rd8, {B_TILE_AT // 16};
    mad.lo.u32 %r11, %r10, 128, %r2;
    mul.wide.u32 %rd12, %r11, {4 * regs};
    add.s64 %rd20, %rd4, %rd12;
    add.s64 %rd21, %rd5, %rd12;
{loads}
    setp.eq.u32 %p2, %r2, %r2;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n{n}k{k}.{ctype}.{atype}.{atype} {d}, %rd8, %rd9, %p2, 1, 1{transposes};
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
{stores}
    ret;
}}
"""


def wgmma_accumulator_positions(n: int):
    """(rows, cols), each (128, n / 2): accumulator element i of thread t = 32 w + l."""
    t = np.arange(128)[:, None]
    w, lane = t // 32, t % 32
    i = np.arange(n // 2)
    return 16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2


def run_wgmma(xp, load, form: str, A, B, C):
    _, m, n, k, atype, ctype, _ = FORMS[form]
    cases = len(A)
    esize = ELEMENT[atype][0]
    image = np.concatenate([tile_image(A, esize), tile_image(B.transpose(0, 2, 1), esize)], axis=1)
    image = np.pad(image, ((0, 0), (0, 2304 - image.shape[1])))
    rows, cols = wgmma_accumulator_positions(n)
    c_words = np.ascontiguousarray(C[:, rows, cols]).view(np.uint32)
    out = xp.zeros(c_words.shape, dtype=np.uint32)
    layout = (TILE_LBO >> 4) << 16 | (TILE_SBO >> 4) << 32
    load(wgmma_ptx(form)).get_function("probe")(
        (cases,), (128,), (xp.asarray(image.view(np.uint32)), xp.asarray(c_words), out, np.uint64(layout)))
    D = np.zeros((cases, m, n), dtype=C.dtype)
    D[:, rows, cols] = xp.asnumpy(out).view(C.dtype).reshape(cases, 128, -1)
    return D


RUNNERS = {"mma": run_mma, "wmma": run_wmma, "wgmma": run_wgmma}


def record(forms, log=print) -> dict:
    import cupy as xp

    def load(ptx: str):
        path = os.path.join(tempfile.mkdtemp(), "probe.ptx")
        with open(path, "w") as handle:
            handle.write(ptx)
        return xp.RawModule(path=path)

    out = {}
    for form in forms:
        A, B, C, strategy = form_inputs(form)
        try:
            D = RUNNERS[FORMS[form][0]](xp, load, form, A, B, C)
        except Exception as exc:  # one form the device or its compiler refuses must not stop the others
            out[f"{form}_error"] = np.array(f"{type(exc).__name__}: {exc}"[:2000])
            log(f"{form}: {type(exc).__name__}: {str(exc)[:300]}")
            continue
        out.update({f"{form}_a": A, f"{form}_b": B, f"{form}_c": C, f"{form}_d": D, f"{form}_strategy": strategy})
        family, m, n, k, atype, ctype, cases = FORMS[form]
        exact = from_bits(A, atype) @ from_bits(B, atype) + from_bits(C, ctype)
        got = from_bits(D, ctype)
        scale = np.abs(from_bits(A, atype)) @ np.abs(from_bits(B, atype)) + np.abs(from_bits(C, ctype))
        worst = np.nanmax(np.abs(got - exact) / np.where(scale > 0, scale, 1))
        log(f"{form}: {D.size} words, {int((got == exact.astype(np.float32 if ctype == 'f32' else np.float16)).sum())}"
            f" equal to the exact sum rounded once, worst error {worst:.2g} of sum |terms|")
    try:
        out["device"] = np.array(xp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    except Exception:  # warpsim's CuPy names its simulated GPU as it can
        out["device"] = np.array("unknown")
    return out


def machine_code(forms, path: str):
    """What the GPU machine's ptxas makes of each form's PTX (cuobjdump -sass), written to `path`: the
    driver compiles the same PTX when CuPy loads it, so this is the SASS the recorded words came from."""
    import subprocess
    lines = []
    for form in forms:
        family = FORMS[form][0]
        ptx = mma_ptx(form)[0] if family == "mma" else wmma_ptx(form) if family == "wmma" else wgmma_ptx(form)
        folder = tempfile.mkdtemp()
        source, cubin = os.path.join(folder, "probe.ptx"), os.path.join(folder, "probe.cubin")
        with open(source, "w") as handle:
            handle.write(ptx)
        try:
            subprocess.run(["ptxas", "-arch=sm_90a", source, "-o", cubin], check=True, capture_output=True)
            sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as exc:
            sass = f"not compiled: {exc}"
        lines.append(f"== {form}\n" + "\n".join(line for line in sass.splitlines()
                                                 if "MMA" in line or "F2FP" in line or "FADD" in line))
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def compare(gpu_path: str, sim_path: str, log=print) -> dict:
    """Per form, how many result words of two recordings (the GPU's and warpsim's) are equal; where
    one is compact (fewer cases), its cases are compared with the other's first ones."""
    gpu, sim = np.load(gpu_path), np.load(sim_path)
    counts = {}
    for form in FORMS:
        if f"{form}_d" not in gpu.files:
            continue
        if f"{form}_d" not in sim.files:
            log(f"{form:<16} not run on the second: {sim.get(f'{form}_error', '')}")
            continue
        cases = min(len(gpu[f"{form}_d"]), len(sim[f"{form}_d"]))
        for part in "abc":
            if not np.array_equal(gpu[f"{form}_{part}"][:cases], sim[f"{form}_{part}"][:cases]):
                raise ValueError(f"{form}: the two recordings' {part} inputs differ")
        equal = int((gpu[f"{form}_d"][:cases] == sim[f"{form}_d"][:cases]).sum())
        size = gpu[f"{form}_d"][:cases].size
        counts[form] = (equal, size)
        log(f"{form:<16} {equal}/{size} words equal")
    return counts


COMPACT_CASES = {"mma": 72, "wmma": 72, "wgmma": 18}    # 8 (wgmma: 2) cases of each strategy


def compact(recorded) -> dict:
    """The first cases of each form (every strategy alike), the part of a recording the tests keep."""
    kept = {"device": recorded["device"]}
    for form, (family, *_rest) in FORMS.items():
        for part in ("a", "b", "c", "d", "strategy"):
            if f"{form}_{part}" in recorded:
                kept[f"{form}_{part}"] = recorded[f"{form}_{part}"][:COMPACT_CASES[family]]
    return kept


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == "compact":
        np.savez_compressed(sys.argv[3], **compact(np.load(sys.argv[2])))
        sys.exit(0)
    args = [a for a in sys.argv[1:] if not a.startswith("--sass=")]
    chosen = args[1:] or list(FORMS)
    for option in sys.argv[1:]:
        if option.startswith("--sass="):
            machine_code(chosen, option.split("=", 1)[1])
    np.savez_compressed(args[0], **record(chosen))
