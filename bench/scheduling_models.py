"""Issued warp instructions and SIMT efficiency under both scheduling models.

    python bench/scheduling_models.py

branch_on_lane, branch_on_warp (the document's heavy() loop, n=100) and the
legacy/__syncwarp reductions, 64 blocks of 128 threads; one table, one run.
"""

import pathlib

import numpy as np

import warpsim
import warpsim.demo

KERNELS = pathlib.Path(warpsim.demo.__file__).parent / "kernels"
METRICS = ("smsp__inst_executed.sum", "smsp__thread_inst_executed_per_inst_executed.ratio",
           "warpsim__simt_efficiency.pct", "smsp__sass_branch_targets_threads_divergent.sum")


def main():
    divergence = warpsim.RawModule(path=str(KERNELS / "divergence.cu"))
    scheduling = warpsim.RawModule(path=str(KERNELS / "scheduling.cu"))
    out = warpsim.zeros(64 * 128, dtype=warpsim.float32)
    x = warpsim.asarray(np.random.default_rng(0).integers(-100, 100, 64 * 64).astype(np.int32))
    sums = warpsim.zeros(64, dtype=warpsim.int32)
    cases = [
        ("branch_on_lane", divergence, (64,), (128,), (out, np.int32(100))),
        ("branch_on_warp", divergence, (64,), (128,), (out, np.int32(100))),
        ("legacy_reduce", scheduling, (64,), (64,), (x, sums)),
        ("syncwarp_reduce", scheduling, (64,), (64,), (x, sums)),
    ]
    print(f"{'kernel':<18}{'model':<7}" + "".join(f"{m.split('__')[1][:34]:>36}" for m in METRICS))
    for name, module, grid, block, args in cases:
        for model in ("its", "stack"):
            with warpsim.settings(scheduling=model), warpsim.profile() as prof:
                module.get_function(name)(grid, block, args)
            metrics = prof.launches[-1].metrics
            print(f"{name:<18}{model:<7}" + "".join(f"{metrics[m]:>36.4g}" for m in METRICS))


if __name__ == "__main__":
    main()
