"""Hardware check of the float and conversion families (see README.md).

  python hw.py gen        # here: cases.json + operands.npz in data/
  python3 hw.py run       # on the GPU: $OUT/results.npz, $OUT/errors.json, $OUT/sass.txt
  python compare.py R     # here: compare warpsim with results dir R
"""
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
N = 4096

WIDTH = {"pred": 1, "u8": 16, "s8": 16, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
         "e4m3x2": 16, "e5m2x2": 16, "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32,
         "bf16x2": 32, "tf32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64}
TBITS = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "bf16": 16, "e4m3x2": 16, "e5m2x2": 16,
         "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "tf32": 32,
         "u64": 64, "s64": 64, "f64": 64, "pred": 1}
CLASS = {1: ".pred", 16: ".b16", 32: ".b32", 64: ".b64"}


# ----------------------------------------------------------------- cases

def cases():
    out = []

    def add(mn, dsts, srcs, tag=""):
        out.append(dict(name=mn + ("#" + tag if tag else "") + f"/{len(srcs)}", mnemonic=mn,
                        dsts=dsts, srcs=srcs, tag=tag))

    f32, f64 = "f32", "f64"
    for op in ("add", "sub", "mul"):
        for m in ("", ".rn", ".rz", ".rm", ".rp", ".ftz", ".sat", ".rn.ftz.sat", ".rz.ftz", ".rm.ftz"):
            add(f"{op}{m}.f32", [f32], [f32, f32])
        for m in (".rn", ".rz", ".rm", ".rp"):
            add(f"{op}{m}.f64", [f64], [f64, f64])
    for m in (".rn", ".rz", ".rm", ".rp", ".rn.ftz", ".rn.sat", ".rn.ftz.sat", ".rz.ftz"):
        add(f"fma{m}.f32", [f32], [f32] * 3)
    for m in (".rn", ".rz", ".rm", ".rp"):
        add(f"fma{m}.f64", [f64], [f64] * 3)
    add("mad.f32", [f32], [f32] * 3)
    add("mad.rn.f32", [f32], [f32] * 3)
    add("mad.rn.f64", [f64], [f64] * 3)
    for m in (".rn", ".rz", ".rm", ".rp", ".full", ".full.ftz", ".approx", ".approx.ftz", ".rn.ftz"):
        add(f"div{m}.f32", [f32], [f32, f32])
    for m in (".rn", ".rz", ".rm", ".rp"):
        add(f"div{m}.f64", [f64], [f64, f64])
        add(f"rcp{m}.f64", [f64], [f64])
        add(f"sqrt{m}.f64", [f64], [f64])
    for m in (".rn", ".rz", ".rm", ".rp", ".approx", ".approx.ftz", ".rn.ftz"):
        add(f"rcp{m}.f32", [f32], [f32])
        add(f"sqrt{m}.f32", [f32], [f32])
    add("rcp.approx.ftz.f64", [f64], [f64])
    add("rsqrt.approx.f64", [f64], [f64])
    add("rsqrt.approx.ftz.f64", [f64], [f64])
    for fn in ("rsqrt", "ex2", "lg2", "sin", "cos"):
        add(f"{fn}.approx.f32", [f32], [f32])
        add(f"{fn}.approx.ftz.f32", [f32], [f32])
    add("sin.approx.f32", [f32], [f32], "small")
    add("cos.approx.f32", [f32], [f32], "small")
    add("tanh.approx.f32", [f32], [f32])
    for t in (f32, f64):
        for op in ("min", "max"):
            for m in ([""] if t == f64 else ["", ".ftz", ".NaN", ".xorsign.abs"]):
                add(f"{op}{m}.{t}", [t], [t, t])
        add(f"abs.{t}", [t], [t])
        add(f"neg.{t}", [t], [t])
        if t == f32:
            add("abs.ftz.f32", [t], [t])
            add("neg.ftz.f32", [t], [t])
        add(f"copysign.{t}", [t], [t, t])
        for test in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
            add(f"testp.{test}.{t}", ["pred"], [t])
    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        b = t.startswith("bf")
        for op in ("add", "sub", "mul"):
            for m in ([".rn"] if b else ["", ".rn", ".rn.ftz", ".rn.sat", ".ftz.sat"]):
                add(f"{op}{m}.{t}", [t], [t, t])
        for m in ([".rn", ".rn.relu"] if b else [".rn", ".rn.ftz", ".rn.sat", ".rn.relu", ".rn.ftz.sat"]):
            add(f"fma{m}.{t}", [t], [t] * 3)
        for op in ("min", "max"):
            for m in (["", ".NaN", ".xorsign.abs"] if b else ["", ".ftz", ".NaN", ".xorsign.abs"]):
                add(f"{op}{m}.{t}", [t], [t, t])
        for op in ("neg", "abs"):
            add(f"{op}.{t}", [t], [t])
            if not b:
                add(f"{op}.ftz.{t}", [t], [t])
        add(f"ex2.approx{'.ftz' if b else ''}.{t}", [t], [t])
        add(f"tanh.approx.{t}", [t], [t])
    ints = ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"]
    for src in ints:
        for dst in ("f16", "bf16", "f32", "f64"):
            for m in ("rn", "rz", "rm", "rp"):
                if TBITS[src] <= 16 and dst in ("f32", "f64") and m != "rn":
                    continue
                add(f"cvt.{m}.{dst}.{src}", [dst], [src])
    for src in ("f16", "bf16", "f32", "f64"):
        for dst in ints:
            for m in ("rni", "rzi", "rmi", "rpi"):
                if m in ("rmi", "rpi") and dst in ("s8", "u8", "s16", "u16"):
                    continue
                add(f"cvt.{m}.{dst}.{src}", [dst], [src], "toint")
    add("cvt.rpi.ftz.s32.f32", ["s32"], [f32], "toint")
    add("cvt.rmi.ftz.s32.f32", ["s32"], [f32], "toint")
    add("cvt.rzi.sat.s32.f32", ["s32"], [f32], "toint")
    for dst, src in [("s8", "s32"), ("u8", "s32"), ("s16", "u32"), ("s32", "s64"), ("u32", "u64"),
                     ("u64", "s8"), ("u32", "s16"), ("u64", "s32"), ("s64", "u64"), ("u64", "s64"),
                     ("s32", "u32"), ("u16", "s8"), ("s8", "u8")]:
        add(f"cvt.{dst}.{src}", [dst], [src])
        add(f"cvt.sat.{dst}.{src}", [dst], [src])
    for dst, src in [("f32", "f64"), ("f16", "f64"), ("bf16", "f64"), ("f16", "f32"), ("bf16", "f32"),
                     ("bf16", "f16"), ("f16", "bf16")]:
        for m in ("rn", "rz", "rm", "rp"):
            add(f"cvt.{m}.{dst}.{src}", [dst], [src])
    for extra in ("cvt.rn.ftz.f32.f64", "cvt.rn.sat.f32.f64", "cvt.rz.ftz.sat.f32.f64",
                  "cvt.rn.relu.f16.f32", "cvt.rn.satfinite.f16.f32", "cvt.rn.relu.bf16.f32",
                  "cvt.rn.satfinite.bf16.f32", "cvt.rn.sat.f16.f32", "cvt.rn.ftz.f16.f32",
                  "cvt.rp.ftz.f16.f32"):
        dst, src = extra.split(".")[-2:]
        add(extra, [dst], [src])
    for dst, src in [("f32", "f16"), ("f32", "bf16"), ("f64", "f32"), ("f64", "f16"), ("f64", "bf16")]:
        add(f"cvt.{dst}.{src}", [dst], [src])
    add("cvt.ftz.f64.f32", ["f64"], [f32])
    add("cvt.ftz.f32.f32", [f32], [f32])
    add("cvt.sat.f32.f32", [f32], [f32])
    add("cvt.ftz.sat.f32.f32", [f32], [f32])
    add("cvt.sat.f64.f64", [f64], [f64])
    add("cvt.sat.f16.f16", ["f16"], ["f16"])
    for t in (f32, f64, "f16"):
        for m in ("rni", "rzi", "rmi", "rpi"):
            add(f"cvt.{m}.{t}.{t}", [t], [t])
    add("cvt.rni.ftz.f32.f32", [f32], [f32])
    add("cvt.rni.f32.f64", [f32], [f64])
    add("cvt.rmi.f64.f32", [f64], [f32])
    for dst in ("f16x2", "bf16x2"):
        for m in (".rn", ".rz", ".rn.relu", ".rn.satfinite", ".rz.relu.satfinite"):
            add(f"cvt{m}.{dst}.f32", [dst], [f32, f32])
    for m in (".rna", ".rna.satfinite", ".rn", ".rz", ".rn.satfinite", ".rn.relu"):
        add(f"cvt{m}.tf32.f32", ["tf32"], [f32])
    for fp8 in ("e4m3x2", "e5m2x2"):
        add(f"cvt.rn.satfinite.{fp8}.f32", [fp8], [f32, f32])
        add(f"cvt.rn.satfinite.relu.{fp8}.f32", [fp8], [f32, f32])
        add(f"cvt.rn.satfinite.{fp8}.f16x2", [fp8], ["f16x2"])
        add(f"cvt.rn.f16x2.{fp8}", ["f16x2"], [fp8])
        add(f"cvt.rn.relu.f16x2.{fp8}", ["f16x2"], [fp8])
    return out


# ------------------------------------------------------------- operands

FLOAT_INFO = {  # bits, mantissa bits, exponent bits
    "f16": (16, 10, 5), "bf16": (16, 7, 8), "f32": (32, 23, 8), "f64": (64, 52, 11)}


def to_bits(values, t):
    values = np.asarray(values, dtype=np.float64)
    if t == "f64":
        return values.view(np.uint64)
    if t == "f32":
        return values.astype(np.float32).view(np.uint32).astype(np.uint64)
    if t == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if t == "bf16":   # truncation is fine for generating inputs
        return (values.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint64)
    raise KeyError(t)


def float_pool(rng, t, tag=""):
    nbits, mbits, ebits = FLOAT_INFO[t]
    bias = (1 << (ebits - 1)) - 1
    n = N
    with np.errstate(all="ignore"):
        raw = rng.integers(0, 1 << 63, n, dtype=np.int64).astype(np.uint64) << np.uint64(1)
        raw = raw >> np.uint64(64 - nbits)
        moderate = to_bits(rng.uniform(-4, 4, n) * np.exp2(rng.integers(-12, 12, n)), t)
        tiny_exp = rng.integers(-bias - mbits - 2, -bias + 4, n)
        tiny = to_bits(rng.uniform(-2, 2, n) * np.exp2(tiny_exp.astype(float)), t)
        huge = to_bits(rng.uniform(-2, 2, n) * np.exp2(rng.integers(bias - 4, bias + 1, n).astype(float)), t)
        ints = to_bits(np.round(rng.uniform(-40, 40, n) * 2) / 2, t)
    pick = rng.random(n)
    out = np.where(pick < 0.25, raw, np.where(pick < 0.6, moderate, np.where(
        pick < 0.72, tiny, np.where(pick < 0.84, huge, ints))))
    if tag == "toint":
        with np.errstate(all="ignore"):
            bounds = []
            for k in (7, 8, 15, 16, 31, 32, 63, 64):
                for d in (-1.5, -1, -0.5, 0, 0.5, 1, 1.5, -1024, 1024, -2 ** 20, 2 ** 20):
                    bounds += [2.0 ** k + d, -(2.0 ** k) + d]
            near = to_bits(rng.choice(bounds, n), t)
            wide = to_bits(rng.uniform(-2 ** 33, 2 ** 33, n), t)
        pick = rng.random(n)
        out = np.where(pick < 0.3, near, np.where(pick < 0.5, wide, out))
    if tag == "small":
        out = to_bits(rng.uniform(-math.pi, math.pi, n), t)
    sign = np.uint64(1) << np.uint64(nbits - 1)
    emask = ((np.uint64(1) << np.uint64(ebits)) - np.uint64(1)) << np.uint64(mbits)
    qbit = np.uint64(1) << np.uint64(mbits - 1)
    specials = [0, sign, emask, emask | sign, emask | qbit, emask | qbit | sign, emask | np.uint64(1),
                emask | qbit | np.uint64(5), emask | np.uint64(7) | sign, (emask | qbit) | (qbit - np.uint64(1)),
                1, 1 | sign, qbit, (emask >> np.uint64(1)) & ~emask | 0, np.uint64(1) << np.uint64(mbits),
                emask - np.uint64(1), (emask - np.uint64(1)) | sign]
    specials += list(to_bits([1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 0.25, 0.75, 2.0], t))
    out[:len(specials)] = np.array(specials, dtype=np.uint64)
    return out


def int_pool(rng, t):
    bits = TBITS[t]
    n = N
    raw = rng.integers(0, 1 << 63, n, dtype=np.int64).astype(np.uint64) << np.uint64(1)
    raw |= rng.integers(0, 2, n, dtype=np.int64).astype(np.uint64)
    shift = rng.integers(0, 64, n).astype(np.uint64)
    sparse = (rng.integers(1, 1 << 14, n).astype(np.uint64) << shift)
    small = rng.integers(-300, 300, n).astype(np.int64).view(np.uint64)
    pick = rng.random(n)
    out = np.where(pick < 0.4, raw, np.where(pick < 0.8, sparse, small))
    mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(2 ** 64 - 1)
    out = out & mask
    top = 1 << (bits - 1)
    corners = [0, 1, 2, top - 1, top, top + 1, (1 << bits) - 1, (1 << bits) - 2, 2 ** 24 + 1,
               2 ** 53 + 1, 2 ** 62 + 2 ** 38 + 1, 2 ** 11 + 1, 2 ** 8 + 1, 65519, 65520]
    out[:len(corners)] = np.array([c & ((1 << bits) - 1) for c in corners], dtype=np.uint64)
    return out


def pools_for(case, rng):
    pools = []
    for t in case["srcs"]:
        if t in FLOAT_INFO:
            pools.append(float_pool(rng, t, case["tag"]))
        elif t in ("f16x2", "bf16x2"):
            e = t[:-2]
            lo, hi = float_pool(rng, e), float_pool(rng, e)
            hi = np.roll(hi, 7)
            pools.append(lo | (hi << np.uint64(16)))
        elif t in ("e4m3x2", "e5m2x2"):
            pools.append(np.arange(N, dtype=np.uint64) * np.uint64(0x9E37) & np.uint64(0xFFFF))
        else:
            pools.append(int_pool(rng, t))
    mn = case["mnemonic"]
    ftype = case["srcs"][0] if case["srcs"] else ""
    if mn.split(".")[0] in ("fma", "mad") and ftype in ("f32", "f64"):
        half = 12 if ftype == "f32" else 27
        k = N // 4
        i = rng.integers(1, 1 << (half - 1), k) * 2 + 1
        j = rng.integers(1, 1 << (half - 1), k) * 2 + 1
        sc = np.exp2(rng.integers(-20, 20, k).astype(float))
        a = (1 + i * 2.0 ** -half) * sc * np.where(rng.random(k) < 0.5, -1, 1)
        b = 1 + j * 2.0 ** -half
        lo_e = (-110, -70) if ftype == "f32" else (-160, -110)
        c = np.exp2(rng.integers(*lo_e, k).astype(float)) * sc * np.where(rng.random(k) < 0.5, -1, 1)
        for p, v in zip(pools, (a, b, c)):
            p[100:100 + k] = to_bits(v, ftype)
        # cancellation: c = -(a*b) rounded, slightly perturbed
        av = pools[0][100 + k:100 + 2 * k]
        bv = pools[1][100 + k:100 + 2 * k]
        dt = np.float32 if ftype == "f32" else np.float64
        ut = np.uint32 if ftype == "f32" else np.uint64
        with np.errstate(all="ignore"):
            prod = -(av.astype(ut).view(dt) * bv.astype(ut).view(dt))
            pools[2][100 + k:100 + 2 * k] = (prod.view(ut) + rng.integers(-2, 3, k).astype(ut)).astype(np.uint64)
    if mn.split(".")[0] in ("add", "sub") and len(pools) == 2 and ftype in FLOAT_INFO:
        k = N // 8
        pools[1][200:200 + k] = pools[0][200:200 + k] ^ (np.uint64(1) << np.uint64(TBITS[ftype] - 1))
        pools[1][200:200 + k] += rng.integers(0, 3, k).astype(np.uint64)
    return pools


# ----------------------------------------------------------------- PTX

def load(reg, w):
    return {1: f"setp.ne.u64 {reg}, %x, 0;", 16: f"cvt.u16.u64 {reg}, %x;",
            32: f"cvt.u32.u64 {reg}, %x;", 64: f"mov.b64 {reg}, %x;"}[w]


def store(reg, w):
    return {1: f"selp.u64 %y, 1, 0, {reg};", 16: f"cvt.u64.u16 %y, {reg};",
            32: f"cvt.u64.u32 %y, {reg};", 64: f"mov.b64 %y, {reg};"}[w]


def ptx(c):
    lines = [".version 8.8", ".target sm_90", ".address_size 64", "",
             ".visible .entry k(.param .u64 p_in, .param .u64 p_out)", "{",
             ".reg .b32 %lane, %cta, %nthreads, %tx;", ".reg .b64 %off, %base, %addr, %x, %y;"]
    for i, s in enumerate(c["srcs"]):
        lines.append(f".reg {CLASS[WIDTH[s]]} %s{i};")
    for j, d in enumerate(c["dsts"]):
        lines.append(f".reg {CLASS[WIDTH[d]]} %d{j};")
    lines += ["mov.u32 %cta, %ctaid.x;", "mov.u32 %nthreads, %ntid.x;", "mov.u32 %tx, %tid.x;",
              "mad.lo.u32 %lane, %cta, %nthreads, %tx;", "mul.wide.u32 %off, %lane, 8;",
              "ld.param.u64 %base, [p_in];", "add.u64 %addr, %base, %off;"]
    for i, s in enumerate(c["srcs"]):
        if i:
            lines.append(f"add.u64 %addr, %addr, {N * 8};")
        lines += ["ld.global.u64 %x, [%addr];", load(f"%s{i}", WIDTH[s])]
    ops = [f"%s{i}" for i in range(len(c["srcs"]))]
    dsts = ", ".join(f"%d{j}" for j in range(len(c["dsts"])))
    lines.append(f"{c['mnemonic']} {dsts}, {', '.join(ops)};")
    lines += ["ld.param.u64 %base, [p_out];", "add.u64 %addr, %base, %off;"]
    for j, d in enumerate(c["dsts"]):
        lines += [store(f"%d{j}", WIDTH[d]), "st.global.u64 [%addr], %y;"]
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- steps

def cases2():
    out = []

    def add(mn, dsts, srcs, tag=""):
        out.append(dict(name=mn + ("#" + tag if tag else "") + f"/{len(srcs)}", mnemonic=mn,
                        dsts=dsts, srcs=srcs, tag=tag))
    for op in ("add", "sub", "mul", "div", "min", "max"):
        for m in ([".rn", ".rz"] if op not in ("min", "max") else [""]):
            add(f"{op}{m}.f64", ["f64"], ["f64", "f64"], "nan")
    for m in (".rn", ".rm"):
        add(f"fma{m}.f64", ["f64"], ["f64"] * 3, "nan")
    add("mad.rn.f64", ["f64"], ["f64"] * 3, "nan")
    for dst in ("bf16", "f16", "tf32"):
        for m in ("rp", "rn", "rz"):
            add(f"cvt.{m}.ftz.{dst}.f32", [dst], ["f32"], "tiny")
    add("cvt.rp.ftz.bf16x2.f32", ["bf16x2"], ["f32", "f32"], "tiny")
    add("cvt.rp.bf16.f32", ["bf16"], ["f32"], "tiny")
    add("cvt.rn.ftz.f32.f64", ["f32"], ["f64"], "tiny")
    add("cvt.rp.ftz.f32.f64", ["f32"], ["f64"], "tiny")
    add("cvt.rp.ftz.f32.f16", ["f32"], ["f16"], "tiny")
    add("cvt.rpi.ftz.s32.f32", ["s32"], ["f32"], "tiny")
    add("cvt.rpi.ftz.f32.f32", ["f32"], ["f32"], "tiny")
    add("cvt.ftz.f32.f16", ["f32"], ["f16"], "tiny")
    add("cvt.rn.f16.f64", ["f16"], ["f64"], "nan")
    add("cvt.rn.bf16.f16", ["bf16"], ["f16"], "nan")
    add("cvt.rn.f16.bf16", ["f16"], ["bf16"], "nan")
    add("cvt.f64.bf16", ["f64"], ["bf16"], "nan")
    add("cvt.rni.f64.f64", ["f64"], ["f64"], "nan")
    add("cvt.sat.f64.f64", ["f64"], ["f64"], "nan")
    add("cvt.rni.f32.f32", ["f32"], ["f32"], "nan")
    add("cvt.rn.f32.f16", ["f32"], ["f16"], "nan")
    add("copysign.f64", ["f64"], ["f64", "f64"], "nan")
    add("copysign.f32", ["f32"], ["f32", "f32"], "nan")
    add("testp.notanumber.f64", ["pred"], ["f64"], "nan")
    add("fma.rn.relu.bf16", ["bf16"], ["bf16"] * 3, "nan")
    add("min.NaN.f16", ["f16"], ["f16"] * 2, "nan")
    add("max.xorsign.abs.bf16", ["bf16"], ["bf16"] * 2, "nan")
    return out


def nan_pool(rng, t):
    """Mostly NaNs with random sign and payload (quiet or signalling), some numbers."""
    nbits, mbits, ebits = FLOAT_INFO[t]
    emask = ((1 << ebits) - 1) << mbits
    payload = rng.integers(1, 1 << min(mbits, 62), N, dtype=np.int64).astype(np.uint64)
    sign = (rng.integers(0, 2, N).astype(np.uint64) << np.uint64(nbits - 1))
    nans = np.uint64(emask) | payload | sign
    with np.errstate(all="ignore"):
        numbers = to_bits(rng.uniform(-4, 4, N) * np.exp2(rng.integers(-3, 3, N)), t)
    specials = to_bits(rng.choice([0.0, -0.0, np.inf, -np.inf, 1.0], N), t)
    pick = rng.random(N)
    return np.where(pick < 0.6, nans, np.where(pick < 0.8, numbers, specials))


def tiny_pool(rng, t):
    nbits, mbits, ebits = FLOAT_INFO[t]
    bias = (1 << (ebits - 1)) - 1
    with np.errstate(all="ignore"):
        v = rng.uniform(-2, 2, N) * np.exp2(rng.integers(-bias - mbits - 1, -bias + 2, N).astype(float))
        return np.where(rng.random(N) < 0.5, to_bits(v, t),
                        rng.integers(0, 1 << mbits, N).astype(np.uint64) | (rng.integers(0, 2, N).astype(np.uint64) << np.uint64(nbits - 1)))


def gen2():
    os.makedirs(DATA, exist_ok=True)
    rng = np.random.default_rng(77)
    all_cases, arrays = [], {}
    for i, c in enumerate(cases2()):
        c["ptx"] = ptx(c)
        all_cases.append(c)
        pools = []
        for t in c["srcs"]:
            e = t[:-2] if t.endswith("x2") else t
            pool = nan_pool(rng, e) if c["tag"] == "nan" else tiny_pool(rng, e)
            if t.endswith("x2"):
                pool = pool | (np.roll(pool, 3) << np.uint64(16))
            pools.append(pool)
        arrays[f"in{i}"] = np.stack(pools)
    json.dump(all_cases, open(os.path.join(DATA, "cases.json"), "w"))
    np.savez_compressed(os.path.join(DATA, "operands.npz"), **arrays)
    print(len(all_cases), "cases")


def gen():
    os.makedirs(DATA, exist_ok=True)
    rng = np.random.default_rng(2026)
    all_cases, arrays = [], {}
    for i, c in enumerate(cases()):
        c["ptx"] = ptx(c)
        all_cases.append(c)
        arrays[f"in{i}"] = np.stack(pools_for(c, rng))
    json.dump(all_cases, open(os.path.join(DATA, "cases.json"), "w"))
    np.savez_compressed(os.path.join(DATA, "operands.npz"), **arrays)
    print(len(all_cases), "cases")


def run():
    import cupy as cp
    all_cases = json.load(open(os.path.join(DATA, "cases.json")))
    ops = np.load(os.path.join(DATA, "operands.npz"))
    results, errors = {}, {}
    for i, c in enumerate(all_cases):
        path = f"/tmp/k{i}.ptx"
        with open(path, "w") as f:
            f.write(c["ptx"])
        try:
            kernel = cp.RawModule(path=path).get_function("k")
            inp = cp.asarray(np.ascontiguousarray(ops[f"in{i}"]))
            out = cp.zeros((len(c["dsts"]), N), dtype=cp.uint64)
            kernel((N // 128,), (128,), (inp, out))
            cp.cuda.Device().synchronize()
            results[f"out{i}"] = cp.asnumpy(out)
        except Exception as e:
            errors[c["name"]] = repr(e)[:300]
    import subprocess
    wanted = ("abs.f32/", "neg.f32/", "abs.f64/", "min.f32/", "min.f64/", "rcp.approx.ftz.f64/",
              "rsqrt.approx.f64/", "add.f64/", "add.rn.f32/", "cvt.f32.bf16/", "cvt.f32.f16/",
              "cvt.f64.f32/", "div.approx.f32/", "div.full.f32/", "ex2.approx.f32/", "tanh.approx.f32/",
              "sin.approx.f32/", "lg2.approx.f32/", "fma.rn.relu.f16/", "copysign.f32/", "abs.bf16/",
              "max.NaN.f32/", "add.rn.sat.f32/", "cvt.rn.f16x2.f32/", "rsqrt.approx.f32/")
    with open(os.path.join(os.environ["OUT"], "sass.txt"), "w") as log:
        wanted = wanted if len(all_cases) > 100 else ("cvt.rp.ftz.bf16.f32", "fma.rn.f64", "cvt.rp.ftz.f16.f32")
        for i, c in enumerate(all_cases):
            if not c["name"].startswith(wanted):
                continue
            r = subprocess.run(f"ptxas -arch=sm_90 -o /tmp/s.cubin /tmp/k{i}.ptx && cuobjdump -sass /tmp/s.cubin",
                               shell=True, capture_output=True, text=True)
            body = [ln for ln in r.stdout.splitlines() if "/*0" in ln]
            log.write(f"==== {c['name']}\n" + "\n".join(body) + r.stderr[-300:] + "\n")
    np.savez_compressed(os.path.join(os.environ["OUT"], "results.npz"), **results)
    json.dump(errors, open(os.path.join(os.environ["OUT"], "errors.json"), "w"), indent=1)
    print(len(results), "ran;", len(errors), "failed:", list(errors)[:40])


if __name__ == "__main__":
    {"gen": gen, "gen2": gen2, "run": run}[sys.argv[1]]()
