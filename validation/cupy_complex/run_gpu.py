"""CuPy's complex `a / b` and `abs(a)`, bit for bit: the GPU's results, and the same on warpsim.

On the device (CuPy 14):   python validation/cupy_complex/run_gpu.py        -> $OUT/cupy_complex_gpu.npz
Here, on warpsim:          WARPSIM=1 python validation/cupy_complex/run_gpu.py -> out/cupy_complex_warpsim.npz
Then:                      python validation/cupy_complex/compare.py

The operands are drawn here from a fixed seed (the same on both sides) and saved with the results:
for complex64 and complex128, random values whose parts have independent signs and magnitudes
spread over the whole exponent range, and every pair of hard parts (zeros of both signs,
infinities, NaN, subnormals, the smallest normal, the largest finite, 1). Each side computes
- `a / b` and `abs(a)` with CuPy's ufuncs (on a GPU: kernels compiled from cupy/complex.cuh);
- the same two in a RawModule through cuComplex.h with translate_cucomplex=True (cuCdiv, cuCabs,
  as CuPy's test_cuFloatComplex / test_cuDoubleComplex do).
"""
import json, os, sys, time
import numpy as np

if os.environ.get("WARPSIM"):
    import warpsim as cp
else:
    import cupy as cp

RANDOM = 4096
KERNELS = r"""
#include <cuComplex.h>
extern "C" __global__ void div_f(const cuFloatComplex* a, const cuFloatComplex* b, cuFloatComplex* q, float* m, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) { q[i] = cuCdivf(a[i], b[i]); m[i] = cuCabsf(a[i]); }
}
extern "C" __global__ void div_d(const cuDoubleComplex* a, const cuDoubleComplex* b, cuDoubleComplex* q, double* m, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) { q[i] = cuCdiv(a[i], b[i]); m[i] = cuCabs(a[i]); }
}
"""


def hard_parts(real):
    info = np.finfo(real)
    tiny = info.smallest_subnormal if hasattr(info, "smallest_subnormal") else np.nextafter(real(0), real(1))
    parts = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, tiny, -tiny, info.tiny, -info.tiny,
             info.max, -info.max, 3 * tiny, info.tiny * 0.75, np.sqrt(info.max), 1 / np.sqrt(info.max), 0.5]
    return np.array(parts, dtype=real)


def operands(dtype, seed):
    real = np.float32 if dtype == np.complex64 else np.float64
    rng = np.random.default_rng(seed)
    top = np.finfo(real).maxexp

    def draw(n):
        mant = rng.uniform(1, 2, size=(2, n)) * rng.choice([-1, 1], size=(2, n))
        exps = rng.integers(-top - 20, top, size=(2, n))
        near = rng.random(n) < 0.5                          # half of them with parts of similar size
        exps[1] = np.where(near, exps[0] + rng.integers(-3, 4, n), exps[1])
        with np.errstate(over="ignore", under="ignore"):
            parts = np.ldexp(mant, exps).astype(real)
        return pack(parts[0], parts[1])

    def pack(re, im):                                       # not re + 1j * im: inf * 1j has a NaN part
        z = np.empty(np.broadcast(re, im).shape, dtype=dtype)
        z.real, z.imag = re, im
        return z

    a, b = draw(RANDOM), draw(RANDOM)
    h = hard_parts(real)
    hard = pack(h[:, None], h[None, :]).reshape(-1)
    ha, hb = np.repeat(hard, len(hard)), np.tile(hard, len(hard))
    mixed_a = np.concatenate([draw(len(hard)), hard]).astype(dtype)      # random over hard and back
    mixed_b = np.concatenate([hard, draw(len(hard))]).astype(dtype)
    return np.concatenate([a, ha, mixed_a]), np.concatenate([b, hb, mixed_b])


def bits(x):
    x = np.ascontiguousarray(x)
    return x.view({4: np.uint32, 8: np.uint64}[x.dtype.itemsize // (2 if x.dtype.kind == "c" else 1)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    warpsim = bool(os.environ.get("WARPSIM"))
    out_dir = os.path.join(here, "out") if warpsim else os.environ.get("OUT", os.path.join(here, "out"))
    os.makedirs(out_dir, exist_ok=True)
    results, notes = {}, {}
    module = cp.RawModule(code=KERNELS, translate_cucomplex=True)
    for dtype, seed, name, kernel in ((np.complex64, 64, "c64", "div_f"), (np.complex128, 128, "c128", "div_d")):
        t0 = time.time()
        a, b = operands(dtype, seed)
        da, db = cp.asarray(a), cp.asarray(b)
        results[f"{name}_a"], results[f"{name}_b"] = a, b
        with np.errstate(all="ignore"):
            results[f"{name}_div"] = bits(cp.asnumpy(da / db))
            results[f"{name}_abs"] = bits(cp.asnumpy(cp.abs(da)))
        n = len(a)
        q = cp.zeros(n, dtype=dtype)
        m = cp.zeros(n, dtype=np.float32 if dtype == np.complex64 else np.float64)
        module.get_function(kernel)(((n + 255) // 256,), (256,), (da, db, q, m, np.int32(n)))
        results[f"{name}_kernel_div"] = bits(cp.asnumpy(q))
        results[f"{name}_kernel_abs"] = bits(cp.asnumpy(m))
        notes[name] = {"values": n, "seconds": round(time.time() - t0, 2)}
    notes["cupy"] = getattr(cp, "__version__", "?")
    side = "warpsim" if warpsim else "gpu"
    np.savez_compressed(os.path.join(out_dir, f"cupy_complex_{side}.npz"), **results)
    print(json.dumps(notes))


if __name__ == "__main__":
    sys.exit(main())
