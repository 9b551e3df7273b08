"""Thirty-fifth batch of H200 microbenchmarks (microbench35.cu): the L2's throughput for loads
scattered over lines at random. Lanes in groups of G read consecutive words of a random line (a
request touches 32 / G lines), arrays of 2 to 512 MB, ld.global or ld.global.cg, 8 CTAs of 256 an
SM, warm caches (the untimed launch before the timed ones leaves L2-sized arrays in the L2).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench35.cubin microbench35.cu`):

    python3 run_microbench35.py --collect OUTDIR     # OUTDIR/microbench35.json: CUDA-event medians
    ncu --cache-control none ... python3 run_microbench35.py --once
Here:
    python3 run_microbench35.py --model              # the H200's lines per clock beside the model's
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs, recording

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CTAS_PER_SM, BLOCK, ITERS = 132, 8, 256, 64
GRID = SMS * CTAS_PER_SM


@dataclass(frozen=True)
class Batch:
    """A batch of one kernel that loads from one array (this one and the thirty-sixth): on the device,
    its configurations timed and launched for ncu; here, ncu's rows and the model beside them."""
    number: int
    kernel: str
    configs: list
    arguments: Callable          # (config, src, out) -> the kernel's arguments
    lines: Callable              # config -> lines the launch's requests touch, counted per request
    label: Callable              # config -> how a printed row names it
    device_mb: int               # the array the device's runs read from (the first lines of it)


def run_batch(batch: Batch, reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, f"microbench{batch.number}.cubin"))
    f = mod.get_function(batch.kernel)
    src = cp.random.random(batch.device_mb << 18, dtype=cp.float32)
    out = cp.zeros(GRID * BLOCK, dtype=cp.float32)

    def launch_for(config):
        return lambda: f((GRID,), (BLOCK,), batch.arguments(config, src, out))
    results = time_configs(cp, batch.configs, launch_for, reps)
    for r in results:
        r["lines_per_clock"] = batch.lines(r) / (r["event_us"] * 1e-6 * 1.98e9)
    return results


def measured_batch(batch: Batch) -> list:
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3, lts_requests=number(r["lts__t_requests.sum"]),
                 lts_sectors=number(r["lts__t_sectors.sum"]), dram=number(r["dram__bytes_read.sum"]),
                 clock=number(r["sm__cycles_elapsed.avg.per_second"]))
            for r in ncu_rows(f"microbench{batch.number}_ncu.csv") if f"mb{batch.number}" in r.get("Kernel Name", "")]


def model_batch(batch: Batch):
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, f"microbench{batch.number}.cubin"))
    f = mod.get_function(batch.kernel)
    out = ws.zeros(GRID * BLOCK, dtype=np.float32)
    events = json.load(open(recording(f"microbench{batch.number}.json")))
    for config, e, m in zip(batch.configs, events, measured_batch(batch)):
        # an array of just the lines the launch picks from, alone on the device: the model bounds the
        # bytes a launch reads by its allocations' (the device's run reads the first lines of one array)
        src = ws.zeros(config["mb"] << 18, dtype=np.float32)
        args = pack_arguments(f.kernel_name, f.params, batch.arguments(config, src, out))
        t = predict(f.loaded_module, f.kernel_name, (GRID,), (BLOCK,), args, 0, gpu="h200", max_ctas=4, warm_l2=True)
        del src
        us = t.time_s * 1e6
        rate = m["lts_requests"] / (m["us"] * 1e-6 * m["clock"])
        print(f"{batch.label(config)}: H200 {m['us']:7.1f} us under ncu "
              f"({rate:5.1f} L2 requests a clock; events {e['event_us']:7.1f} us), model {us:7.1f} us "
              f"({100 * (us / m['us'] - 1):+.0f}%)", flush=True)


def arguments(config, src, out):
    lines = config["mb"] * (1 << 20) // 128
    return (src, out, np.uint32(lines - 1), np.int32(ITERS), np.int32(config["group"]), np.int32(config["cg"]))


BATCH = Batch(35, "mb35_scatter",
              [dict(mb=mb, group=g, cg=cg) for mb in (2, 8, 32, 512) for g in (1, 2, 8, 32) for cg in (0, 1)],
              arguments, lambda config: GRID * BLOCK * ITERS // config["group"],
              lambda config: f"{config['mb']:4d} MB G{config['group']:2d} cg{config['cg']}", 512)
CONFIGS = BATCH.configs


if __name__ == "__main__":
    main(__doc__, functools.partial(run_batch, BATCH), "microbench35.json", functools.partial(model_batch, BATCH))
