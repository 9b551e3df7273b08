"""Shared-memory wavefronts of one warp-wide load, by lane pattern: the H200 (ncu) against warpsim.

    bash run_device.sh                             # on the device: OUT/shared_wavefronts.tar.gz
    python run.py here h200/ncu.csv                # here: warpsim's count beside the H200's, by pattern

`run.py launch` makes the launches (what ncu profiles: two blocks of one warp a launch, each
loading with the same pattern), `run.py check` runs them once on CuPy against NumPy first. On
warpsim the kernels run under `warpsim.profile(level="sass")` and the count is
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, as ncu reports it.
"""

from __future__ import annotations

import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from patterns import ELEMENTS, patterns  # noqa: E402

BLOCKS = 2
METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRICS = (METRIC, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "smsp__inst_executed_op_shared_ld.sum")
DTYPES = {4: (np.float32, 1), 8: (np.float32, 2), 16: (np.float32, 4)}


def launch_all(xp, check: bool) -> list:
    """Launch every pattern once (in patterns() order); with check, compare each output with NumPy."""
    module = xp.RawModule(code=open(os.path.join(HERE, "kernels.cu")).read())
    rng = np.random.default_rng(5)
    failures = []
    for label, width, kernel, idx in patterns():
        _, words = DTYPES[width]
        src = rng.random(ELEMENTS * words, dtype=np.float32)
        out = xp.zeros(BLOCKS * 32 * words, dtype=np.float32)
        index = xp.asarray(np.tile(idx, BLOCKS))
        module.get_function(kernel)((BLOCKS,), (32,), (index, xp.asarray(src), out))
        if check:
            got = out.get() if hasattr(out, "get") else out
            want = np.tile(src.reshape(ELEMENTS, words)[idx].ravel(), BLOCKS)
            if not np.array_equal(np.asarray(got), want):
                failures.append(label)
    return failures


def read_ncu(path: str) -> list:
    """ncu --csv --page raw: [{metric: value}] a launch, in launch order."""
    rows = [r for r in csv.reader(open(path)) if r]
    head = next(i for i, r in enumerate(rows) if r[0] == "ID")
    names = rows[head]
    return [{m: float(r[names.index(m)].replace(",", "")) for m in METRICS if m in names}
            for r in rows[head + 2:]]


def warpsim_counts() -> list:
    import warnings
    import warpsim
    warnings.simplefilter("ignore")
    with warpsim.profile(level="sass") as prof:
        launch_all(warpsim, check=False)
    return [{m: launch.metrics.get(m) for m in METRICS} for launch in prof.launches]


def here(ncu_csv: str) -> int:
    device = read_ncu(ncu_csv)
    mine = warpsim_counts()
    rows = patterns()
    if len(device) != len(rows):
        print(f"{len(device)} launches in {ncu_csv}, {len(rows)} patterns: not the same run")
        return 1
    equal = 0
    print(f"{'pattern':40s} {'H200':>6s} {'warpsim':>8s}   (wavefronts a warp)")
    for (label, *_), gpu, sim in zip(rows, device, mine):
        g, s = gpu[METRIC] / BLOCKS, (sim[METRIC] or 0) / BLOCKS
        equal += g == s
        print(f"{label:40s} {g:6.1f} {s:8.1f}{'' if g == s else '   differs'}")
    print(f"equal on {equal} of {len(rows)} patterns")
    return 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode in ("launch", "check"):
        import cupy
        bad = launch_all(cupy, check=mode == "check")
        cupy.cuda.runtime.deviceSynchronize()
        print(f"{len(patterns())} launches" + (f", {len(bad)} wrong: {bad}" if mode == "check" else ""))
    elif mode == "here":
        sys.exit(here(sys.argv[2]))
    else:
        print(__doc__)
        sys.exit(2)
