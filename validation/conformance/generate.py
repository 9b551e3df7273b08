"""Conformance vectors: one hand-written PTX kernel per instruction form, applied to edge operands.

python validation/conformance/generate.py  ->  validation/conformance/out/forms.npz
(every form warpsim's loader accepts; the rejected ones are listed in out/rejected.json).
python validation/conformance/generate.py szext  ->  only the forms whose name starts with an
argument (to record forms added later without recording the others again; pack.py --append).

Kernel k(p_in, p_out, n): thread i reads operand tuple i (row r of p_in holds source r of every
tuple, each value as a uint64 whose low bits are the operand), applies the instruction once and
writes the destination's raw bits, zero-extended, to p_out[i].
"""
import itertools, json, os, struct, sys
import numpy as np

CAP = 1024          # tuples per form at most (a seeded sample of the cross product beyond it)
WIDTH = {"pred": 1, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
         "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
         "b64": 64, "u64": 64, "s64": 64, "f64": 64}
CLASS = {1: ".pred", 16: ".b16", 32: ".b32", 64: ".b64"}


def f32(x): return struct.unpack("<I", struct.pack("<f", x))[0]
def f64(x): return struct.unpack("<Q", struct.pack("<d", x))[0]


M32, M64 = (1 << 32) - 1, (1 << 64) - 1
I32 = [0, 1, 2, 3, 7, M32, M32 - 1, 0x80000000, 0x7FFFFFFF, 0x80000001, 0x10000, 0xFFFF, 12345678,
       (-12345678) & M32, 0x55555555]
I64 = [0, 1, 2, 3, M64, M64 - 1, 1 << 63, (1 << 63) - 1, (1 << 63) + 1, 0x80000000, M32, 1 << 32,
       0x123456789ABCDEF0, (-0x123456789) & M64]
SHIFTS = [0, 1, 31, 32, 33, 63, 64, 255]
POS = [0, 1, 8, 31, 32, 63, 255]
LEN = [0, 1, 8, 31, 32, 33, 64, 255]
F32 = [0, 0x80000000, f32(1), f32(-1), f32(1.5), f32(3), f32(0.1), 0x00800000, 0x80800000, 0x00000001,
       0x007FFFFF, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345,
       0x7F800001, 0xFFC00001, 0x33800000, 0x3F800001, 0x34000000, f32(0.5), f32(2.5), f32(-2.5)]
F32_3 = [0, 0x80000000, f32(1), f32(-1), 0x00000001, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
         0x7FC12345, 0x7F800001, 0x33800000, f32(0.1)]
F64 = [0, 1 << 63, f64(1), f64(-1), f64(1.5), f64(3), f64(0.1), 0x0010000000000000, 1, 0x000FFFFFFFFFFFFF,
       0x800FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
       0x7FF8000012345678, 0x7FF0000000000001, 0xFFF8000000000001, 0x3CA0000000000000, 0x3FF0000000000001,
       f64(2.5), f64(-2.5), f64(0.5)]
F64_3 = [0, 1 << 63, f64(1), f64(-1), 1, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
         0xFFF0000000000000, 0x7FF8000012345678, 0x7FF0000000000001, 0x3CA0000000000000, f64(0.1)]
F16 = [0, 0x8000, 0x3C00, 0xBC00, 0x3E00, 0x0001, 0x03FF, 0x8001, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
       0x7E00, 0x7D23, 0x7C01, 0xFE01, 0x3C01, 0x1400, 0x3800]
BF16 = [0, 0x8000, 0x3F80, 0xBF80, 0x3FC0, 0x0001, 0x007F, 0x8001, 0x0080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80,
        0x7FC0, 0x7FA3, 0x7F81, 0xFFC1, 0x3F81, 0x3380, 0x3F00]
# conversion sources: values near every destination's range and rounding edges
CVT_F32 = sorted(set(F32 + [f32(x) for x in (-0.5, 0.49999997, 1.4999999, -1.5, 3.5, 65504.0, 65519.0, 65520.0,
                                              1e10, -1e10, 2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 128, 2.0 ** 32,
                                              2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 4294967040.0, 1e-8, 6e-8,
                                              3e-5, 1.00048828125, 1.0009765625, 3.3895314e38)]
                     + [0x3F808000, 0x3F818000, 0x3F80C000, 0x38800000, 0x33000000]))
CVT_F64 = sorted(set(F64 + [f64(x) for x in (-0.5, 0.49999999999999994, -1.5, 3.5, 65504.0, 65520.0, 1e10,
                                              -1e10, 2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 0.5, -2.0 ** 31 - 1,
                                              2.0 ** 32, 2.0 ** 32 - 1, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e39,
                                              -1e39, 1e-40, 1e-46, 3.4028235677973366e38,
                                              1.0000000596046448, 1.00000011920928955, 1.0000001788139343)]))
CVT_I32 = I32 + [0x01000001, 0x00FFFFFF, 0x7FFFFFC0, 0xFFFF8000, 65520, 65505]
CVT_I64 = I64 + [(1 << 53) + 1, (1 << 24) + 1, 0x7FFFFFFFFFFFFC00, 0x20000000000001, 0xFFFFFFFFFF000001]
CVT_I16 = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x00FF, 0x0100, 0x1234]

POOL = {"s32": I32, "u32": I32, "b32": I32, "s64": I64, "u64": I64, "b64": I64,
        "f32": F32, "f64": F64, "f16": F16, "bf16": BF16}

FORMS = []   # (name, mnemonic, dst type, [source types], [pools])


def form(mnemonic, dst, srcs, pools=None, name=None):
    """One instruction form; `name` (default: the mnemonic) tells apart a second operand set."""
    pools = pools if pools is not None else [POOL[s] for s in srcs]
    FORMS.append((name or mnemonic, mnemonic, dst, srcs, pools))


# ---- integer ----
for t, w in (("s32", 32), ("u32", 32), ("s64", 64), ("u64", 64)):
    for op in ("add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"):
        form(f"{op}.{t}", t, [t, t])
    form(f"mad.lo.{t}", t, [t, t, t], [POOL[t][:9]] * 3)
    form(f"mad.hi.{t}", t, [t, t, t], [POOL[t][:9]] * 3)
    form(f"abs.{t}" if t[0] == "s" else f"neg.s{w}", t, [t])
for t in ("s32", "u32"):
    form(f"mul.wide.{t}", t[0] + "64", [t, t])
    form(f"mad.wide.{t}", t[0] + "64", [t, t, t[0] + "64"], [I32[:9], I32[:9], I64[:9]])
form("add.sat.s32", "s32", ["s32", "s32"])
form("sub.sat.s32", "s32", ["s32", "s32"])
form("mul24.lo.s32", "s32", ["s32", "s32"]); form("mul24.hi.u32", "u32", ["u32", "u32"])
for t, pool in (("b32", I32), ("b64", I64)):
    form(f"shl.{t}", t, [t, "u32"], [pool, SHIFTS])
for t, pool in (("u32", I32), ("s32", I32), ("u64", I64), ("s64", I64)):
    form(f"shr.{t}", t, [t, "u32"], [pool, SHIFTS])
for t, pool in (("u32", I32), ("s32", I32), ("u64", I64), ("s64", I64)):
    form(f"bfe.{t}", t, [t, "u32", "u32"], [pool[:6], POS, LEN])
    form(f"bfind.{t}", "u32", [t]); form(f"bfind.shiftamt.{t}", "u32", [t])
for t, pool in (("b32", I32), ("b64", I64)):
    form(f"bfi.{t}", t, [t, t, "u32", "u32"], [pool[:4], pool[4:8], POS, LEN])
    form(f"brev.{t}", t, [t]); form(f"popc.{t}", "u32", [t]); form(f"clz.{t}", "u32", [t])
form("fns.b32", "u32", ["b32", "u32", "s32"], [[0, M32, 0x80000001, 0x55555555, 0x00F000F0],
                                              [0, 1, 5, 31, 32, 255], [0, 1, 2, 3, 17, 33, M32, M32 - 1, 0x80000000]])
form("bmsk.clamp.b32", "b32", ["u32", "u32"], [POS + [M32], LEN + [M32]])
form("bmsk.wrap.b32", "b32", ["u32", "u32"], [POS + [M32], LEN + [M32]])
SZEXT_WIDTHS = [0, 1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, M32, 0x80000000]
for m in ("clamp", "wrap"):
    for t in ("u32", "s32"):
        form(f"szext.{m}.{t}", t, [t, "u32"], [I32, SZEXT_WIDTHS])
form("shf.l.wrap.b32", "b32", ["b32", "b32", "u32"], [I32[:6], I32[6:12], SHIFTS])
form("shf.r.clamp.b32", "b32", ["b32", "b32", "u32"], [I32[:6], I32[6:12], SHIFTS])

# ---- float ----
for t, pool, pool3 in (("f32", F32, F32_3), ("f64", F64, F64_3)):
    mods = [".rn", ".rz", ".rm", ".rp"] + ([".rn.ftz", ".rn.sat", ".rz.ftz", ".rn.ftz.sat"] if t == "f32" else [])
    for op in ("add", "sub", "mul"):
        for m in mods:
            form(f"{op}{m}.{t}", t, [t, t])
    for m in [".rn", ".rz", ".rm", ".rp"] + ([".rn.ftz", ".rn.sat", ".rn.ftz.sat"] if t == "f32" else []):
        form(f"fma{m}.{t}", t, [t, t, t], [pool3] * 3)
    for m in [".rn", ".rz"] + ([".rn.ftz", ".full", ".full.ftz", ".approx"] if t == "f32" else []):
        form(f"div{m}.{t}", t, [t, t])
    for m in [".rn"] + ([".rn.ftz", ".approx", ".approx.ftz"] if t == "f32" else []):
        form(f"sqrt{m}.{t}", t, [t])
    for m in [".rn"] + ([".rn.ftz", ".approx.ftz"] if t == "f32" else [".approx.ftz"]):
        form(f"rcp{m}.{t}", t, [t])
    for m in ["", ".NaN"] + ([".ftz", ".ftz.NaN"] if t == "f32" else []):
        form(f"min{m}.{t}", t, [t, t]); form(f"max{m}.{t}", t, [t, t])
    for m in [""] + ([".ftz"] if t == "f32" else []):
        form(f"abs{m}.{t}", t, [t]); form(f"neg{m}.{t}", t, [t])
form("copysign.f32", "f32", ["f32", "f32"])

# ---- conversions ----
CP = {"f32": CVT_F32, "f64": CVT_F64, "s32": CVT_I32, "u32": CVT_I32, "s64": CVT_I64, "u64": CVT_I64,
      "f16": F16, "bf16": BF16, "s16": CVT_I16, "u16": CVT_I16}
for src in ("f32", "f64", "f16", "bf16"):
    for dst in ("s32", "u32", "s64", "u64", "s16", "u16"):
        for r in ("rni", "rzi", "rmi", "rpi") if src in ("f32", "f64") else ("rni", "rzi"):
            form(f"cvt.{r}.{dst}.{src}", dst, [src], [CP[src]])
    if src == "f32":
        form("cvt.rzi.ftz.s32.f32", "s32", [src], [CP[src]])
for dst, src in (("f32", "f32"), ("f64", "f64")):
    for r in ("rni", "rzi", "rmi", "rpi"):
        form(f"cvt.{r}.{dst}.{src}", dst, [src], [CP[src]])
form("cvt.rni.ftz.f32.f32", "f32", ["f32"], [CVT_F32]); form("cvt.sat.f32.f32", "f32", ["f32"], [CVT_F32])
form("cvt.ftz.sat.f32.f32", "f32", ["f32"], [CVT_F32]); form("cvt.sat.f64.f64", "f64", ["f64"], [CVT_F64])
for dst in ("f32", "f64"):
    for src in ("s32", "u32", "s64", "u64", "s16", "u16"):
        for r in ("rn", "rz", "rm", "rp"):
            form(f"cvt.{r}.{dst}.{src}", dst, [src], [CP[src]])
for r in ("rn", "rz", "rm", "rp"):
    for m in ("", ".ftz", ".sat"):
        form(f"cvt.{r}{m}.f32.f64", "f32", ["f64"], [CVT_F64])
    form(f"cvt.{r}.f16.f32", "f16", ["f32"], [CVT_F32]); form(f"cvt.{r}.f16.f64", "f16", ["f64"], [CVT_F64])
    form(f"cvt.{r}.bf16.f32", "bf16", ["f32"], [CVT_F32]); form(f"cvt.{r}.bf16.f64", "bf16", ["f64"], [CVT_F64])
    form(f"cvt.{r}.f16.s32", "f16", ["s32"], [CVT_I32]); form(f"cvt.{r}.bf16.s32", "bf16", ["s32"], [CVT_I32])
form("cvt.rn.relu.f16.f32", "f16", ["f32"], [CVT_F32]); form("cvt.rn.relu.bf16.f32", "bf16", ["f32"], [CVT_F32])
form("cvt.rn.satfinite.f16.f32", "f16", ["f32"], [CVT_F32])
for m in ("", ".ftz"):
    form(f"cvt{m}.f64.f32", "f64", ["f32"], [CVT_F32]); form(f"cvt{m}.f32.f16", "f32", ["f16"], [F16])
form("cvt.f32.bf16", "f32", ["bf16"], [BF16]); form("cvt.f64.f16", "f64", ["f16"], [F16])
form("cvt.f64.bf16", "f64", ["bf16"], [BF16])
form("cvt.rn.f16.bf16", "f16", ["bf16"], [BF16]); form("cvt.rn.bf16.f16", "bf16", ["f16"], [F16])
for src, dst in (("s64", "s32"), ("s64", "u32"), ("u64", "s32"), ("u64", "u32"), ("s32", "u32"), ("u32", "s32"),
                 ("s32", "s16"), ("s32", "u16"), ("u32", "u16"), ("s64", "s16")):
    form(f"cvt.sat.{dst}.{src}", dst, [src], [CP[src]]); form(f"cvt.{dst}.{src}", dst, [src], [CP[src]])
for src, dst in (("s32", "s64"), ("u32", "s64"), ("s32", "u64"), ("s16", "s32"), ("u16", "s64")):
    form(f"cvt.{dst}.{src}", dst, [src], [CP[src]])
F32_PACK = [0, 0x80000000, f32(1), f32(-1), f32(65520.0), f32(65519.0), 0x7F800000, 0x7FC12345, 0xFFC00001,
            f32(1e-8), f32(6e-8), 0x3F808000, 0x3F818000, f32(-3e38), f32(0.1)]
for p in ("f16x2", "bf16x2"):
    for m in ("rn", "rz", "rn.relu", "rn.satfinite"):
        form(f"cvt.{m}.{p}.f32", p, ["f32", "f32"], [F32_PACK] * 2)

# cvt.pack.sat: two s32 clamped to a narrow integer type, packed (b lowest, then a, then c's low bits)
PACK_S32 = [0, 1, 2, 3, 7, 8, 15, 16, 127, 128, 255, 256, 32767, 32768, 65535, 65536, M32, M32 - 1, M32 - 2,
            M32 - 3, M32 - 7, M32 - 8, M32 - 127, M32 - 128, (-32768) & M32, (-32769) & M32, 0x80000000,
            0x7FFFFFFF, 0x12345678]
PACK_C = [0, M32, 0x12345678, 0xDEADBEEF, 0x55555555]
for t in ("u16", "s16"):
    form(f"cvt.pack.sat.{t}.s32", "b32", ["s32", "s32"], [PACK_S32] * 2)
for t in ("u8", "s8", "u4", "s4", "u2", "s2"):
    form(f"cvt.pack.sat.{t}.s32.b32", "b32", ["s32", "s32", "b32"], [PACK_S32, PACK_S32, PACK_C])

# ---- packed and scalar 16-bit floats ----
def packs(pool, k):
    rng = np.random.default_rng(1234 + k)
    pairs = [(a, b) for a in pool for b in pool]
    picks = rng.choice(len(pairs), size=min(len(pairs), 96), replace=False)
    return [(pairs[i][0] << 16) | pairs[i][1] for i in sorted(picks)]


for p, h, pool in (("f16x2", "f16", F16), ("bf16x2", "bf16", BF16)):
    P = [packs(pool, k) for k in range(3)]
    mods = [".rn", ".rn.ftz", ".rn.sat", ".rn.ftz.sat", ""] if p == "f16x2" else [".rn", ""]
    for op in ("add", "sub", "mul"):
        for m in mods:
            form(f"{op}{m}.{p}", p, [p, p], P[:2]); form(f"{op}{m}.{h}", h, [h, h])
    for m in ([".rn", ".rn.ftz", ".rn.sat", ".rn.ftz.sat", ".rn.relu"] if p == "f16x2" else [".rn", ".rn.relu"]):
        form(f"fma{m}.{p}", p, [p, p, p], [q[:11] for q in P]); form(f"fma{m}.{h}", h, [h, h, h], [pool[:11]] * 3)
    for m in ("", ".NaN") + ((".ftz",) if p == "f16x2" else ()):
        form(f"min{m}.{p}", p, [p, p], P[:2]); form(f"max{m}.{p}", p, [p, p], P[:2])
    form(f"neg.{p}", p, [p], P[:1]); form(f"abs.{p}", p, [p], P[:1])


# .ftz at the edge of the normal range: products and fused sums whose exact value lies just below
# the smallest normal, so that rounding it (to the subnormal grid) may reach the smallest normal.
F16_NEAR_ONE = [0x3800, 0x37FF, 0x3801, 0x3BFF, 0x3BFE, 0x3C00, 0x3C01, 0xB800, 0xBBFF, 0x3555, 0x3A00]
F16_NEAR_MIN = [0x0400, 0x0401, 0x0402, 0x07FF, 0x07FE, 0x0800, 0x0801, 0x0555, 0x0600, 0x0AAA, 0x8400, 0x87FF]
F16_ADDEND = [0, 0x8000, 0x0400, 0x8400, 0x0401, 0x87FF, 0x8800, 0x0001, 0x0800]
F32_NEAR_ONE = [0x3F000000, 0x3EFFFFFF, 0x3F000001, 0x3F7FFFFF, 0x3F7FFFFE, 0x3F800000, 0x3F800001, 0xBF7FFFFF,
                0x3EAAAAAB, 0x3F400000]
F32_NEAR_MIN = [0x00800000, 0x00800001, 0x00FFFFFF, 0x00FFFFFE, 0x01000000, 0x01000001, 0x00AAAAAB, 0x00C00000,
                0x80800000, 0x80FFFFFF]
F32_ADDEND = [0, 0x80000000, 0x00800000, 0x80800000, 0x00800001, 0x80FFFFFF, 0x81000000, 0x00000001, 0x01000000]


def near_min_pairs(a, b, k):
    """Packed f16x2 words whose halves are a near-one times a near-minimum operand, both orders."""
    rng = np.random.default_rng(4321 + k)
    return [(int(rng.choice(a)) << 16) | int(rng.choice(b)) for _ in range(48)] + \
           [(int(rng.choice(b)) << 16) | int(rng.choice(a)) for _ in range(48)]


for m in (".rn.ftz", ".rz.ftz", ".rn.ftz.sat"):
    form(f"mul{m}.f32", "f32", ["f32", "f32"], [F32_NEAR_ONE, F32_NEAR_MIN], name=f"mul{m}.f32 near min")
form("fma.rn.ftz.f32", "f32", ["f32"] * 3, [F32_NEAR_ONE, F32_NEAR_MIN, F32_ADDEND], name="fma.rn.ftz.f32 near min")
form("fma.rz.ftz.f32", "f32", ["f32"] * 3, [F32_NEAR_ONE, F32_NEAR_MIN, F32_ADDEND], name="fma.rz.ftz.f32 near min")
for m in (".rn.ftz", ".ftz", ".rn"):
    form(f"mul{m}.f16", "f16", ["f16", "f16"], [F16_NEAR_ONE, F16_NEAR_MIN], name=f"mul{m}.f16 near min")
    X2 = [near_min_pairs(F16_NEAR_ONE, F16_NEAR_MIN, k) for k in range(2)]
    X2[1] = [((w & 0xFFFF) << 16) | (w >> 16) for w in X2[1]]       # the other operand of each half
    form(f"mul{m}.f16x2", "f16x2", ["f16x2", "f16x2"], [X2[0], X2[1]], name=f"mul{m}.f16x2 near min")
form("fma.rn.ftz.f16", "f16", ["f16"] * 3, [F16_NEAR_ONE, F16_NEAR_MIN, F16_ADDEND], name="fma.rn.ftz.f16 near min")
form("fma.rn.ftz.f16x2", "f16x2", ["f16x2"] * 3,
     [near_min_pairs(F16_NEAR_ONE, F16_NEAR_ONE, 7)[:12], near_min_pairs(F16_NEAR_MIN, F16_NEAR_MIN, 8)[:12],
      [(a << 16) | b for a in F16_ADDEND for b in F16_ADDEND][::4]], name="fma.rn.ftz.f16x2 near min")


# Opcodes newer than PTX 8.0, and the .version their kernels declare.
NEWER_PTX = {"szext": "8.6"}


def ptx(mnemonic, dst, srcs, n):
    version = NEWER_PTX.get(mnemonic.split(".")[0], "8.0")
    lines = [f".version {version}", ".target sm_90", ".address_size 64", "",
             ".visible .entry k(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)", "{",
             ".reg .pred %oob;", ".reg .b32 %lane, %cta, %nthreads, %tx, %n;",
             ".reg .b64 %off, %base, %addr, %x, %y;"]
    for i, s in enumerate(srcs):
        lines.append(f".reg {CLASS[WIDTH[s]]} %s{i};")
    lines.append(f".reg {CLASS[WIDTH[dst]]} %d0;")
    lines += ["mov.u32 %cta, %ctaid.x;", "mov.u32 %nthreads, %ntid.x;", "mov.u32 %tx, %tid.x;",
              "mad.lo.u32 %lane, %cta, %nthreads, %tx;", "ld.param.u32 %n, [p_n];",
              "setp.ge.u32 %oob, %lane, %n;", "@%oob bra DONE;", "mul.wide.u32 %off, %lane, 8;",
              "ld.param.u64 %base, [p_in];", "add.u64 %addr, %base, %off;"]
    for i, s in enumerate(srcs):
        if i:
            lines.append(f"add.u64 %addr, %addr, {n * 8};")
        lines.append("ld.global.u64 %x, [%addr];")
        lines.append({16: f"cvt.u16.u64 %s{i}, %x;", 32: f"cvt.u32.u64 %s{i}, %x;",
                      64: f"mov.b64 %s{i}, %x;"}[WIDTH[s]])
    lines.append(f"{mnemonic} %d0, {', '.join(f'%s{i}' for i in range(len(srcs)))};")
    lines += ["ld.param.u64 %base, [p_out];", "add.u64 %addr, %base, %off;",
              {16: "cvt.u64.u16 %y, %d0;", 32: "cvt.u64.u32 %y, %d0;", 64: "mov.b64 %y, %d0;"}[WIDTH[dst]],
              "st.global.u64 [%addr], %y;", "DONE:", "ret;", "}"]
    return "\n".join(lines) + "\n"


def tuples(pools, seed):
    mask = [(1 << 64) - 1] * len(pools)
    total = int(np.prod([len(p) for p in pools]))
    rows = np.array(list(itertools.product(*pools)), dtype=np.uint64).T.reshape(len(pools), total)
    if total > CAP:
        keep = np.sort(np.random.default_rng(seed).choice(total, size=CAP, replace=False))
        rows = rows[:, keep]
    return np.ascontiguousarray(rows)


def build(prefixes=()):
    from warpsim.machine.device import Device
    names, texts, arrays, rejected = [], [], {}, {}
    seen = set()
    for k, (name, mnemonic, dst, srcs, pools) in enumerate(FORMS):
        if name in seen or (prefixes and not name.startswith(tuple(prefixes))):
            continue
        seen.add(name)
        rows = tuples(pools, k)
        text = ptx(mnemonic, dst, srcs, rows.shape[1])
        try:
            Device().load_module(text, f"{name}.ptx").program.check_all()
        except Exception as exc:  # the loader's refusal is the record
            rejected[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
            continue
        arrays[f"in{len(names)}"] = rows
        names.append(name); texts.append(text)
    return names, texts, arrays, rejected


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", ".."))
    names, texts, arrays, rejected = build(sys.argv[1:])
    os.makedirs(os.path.join(here, "out"), exist_ok=True)
    np.savez_compressed(os.path.join(here, "out", "forms.npz"), names=np.array(names), ptx=np.array(texts), **arrays)
    json.dump(rejected, open(os.path.join(here, "out", "rejected.json"), "w"), indent=1)
    print(len(names), "forms,", sum(a.shape[1] for a in arrays.values()), "instances;", len(rejected), "rejected")
    for n, why in rejected.items():
        print("  rejected", n, "--", why)
