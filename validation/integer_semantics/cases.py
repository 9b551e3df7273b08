"""Cases for the GPU check: (name, mnemonic/body, dst types, src types, operand pools)."""
import numpy as np

N = 512
rng = np.random.default_rng(5)

def bits_pool(values, n=N):
    pool = np.array([v & 0xFFFFFFFFFFFFFFFF for v in values], dtype=np.uint64)
    out = rng.integers(0, 2**64, n, dtype=np.uint64)
    pick = rng.random(n) < 0.6
    out[pick] = rng.choice(pool, pick.sum())
    out[:len(pool)] = pool[:n]
    return out

def corners(bits):
    top = 1 << (bits - 1)
    return [0, 1, 2, 3, 7, top - 1, top, top + 1, (1 << bits) - 1, (1 << bits) - 2, 0xFF, 0x80, 0x7FFF, 0x8000, 0xFFFFFF, 0x800000]

def any_int(bits):
    return bits_pool(corners(bits) + [-5, -7, -100, 100, 12345])

def divisor(bits):
    return bits_pool([0, 0, 0, 1, -1, 2, -2, 3, -3, 7, -7, (1 << (bits-1)), (1 << bits) - 1])

AMOUNTS = [0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 2**31, 2**32 - 1]
def amount():
    return bits_pool(AMOUNTS)

FIELD = [0, 1, 4, 7, 8, 15, 16, 24, 31, 32, 33, 40, 63, 64, 65, 100, 255, 256, 0x104, 0x1FF]
def field():
    a = bits_pool(FIELD)
    return a & np.uint64(0xFFFFFFFF)

def f32_bits(extra=()):
    vals = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, float('inf'), float('-inf'), float('nan'), 1e-40, -1e-40, 1.17549435e-38, -1.17549435e-38, 3e38, -3e38] + list(extra)
    pool = np.array(vals, dtype=np.float32).view(np.uint32).astype(np.uint64)
    out = rng.choice(pool, N)
    out[:len(pool)] = pool
    out[-8:] = 0x7FC01234  # a payload NaN
    return out

def f64_bits():
    vals = [0.0, -0.0, 1.0, -1.0, 2.0, float('inf'), float('-inf'), float('nan'), 5e-324, -5e-324, 1e300]
    pool = np.array(vals, dtype=np.float64).view(np.uint64)
    out = rng.choice(pool, N); out[:len(pool)] = pool
    return out

def f16_bits():
    vals = [0.0, -0.0, 1.0, -1.0, 2.0, float('inf'), float('-inf'), float('nan'), 1e-6, -1e-6, 6.1035e-05, 65504.0]
    pool = np.array(vals, dtype=np.float16).view(np.uint16).astype(np.uint64)
    out = rng.choice(pool, N); out[:len(pool)] = pool
    return out

def bf16_bits():
    return (f32_bits() >> np.uint64(16)) & np.uint64(0xFFFF)

def packed(halves):
    return halves() | (halves() << np.uint64(16))

def preds():
    return (rng.random(N) < 0.5).astype(np.uint64)

CASES = []
def case(mnemonic, dsts, srcs, pools, name=None, body=None):
    CASES.append(dict(name=name or mnemonic, mnemonic=mnemonic, dsts=dsts, srcs=srcs,
                      pools=[p() if callable(p) else p for p in pools], body=body))

W = {"u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64}
for t, bits in W.items():
    for op in ("div", "rem"):
        case(f"{op}.{t}", [t], [t, t], [lambda b=bits: any_int(b), lambda b=bits: divisor(b)])
    case(f"mul.hi.{t}", [t], [t, t], [lambda b=bits: any_int(b)] * 2)
    case(f"mul.lo.{t}", [t], [t, t], [lambda b=bits: any_int(b)] * 2)
    case(f"sad.{t}", [t], [t, t, t], [lambda b=bits: any_int(b)] * 3)
    case(f"min.{t}", [t], [t, t], [lambda b=bits: any_int(b)] * 2)
for t in ("s16", "u32", "s32"):
    wide = {"s16": "s32", "u32": "u64", "s32": "s64"}[t]
    case(f"mul.wide.{t}", [wide], [t, t], [lambda b=W[t]: any_int(b)] * 2)
    case(f"mad.wide.{t}", [wide], [t, t, wide], [lambda b=W[t]: any_int(b)] * 2 + [lambda b=2*W[t]: any_int(b)])
for op in ("add.sat.s32", "sub.sat.s32"):
    case(op, ["s32"], ["s32", "s32"], [lambda: any_int(32)] * 2)
case("mad.hi.sat.s32", ["s32"], ["s32"] * 3, [lambda: any_int(32)] * 3)
case("mad.hi.s64", ["s64"], ["s64"] * 3, [lambda: any_int(64)] * 3)
for t in ("u32", "s32"):
    for mode in ("lo", "hi"):
        case(f"mul24.{mode}.{t}", [t], [t, t], [lambda: any_int(32)] * 2)
        case(f"mad24.{mode}.{t}", [t], [t, t, t], [lambda: any_int(32)] * 3)
case("mad24.hi.sat.s32", ["s32"], ["s32"] * 3, [lambda: any_int(32)] * 3)
case("min.relu.s32", ["s32"], ["s32"] * 2, [lambda: any_int(32)] * 2)
case("max.relu.s32", ["s32"], ["s32"] * 2, [lambda: any_int(32)] * 2)
for t in ("s16", "s32", "s64"):
    case(f"abs.{t}", [t], [t], [lambda b=W[t]: any_int(b)])
    case(f"neg.{t}", [t], [t], [lambda b=W[t]: any_int(b)])
for at in ("u32", "s32"):
    for bt in ("u32", "s32"):
        ct = "u32" if at == bt == "u32" else "s32"
        case(f"dp4a.{at}.{bt}", [ct], [at, bt, ct], [lambda: any_int(32)] * 3)
        for m in ("lo", "hi"):
            case(f"dp2a.{m}.{at}.{bt}", [ct], [at, bt, ct], [lambda: any_int(32)] * 3)
for t in ("b32", "b64"):
    b = W["u" + t[1:]]
    for op in ("popc", "clz"):
        case(f"{op}.{t}", ["u32"], [t], [lambda b=b: any_int(b)])
    case(f"brev.{t}", [t], [t], [lambda b=b: any_int(b)])
    case(f"bfi.{t}", [t], [t, t, "u32", "u32"], [lambda b=b: any_int(b)] * 2 + [field, field])
for t in ("u32", "s32", "u64", "s64"):
    case(f"bfind.{t}", ["u32"], [t], [lambda b=W[t]: any_int(b)])
    case(f"bfind.shiftamt.{t}", ["u32"], [t], [lambda b=W[t]: any_int(b)])
    case(f"bfe.{t}", [t], [t, "u32", "u32"], [lambda b=W[t]: any_int(b), field, field])

# carry chains: custom bodies; the last dst is the carry read back through addc/subc 0, 0
for t in ("u32", "s32", "u64"):
    b = W[t]
    case(f"add.cc.{t}", [t, t, t], [t] * 4, [lambda b=b: any_int(b)] * 4, name=f"addchain.{t}",
         body=f"add.cc.{t} %d0, %s0, %s1; addc.cc.{t} %d1, %s2, %s3; addc.{t} %d2, 0, 0;")
    case(f"sub.cc.{t}", [t, t, t], [t] * 4, [lambda b=b: any_int(b)] * 4, name=f"subchain.{t}",
         body=f"sub.cc.{t} %d0, %s0, %s1; subc.cc.{t} %d1, %s2, %s3; subc.{t} %d2, 0, 0;")
case("sub.cc.u32", ["u32", "u32"], ["u32"] * 2, [lambda: any_int(32)] * 2, name="sub_then_addc",
     body="sub.cc.u32 %d0, %s0, %s1; addc.u32 %d1, 0, 0;")
case("add.cc.u32", ["u32", "u32"], ["u32"] * 2, [lambda: any_int(32)] * 2, name="add_then_subc",
     body="add.cc.u32 %d0, %s0, %s1; subc.u32 %d1, 0, 0;")
case("mad.lo.cc.u32", ["u32", "u32", "u32"], ["u32"] * 4, [lambda: any_int(32)] * 4, name="madchain",
     body="mad.lo.cc.u32 %d0, %s0, %s1, %s2; madc.hi.cc.u32 %d1, %s0, %s1, %s3; addc.u32 %d2, 0, 0;")
case("mad.hi.cc.u64", ["u64", "u64", "u64"], ["u64"] * 4, [lambda: any_int(64)] * 4, name="madchain64",
     body="mad.hi.cc.u64 %d0, %s0, %s1, %s2; madc.lo.cc.u64 %d1, %s0, %s1, %s3; addc.u64 %d2, 0, 0;")

# logic
for t in ("b16", "b32", "b64"):
    case(f"shl.{t}", [t], [t, "u32"], [lambda b=int(t[1:]): any_int(b), amount])
for t in ("b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"):
    case(f"shr.{t}", [t], [t, "u32"], [lambda b=int(t[1:]): any_int(b), amount])
for d in ("l", "r"):
    for m in ("clamp", "wrap"):
        case(f"shf.{d}.{m}.b32", ["b32"], ["b32", "b32", "u32"], [lambda: any_int(32)] * 2 + [amount])
for mode in ("", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"):
    case(f"prmt.b32{mode}", ["b32"], ["b32"] * 3, [lambda: any_int(32)] * 3)
for lut in (0x00, 0x1A, 0x96, 0xE8, 0xFE, 0x40, 0x3C, 0xFF):
    case("lop3.b32", ["b32"], ["b32"] * 3 + [f"imm:{lut}"], [lambda: any_int(32)] * 3, name=f"lop3.{lut:#x}")
case("cnot.b32", ["b32"], ["b32"], [lambda: any_int(32)])
case("setp.eq.b16", ["pred"], ["b16", "b16"], [lambda: any_int(16)] * 2)
case("lop3.or.b32", ["b32", "pred"], ["b32"] * 3 + ["imm:63", "pred"], [lambda: any_int(32)] * 3 + [preds], name="lop3.or", body="lop3.or.b32 %d0|%d1, %s0, %s1, %s2, 0x3f, %s4;")
case("lop3.and.b32", ["b32", "pred"], ["b32"] * 3 + ["imm:150", "pred"], [lambda: any_int(32)] * 3 + [preds], name="lop3.and", body="lop3.and.b32 %d0|%d1, %s0, %s1, %s2, 150, %s4;")
case("not.b16", ["b16"], ["b16"], [lambda: any_int(16)])

# compare
FOPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
for op in FOPS:
    case(f"setp.{op}.f32", ["pred", "pred"], ["f32", "f32"], [f32_bits] * 2)
    case(f"setp.{op}.ftz.f32", ["pred", "pred"], ["f32", "f32"], [f32_bits] * 2)
    case(f"setp.{op}.f64", ["pred"], ["f64", "f64"], [f64_bits] * 2)
    case(f"setp.{op}.f16", ["pred"], ["f16", "f16"], [f16_bits] * 2)
    case(f"setp.{op}.ftz.f16", ["pred"], ["f16", "f16"], [f16_bits] * 2)
    case(f"setp.{op}.bf16", ["pred"], ["bf16", "bf16"], [bf16_bits] * 2)
    case(f"setp.{op}.f16x2", ["pred", "pred"], ["f16x2", "f16x2"], [lambda: packed(f16_bits)] * 2)
    case(f"setp.{op}.bf16x2", ["pred", "pred"], ["bf16x2", "bf16x2"], [lambda: packed(bf16_bits)] * 2)
for op in ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]:
    case(f"setp.{op}.{'u32' if op in ('lo', 'ls', 'hi', 'hs') else 's32'}", ["pred", "pred"], ["s32", "s32"], [lambda: any_int(32)] * 2)
    case(f"setp.{op}.u64", ["pred"], ["u64", "u64"], [lambda: any_int(64)] * 2)
for bop in ("and", "or", "xor"):
    case(f"setp.lt.{bop}.s32", ["pred", "pred"], ["s32", "s32", "pred"], [lambda: any_int(32)] * 2 + [preds])
    case(f"setp.ltu.{bop}.f16x2", ["pred", "pred"], ["f16x2", "f16x2", "pred"], [lambda: packed(f16_bits)] * 2 + [preds])
for d in ("u32", "s32", "f32"):
    case(f"set.ltu.{d}.f32", [d], ["f32", "f32"], [f32_bits] * 2)
    case(f"set.gt.and.{d}.s32", [d], ["s32", "s32", "pred"], [lambda: any_int(32)] * 2 + [preds])
for d in ("u16", "s16", "u32", "f16", "bf16"):
    case(f"set.lt.{d}.f32" if d in ("f16", "bf16") else f"set.lt.{d}.f16",
         [d], ["f32", "f32"] if d in ("f16", "bf16") else ["f16", "f16"],
         [f32_bits] * 2 if d in ("f16", "bf16") else [f16_bits] * 2)
for d in ("u32", "s32", "f16x2"):
    case(f"set.le.{d}.f16x2", [d], ["f16x2", "f16x2"], [lambda: packed(f16_bits)] * 2)
case("set.le.bf16x2.bf16x2", ["bf16x2"], ["bf16x2", "bf16x2"], [lambda: packed(bf16_bits)] * 2)
case("selp.f32", ["f32"], ["f32", "f32", "pred"], [f32_bits, f32_bits, preds])
case("slct.u32.f32", ["u32"], ["u32", "u32", "f32"], [lambda: any_int(32)] * 2 + [f32_bits])
case("slct.ftz.u32.f32", ["u32"], ["u32", "u32", "f32"], [lambda: any_int(32)] * 2 + [f32_bits])
case("slct.u64.s32", ["u64"], ["u64", "u64", "s32"], [lambda: any_int(64)] * 2 + [lambda: any_int(32)])
