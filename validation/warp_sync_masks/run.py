"""Warp collectives whose member mask leaves out the calling lane, on the H200 (CuPy) and on warpsim.

    python3 run.py gpu OUT.json       # on the device: each kernel in a process of its own
    python run.py compare H200.json   # here: warpsim's outcome against the H200's, kernel by kernel

A kernel's outcome is the values its threads wrote, or the error its launch ended with.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N, BLOCK = 4096, 128


def kernels() -> list:
    return re.findall(r"^COLLECTIVE\((\w+),", open(os.path.join(HERE, "kernels.cu")).read(), flags=re.M)


def predicates():
    rng = np.random.default_rng(20261204)
    p = (rng.random(N) < 0.5).astype(np.uint32)
    p[:32] = 1                         # a warp of all true, one of all false, one of one true lane
    p[32:64] = 0
    p[64:96] = 0
    p[64 + 17] = 1
    return p


def outcome(xp, name: str) -> dict:
    """{'values': [...]} or {'error': the error's name}."""
    try:
        kernel = xp.RawKernel(open(os.path.join(HERE, "kernels.cu")).read(), name)
        out = xp.zeros(N, dtype=np.uint32)
        kernel((N // BLOCK,), (BLOCK,), (xp.asarray(predicates()), out))
        values = out.get() if hasattr(out, "get") else np.asarray(out)
        return {"values": values.tolist()}
    except Exception as exc:                        # the launch's error is the outcome
        if type(exc).__module__.startswith("warpsim"):
            from warpsim.runtime.errors import code_of, error_name
            return {"error": error_name(code_of(exc))}
        text = f"{type(exc).__name__}: {exc}"
        found = re.search(r"(cudaError\w+|CUDA_ERROR_\w+)", text)
        return {"error": found.group(1) if found else text[:200]}


def on_gpu(path: str) -> None:
    results = {}
    for name in kernels():
        done = subprocess.run([sys.executable, __file__, "gpu-one", name], capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        results[name] = json.loads(lines[-1]) if lines else {"error": f"process ended {done.returncode}"}
        print(name, results[name].get("error", "values"), flush=True)
    json.dump(results, open(path, "w"))


def compare(path: str) -> None:
    import warnings
    import warpsim
    gpu = json.load(open(path))
    for name in kernels():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = outcome(warpsim, name)
        theirs = gpu[name]
        if "error" in theirs or "error" in mine:
            same = theirs.get("error") == mine.get("error")
            print(f"{name:22s} H200 {theirs.get('error', 'values')}; warpsim {mine.get('error', 'values')}"
                  f"{'' if same else '   differs'}")
            continue
        a, b = np.array(mine["values"]), np.array(theirs["values"])
        diff = np.flatnonzero(a != b)
        print(f"{name:22s} equal on {N - len(diff)} of {N} threads" +
              (f"; first at {diff[:4].tolist()}: warpsim {a[diff[:4]].tolist()}, H200 {b[diff[:4]].tolist()}"
               if len(diff) else ""))


if __name__ == "__main__":
    if sys.argv[1] == "gpu":
        on_gpu(sys.argv[2])
    elif sys.argv[1] == "gpu-one":
        import cupy
        print(json.dumps(outcome(cupy, sys.argv[2])))
    else:
        compare(sys.argv[2])
