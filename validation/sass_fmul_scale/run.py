"""FMUL.D2 / FMUL.M2 (plain and .FTZ) on the H200 (CuPy) and on warpsim's SASS executor.

    python3 run.py gpu OUT.npz        # on the device: one launch, 4096 threads
    python run.py compare OUT.npz     # here: warpsim's SASS run against the H200's, output by output

ptxas folds a contractable `(a * b) * 2^k` into one FMUL with a result scale. Rounding the exact
product times 2^k once differs from rounding the product and then scaling it where the product
overflows before a .D2 brings it back, and where the scaled result is subnormal; the inputs are
chosen to land there (and around the smallest normal, where .FTZ's tininess test decides). The
comparison also says, on the lanes where the two rules differ, which one the H200 followed.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUTS = ("d2", "m2", "d2_ftz", "m2_ftz")
SCALE = {"d2": 0.5, "m2": 2.0, "d2_ftz": 0.5, "m2_ftz": 2.0}
N, BLOCK = 4096, 128
GROUP = N // 8


def _significands(rng, n):
    return (1 + rng.random(n)) * rng.choice([-1.0, 1.0], n)


def _pairs_with_product_exponent(rng, low, high, n):
    """a, b of random significands whose product's exponent lies in [low, high)."""
    total = rng.integers(low, high, n)
    ea = rng.integers(-60, 60, n)
    return _significands(rng, n) * 2.0 ** ea, _significands(rng, n) * 2.0 ** (total - ea)


def _pairs_with_product_near(rng, target, n):
    """a, b with a * b within a few units of f32's last place of +-target."""
    a = _significands(rng, n) * 2.0 ** rng.integers(-40, 40, n)
    b = (target * (1 + rng.integers(-40, 40, n) * 2.0 ** -25)) / a
    return a, b


def inputs():
    rng = np.random.default_rng(20260611)
    groups = [
        _pairs_with_product_exponent(rng, -20, 20, GROUP),        # plain normal results
        _pairs_with_product_exponent(rng, -151, -126, GROUP),     # D2 and M2 results subnormal
        _pairs_with_product_exponent(rng, -128, -123, GROUP),     # results around the smallest normal
        _pairs_with_product_near(rng, 2.0 ** -125, GROUP),        # D2 lands at 2^-126 (FTZ's edge)
        _pairs_with_product_near(rng, 2.0 ** -127, GROUP),        # M2 lands at 2^-126
        _pairs_with_product_exponent(rng, 126, 129, GROUP),       # the product overflows, D2 brings it back
        _pairs_with_product_near(rng, 2.0 ** 128, GROUP),         # the product at f32's overflow edge
    ]
    a = np.concatenate([g[0] for g in groups])
    b = np.concatenate([g[1] for g in groups])
    rest = N - len(a)                                              # subnormal operands, and the specials
    sub_a = _significands(rng, rest) * 2.0 ** rng.integers(-149, -127, rest)
    sub_b = _significands(rng, rest) * 2.0 ** rng.integers(0, 40, rest)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -149, 2.0 ** -126, 3.4e38])
    sub_b[:64] = np.resize(specials, 64)
    sub_a[64:128] = np.resize(specials[::-1], 64)
    with np.errstate(all="ignore"):
        x = np.concatenate([a, sub_a]).astype(np.float32)
        y = np.concatenate([b, sub_b]).astype(np.float32)
    return x, y


def run(xp, x, y):
    src = open(os.path.join(HERE, "kernels.cu")).read()
    kernel = xp.RawModule(code=src).get_function("scaled_products")
    outs = [xp.zeros(N, dtype=np.float32) for _ in OUTPUTS]
    kernel((N // BLOCK,), (BLOCK,), (xp.asarray(x), xp.asarray(y), *outs, np.int32(N)))
    return {name: (o.get() if hasattr(o, "get") else o) for name, o in zip(OUTPUTS, outs)}


def run_sass(x, y):
    """warpsim's run of the kernel's SASS alone (its results are the launch's), checked to be at SASS level."""
    import warpsim
    from warpsim.profiler import Profiler
    with warpsim.settings(sass_verify=False), Profiler(level="sass") as profiler:
        mine = run(warpsim, x, y)
    launch = profiler[0]
    if launch.level != "sass":
        sys.exit(f"the launch fell back to the PTX run: {launch.level_note}")
    return mine


def _flushed(v):
    return np.where(np.abs(v) < np.float32(2.0 ** -126), np.copysign(np.float32(0), v), v).astype(np.float32)


def _rounded(exact, ftz):
    """An exact f64 value rounded to f32; .ftz: zero where it is subnormal, or where it rounded up to
    the smallest normal from a value that is tiny when rounded with an unbounded exponent."""
    r = exact.astype(np.float32)
    if not ftz:
        return r
    tiny = np.abs((exact * 2.0 ** 64).astype(np.float32)) < np.float32(2.0 ** -62)
    return np.where(tiny, np.copysign(np.float32(0), r), _flushed(r))


def rules(name, x, y):
    """{rule: the f32 bits it gives} for one output: rounded once, and rounded twice."""
    ftz = name.endswith("ftz")
    a, b = (_flushed(v).astype(np.float64) if ftz else v.astype(np.float64) for v in (x, y))
    with np.errstate(all="ignore"):
        once = _rounded(a * b * SCALE[name], ftz)
        twice = _rounded(_rounded(a * b, ftz).astype(np.float64) * SCALE[name], ftz)
    return {"once": once.view(np.uint32), "twice": twice.view(np.uint32)}


def _same(u, v):
    """Bitwise equal, any NaN equal to any NaN."""
    nan = lambda w: (w & 0x7FFFFFFF) > 0x7F800000
    return (u == v) | (nan(u) & nan(v))


if __name__ == "__main__":
    x, y = inputs()
    if sys.argv[1] == "gpu":
        import cupy
        np.savez(sys.argv[2], x=x, y=y, **run(cupy, x, y))
    else:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = run_sass(x, y)
        gpu = np.load(sys.argv[2])
        assert np.array_equal(gpu["x"].view(np.uint32), x.view(np.uint32)), "inputs differ from the device's"
        for name in OUTPUTS:
            got, want = mine[name].view(np.uint32), gpu[name].view(np.uint32)
            diff = np.flatnonzero(~_same(got, want))
            print(f"{name:7s} warpsim equal to the H200 on {N - len(diff)} of {N} threads" +
                  (f"; first differences at {diff[:4].tolist()}: a {x[diff[:4]].tolist()}, b {y[diff[:4]].tolist()}, "
                   f"warpsim {[hex(v) for v in got[diff[:4]]]}, H200 {[hex(v) for v in want[diff[:4]]]}"
                   if len(diff) else ""))
            by_rule = rules(name, x, y)
            split = np.flatnonzero(~_same(by_rule["once"], by_rule["twice"]))
            print(f"        the two rules differ on {len(split)} threads; the H200 matches rounding once on "
                  f"{int(_same(by_rule['once'], want)[split].sum())}, rounding twice on "
                  f"{int(_same(by_rule['twice'], want)[split].sum())}")
