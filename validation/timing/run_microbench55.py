"""Fifty-fifth batch of microbenchmarks (microbench55.cu): whether a line the L2 fetches from HBM costs
the L2 a read's time to take in, beside the read that hands it to the SM. Full-occupancy grid-stride
streams that read (64 MB) or write (16 MB, which the L2 keeps) one float an element, each thread also
reading K floats of a 4 MB table the L2 holds (ld.global.cg, K fixed at compile time); the table's
reads alone, by K, beside them.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench55.cubin microbench55.cu`):

    python3 run_microbench55.py --collect OUTDIR     # OUTDIR/microbench55.json: CUDA-event medians
    ncu ... python3 run_microbench55.py --once
Here:
    python3 run_microbench55.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench55.py --model             # the rows under ncu beside the model's
    python3 run_microbench55.py --rates             # each row's L2 and HBM traffic and rates under ncu
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, ncu_rows, number

SMS = 132
TABLE = 1 << 20
CONFIGS = ([dict(form="hits", n=1 << 24, k=k) for k in (1, 2, 4)] +
           [dict(form="read", n=1 << 24, k=k) for k in (0, 1, 2, 3, 4)] +
           [dict(form="read", n=1 << 22, k=k) for k in (0, 2, 4)] +
           [dict(form="write", n=1 << 22, k=k) for k in (0, 1, 2, 4)])


def label(config) -> str:
    return f"{config['form']:5s} n = 2^{int(np.log2(config['n']))}, {config['k']} table reads an element"


def shape(config) -> tuple:
    return (SMS * 16,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    n, form = config["n"], config["form"]
    rng = np.random.default_rng(55)
    hot = xp.asarray(rng.random(TABLE, dtype=np.float32))
    sink = xp.zeros(SMS * 16 * 256, dtype=np.float32)
    if form == "hits":
        return sink, hot, np.int64(n)
    if form == "read":
        return sink, xp.asarray(rng.random(n, dtype=np.float32)), hot, np.int64(n)
    return xp.zeros(n, dtype=np.float32), hot, np.int64(n)


def kernel_name(config) -> str:
    return f"mb55_{config['form']}{config['k']}"


def rates() -> None:
    """Each row's ncu time, L2 sectors (all, and the SMs' reads and writes), HBM bytes, and the rates
    they make less the time a launch takes beyond its work (model.KERNEL_OVERHEAD_US): whether the
    stream's fills add to the L2's time beside the table's reads."""
    from warpsim.timing.model import KERNEL_OVERHEAD_US
    rows = [r for r in ncu_rows("microbench55_ncu.csv") if "mb55" in r["Kernel Name"]]
    for config, r in zip(CONFIGS, rows):
        us = number(r["gpu__time_duration.sum"]) / 1e3
        sectors = number(r["lts__t_sectors.sum"])
        reads = number(r["lts__t_sectors_srcunit_tex_op_read.sum"])
        writes = number(r["lts__t_sectors_srcunit_tex_op_write.sum"])
        hbm = number(r["dram__bytes_read.sum"]) + number(r["dram__bytes_write.sum"])
        busy = (us - KERNEL_OVERHEAD_US) * 1e-6
        print(f"{label(config):40s} {us:7.1f} us; L2 sectors {sectors / 1e6:6.2f}M ({sectors * 32 / busy / 1e12:.2f} "
              f"TB/s; SM reads {reads / 1e6:.2f}M, writes {writes / 1e6:.2f}M); HBM {hbm / 1e6:6.1f} MB "
              f"({hbm / busy / 1e12:.2f} TB/s)")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench55", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rates": rates})
