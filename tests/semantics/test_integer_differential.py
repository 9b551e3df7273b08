"""Integer SASS against its PTX twins on random and edge words (semantics/integer.py serves both).

Each pair is the form ptxas gives the PTX instruction for sm_90 (bmsk.clamp is BMSK, szext.wrap.u32
SGXT.W.U32, bfind.shiftamt.s32 FLO.SH, clz FLO.U32 then 31 - it, ...); the PTX side is what an H200
confirmed (validation/conformance), so these keep the SASS executor on the hardware's answers.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import LANES, assert_same_bits, edge_bits, run_ptx, run_sass

from warpsim.semantics import integer as bits

AMOUNTS = [0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 257, 0x104, 2 ** 31, 2 ** 32 - 1]


def amounts(rng, n: int = LANES) -> np.ndarray:
    """Shift counts and field operands: small ones, ones past 32 and 64, and whole-word ones."""
    out = rng.integers(0, 80, size=n).astype(np.uint32)
    wide = rng.random(n) < 0.2
    out[wide] = rng.integers(0, 2 ** 32, size=int(wide.sum()), dtype=np.uint64).astype(np.uint32)
    out[:len(AMOUNTS)] = AMOUNTS
    return out


def signed(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.int32)


def raw(values):
    """A PTX result's bits as unsigned (a signed result would sign-extend when compared)."""
    values = np.asarray(values)
    return values.view(np.dtype(f"uint{values.dtype.itemsize * 8}"))


# ------------------------------------------------------------------ bit counts, masks, extension

def test_popc_agrees_with_ptx():
    a = edge_bits(np.random.default_rng(1))
    (got,) = run_sass("POPC R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, run_ptx("popc.b32", a), "POPC", (a,))


@pytest.mark.parametrize("sass, ptx", [("FLO.U32", "bfind.u32"), ("FLO", "bfind.s32"),
                                       ("FLO.U32.SH", "bfind.shiftamt.u32"), ("FLO.SH", "bfind.shiftamt.s32")])
def test_flo_agrees_with_bfind(sass, ptx):
    a = edge_bits(np.random.default_rng(len(sass)))
    (got,) = run_sass(f"{sass} R0, R1", {1: a}, ["R0"])
    typed = signed(a) if ptx.endswith("s32") else a
    assert_same_bits(got, run_ptx(ptx, typed), sass, (a,))


def test_clz_is_flo_then_31_minus_it():
    a = edge_bits(np.random.default_rng(2))
    (position,) = run_sass("FLO.U32 R0, R1", {1: a}, ["R0"])
    (got,) = run_sass("IADD3 R2, -R0, 0x1f, RZ", {0: position}, ["R2"])
    assert_same_bits(got, run_ptx("clz.b32", a), "FLO.U32; IADD3 -R0, 0x1f", (a,))


def test_brev_agrees_with_ptx():
    a = edge_bits(np.random.default_rng(3))
    (got,) = run_sass("BREV R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, run_ptx("brev.b32", a), "BREV", (a,))


@pytest.mark.parametrize("sass, ptx", [("BMSK", "bmsk.clamp.b32"), ("BMSK.W", "bmsk.wrap.b32")])
def test_bmsk_agrees_with_ptx(sass, ptx):
    rng = np.random.default_rng(len(sass) + 4)
    start, count = amounts(rng), rng.permutation(amounts(rng))
    (got,) = run_sass(f"{sass} R0, R1, R2", {1: start, 2: count}, ["R0"])
    assert_same_bits(got, run_ptx(ptx, start, count), sass, (start, count))


@pytest.mark.parametrize("sass, ptx", [("SGXT", "szext.clamp.s32"), ("SGXT.W", "szext.wrap.s32"),
                                       ("SGXT.U32", "szext.clamp.u32"), ("SGXT.W.U32", "szext.wrap.u32")])
def test_sgxt_agrees_with_szext(sass, ptx):
    rng = np.random.default_rng(len(sass) + 5)
    a, count = edge_bits(rng), rng.permutation(amounts(rng))
    (got,) = run_sass(f"{sass} R0, R1, R2", {1: a, 2: count}, ["R0"])
    typed = signed(a) if ptx.endswith("s32") else a
    assert_same_bits(got, raw(run_ptx(ptx, typed, count)), sass, (a, count))


# ------------------------------------------------------------------ min, max

def _typed(bits, type_name: str):
    return signed(bits) if type_name.startswith("s") else bits


MIN_MAX = ["min.s32", "max.s32", "min.u32", "max.u32"]


@pytest.mark.parametrize("opcode, ptx", [("IMNMX", p) for p in MIN_MAX]        # ptxas gives .relu as VIMNMX.RELU
                         + [("VIMNMX", p) for p in MIN_MAX + ["min.relu.s32", "max.relu.s32"]])
def test_min_max_agrees_with_ptx(opcode, ptx):
    rng = np.random.default_rng(len(opcode) * 10 + len(ptx))
    a, b = edge_bits(rng), rng.permutation(edge_bits(rng))
    mods = (".U32" if ptx.endswith("u32") else "") + (".RELU" if "relu" in ptx else "")
    choose = "PT" if ptx.startswith("min") else "!PT"
    (got,) = run_sass(f"{opcode}{mods} R0, R1, R2, {choose}", {1: a, 2: b}, ["R0"])
    want = run_ptx(ptx, _typed(a, ptx[-3:]), _typed(b, ptx[-3:]))
    assert_same_bits(got, raw(want), f"{opcode}{mods} {choose}", (a, b))


def test_min_max_predicate_chooses_per_lane():
    rng = np.random.default_rng(11)
    a, b, smaller = edge_bits(rng), edge_bits(rng), rng.random(LANES) < 0.5
    (got,) = run_sass("VIMNMX R0, R1, R2, P0", {1: a, 2: b}, ["R0"], predicates={0: smaller})
    low, high = (raw(run_ptx(f"{op}.s32", signed(a), signed(b))) for op in ("min", "max"))
    want = np.where(smaller, low, high)
    assert_same_bits(got, want, "VIMNMX P0", (a, b))


@pytest.mark.parametrize("type_name", ["s32", "u32"])
@pytest.mark.parametrize("opcode", ["min", "max"])
def test_vimnmx3_is_two_ptx_min_max(type_name, opcode):
    rng = np.random.default_rng(12 + len(opcode) + len(type_name))
    a, b, c = (edge_bits(rng) for _ in range(3))
    mods = ".U32" if type_name == "u32" else ""
    choose = "PT" if opcode == "min" else "!PT"
    (got,) = run_sass(f"VIMNMX3{mods} R0, R1, R2, R3, {choose}", {1: a, 2: b, 3: c}, ["R0"])
    ab = run_ptx(f"{opcode}.{type_name}", _typed(a, type_name), _typed(b, type_name))
    want = run_ptx(f"{opcode}.{type_name}", ab, _typed(c, type_name))
    assert_same_bits(got, raw(want), f"VIMNMX3{mods} {choose}", (a, b, c))


@pytest.mark.parametrize("type_name", ["s32", "u32"])
@pytest.mark.parametrize("opcode", ["min", "max"])
def test_viaddmnmx_is_ptx_add_then_min_max(type_name, opcode):
    rng = np.random.default_rng(13 + len(opcode) + len(type_name))
    a, b, c = (edge_bits(rng) for _ in range(3))
    mods = ".U32" if type_name == "u32" else ""
    choose = "PT" if opcode == "min" else "!PT"
    (got,) = run_sass(f"VIADDMNMX{mods} R0, R1, R2, R3, {choose}", {1: a, 2: b, 3: c}, ["R0"])
    total = run_ptx(f"add.{type_name}", _typed(a, type_name), _typed(b, type_name))
    want = run_ptx(f"{opcode}.{type_name}", total, _typed(c, type_name))
    assert_same_bits(got, raw(want), f"VIADDMNMX{mods} {choose}", (a, b, c))


# ------------------------------------------------------------------ carries

def words(seed: int, count: int):
    rng = np.random.default_rng(seed)
    return [edge_bits(rng) for _ in range(count)]


def test_iadd3_carry_out_is_add_cc():
    a, b = words(20, 2)
    got, carry = run_sass("IADD3 R0, P0, R1, R2, RZ", {1: a, 2: b}, ["R0", "P0"])
    want, cf = run_ptx("add.cc.u32", a, b, n_dsts=2)
    assert_same_bits(got, want, "IADD3 sum", (a, b))
    assert_same_bits(carry, cf, "IADD3 carry", (a, b))


def test_iadd3_x_chains_carries_as_addc_cc():
    a, b, c, d = words(21, 4)
    _, carry = run_sass("IADD3 R0, P0, R1, R2, RZ", {1: a, 2: b}, ["R0", "P0"])
    got, carry_out = run_sass("IADD3.X R4, P1, R3, R5, RZ, P0, !PT", {3: c, 5: d}, ["R4", "P1"],
                              predicates={0: carry})
    _, cf = run_ptx("add.cc.u32", a, b, n_dsts=2)
    want, cf_out = run_ptx("addc.cc.u32", c, d, cf, n_dsts=2)
    assert_same_bits(got, want, "IADD3.X sum", (c, d, cf))
    assert_same_bits(carry_out, cf_out, "IADD3.X carry", (c, d, cf))


def test_three_words_carry_twice():
    """IADD3 of three words and two carry-ins: carry >= 1 in the first predicate, >= 2 in the second."""
    a, b, c = words(22, 3)
    rng = np.random.default_rng(22)
    p0, p1 = rng.random(LANES) < 0.5, rng.random(LANES) < 0.5
    got, q0, q1 = run_sass("IADD3.X R0, P2, P3, R1, R2, R3, P0, P1", {1: a, 2: b, 3: c}, ["R0", "P2", "P3"],
                           predicates={0: p0, 1: p1})
    s1, c1 = run_ptx("add.cc.u32", a, b, n_dsts=2)
    s2, c2 = run_ptx("addc.cc.u32", s1, c, p0.astype(np.uint32), n_dsts=2)
    want, c3 = run_ptx("addc.cc.u32", s2, np.zeros_like(s2), p1.astype(np.uint32), n_dsts=2)
    carries = c1.astype(int) + c2 + c3
    assert_same_bits(got, want, "IADD3.X of three", (a, b, c))
    assert_same_bits(q0, carries >= 1, "first carry", (a, b, c))
    assert_same_bits(q1, carries >= 2, "second carry", (a, b, c))


def test_subtraction_carries_as_sub_cc_and_subc():
    """ptxas's 64-bit sub.cc/subc: IADD3 with a negated source, then IMAD.X of the complement."""
    a, b, c, d = words(23, 4)
    low, carry = run_sass("IADD3 R0, P0, R1, -R2, RZ", {1: a, 2: b}, ["R0", "P0"])
    (high,) = run_sass("IMAD.X R4, R3, 0x1, ~R5, P0", {3: c, 5: d}, ["R4"], predicates={0: carry})
    want_low, cf = run_ptx("sub.cc.u32", a, b, n_dsts=2)
    want_high = run_ptx("subc.u32", c, d, cf)
    assert_same_bits(low, want_low, "IADD3 a - b", (a, b))
    assert_same_bits(carry, cf, "IADD3 a - b carry (1: no borrow)", (a, b))
    assert_same_bits(high, want_high, "IMAD.X c + ~d + carry", (c, d, cf))


# ------------------------------------------------------------------ products

@pytest.mark.parametrize("sass, ptx", [("IMAD.WIDE", "mul.wide.s32"), ("IMAD.WIDE.U32", "mul.wide.u32")])
def test_imad_wide_agrees_with_mul_wide(sass, ptx):
    a, b = words(30 + len(sass), 2)
    (got,) = run_sass(f"{sass} R0, R2, R3, RZ", {2: a, 3: b}, ["R0.64"])
    typed = [signed(x) if ptx.endswith("s32") else x for x in (a, b)]
    assert_same_bits(got, raw(run_ptx(ptx, *typed)), sass, (a, b))


@pytest.mark.parametrize("sass, ptx", [("IMAD.WIDE", "mad.wide.s32"), ("IMAD.WIDE.U32", "mad.wide.u32")])
def test_imad_wide_with_a_pair_agrees_with_mad_wide(sass, ptx):
    rng = np.random.default_rng(31 + len(sass))
    a, b, c = edge_bits(rng), edge_bits(rng), edge_bits(rng, 64)
    low, high = (c & np.uint64(0xFFFFFFFF)).astype(np.uint32), (c >> np.uint64(32)).astype(np.uint32)
    got, carry = run_sass(f"{sass} R0, P0, R2, R3, R4", {2: a, 3: b, 4: low, 5: high}, ["R0.64", "P0"])
    typed = [signed(x) if ptx.endswith("s32") else x for x in (a, b)]
    want = raw(run_ptx(ptx, *typed, c.view(np.int64) if ptx.endswith("s32") else c))
    assert_same_bits(got, want, sass, (a, b, c))
    product = raw(run_ptx(ptx.replace("mad", "mul"), *typed))
    _, cf = run_ptx("add.cc.u64", product, c, n_dsts=2)
    assert_same_bits(carry, cf, f"{sass} carry", (a, b, c))


def test_imad_wide_u32_is_mad_lo_cc_then_madc_hi():
    """mad.lo.cc.u32 + madc.hi.u32 of one a, b, c: ptxas gives one IMAD.WIDE.U32 with c in both words."""
    a, b, c = words(32, 3)
    (got,) = run_sass("IMAD.WIDE.U32 R0, R2, R3, R4", {2: a, 3: b, 4: c, 5: c}, ["R0.64"])
    low, cf = run_ptx("mad.lo.cc.u32", a, b, c, n_dsts=2)
    high = run_ptx("madc.hi.u32", a, b, c, cf)
    want = low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))
    assert_same_bits(got, want, "IMAD.WIDE.U32 {c:c}", (a, b, c))


@pytest.mark.parametrize("sass, ptx", [("IMAD.HI", "mul.hi.s32"), ("IMAD.HI.U32", "mul.hi.u32")])
def test_imad_hi_agrees_with_mul_hi(sass, ptx):
    a, b = words(33 + len(sass), 2)
    (got,) = run_sass(f"{sass} R0, R2, R3, RZ", {2: a, 3: b}, ["R0"])
    typed = [signed(x) if ptx.endswith("s32") else x for x in (a, b)]
    assert_same_bits(got, raw(run_ptx(ptx, *typed)), sass, (a, b))


@pytest.mark.parametrize("sass, ptx", [("IMAD.HI", "mad.hi.s32"), ("IMAD.HI.U32", "mad.hi.u32")])
def test_imad_hi_with_a_pair_agrees_with_mad_hi(sass, ptx):
    """ptxas's mad.hi: c in the high word of a pair whose low word is 0 (IMAD.HI R0, R2, R3, R4 with R4 = 0)."""
    a, b, c = words(34 + len(sass), 3)
    (got,) = run_sass(f"{sass} R0, R2, R3, R4", {2: a, 3: b, 4: np.zeros_like(c), 5: c}, ["R0"])
    typed = [signed(x) if ptx.endswith("s32") else x for x in (a, b, c)]
    assert_same_bits(got, raw(run_ptx(ptx, *typed)), sass, (a, b, c))


@pytest.mark.parametrize("sass, ptx", [("IMAD", "mad.lo.s32"), ("IMAD.U32", "mad.lo.u32")])
def test_imad_agrees_with_mad_lo(sass, ptx):
    a, b, c = words(35 + len(sass), 3)
    (got,) = run_sass(f"{sass} R0, R2, R3, R4", {2: a, 3: b, 4: c}, ["R0"])
    typed = [signed(x) if ptx.endswith("s32") else x for x in (a, b, c)]
    assert_same_bits(got, raw(run_ptx(ptx, *typed)), sass, (a, b, c))


# ------------------------------------------------------------------ LEA

@pytest.mark.parametrize("shift", [0, 1, 2, 3, 4, 31])
def test_lea_is_shl_then_add_cc(shift):
    a, b = words(40 + shift, 2)
    got, carry = run_sass(f"LEA R0, P0, R1, R2, {shift:#x}", {1: a, 2: b}, ["R0", "P0"])
    want, cf = run_ptx("add.cc.u32", run_ptx("shl.b32", a, np.uint32(shift)), b, n_dsts=2)
    assert_same_bits(got, want, f"LEA {shift}", (a, b))
    assert_same_bits(carry, cf, f"LEA {shift} carry", (a, b))


@pytest.mark.parametrize("shift", [0, 1, 2, 3, 31])
def test_lea_hi_x_is_shf_l_then_addc(shift):
    """64-bit address arithmetic: the high word of ({c:a} << s) + b + the low word's carry."""
    a, b, c = words(50 + shift, 3)
    carry = np.random.default_rng(shift).random(LANES) < 0.5
    (got,) = run_sass(f"LEA.HI.X R0, R1, R2, R3, {shift:#x}, P0", {1: a, 2: b, 3: c}, ["R0"], predicates={0: carry})
    shifted = run_ptx("shf.l.clamp.b32", a, c, np.uint32(shift))
    want = run_ptx("addc.u32", shifted, b, carry.astype(np.uint32))
    assert_same_bits(got, want, f"LEA.HI.X {shift}", (a, b, c))


@pytest.mark.parametrize("shift", [0, 2, 3])
def test_lea_hi_sx32_takes_the_sign_as_the_high_word(shift):
    a, b = words(60 + shift, 2)
    (got,) = run_sass(f"LEA.HI.SX32 R0, R1, R2, {shift:#x}", {1: a, 2: b}, ["R0"])
    sign = raw(run_ptx("shr.s32", signed(a), np.uint32(31)))
    want = run_ptx("add.u32", run_ptx("shf.l.clamp.b32", a, sign, np.uint32(shift)), b)
    assert_same_bits(got, want, f"LEA.HI.SX32 {shift}", (a, b))


# ------------------------------------------------------------------ shifts, abs

@pytest.mark.parametrize("sass, ptx", [("SHF.L.U32", "shl.b32"), ("SHF.R.U32.HI", "shr.u32"),
                                       ("SHF.R.S32.HI", "shr.s32")])
def test_shf_by_a_register_agrees_with_shl_shr(sass, ptx):
    """ptxas's shl/shr by a register: SHF.L.U32 R0, a, s, RZ and SHF.R.*.HI R0, RZ, s, a."""
    rng = np.random.default_rng(70 + len(sass))
    a, amount = edge_bits(rng), amounts(rng)
    text = f"{sass} R0, R1, R2, RZ" if ".L." in sass else f"{sass} R0, RZ, R2, R1"
    (got,) = run_sass(text, {1: a, 2: amount}, ["R0"])
    typed = signed(a) if ptx.endswith("s32") else a
    assert_same_bits(got, raw(run_ptx(ptx, typed, amount)), sass, (a, amount))


@pytest.mark.parametrize("sass, ptx", [("SHF.L.U64.HI", "shl.b64"), ("SHF.R.U64", "shr.u64"), ("SHF.R.S64", "shr.s64")])
def test_shf_64_agrees_with_64_bit_shifts(sass, ptx):
    """ptxas's 64-bit shifts: the word SHF.*.U64 gives, beside its 32-bit partner (shl.b64's low word is SHF.L.U32)."""
    rng = np.random.default_rng(80 + len(sass))
    value, amount = edge_bits(rng, 64), amounts(rng)
    low, high = (value & np.uint64(0xFFFFFFFF)).astype(np.uint32), (value >> np.uint64(32)).astype(np.uint32)
    (got,) = run_sass(f"{sass} R0, R1, R2, R3", {1: low, 2: amount, 3: high}, ["R0"])
    want = raw(run_ptx(ptx, value.view(np.int64) if ptx.endswith("s64") else value, amount))
    word = (want >> np.uint64(32)) if sass.endswith(".HI") else (want & np.uint64(0xFFFFFFFF))
    assert_same_bits(got, word, sass, (value, amount))


@pytest.mark.parametrize("sass", ["SHL", "SHR.U32", "SHR.S32"])
def test_shl_shr_clamp_as_ptx_shifts(sass):
    rng = np.random.default_rng(90 + len(sass))
    a, amount = edge_bits(rng), amounts(rng)
    (got,) = run_sass(f"{sass} R0, R1, R2", {1: a, 2: amount}, ["R0"])
    ptx = "shl.b32" if sass == "SHL" else ("shr.s32" if sass.endswith("S32") else "shr.u32")
    assert_same_bits(got, raw(run_ptx(ptx, signed(a) if ptx.endswith("s32") else a, amount)), sass, (a, amount))


def test_iabs_agrees_with_abs():
    a = words(95, 1)[0]
    (got,) = run_sass("IABS R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, raw(run_ptx("abs.s32", signed(a))), "IABS", (a,))


# ------------------------------------------------------------------ the 64-bit paths, against Python's integers

def test_64_bit_sums_products_and_bit_search_against_python_integers():
    """What only PTX's 64-bit forms reach (add.cc.u64, mul.hi.s64/u64, clz.b64), lane by lane."""
    rng = np.random.default_rng(100)
    a, b = edge_bits(rng, 64, 512), rng.permutation(edge_bits(rng, 64, 512))
    carry_in = (rng.random(512) < 0.5).astype(np.uint32)
    total, carry = bits.add_with_carry([a, b, carry_in], np.uint64)
    high_u, high_s = bits.multiply_high(a, b, False), bits.multiply_high(a, b, True)
    position = bits.highest_set_bit(a)
    for j in range(512):
        x, y = int(a[j]), int(b[j])
        sx, sy = x - (x >> 63 << 64), y - (y >> 63 << 64)
        exact = x + y + int(carry_in[j])
        assert (int(total[j]), int(carry[j])) == (exact % 2 ** 64, exact >> 64), (hex(x), hex(y))
        assert int(high_u[j]) == (x * y) >> 64, (hex(x), hex(y))
        assert int(high_s[j]) == ((sx * sy) >> 64) % 2 ** 64, (hex(x), hex(y))
        assert int(position[j]) == x.bit_length() - 1, hex(x)
