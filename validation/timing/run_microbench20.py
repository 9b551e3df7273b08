"""Twentieth batch of H200 microbenchmarks (microbench20.cu): the L2 sectors and time of stores that
write parts of the same sectors one after another (a thread's fields of a record, one store each).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench20.cubin microbench20.cu`):

    python3 run_microbench20.py --collect OUTDIR     # event times: OUTDIR/microbench20.json
    ncu ... python3 run_microbench20.py --once        # one launch per configuration, CONFIGS' order

Here: `python validation/timing/run_microbench20.py --model` (the model beside the recording).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, launch_once, main, recording

HERE = os.path.dirname(os.path.abspath(__file__))
N = 1 << 24                      # threads (records) a launch
CONFIGS = [dict(stride=4, fields=1, vector=0), dict(stride=16, fields=4, vector=0),
           dict(stride=20, fields=5, vector=0), dict(stride=16, fields=4, vector=1),
           dict(stride=32, fields=8, vector=0), dict(stride=32, fields=1, vector=0)]


def run(reps=5):
    import cupy as cp
    f = cp.RawModule(path=os.path.join(HERE, "microbench20.cubin")).get_function("mb20_fields")
    out = cp.zeros(N * 32 // 4, dtype=cp.float32)
    results = []
    for config in CONFIGS:
        args = (out, np.int32(config["stride"]), np.int32(config["fields"]), np.int32(config["vector"]), np.int64(N))
        launch = lambda: f((N // 256,), (256,), args)     # noqa: E731
        if not reps:
            launch_once(cp, launch, config)
            continue
        seconds = float(np.median(event_seconds(cp, launch, reps)))
        results.append(dict(config, threads=N, event_us=seconds * 1e6))
        print(f"stride {config['stride']:2d}, {config['fields']} fields, vector {config['vector']}: "
              f"{seconds * 1e6:8.1f} us, {N * config['fields'] * 4 / seconds / 1e12:.2f} TB/s of data", flush=True)
    return results


def model():
    """The timing model on this cubin beside the H200's recording (h200/microbench20.json)."""
    import json
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    measured = json.load(open(recording("microbench20.json")))
    f = ws.RawModule(path=os.path.join(HERE, "microbench20.cubin")).get_function("mb20_fields")
    out = ws.zeros(N * 32 // 4, dtype=np.float32)
    for config, r in zip(CONFIGS, measured):
        args = (out, np.int32(config["stride"]), np.int32(config["fields"]), np.int32(config["vector"]), np.int64(N))
        t = predict(f.loaded_module, f.kernel_name, (N // 256,), (256,), pack_arguments(f.kernel_name, f.params, args),
                    0, gpu="h200", max_ctas=4)
        print(f"stride {config['stride']:2d}, {config['fields']} fields, vector {config['vector']}: H200 {r['event_us']:7.1f} us, "
              f"model {t.time_s * 1e6:7.1f} us ({t.time_s * 1e6 / r['event_us']:.2f}x, {t.bottleneck})", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench20.json", model)
