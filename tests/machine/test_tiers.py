"""The compiled tier against the NumPy tier: same results, same counters, bit for bit.

Fuzzed straight-line PTX (random integer, float, compare and predicate value
instructions on random bits, NaNs, infinities, subnormals and signed zeros
included) runs on both tiers, block by block and in the compiled round loop; so do the document's kernels, with every
LaunchResult counter and every profiler metric compared exactly. Compiled
blocks live in the disk cache, so a second run of this file compiles
nothing. The whole kernel suite also runs on the compiled tier with
WARPSIM_ENGINE=compiled (docs/machine.md, "Speed").
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import warpsim as cp
import warpsim.demo
from warpsim.machine.compiled import report

KERNELS = pathlib.Path(warpsim.demo.__file__).parent / "kernels"
REGS = 8                       # registers of each kind the fuzzed body works on
THREADS = 64

INT32_OPS = ["add.s32", "sub.s32", "add.u32", "mul.lo.s32", "mul.lo.u32", "min.s32", "max.s32",
             "min.u32", "max.u32", "and.b32", "or.b32", "xor.b32", "shl.b32", "shr.u32", "shr.s32",
             "shr.b32"]
INT64_OPS = ["add.s64", "sub.u64", "mul.lo.u64", "min.s64", "max.u64", "and.b64", "xor.b64",
             "shl.b64", "shr.s64", "shr.u64"]
F32_OPS = ["add.f32", "add.rn.f32", "sub.rn.f32", "mul.rn.f32", "add.rn.ftz.f32", "sub.ftz.f32",
           "mul.rn.ftz.f32", "div.rn.f32", "div.rn.ftz.f32"]
F32_UNARY = ["sqrt.rn.f32", "sqrt.rn.ftz.f32", "rcp.rn.f32", "rcp.rn.ftz.f32"]
F32_CMP = ["eq", "ne", "lt", "le", "gt", "ge"]
INT_CMP = ["setp.eq.s32", "setp.ne.b32", "setp.lt.s32", "setp.ge.s32", "setp.lo.u32", "setp.hs.u32",
           "setp.gt.s64", "setp.le.u64", "setp.ne.b64"]
SPECIAL_F32 = [0x7FC00000, 0x7F800001, 0xFF800000, 0x7F800000, 0x80000000, 0x00000000, 0x00000001,
               0x807FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x33800000]


def random_body(rng, length: int) -> list[str]:
    """Random value instructions over %r (b32), %rd (b64), %f (f32) and %p (pred) registers."""
    def r(kind="r"):
        return f"%{kind}{rng.integers(REGS)}"

    def imm32():
        return str(int(rng.choice([0, 1, 7, 31, 32, 33, -1, -5, 1 << 31])))

    lines = []
    for _ in range(length):
        pick = rng.integers(11)
        guard = f"@{'!' if rng.integers(2) else ''}{r('p')} " if rng.integers(5) == 0 else ""
        if pick == 0:
            op = str(rng.choice(INT32_OPS))
            b = imm32() if rng.integers(3) == 0 else r()
            lines.append(f"{guard}{op} {r()}, {r()}, {b};")
        elif pick == 1:
            op = str(rng.choice(INT64_OPS))
            b = (r() if rng.integers(2) else str(int(rng.choice([0, 3, 63, 64, 65])))) \
                if op.startswith("sh") else r("rd")
            lines.append(f"{guard}{op} {r('rd')}, {r('rd')}, {b};")
        elif pick == 2 and rng.integers(2):
            lines.append(f"{guard}mad.lo.{rng.choice(['s32', 'u32'])} {r()}, {r()}, {r()}, {r()};")
        elif pick == 2:
            t = rng.choice(['s32', 'u32'])
            lines.append(f"{guard}mul.wide.{t} {r('rd')}, {r()}, {r()};" if rng.integers(2) else
                         f"{guard}mad.wide.{t} {r('rd')}, {r()}, {r()}, {r('rd')};")
        elif pick == 3 and rng.integers(3):
            lines.append(f"{guard}{rng.choice(F32_OPS)} {r('f')}, {r('f')}, {r('f')};")
        elif pick == 3:
            lines.append(f"{guard}{rng.choice(F32_UNARY)} {r('f')}, {r('f')};")
        elif pick == 4:
            ftz = ".ftz" if rng.integers(2) else ""
            lines.append(f"{guard}fma.rn{ftz}.f32 {r('f')}, {r('f')}, {r('f')}, {r('f')};")
        elif pick == 5:
            ftz = ".ftz" if rng.integers(2) else ""
            lines.append(f"{guard}setp.{rng.choice(F32_CMP)}{ftz}.f32 {r('p')}, {r('f')}, {r('f')};")
        elif pick == 6:
            op = str(rng.choice(INT_CMP))
            kind = "rd" if op.endswith("64") else "r"
            lines.append(f"{guard}{op} {r('p')}, {r(kind)}, {r(kind)};")
        elif pick == 7:
            t, kind = (("b32", "r"), ("f32", "f"), ("b64", "rd"))[rng.integers(3)]
            lines.append(f"{guard}selp.{t} {r(kind)}, {r(kind)}, {r(kind)}, {r('p')};")
        elif pick == 8:
            lines.append(f"{guard}cvt.rn.f32.{rng.choice(['s32', 'u32'])} {r('f')}, {r()};")
        elif pick == 9:
            op = str(rng.choice(["and", "or", "xor"]))
            lines.append(f"{guard}{op}.pred {r('p')}, {r('p')}, {r('p')};" if rng.integers(3)
                         else f"{guard}not.pred {r('p')}, {r('p')};")
        else:
            choice = rng.integers(3)
            if choice == 0:
                lines.append(f"{guard}mov.b32 {r()}, {r()};")
            elif choice == 1:
                lines.append(f"{guard}mov.f32 {r('f')}, 0f{int(rng.choice(SPECIAL_F32)):08X};")
            else:
                lines.append(f"{guard}not.b32 {r()}, {r()};")
    return lines


def fuzz_kernel(body: list[str]) -> str:
    """Load every register from the thread's input words, run `body` in a block of its own, store them."""
    words = 4 * REGS           # r, f, p (as words), rd (two words each)
    loads, stores = [], []
    for k in range(REGS):
        loads += [f"ld.global.u32 %r{k}, [%in+{4 * k}];",
                  f"ld.global.f32 %f{k}, [%in+{4 * (REGS + k)}];",
                  f"ld.global.u32 %t0, [%in+{4 * (2 * REGS + k)}];",
                  f"setp.ne.b32 %p{k}, %t0, 0;",
                  f"ld.global.u64 %rd{k}, [%in+{8 * (3 * REGS // 2 + k)}];"]
        stores += [f"st.global.u32 [%out+{4 * k}], %r{k};",
                   f"st.global.f32 [%out+{4 * (REGS + k)}], %f{k};",
                   f"selp.u32 %t0, 1, 0, %p{k};",
                   f"st.global.u32 [%out+{4 * (2 * REGS + k)}], %t0;",
                   f"st.global.u64 [%out+{8 * (3 * REGS // 2 + k)}], %rd{k};"]
    nl = "\n    "
    return f"""
.version 7.8
.target sm_90
.address_size 64
.visible .entry fuzz(.param .u64 in_param, .param .u64 out_param)
{{
    .reg .b32 %r<{REGS}>;
    .reg .f32 %f<{REGS}>;
    .reg .pred %p<{REGS}>;
    .reg .b64 %rd<{REGS}>;
    .reg .b64 %in, %out, %offset;
    .reg .b32 %t<2>;
    ld.param.u64 %in, [in_param];
    ld.param.u64 %out, [out_param];
    mov.u32 %t1, %tid.x;
    mul.wide.u32 %offset, %t1, {4 * (words + REGS)};
    add.s64 %in, %in, %offset;
    add.s64 %out, %out, %offset;
    {nl.join(loads)}
    bra BODY;
BODY:
    {nl.join(body)}
    bra DONE;
DONE:
    {nl.join(stores)}
    ret;
}}
"""


def random_words(rng, count: int) -> np.ndarray:
    """Random bits, a third of them special floats (NaN, inf, subnormal, zeros, extremes)."""
    words = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    special = rng.integers(3, size=count) == 0
    words[special] = rng.choice(np.array(SPECIAL_F32, dtype=np.uint32), int(special.sum()))
    small = rng.integers(4, size=count) == 0
    words[small] = rng.integers(0, 70, int(small.sum()))          # shift amounts near the width
    return words


def run_on(engine: str, function, grid, block, args, profile: bool = False):
    with cp.settings(engine=engine):
        if profile:
            with cp.profile() as prof:
                function(grid, block, args)
            return function.last_launch, prof.launches[0].metrics
        function(grid, block, args)
        return function.last_launch, None


def counters(launch) -> tuple:
    return (launch.warp_instructions, launch.thread_instructions, launch.rounds)


def fuzz_once(seed: int, length: int, round_loop: bool = False):
    """Outputs, counters and profile of the fuzzed kernel on each tier (profiled: block by
    block); with round_loop, also on the compiled tier unprofiled, where the round loop
    runs the loads and the body (machine/compiled/loop.py)."""
    rng = np.random.default_rng(seed)
    body = random_body(rng, length)
    module = cp.RawModule(ptx=fuzz_kernel(body))
    function = module.get_function("fuzz")
    words = random_words(rng, THREADS * 5 * REGS)
    outputs = {}
    runs = [("numpy", True), ("compiled", True)] + [("compiled", False)] * round_loop
    for engine, profile in runs:
        source, out = cp.asarray(words), cp.zeros(len(words), dtype=cp.uint32)
        launch, metrics = run_on(engine, function, (1,), (THREADS,), (source, out), profile=profile)
        outputs[engine if profile else "round loop"] = (out.get(), counters(launch), metrics)
    if round_loop:
        rows = report(function.loaded_module.program)
        assert sum(r["in_round_loop"] > 0 for r in rows) >= 2, rows      # the loads and the body
    return body, outputs


def assert_same(body, a, b):
    bad = np.flatnonzero(a[0] != b[0])
    assert not len(bad), f"first differing word {bad[0]}: {a[0][bad[0]]:#x} against {b[0][bad[0]]:#x}\n" \
                         + "\n".join(body)
    assert a[1] == b[1]


def outputs_on_both_tiers(body, function, words) -> dict:
    """engine -> (output words, counters) of the fuzz kernel run on `words` by each tier, which must
    give the same bits (assert_same)."""
    outputs = {}
    for engine in ("numpy", "compiled"):
        out = cp.zeros(len(words), dtype=cp.uint32)
        launch, _ = run_on(engine, function, (1,), (THREADS,), (cp.asarray(words), out))
        outputs[engine] = (out.get(), counters(launch))
    assert_same(body, outputs["numpy"], outputs["compiled"])
    return outputs


def test_division_and_roots_rounded_once_are_bit_exact_on_both_tiers():
    """div.rn, rcp.rn and sqrt.rn of f32, with and without .ftz, on random magnitudes over every
    exponent, subnormals, negatives and the special values; and the body runs compiled."""
    body = ["div.rn.f32 %f0, %f6, %f7;", "div.rn.ftz.f32 %f1, %f7, %f6;", "sqrt.rn.f32 %f2, %f6;",
            "sqrt.rn.ftz.f32 %f3, %f7;", "rcp.rn.f32 %f4, %f6;", "rcp.rn.ftz.f32 %f5, %f7;"]
    function = cp.RawModule(ptx=fuzz_kernel(body)).get_function("fuzz")
    rng = np.random.default_rng(7)
    for _ in range(4):
        words = random_words(rng, THREADS * 5 * REGS).reshape(THREADS, 5 * REGS)
        for k in (6, 7):
            kind = rng.integers(5, size=THREADS)
            magnitude = (rng.integers(1, 255, THREADS) << 23) | rng.integers(0, 1 << 23, THREADS)
            words[:, REGS + k] = np.select(
                [kind < 2, kind == 2, kind == 3],
                [magnitude, rng.integers(1, 1 << 23, THREADS), magnitude | (1 << 31)],
                rng.choice(np.array(SPECIAL_F32, dtype=np.uint32), THREADS)).astype(np.uint32)
        words = words.ravel()
        outputs_on_both_tiers(body, function, words)
    assert {row["block"]: row["tier"] for row in report(function.loaded_module.program)}[1] == "compiled"


SPECIAL_F64 = [0x7FF8000000000000, 0x7FF0000000000001, 0xFFF4000000000123, 0x7FF0000000000000,
               0x8000000000000000, 0x3810000000000000, 0x36A0000000000000, 0x47EFFFFFF0000000,
               0x47EFFFFFE0000000, 0x3FF0000010000000, 0x3FF0000030000000, 0x0000000000000001]


def test_conversions_between_f32_and_f64_are_bit_exact_on_both_tiers():
    """cvt.f64.f32 and cvt.rn.f32.f64, with and without .ftz: NaN payloads, subnormals on either
    side, overflow, ties to even; NumPy's casts for the finite values; f32 to s32/u32 by each
    integral rounding (.ftz deciding a tiny value's floor and ceiling); and the body runs compiled."""
    body = ["cvt.f64.f32 %rd0, %f6;", "cvt.ftz.f64.f32 %rd1, %f7;", "cvt.rn.f32.f64 %f0, %rd6;",
            "cvt.rn.ftz.f32.f64 %f1, %rd7;", "cvt.rni.s32.f32 %r0, %f2;", "cvt.rmi.ftz.s32.f32 %r1, %f3;",
            "cvt.rpi.u32.f32 %r2, %f4;", "cvt.rzi.ftz.u32.f32 %r3, %f5;", "cvt.rmi.s32.f32 %r4, %f6;",
            "cvt.rpi.ftz.s32.f32 %r5, %f7;"]
    function = cp.RawModule(ptx=fuzz_kernel(body)).get_function("fuzz")
    rng = np.random.default_rng(11)
    for _ in range(3):
        words = random_words(rng, THREADS * 5 * REGS).reshape(THREADS, 5 * REGS)
        wide = words.view(np.uint64)                        # the %rd registers: two words each
        for k in (6, 7):
            kind = rng.integers(4, size=THREADS)
            exponent = rng.integers(0x380 - 40, 0x480, THREADS).astype(np.uint64)   # around f32's range
            magnitude = (exponent << np.uint64(52)) | rng.integers(0, 1 << 52, THREADS, dtype=np.uint64)
            wide[:, 3 * REGS // 2 + k] = np.select(
                [kind < 2, kind == 2], [magnitude, magnitude | np.uint64(1 << 63)],
                rng.choice(np.array(SPECIAL_F64, dtype=np.uint64), THREADS))
        words = words.ravel()
        outputs = outputs_on_both_tiers(body, function, words)
        out = outputs["compiled"][0].reshape(THREADS, 5 * REGS)
        source = words.reshape(THREADS, 5 * REGS)
        f32_in = source[:, REGS + 6].view(np.float32)
        widened = out.view(np.uint64)[:, 3 * REGS // 2].view(np.float64)
        finite = np.isfinite(f32_in)
        np.testing.assert_array_equal(widened[finite], f32_in[finite].astype(np.float64))
        f64_in = source.view(np.uint64)[:, 3 * REGS // 2 + 6].view(np.float64)
        narrowed = out[:, REGS].view(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            expected = f64_in.astype(np.float32)
        keep = ~np.isnan(f64_in)
        np.testing.assert_array_equal(narrowed[keep], expected[keep])
    assert {row["block"]: row["tier"] for row in report(function.loaded_module.program)}[1] == "compiled"


def test_high_words_of_32_bit_products_are_bit_exact_on_both_tiers():
    """mul.hi and mad.hi of s32 and u32 (what integer division by a constant compiles to) on random
    bits, and the body runs compiled."""
    body = ["mul.hi.s32 %r0, %r4, %r5;", "mul.hi.u32 %r1, %r5, %r6;", "mad.hi.s32 %r2, %r6, %r7, %r4;",
            "mad.hi.u32 %r3, %r7, %r4, %r5;"]
    function = cp.RawModule(ptx=fuzz_kernel(body)).get_function("fuzz")
    words = random_words(np.random.default_rng(19), THREADS * 5 * REGS)
    outputs = outputs_on_both_tiers(body, function, words)
    r = words.reshape(THREADS, 5 * REGS)[:, :REGS].astype(np.uint64)
    high = ((r[:, 5] * r[:, 6]) >> np.uint64(32)).astype(np.uint32)
    np.testing.assert_array_equal(outputs["compiled"][0].reshape(THREADS, 5 * REGS)[:, 1], high)
    assert {row["block"]: row["tier"] for row in report(function.loaded_module.program)}[1] == "compiled"


def test_f64_arithmetic_is_bit_exact_on_both_tiers():
    """add/sub/mul/fma/mad/sqrt of f64 with .rn, and a mul and add ptxas contracts into one fma, abs and
    neg of f64 and f32 (with .ftz), min and max of f32 (with .ftz: the f32 registers hold the
    special values of random_words), ordered and unordered setp of f64 and f32, on
    random magnitudes, NaN payloads in every operand position, infinities (inf - inf: the FP64
    unit's default NaN), zeros and subnormals; and the body runs compiled."""
    body = ["add.rn.f64 %rd0, %rd5, %rd6;", "sub.rn.f64 %rd1, %rd6, %rd7;", "mul.rn.f64 %rd2, %rd7, %rd5;",
            "fma.rn.f64 %rd3, %rd5, %rd6, %rd7;", "mad.rn.f64 %rd4, %rd7, %rd5, %rd6;",
            "mul.f64 %rd1, %rd5, %rd7;", "sub.f64 %rd4, %rd6, %rd1;", "abs.f64 %rd6, %rd6;",
            "neg.f64 %rd7, %rd7;", "abs.f32 %f0, %f5;", "neg.ftz.f32 %f1, %f6;", "abs.ftz.f32 %f2, %f7;",
            "neg.f32 %f3, %f4;", "min.f32 %f4, %f5, %f6;", "max.ftz.f32 %f5, %f6, %f7;",
            "min.ftz.f32 %f6, %f7, %f3;", "max.f32 %f7, %f3, %f2;", "setp.ltu.f64 %p0, %rd5, %rd6;",
            "setp.ge.f64 %p1, %rd6, %rd7;", "setp.neu.ftz.f32 %p2, %f4, %f5;", "setp.equ.f32 %p3, %f6, %f7;",
            "setp.ne.f64 %p4, %rd7, %rd5;", "selp.f64 %rd3, %rd3, %rd7, %p0;", "sqrt.rn.f64 %rd5, %rd5;"]
    function = cp.RawModule(ptx=fuzz_kernel(body)).get_function("fuzz")
    rng = np.random.default_rng(17)
    specials = np.array(SPECIAL_F64 + [0x7FF0000000000000 | (1 << 63), 0x000FFFFFFFFFFFFF], dtype=np.uint64)
    for _ in range(3):
        words = random_words(rng, THREADS * 5 * REGS).reshape(THREADS, 5 * REGS)
        wide = words.view(np.uint64)
        for k in (5, 6, 7):
            kind = rng.integers(4, size=THREADS)
            exponent = rng.integers(1, 0x7FF, THREADS).astype(np.uint64)
            magnitude = (exponent << np.uint64(52)) | rng.integers(0, 1 << 52, THREADS, dtype=np.uint64)
            wide[:, 3 * REGS // 2 + k] = np.select(
                [kind < 2, kind == 2], [magnitude, magnitude | np.uint64(1 << 63)], rng.choice(specials, THREADS))
        words = words.ravel()
        outputs = outputs_on_both_tiers(body, function, words)
        source = words.reshape(THREADS, 5 * REGS).view(np.uint64)[:, 3 * REGS // 2:].view(np.float64)
        result = outputs["compiled"][0].reshape(THREADS, 5 * REGS).view(np.uint64)[:, 3 * REGS // 2:].view(np.float64)
        with np.errstate(all="ignore"):
            added = source[:, 5] + source[:, 6]
        keep = ~np.isnan(added)
        np.testing.assert_array_equal(result[keep, 0], added[keep])
    assert {row["block"]: row["tier"] for row in report(function.loaded_module.program)}[1] == "compiled"


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_fuzzed_straight_line_ptx_is_bit_exact_on_both_tiers(seed, round_loop=False):
    body, outputs = fuzz_once(seed, 60, round_loop=round_loop or seed == 1)
    assert_same(body, outputs["numpy"], outputs["compiled"])
    assert outputs["numpy"][2] == outputs["compiled"][2]
    if "round loop" in outputs:
        assert_same(body, outputs["numpy"], outputs["round loop"])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 23))
def test_fuzzed_straight_line_ptx_is_bit_exact_on_both_tiers_more_seeds(seed):
    test_fuzzed_straight_line_ptx_is_bit_exact_on_both_tiers(seed, round_loop=True)


def test_the_fuzzed_body_runs_compiled():
    module = cp.RawModule(ptx=fuzz_kernel(random_body(np.random.default_rng(1), 60)))
    function = module.get_function("fuzz")
    words = random_words(np.random.default_rng(0), THREADS * 5 * REGS)
    run_on("compiled", function, (1,), (THREADS,), (cp.asarray(words), cp.zeros(len(words), cp.uint32)))
    rows = report(function.loaded_module.program)
    tiers = {row["block"]: row["tier"] for row in rows}
    assert tiers[1] == "compiled", rows                  # BODY
    assert rows[0]["why_numpy"] is None                  # loads: compiled block by block too
    assert rows[0]["in_round_loop"] == THREADS           # and the round loop runs them


DEMO_CASES = [
    ("divergence.cu", "branch_on_lane", lambda n: (cp.zeros(n, cp.float32), np.int32(7))),
    ("divergence.cu", "branch_on_warp", lambda n: (cp.zeros(n, cp.float32), np.int32(7))),
    ("reduction.cu", "block_sum", lambda n: (cp.asarray(np.random.default_rng(0).random(n, np.float32)),
                                             cp.zeros(1, cp.float32), np.int32(n))),
]


@pytest.mark.parametrize("file, kernel, make_args",
                         [pytest.param(*c, marks=pytest.mark.slow) if c[1] == "branch_on_lane" else c for c in DEMO_CASES],
                         ids=[c[1] for c in DEMO_CASES])
@pytest.mark.parametrize("scheduling", ["its", pytest.param("stack", marks=pytest.mark.slow)])
def test_demo_kernels_agree_on_both_tiers_with_every_counter(file, kernel, make_args, scheduling):
    function = cp.RawModule(path=str(KERNELS / file)).get_function(kernel)
    results = {}
    for engine in ("numpy", "compiled"):
        args = make_args(1024)
        with cp.settings(scheduling=scheduling):
            launch, metrics = run_on(engine, function, (4,), (256,), args, profile=True)
        results[engine] = ([a.get().tobytes() for a in args if hasattr(a, "get")], counters(launch),
                           metrics)
    assert results["numpy"] == results["compiled"]


WIDE_PARAMETERS = r"""
.version 8.5
.target sm_90
.address_size 64
.visible .entry widen(.param .u64 out, .param .s32 offset, .param .u32 count)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.s32 %rd2, [offset];
    ld.param.u32 %rd3, [count];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd4, %r1;
    add.s64 %rd5, %rd2, %rd4;
    add.s64 %rd5, %rd5, %rd3;
    mul.wide.u32 %rd6, %r1, 8;
    add.s64 %rd7, %rd1, %rd6;
    st.global.u64 [%rd7], %rd5;
    ret;
}
"""


@pytest.mark.parametrize("offset", [-5, 7])
def test_a_32_bit_parameter_loaded_into_a_64_bit_register_runs_compiled_extended(offset):
    """ld.param.s32 into a 64-bit register sign-extends, ld.param.u32 zero-extends (PTX's rule for a
    wider destination), on both tiers, and the block runs compiled."""
    function = cp.RawModule(ptx=WIDE_PARAMETERS).get_function("widen")
    count = 0xFFFF_FFF0
    results = {}
    for engine in ("numpy", "compiled"):
        out = cp.zeros(64, cp.int64)
        with cp.settings(engine=engine):
            function((1,), (64,), (out, np.int32(offset), np.uint32(count)))
        results[engine] = out.get()
    expected = np.arange(64, dtype=np.int64) + offset + count
    np.testing.assert_array_equal(results["numpy"], expected)
    np.testing.assert_array_equal(results["compiled"], expected)
    rows = report(function.loaded_module.program)
    assert rows and all(r["tier"] == "compiled" for r in rows), rows
