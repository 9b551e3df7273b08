"""Twenty-first batch of H200 microbenchmarks (microbench21.cu): HBM latency under load. On each SM a
lone lane chases a random chain of lines that all miss L2, while the SM's other warps stream data
(reads with 1 to 4 loads in flight a lane, copies, coalesced writes, or a line a warp read or written
in rows 128 bytes to 64 KB apart); the chase's cycles a hop against the streams' bytes a second.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench21.cubin microbench21.cu`):

    python3 run_microbench21.py --collect OUTDIR     # OUTDIR/microbench21.json
    ncu ... python3 run_microbench21.py --once        # one launch per configuration, CONFIGS' order

h200/microbench21_first.json is an earlier run of the kernel before it had mode 4 and the row length
(mode 2 wrote rows of 128 lines, computing them with one division a round less).

The model takes the chase's wait beside copying and writing warps as a table
(presets.hbm_latency_under_writes).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import launch_once, main, median_launch

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
SHARED = 100 * 1024                 # at most two CTAs an SM
CHAIN_LINES = 1 << 21               # 256 MB of 128-byte lines
WARM, HOPS = 200, 2000
STREAM_BYTES = 1 << 30              # each of the source and the destination
MODES = {0: "read", 1: "copy", 2: "write a line a row", 3: "write", 4: "read a line a row"}



def config(mode, ilp, streamers, row_lines=128):
    """`streamers` warps an SM besides the chasers: up to 31 in one CTA, more in two; modes 2 and 4
    a line a row of `row_lines` lines."""
    ctas = 1 if streamers <= 31 else 2
    return dict(mode=mode, ilp=ilp, streamers=streamers, ctas_per_sm=ctas, warps_per_cta=1 + streamers // ctas,
                row_lines=row_lines)


CONFIGS = ([config(0, 1, s) for s in (0, 1, 2, 4, 8, 16, 24, 31, 48, 62)]
           + [config(0, ilp, s) for ilp in (2, 4) for s in (1, 2, 4, 8, 16, 31)]
           + [config(m, 1, s) for m in (1, 2, 3) for s in (4, 8, 16, 31, 62)]
           + [config(2, 1, s, rows) for rows in (1, 4, 8, 16, 32, 64, 512) for s in (16, 62)]
           + [config(4, 1, s, rows) for rows in (1, 8, 32, 128, 512) for s in (16, 62)])


def chain_of(lines: int, seed: int = 21):
    """A random cycle through `lines` lines (word index of the next line at each line's first word),
    and its order (the SMs start spaced evenly along it, each launch further on: no launch revisits a
    line an earlier one left in L2)."""
    order = np.random.default_rng(seed).permutation(lines).astype(np.uint32)
    chain = np.zeros(lines * 32, np.uint32)
    chain[order * 32] = np.roll(order, -1) * 32
    return chain, order


def starts_of(order, launch: int):
    """Each SM's first word of the chain in launch number `launch`."""
    seg = len(order) // (2 * SMS)
    return (order[(np.arange(2 * SMS) * seg + (launch * (WARM + HOPS)) % seg)] * 32).astype(np.uint32)


def run(reps=3):
    import cupy as cp
    f = cp.RawModule(path=os.path.join(HERE, "microbench21.cubin")).get_function("mb21_loaded")
    f.max_dynamic_shared_size_bytes = SHARED
    chain, order = chain_of(CHAIN_LINES)
    d_chain = cp.asarray(chain)
    d_starts = cp.zeros(2 * SMS, dtype=cp.uint32)
    launches = 0
    n4 = STREAM_BYTES // 16
    src = cp.random.random(n4 * 4, dtype=cp.float32).view(cp.float32)
    dst = cp.zeros(n4 * 4, dtype=cp.float32)
    lat = cp.zeros(2 * SMS * 3, dtype=cp.uint64)
    done = cp.zeros(1, dtype=cp.int32)
    moved = cp.zeros(1, dtype=cp.uint64)
    span = cp.zeros(2, dtype=cp.uint64)
    sink = cp.zeros(1, dtype=cp.float32)
    results = []
    for config in CONFIGS:
        def launch():
            nonlocal launches
            d_starts.set(starts_of(order, launches))
            launches += 1
            done.fill(0)
            moved.fill(0)
            span[0], span[1] = np.uint64(2**63), np.uint64(0)
            f((SMS * config["ctas_per_sm"],), (32 * config["warps_per_cta"],),
              (d_chain, d_starts, np.int32(WARM), np.int32(HOPS), lat, src, dst, np.int64(n4),
               np.int32(config["mode"]), np.int32(config["ilp"]), np.int32(config["row_lines"]), done, moved, span,
               sink), shared_mem=SHARED)
        if not reps:
            launch_once(cp, launch, config)
            continue

        def read(seconds):
            l = cp.asnumpy(lat).reshape(2 * SMS, 3)[:SMS * config["ctas_per_sm"]]
            s = cp.asnumpy(span)
            streamed = (int(s[1]) - int(s[0])) * 1e-9 if config["streamers"] else 0.0
            return dict(cycles_per_hop=float(np.median(l[:, 0])) / HOPS, cycles_per_hop_max=float(l[:, 0].max()) / HOPS,
                        ns_per_hop=float(np.median(l[:, 1])) / HOPS,
                        stream_gbps=float(int(cp.asnumpy(moved)[0]) / streamed / 1e9) if streamed > 0 else 0.0,
                        event_us=seconds * 1e6)
        best = median_launch(cp, launch, reps, read, "cycles_per_hop")
        results.append(dict(config, **best))
        print(f"{MODES[config['mode']]:20s} rows of {config['row_lines']:3d} lines, ilp {config['ilp']} streamers {config['streamers']:2d}: "
              f"{best['cycles_per_hop']:7.1f} cycles/hop ({best['ns_per_hop']:6.1f} ns, max "
              f"{best['cycles_per_hop_max']:7.1f}), streams {best['stream_gbps']:7.1f} GB/s", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench21.json")
