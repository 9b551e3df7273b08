"""Fourteenth batch of H200 microbenchmarks (microbench14.cu): the SM clock by tensor-core duty and data.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench14.cubin microbench14.cu`):

    python3 run_microbench14.py --collect OUTDIR     # OUTDIR/microbench14.json
    ncu ... python3 run_microbench14.py --once        # one short launch per configuration, CONFIGS' order

Per configuration (wgmma on random f16 or zero tiles with `spin` FFMAs between groups of four, or FFMA
chains only), `--collect` runs long launches (about 4 ms) five times back to back and short ones (about
40 us) 300 times, and keeps the SM clock of the last of each (Δclock64 / Δ%globaltimer, median over the
132 CTAs) beside the first short one's, and the tensor core's busy share the kernel's own clocks give
(each of the two warpgroups' four wgmma.m64n256k16 a round hold it 512 cycles at the eighth batch's
issue interval).
"""

from __future__ import annotations

import os
import time

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GROUP_CYCLES = 4 * 128.1          # four m64n256k16 at the eighth batch's interval
CONFIGS = [("tensor", data, spin) for data in ("random", "zeros") for spin in (0, 32, 128, 512)] + [("ffma", "-", 0)]


def iterations(kernel, spin, seconds):
    per_iter = GROUP_CYCLES + 4.0 * spin if kernel == "tensor" else 32.0
    return max(1, int(seconds * 1.9e9 / per_iter))


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench14.cubin"))
    rng = np.random.default_rng(14)
    tiles = {"random": cp.asarray(rng.uniform(-1, 1, 6144).astype(np.float16).view(np.uint32)),
             "zeros": cp.zeros(3072, dtype=cp.uint32)}
    stamps = cp.zeros(4 * SMS, dtype=cp.int64)
    sink = cp.zeros(SMS, dtype=cp.float32)

    def launch(kernel, data, spin, iters):
        if kernel == "tensor":
            mod.get_function("mb14_tensor")((SMS,), (256,), (tiles[data], stamps, sink, np.int32(iters), np.int32(spin)))
        else:
            mod.get_function("mb14_ffma")((SMS,), (1024,), (stamps, sink, np.int32(iters)))

    def clock_mhz():
        cp.cuda.runtime.deviceSynchronize()
        s = stamps.get().reshape(SMS, 4).astype(np.float64)
        cycles, ns = s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]
        return float(np.median(cycles / ns * 1e3)), float(np.median(cycles))

    results = []
    for kernel, data, spin in CONFIGS:
        if not reps:
            launch(kernel, data, spin, iterations(kernel, spin, 40e-6))
            cp.cuda.runtime.deviceSynchronize()
            print({"kernel": kernel, "data": data, "spin": spin}, flush=True)
            continue
        long_iters, short_iters = iterations(kernel, spin, 4e-3), iterations(kernel, spin, 40e-6)
        for _ in range(reps):
            launch(kernel, data, spin, long_iters)
        long_mhz, long_cycles = clock_mhz()
        cp.cuda.runtime.deviceSynchronize()
        time.sleep(0.5)                                   # idle, then a burst of short launches
        launch(kernel, data, spin, short_iters)
        first_mhz, _ = clock_mhz()
        for _ in range(299):
            launch(kernel, data, spin, short_iters)
        last_mhz, short_cycles = clock_mhz()
        busy = (2 * long_iters * GROUP_CYCLES / long_cycles) if kernel == "tensor" else 0.0
        results.append({"kernel": kernel, "data": data, "spin": spin, "tensor_busy": busy,
                        "long_mhz": long_mhz, "short_first_mhz": first_mhz, "short_last_mhz": last_mhz,
                        "long_cycles": long_cycles, "short_cycles": short_cycles})
        print(results[-1], flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench14.json")
