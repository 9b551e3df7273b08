"""Triton's tensor-core kernels on warpsim against Triton's own interpreter, in CPU seconds.

    python bench/triton_speed.py                       # all five cases below
    python bench/triton_speed.py --only matmul --only attention --size 512
    python bench/triton_speed.py --no-interpreter --json out.json
    python bench/triton_speed.py --only matmul --pairs 5     # and 5 (plain, interpreter) pairs back to back

The kernels are bench/triton_kernels.py's (tutorials 01, 02, 03, 05 and 06): vector add of
2M floats, row softmax and layer-norm forward of 2,048 x 1,024 floats, an fp16 matmul
1024^3 and a flash-attention forward of 16 heads x 1024 tokens x head dim 64 (--size
changes the last two). For each one, in this run:

- `plain`: `wt.launch` at sm_90 (wgmma, cp.async, mbarriers), nothing recorded;
- `profiled`: the same launch under `warpsim.settings(gpu="h200")` and `warpsim.profile()`
  (SASS counters and the timing model's prediction, what `warpsim profile --gpu h200` does);
- `interpreter`: the same kernel, size and launch parameters under `TRITON_INTERPRET=1`
  (torch CPU tensors), in a subprocess so the interpreter's mode does not leak into warpsim.

Every figure is CPU time of the process that ran it (resource.getrusage), so other work on
the machine slows the figures less than it would the wall clock; compare ratios of one run.
Both sides run with one thread in every thread pool (OMP/OpenBLAS/MKL_NUM_THREADS=1 unless set;
--all-threads leaves them): the targets are for one core, and on a loaded machine the idle
threads of torch's pool spin and count as CPU time (the interpreter's matmul took 16 s of CPU
with its default pool at load 3, 3.4 s with one thread).
The first warpsim launch of each kernel compiles it (Triton, ptxas) and the first profiled one
loads its SASS; neither is counted: each row is the best of --repeat warm launches. Results are
checked against NumPy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys

# One thread for every thread pool (torch's OpenMP pool in the interpreter, BLAS in both), set
# before NumPy loads: the targets are for one core, and a pool's idle threads spin on a loaded
# machine, which CPU time counts (the interpreter's matmul: 16 s with the default pool at load 3,
# 3.4 s with one thread). --all-threads leaves the pools as they are.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
if "--all-threads" not in sys.argv:
    for _name, _value in ONE_THREAD.items():
        os.environ.setdefault(_name, _value)

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best_cpu(fn, repeat: int) -> float:
    """CPU seconds of the fastest of `repeat` calls of fn()."""
    times = []
    for _ in range(repeat):
        start = cpu_seconds()
        fn()
        times.append(cpu_seconds() - start)
    return min(times)


def close(got, want) -> bool:
    """fp16 results within fp16 rounding (and fp32 accumulation) of a float64 reference."""
    return np.allclose(got.astype(np.float64), want, rtol=4e-3, atol=2e-2)


def matmul_inputs(size: int, rng):
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    return a, b


def attention_inputs(heads: int, seq: int, dim: int, rng):
    return tuple(rng.standard_normal((heads, seq, dim)).astype(np.float16) for _ in range(3))


def attention_reference(q, k, v):
    scores = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2) / np.sqrt(q.shape[-1])
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


def launch_matmul(launch, a, b, c):
    from triton_kernels import matmul_kernel, matmul_launch
    m, k = a.shape
    n = b.shape[1]
    grid, meta = matmul_launch(m, n, k)
    return launch(matmul_kernel, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, **meta)


def launch_attention(launch, q, k, v, out):
    from triton_kernels import attention_kernel, attention_launch
    heads, seq, dim = q.shape
    grid, meta = attention_launch(heads, seq, dim)
    scale = 1.0 / np.sqrt(dim) * 1.4426950408889634
    return launch(attention_kernel, grid, q, k, v, out, seq * dim, dim, seq, scale, **meta)


def launch_add(launch, x, y, out):
    from triton_kernels import add_kernel, add_launch
    n = int(np.prod(x.shape))
    grid, meta = add_launch(n)
    return launch(add_kernel, grid, x, y, out, n, **meta)


def launch_softmax(launch, x, out):
    from triton_kernels import softmax_kernel, softmax_launch
    rows, cols = x.shape
    grid, meta = softmax_launch(rows, cols)
    return launch(softmax_kernel, grid, out, x, cols, cols, cols, **meta)


def launch_layer_norm(launch, x, w, b, y, mean, rstd):
    from triton_kernels import layer_norm_kernel, layer_norm_launch
    rows, cols = x.shape
    grid, meta = layer_norm_launch(rows, cols)
    return launch(layer_norm_kernel, grid, x, y, w, b, mean, rstd, cols, cols, 1e-5, **meta)


def softmax_reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layer_norm_reference(x, w, b):
    x = x.astype(np.float64)
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-5) * w + b


def case_arrays(case: str, size: int, rng) -> tuple:
    """(inputs, outputs, launcher, reference) of one case: host arrays, the launch function
    (launch, *inputs, *outputs) and a function of the inputs giving the first output's
    float64 reference. `size` is matmul's M=N=K and attention's tokens; the elementwise
    and row cases have fixed sizes (ROW_CASES)."""
    if case == "matmul":
        a, b = matmul_inputs(size, rng)
        return (a, b), (np.zeros((size, size), np.float16),), launch_matmul, lambda a, b: a.astype(np.float64) @ b
    if case == "attention":
        q, k, v = attention_inputs(16, size, 64, rng)
        return (q, k, v), (np.zeros(q.shape, np.float16),), launch_attention, attention_reference
    if case == "add":
        x, y = (rng.standard_normal(ADD_ELEMENTS).astype(np.float32) for _ in range(2))
        return (x, y), (np.zeros_like(x),), launch_add, lambda x, y: x.astype(np.float64) + y
    rows, cols = ROW_SHAPE
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    if case == "softmax":
        return (x,), (np.zeros_like(x),), launch_softmax, softmax_reference
    w, b = (rng.standard_normal(cols).astype(np.float32) for _ in range(2))
    outputs = (np.zeros_like(x), np.zeros(rows, np.float32), np.zeros(rows, np.float32))
    return (x, w, b), outputs, launch_layer_norm, layer_norm_reference


ADD_ELEMENTS = 1 << 21                  # vector add: 2M floats, 2,048 programs
ROW_SHAPE = (2048, 1024)                # softmax and layer norm: 2,048 rows of 1,024 floats
CASES = ("add", "softmax", "layer_norm", "matmul", "attention")


def case_label(case: str, size: int) -> str:
    rows, cols = ROW_SHAPE
    return {"add": f"vector add fp32 {ADD_ELEMENTS}", "softmax": f"softmax fp32 {rows} x {cols}",
            "layer_norm": f"layer norm fp32 {rows} x {cols}", "matmul": f"matmul fp16 {size}^3",
            "attention": f"attention 16 x {size} x 64"}[case]


def interpreter_main(case: str, size: int, repeat: int) -> None:
    """Inside the TRITON_INTERPRET=1 subprocess: print the best CPU seconds of `repeat` runs."""
    import torch

    def launch(kernel, grid, *args, **meta):
        kernel[grid](*args, **meta)

    inputs, outputs, launcher, reference = case_arrays(case, size, np.random.default_rng(0))
    tensors = [torch.from_numpy(x) for x in inputs + outputs]
    seconds = best_cpu(lambda: launcher(launch, *tensors), repeat)
    right = close(tensors[len(inputs)].numpy(), reference(*inputs))
    print(json.dumps({"seconds": seconds, "right": bool(right)}))


def interpreter_seconds(case: str, size: int, repeat: int) -> float:
    env = dict(os.environ, TRITON_INTERPRET="1")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--interpreter-child", case, "--size",
                           str(size), "--repeat", str(repeat)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"Triton's interpreter failed on {case}:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["right"], f"Triton's interpreter gave a wrong {case}"
    return result["seconds"]


def warpsim_rows(case: str, size: int, repeat: int, profiled_only: bool = False) -> dict:
    """{'plain': s, 'profiled': s, 'predicted_us': µs, 'run': the plain launch} for one case on warpsim."""
    import warpsim as ws
    from warpsim import triton as wt

    def launch(kernel, grid, *args, **meta):
        return wt.launch(kernel, grid, *args, arch=90, **meta)

    inputs, outputs, launcher, reference = case_arrays(case, size, np.random.default_rng(0))
    dev = [ws.asarray(x) for x in inputs + outputs]
    run = lambda: launcher(launch, *dev)  # noqa: E731
    check = lambda: close(dev[len(inputs)].get(), reference(*inputs))  # noqa: E731
    run()                                           # compiles (Triton, ptxas), fills caches
    assert check(), f"warpsim's {case} differs from NumPy's"
    rows = {}
    if not profiled_only:
        rows["plain"] = best_cpu(run, repeat)
    profiles = []

    def profiled():
        with ws.settings(gpu="h200"), ws.profile() as prof:
            run()
        profiles.append(prof)

    profiled()                                      # loads the SASS (ptxas, nvdisasm) the profile runs
    rows["profiled"] = best_cpu(profiled, repeat)
    assert check(), f"warpsim's profiled {case} differs from NumPy's"
    timing = getattr(profiles[-1].launches[-1], "timing", None)
    if timing is not None:
        rows["predicted_us"] = float(timing.time_us)
    rows["run"] = run
    return rows


def paired_ratios(run, case: str, size: int, repeat: int, pairs: int) -> list:
    """Interpreter seconds over warpsim's plain seconds, each pair measured one right after the other:
    a shared machine's speed drifts by up to 2x within minutes, so a ratio of two figures taken
    minutes apart says little; the median of pairs says more."""
    ratios = []
    for _ in range(pairs):
        plain = best_cpu(run, repeat)
        ratios.append(interpreter_seconds(case, size, repeat) / plain)
    return ratios


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=CASES, action="append", help="one case (may be repeated)")
    parser.add_argument("--size", type=int, help="matmul M=N=K, attention tokens (default 1024)")
    parser.add_argument("--repeat", type=int, default=1, help="warm runs of each row; the best counts")
    parser.add_argument("--no-interpreter", action="store_true", help="leave Triton's interpreter out")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--pairs", type=int, default=0,
                        help="then this many (warpsim plain, interpreter) pairs one after the other: the median "
                             "ratio and its range")
    parser.add_argument("--all-threads", action="store_true",
                        help="leave torch's and BLAS's thread pools at their default size (default: one thread)")
    parser.add_argument("--interpreter-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    size = args.size or 1024
    if args.interpreter_child:
        interpreter_main(args.interpreter_child, size, args.repeat)
        return 0
    cases = args.only or list(CASES)
    results = {"load_average": os.getloadavg()[0], "size": size, "cases": {},
               "threads": {name: os.environ.get(name, "default") for name in ONE_THREAD}}
    print(f"{'case':<34} {'plain s':>8} {'profiled s':>10} {'interp. s':>9} {'interp./plain':>13}"
          f" {'interp./profiled':>16}")
    for case in cases:
        rows = warpsim_rows(case, size, args.repeat)
        run = rows.pop("run")
        if not args.no_interpreter:
            rows["interpreter"] = interpreter_seconds(case, size, args.repeat)
            if args.pairs:
                rows["paired_ratios"] = paired_ratios(run, case, size, args.repeat, args.pairs)
        results["cases"][case] = rows
        label = case_label(case, size)
        interp = rows.get("interpreter")
        ratio = lambda key: f"{interp / rows[key]:.2f}x" if interp else "-"  # noqa: E731
        print(f"{label:<34} {rows['plain']:8.2f} {rows['profiled']:10.2f} "
              f"{interp if interp else float('nan'):9.2f} {ratio('plain'):>13} {ratio('profiled'):>16}",
              flush=True)
        if rows.get("paired_ratios"):
            pr = sorted(rows["paired_ratios"])
            print(f"{'':<34} interpreter / plain in {len(pr)} pairs: median {float(np.median(pr)):.2f}x, "
                  f"range {pr[0]:.2f}-{pr[-1]:.2f}x", flush=True)
    results["load_average_after"] = os.getloadavg()[0]
    print(f"CPU seconds; load average {results['load_average']:.1f} before, "
          f"{results['load_average_after']:.1f} after")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
