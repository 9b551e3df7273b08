"""Fifty-seventh batch of microbenchmarks (microbench57.cu): an L2 slice's time for a warp's atomic
request to one line when the launch's requests name 1, 2 or 4 lines in all, by lanes a line, f32 and
u32, the lines in one 512-byte chunk or a chunk each, 1,056 CTAs of 256 or one CTA an SM; and a
one-add-a-thread histogram over 64 to 1,024 bins (4M threads), f32 of x[t] or of 1, and u32. RED.
The fifty-sixth batch's four lines of a chunk took 1.1-2.1 L2 cycles a (request, line) pass; set 5's
64 f32 bins (two lines) about 5.2.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench57.cubin microbench57.cu`):

    python3 run_microbench57.py --collect OUTDIR     # OUTDIR/microbench57.json: CUDA-event medians
    ncu ... python3 run_microbench57.py --once
Here:
    python3 run_microbench57.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench57.py --model             # the rows under ncu beside the model's
    python3 run_microbench57.py --passes            # each row's L2 cycles a (request, line) pass
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, pass_cycles_table

CTAS = 1056
PASSES = 1 << 18          # (request, line) passes a `reds` launch makes
BIN_THREADS = 1 << 22


def reds(type_, per_line, nlines, line_words=32, rotate=0, ctas=CTAS) -> dict:
    return dict(kernel="reds", type=type_, per_line=per_line, nlines=nlines, line_words=line_words,
                rotate=rotate, ctas=ctas)


def bins(type_, nbins, load=1) -> dict:
    return dict(kernel="bins", type=type_, nbins=nbins, load=load)


CONFIGS = ([reds("f32", k, 1) for k in (1, 8, 16, 32)] +
           [reds("u32", k, 1) for k in (1, 16, 32)] +
           [reds("f32", k, 2) for k in (8, 16, 32)] + [reds("f32", 16, 2, rotate=1), reds("u32", 16, 2)] +
           [reds("f32", 16, 2, line_words=128)] +
           [reds("f32", k, 4) for k in (16, 32)] +
           [reds("f32", 16, 2, ctas=132), reds("f32", 32, 1, ctas=132)] +
           [bins("f32", 64), bins("f32", 64, load=0), bins("f32", 128), bins("f32", 256), bins("f32", 1024),
            bins("u32", 64, load=0)])


def lines_a_request(config) -> int:
    return min(config["nlines"], 32 // config["per_line"])


def iters(config) -> int:
    return max(1, PASSES // (config["ctas"] * 8 * lines_a_request(config)))


def label(config) -> str:
    if config["kernel"] == "bins":
        return f"{config['type']} bins {config['nbins']:5d}{'' if config['load'] else ', adding 1'}"
    where = ", a chunk a line" if config["line_words"] == 128 else ""
    moving = ", words moving" if config["rotate"] else ""
    ctas = f", {config['ctas']} CTAs" if config["ctas"] != CTAS else ""
    return f"{config['type']} {config['per_line']:2d} lanes a line, {config['nlines']} lines{where}{moving}{ctas}"


def shape(config) -> tuple:
    if config["kernel"] == "bins":
        return (BIN_THREADS // 256,), (256,), 0
    return (config["ctas"],), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    dtype = np.float32 if config["type"] == "f32" else np.uint32
    if config["kernel"] == "bins":
        x = xp.asarray(np.random.default_rng(57).random(BIN_THREADS, dtype=np.float32))
        return xp.zeros(config["nbins"], dtype=dtype), x, np.int32(BIN_THREADS), np.int32(config["nbins"]), \
            np.int32(config["load"])
    return xp.zeros(4 * 128, dtype=dtype), np.int32(config["per_line"]), np.int32(config["nlines"]), \
        np.int32(config["line_words"]), np.int32(iters(config)), np.int32(config["rotate"])


def kernel_name(config) -> str:
    return f"mb57_{config['kernel']}_{config['type']}"


def passes(config) -> int:
    """The launch's (warp request, line) passes."""
    if config["kernel"] == "bins":
        t = np.arange(BIN_THREADS, dtype=np.int64)
        return len(np.unique((t >> 5) << 20 | (t * 7919 % config["nbins"]) >> 5))
    return config["ctas"] * 8 * iters(config) * lines_a_request(config)


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench57", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--passes": lambda: pass_cycles_table("microbench57", CONFIGS, label, passes)})
