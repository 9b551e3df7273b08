"""PTX add/sub that ptxas fuses with a multiply run fused: the GPU's bits, not two roundings.

References are exact: products and sums as Fractions, rounded once to the
format by hand (nearest, ties to even), so they share nothing with warpsim's
rounding code.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.compiled import report

FLOAT = {"f32": np.float32, "f64": np.float64}
BITS = {np.float32: np.uint32, np.float64: np.uint64}


def rounded(value: Fraction, dtype):
    """value rounded once to dtype: the nearest of the neighbours of a close guess, ties to even."""
    guess = dtype(float(value))
    neighbours = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    finite = [c for c in neighbours if np.isfinite(c)]
    return min(finite, key=lambda c: (abs(Fraction(float(c)) - value), int(np.array(c).view(BITS[dtype])) & 1))


def exact(x) -> Fraction:
    return Fraction(float(x))


def random_values(rng, n, dtype):
    """Mantissas at random, exponents spread so a product's rounding error matters in the sum."""
    return (rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n)).astype(dtype)


def same_bits(a, b) -> bool:
    return np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


# ------------------------------------------------------- the four forms, hand-written PTX

FORMS_PTX = """
.version 7.8
.target sm_90
.address_size 64
.visible .entry forms(.param .u64 in_param, .param .u64 out_param)
{{
    .reg .{t} %f<12>;
    .reg .b64 %rd<5>;
    .reg .b32 %r<1>;
    ld.param.u64 %rd0, [in_param];
    ld.param.u64 %rd1, [out_param];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd2, %r0, {size4};
    add.s64 %rd3, %rd0, %rd2;
    add.s64 %rd4, %rd1, %rd2;
    ld.global.v2.{t} {{%f0, %f1}}, [%rd3];
    ld.global.v2.{t} {{%f2, %f3}}, [%rd3+{size2}];
    bra BODY;
BODY:
    mul.{t} %f4, %f0, %f1;
    add.{t} %f5, %f4, %f2;
    mul.{t} %f6, %f0, %f2;
    add.{t} %f7, %f3, %f6;
    mul.{t} %f8, %f1, %f2;
    sub.{t} %f9, %f8, %f3;
    mul.{t} %f10, %f1, %f3;
    sub.{t} %f11, %f0, %f10;
    bra DONE;
DONE:
    st.global.v2.{t} [%rd4], {{%f5, %f7}};
    st.global.v2.{t} [%rd4+{size2}], {{%f9, %f11}};
    ret;
}}
"""


def forms_reference(values, dtype, fused: bool):
    """x*y + c, d + x*c, y*c - d, x - y*d per row (x, y, c, d), each product rounded first unless fused."""
    def product(a, b):
        p = exact(a) * exact(b)
        return p if fused else exact(rounded(p, dtype))
    out = []
    for x, y, c, d in values.reshape(-1, 4):
        out += [rounded(product(x, y) + exact(c), dtype), rounded(exact(d) + product(x, c), dtype),
                rounded(product(y, c) - exact(d), dtype), rounded(exact(x) - product(y, d), dtype)]
    return np.array(out, dtype=dtype)


def run_forms(module, values, dtype, engine="auto"):
    out = cp.zeros(len(values), dtype=dtype)
    with cp.settings(engine=engine):
        module.get_function("forms")((1,), (len(values) // 4,), (cp.asarray(values), out))
    return out.get()


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_every_form_ptxas_fuses_is_rounded_once_on_both_tiers(t):
    dtype = FLOAT[t]
    values = random_values(np.random.default_rng(3), 4 * 64, dtype)
    module = cp.RawModule(ptx=FORMS_PTX.format(t=t, size4=4 * dtype(0).itemsize, size2=2 * dtype(0).itemsize))
    expected = forms_reference(values, dtype, fused=True)
    assert not same_bits(expected, forms_reference(values, dtype, fused=False))     # the inputs tell them apart
    for engine in ("numpy", "compiled"):
        assert same_bits(run_forms(module, values, dtype, engine), expected), engine
    assert module.get_function("forms").loaded_module.contracted == 4
    if t == "f32":
        tiers = {row["block"]: row["tier"] for row in report(module.get_function("forms").loaded_module.program)}
        assert tiers[1] == "compiled", tiers                 # BODY, with its fused add/sub


def test_contract_none_runs_the_ptx_unfused():
    values = random_values(np.random.default_rng(4), 4 * 64, np.float32)
    with cp.settings(contract="none"):
        module = cp.RawModule(ptx=FORMS_PTX.format(t="f32", size4=16, size2=8))
        module.get_function("forms")      # loaded under the setting
    assert same_bits(run_forms(module, values, np.float32), forms_reference(values, np.float32, fused=False))


def test_unknown_contract_setting_is_refused():
    with pytest.raises(ValueError, match="contract"):
        with cp.settings(contract="always"):
            pass


def test_a_mul_whose_source_is_redefined_before_the_add_is_not_fused():
    """ptxas may fuse it (with the old value), but the PTX machine cannot read that value at the
    add: it leaves the pair unfused rather than read the new one."""
    ptx = FORMS_PTX.format(t="f32", size4=16, size2=8).replace(
        "    add.f32 %f5, %f4, %f2;\n", "    mov.f32 %f0, 0f3F800000;\n    add.f32 %f5, %f4, %f2;\n")
    module = cp.RawModule(ptx=ptx)
    values = random_values(np.random.default_rng(5), 4 * 32, np.float32)
    out = run_forms(module, values, np.float32)
    x, y, c, d = (values.reshape(-1, 4)[:, k] for k in range(4))
    assert same_bits(out.reshape(-1, 4)[:, 0], np.float32(x * y) + c)        # two roundings
    assert module.get_function("forms").loaded_module.contracted == 2         # y*c - d, x - y*d still fused


# ------------------------------------------------------- the NVRTC reproducer

REPRODUCER = r"""
extern "C" __global__ void k(const {T}* a, const {T}* b, {T}* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { {T} x = a[i], y = b[i]; {T} p = x * y; {T} q = a[i+1] * b[i+1];
               o[i] = p - q; o[i+n] = p * 2 + y; } }
"""


def reproducer_reference(a, b, dtype, fused: bool):
    """p = x*y rounded (it has two uses); p - q with q's product fused into the subtraction."""
    n = len(a) - 1
    out = np.empty(2 * n, dtype)
    for i in range(n):
        p = exact(rounded(exact(a[i]) * exact(b[i]), dtype))
        q = exact(a[i + 1]) * exact(b[i + 1])
        out[i] = rounded(p - (q if fused else exact(rounded(q, dtype))), dtype)
        out[i + n] = rounded(2 * p + exact(b[i]), dtype)
    return out


@pytest.mark.parametrize("T", ["float", "double"])
def test_nvrtc_reproducer_gives_the_sass_runs_bits(T):
    dtype = np.float32 if T == "float" else np.float64
    n = 300
    rng = np.random.default_rng(6)
    a, b = random_values(rng, n + 1, dtype), random_values(rng, n + 1, dtype)
    code = REPRODUCER.replace("{T}", T)

    def launch(**changes):
        with cp.settings(**changes):
            kernel = cp.RawModule(code=code).get_function("k")
            out = cp.zeros(2 * n, dtype=dtype)
            kernel(((n + 127) // 128,), (128,), (cp.asarray(a), cp.asarray(b), out, np.int32(n)))
        return out.get()

    plain = launch()
    assert same_bits(plain, reproducer_reference(a, b, dtype, fused=True))
    assert same_bits(launch(contract="none"), reproducer_reference(a, b, dtype, fused=False))
    with cp.profile() as prof:
        profiled = launch()
    run = prof.launches[0]
    assert run.level == "sass" and not run.level_note, run.level_note     # the SASS run wrote the same bytes
    assert same_bits(profiled, plain)


# ------------------------------------------------------- a loop-carried accumulator

CARRIED = r"""
extern "C" __global__ void carried(const {T}* u, const {T}* r, {T}* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  {T} acc = r[i];
  for (int k = 0; k < n; ++k) acc = r[i + k + 1] - u[i + k] * acc;   // mul reads acc, sub rewrites it
  o[i] = acc;
}
"""


@pytest.mark.parametrize("T", ["float", "double"])
def test_a_multiply_of_a_loop_carried_register_in_the_adds_block_is_fused(T):
    """HeCBench thomas (`RHS[i] -= U[i] * RHS[i+B]`) and tsa: `mul %fd105, %fd104, %fd107; sub %fd107,
    %fd106, %fd105`, %fd107 defined before the loop and in it. ptxas fuses them (DFMA R10, -R6, R10, R12);
    the PTX machine left them unfused (the multiply's source has two definitions), so its bits
    differed from the SASS run's and the GPU's."""
    dtype = np.float32 if T == "float" else np.float64
    n, threads = 9, 64
    rng = np.random.default_rng(8)
    u, r = random_values(rng, threads + n, dtype), random_values(rng, threads + n + 1, dtype)
    module = cp.RawModule(code=CARRIED.replace("{T}", T))
    kernel = module.get_function("carried")
    fn = next(iter(kernel.loaded_module.module.functions.values()))
    subs = [ins for ins in fn.body if ins.opcode == "sub" and ins.type in ("f32", "f64")]
    products = {ins.dsts[0].name: ins for ins in fn.body if ins.opcode == "mul" and ins.type == subs[0].type}
    carried = [ins for ins in subs if ins.srcs[1].name in products
               and ins.dsts[0].name in [src.name for src in products[ins.srcs[1].name].srcs]]
    assert carried                                          # the PTX form: the sub rewrites a source of its mul
    assert all(ins.contracted >= 0 for ins in subs)
    out = cp.zeros(threads, dtype=dtype)
    with cp.profile() as prof:
        kernel((1,), (threads,), (cp.asarray(u), cp.asarray(r), out, np.int32(n)))
    assert prof.launches[0].level == "sass" and not prof.launches[0].level_note, prof.launches[0].level_note
    expected = np.empty(threads, dtype)
    for i in range(threads):
        acc = r[i]
        for k in range(n):
            acc = rounded(exact(r[i + k + 1]) - exact(u[i + k]) * exact(acc), dtype)
        expected[i] = acc
    assert same_bits(out.get(), expected)
