"""Thirty-first batch of H200 microbenchmarks (microbench31.cu): one float a lane read or written `stride`
floats apart, 1M threads (the strided side spans up to 1 GB), the L2 flushed before each launch.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench31.cubin microbench31.cu`):

    python3 run_microbench31.py --collect OUTDIR     # OUTDIR/microbench31.json: CUDA-event medians
    ncu ... python3 run_microbench31.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench31.py --model              # ncu's time and HBM bytes beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
N = 1 << 20
STRIDES = (1, 8, 16, 24, 32, 48, 64, 96, 128, 256)
CONFIGS = [dict(kernel=k, stride=s) for k in ("mb31_load", "mb31_store") for s in STRIDES]


def arrays(xp):
    big = xp.zeros(N * max(STRIDES), dtype=np.float32)
    small = xp.asarray(np.random.default_rng(31).random(N, dtype=np.float32))
    return big, small


def arguments(config, big, small):
    if config["kernel"] == "mb31_load":
        return (small, big, np.int32(N), np.int32(config["stride"]))
    return (big, small, np.int32(N), np.int32(config["stride"]))


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench31.cubin"))
    big, small = arrays(cp)
    flush = cp.zeros(64 << 20, dtype=cp.float32)

    def launch_for(config):
        f = mod.get_function(config["kernel"])
        args = arguments(config, big, small)

        def launch():
            flush.fill(1.0)
            f((N // 256,), (256,), args)
        return launch
    return time_configs(cp, CONFIGS, launch_for, reps)


def measured() -> list:
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 dram_mb=(number(r["dram__bytes_read.sum"]) + number(r["dram__bytes_write.sum"])) / 1e6,
                 read_mb=number(r["dram__bytes_read.sum"]) / 1e6, write_mb=number(r["dram__bytes_write.sum"]) / 1e6,
                 l2_sectors=number(r["lts__t_sectors.sum"]))
            for r in ncu_rows("microbench31_ncu.csv") if "flush" not in r.get("Kernel Name", "")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench31.cubin"))
    big, small = arrays(ws)
    for config, m in zip(CONFIGS, measured()):
        f = mod.get_function(config["kernel"])
        args = pack_arguments(f.kernel_name, f.params, arguments(config, big, small))
        t = predict(f.loaded_module, f.kernel_name, (N // 256,), (256,), args, 0, gpu="h200", max_ctas=4)
        print(f"{config['kernel']} stride {config['stride']:3d}: {m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} "
              f"({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%); HBM {m['read_mb']:.1f} + {m['write_mb']:.1f} MB, model "
              f"{t.details['dram_bytes'] / 1e6:.1f} MB; L2 {m['l2_sectors'] * 32 / 1e6:.1f} MB, model "
              f"{t.details['l2_bytes'] / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench31.json", model)
