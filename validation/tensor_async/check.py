"""Tensor-core and async-copy kernels on a GPU (CuPy) and on warpsim, same inputs.

    python check.py warpsim OUT_DIR      # here; also writes ptx/ (NVRTC from PyPI)
    python3 check.py cupy OUT_DIR        # on the GPU machine: loads the same ptx/
    python check.py compare GPU_DIR SIM_DIR

The kernels are those of tests/machine/test_tensor.py and test_async_copy.py.
The GPU loads the PTX warpsim ran (the GPU machine's CuPy lacks crt/mma.h),
so both sides execute the same instructions.
"""

import pathlib
import re
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
TESTS = HERE.parents[1] / "tests" / "machine"


def sources():
    found = {}
    for name, attr in (("test_tensor.py", "SOURCE"), ("test_tensor.py", "MMA_SOURCE"),
                       ("test_async_copy.py", "SOURCE")):
        text = (TESTS / name).read_text()
        start = text.index(f'{attr} = r"""') + len(f'{attr} = r"""')
        found[f"{name}:{attr}"] = text[start:text.index('"""', start)]
    return found


def cases():
    rng = np.random.default_rng(2026)
    f16 = lambda *s: rng.standard_normal(s).astype(np.float16)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    i8 = lambda *s: rng.integers(-128, 128, s).astype(np.int8)
    return [
        ("test_tensor.py:SOURCE", "f16_16x16x16", (2,), (32,), [f16(2, 16, 16), f16(2, 16, 16), f32(2, 16, 16)], ((2, 16, 16), np.float32)),
        ("test_tensor.py:SOURCE", "f16_32x8x16", (1,), (32,), [f16(32, 16), f16(16, 8), f32(32, 8)], ((32, 8), np.float32)),
        ("test_tensor.py:SOURCE", "f16_8x32x16_acc16", (1,), (32,), [f16(8, 16), f16(16, 32), f16(8, 32)], ((8, 32), np.float16)),
        ("test_tensor.py:SOURCE", "s8_16x16x16", (1,), (32,), [i8(16, 16), i8(16, 16), rng.integers(-1000, 1000, (16, 16)).astype(np.int32)], ((16, 16), np.int32)),
        ("test_tensor.py:MMA_SOURCE", "mma_tile", (1,), (32,), [f16(16, 16), f16(16, 8), f32(16, 8)], ((16, 8), np.float32)),
        ("test_async_copy.py:SOURCE", "reverse_tile", (3,), (128,), [f32(3, 128, 4)], ((3, 128, 4), np.float32)),
    ]


def _write(ptx: str) -> str:
    import tempfile
    handle = tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False)
    handle.write(ptx)
    handle.close()
    return handle.name


def run(backend: str, out: pathlib.Path):
    ptx_dir = HERE / "ptx"
    if backend == "cupy":
        import cupy as xp
    else:
        sys.path.insert(0, str(HERE.parents[1]))
        import warpsim as xp
        from warpsim.frontends.nvrtc import compile_cuda
        ptx_dir.mkdir(exist_ok=True)
        for key, src in sources().items():
            (ptx_dir / (key.replace(":", "_") + ".ptx")).write_text(compile_cuda(src, ("-std=c++17",)).ptx)
    modules = {}
    for key in sources():
        ptx = (ptx_dir / (key.replace(":", "_") + ".ptx")).read_text()
        if backend == "cupy":       # the GPU machine's driver predates PTX ISA 9.5; nothing used here needs it
            ptx = re.sub(r"^\.version .*$", ".version 8.0", ptx, count=1, flags=re.M)
        modules[key] = xp.RawModule(ptx=ptx) if backend == "warpsim" else xp.RawModule(path=_write(ptx))
    results = {}
    for key, kernel, grid, block, inputs, (shape, dtype) in cases():
        outputs = xp.zeros(shape, dtype=dtype)
        args = [xp.asarray(x) for x in inputs] + [outputs]
        modules[key].get_function(kernel)(grid, block, tuple(args))
        results[kernel] = xp.asnumpy(outputs)
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / f"{backend}.npz", **results)
    print(f"{len(results)} kernels on {backend}")


def compare(gpu_dir: pathlib.Path, sim_dir: pathlib.Path):
    gpu, sim = np.load(gpu_dir / "cupy.npz"), np.load(sim_dir / "warpsim.npz")
    for kernel in gpu.files:
        g, s = gpu[kernel].astype(np.float64), sim[kernel].astype(np.float64)
        same = int((gpu[kernel] == sim[kernel]).sum())
        print(f"{kernel:<20} {same}/{g.size} bit-equal, max |gpu - warpsim| = {np.abs(g - s).max():.3g}")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
    else:
        run(sys.argv[1], pathlib.Path(sys.argv[2]))
