"""warpsim's predictions for set 3: each launch at the H200's geometry, from a sample of its CTAs, cold L2.

    python validation/timing/set3/predict3.py --source triton39 --out predicted_triton39.json
    python validation/timing/set3/predict3.py --source h200 --out predicted_h200_cubins.json [--kernels DIR]

--source triton39: the kernel as Triton 3.9 compiles it here for sm_90 (the JIT's own
specialization of the launch's arguments, `warmup`), its PTX through this machine's ptxas: what
a user of warpsim gets. --source h200: the cubin Triton 3.6 made on the H200 and the H200 ran
(saved by run3.py --save-kernels, h200/kernels/<label>.cubin): the model's error apart from what
another Triton or ptxas version makes of the kernel. Either way the launch's arguments are the
device run's (cases3.setup: same sizes, fresh random inputs), Triton's specialized arguments (ints
equal to 1) dropped and its two scratch pointers appended, as Triton's launcher passes them.
Launches run one after another (the CPU is shared). To predict with a fixed version of the model,
put that commit's warpsim first on the path and name it:
`git archive C warpsim | tar -x -C /tmp/base; PYTHONPATH=/tmp/base SET3_MODEL_COMMIT=C python ...`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import traceback

os.environ.setdefault("WARPSIM_TRITON", "1")        # Triton compiles through warpsim's backend (sm_90, PTX)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402


def device_array(ws, tensor):
    """A warpsim array holding the tensor's storage (a transposed view: its contiguous base)."""
    import torch
    base = tensor if tensor.is_contiguous() else tensor.T
    if not base.is_contiguous():
        raise ValueError(f"tensor of strides {tensor.stride()} is neither contiguous nor a transpose")
    bits = {torch.bfloat16: torch.int16, torch.float8_e4m3fn: torch.uint8}.get(base.dtype)
    return ws.asarray((base.view(bits) if bits else base).numpy())


def runtime_arguments(ws, prep, scratch_sizes, programs) -> list:
    """The kernel's parameters as Triton's launcher passes them: constexprs and ints equal to 1
    specialized away, tensors as pointers, ints as i32, floats as f32, then the global and profile
    scratch buffers."""
    import torch
    out = []
    for value in prep.args:
        if isinstance(value, torch.Tensor):
            out.append(device_array(ws, value))
        elif isinstance(value, int):
            if value != 1:
                out.append(np.int32(value))
        else:
            out.append(np.float32(value))
    for size in scratch_sizes:
        out.append(ws.zeros(programs * size, dtype=np.uint8) if size else 0)
    return out


def kernel_of(source: str, launch, prep, kernels_dir: str):
    """(module, metadata dict) of the launch's compiled kernel."""
    import warpsim as ws
    if source == "h200":
        stem = os.path.join(kernels_dir, launch.label)
        with open(stem + ".json") as fh:
            meta = json.load(fh)
        return ws.RawModule(path=stem + ".cubin"), meta
    import kernels3
    kern = getattr(kernels3, launch.kernel)
    compiled = kern.warmup(*prep.args, grid=prep.grid, **prep.constexprs)
    meta = compiled.metadata._asdict()
    return ws.RawModule(ptx=compiled.asm["ptx"]), meta


def predict_one(source, launch, kernels_dir, ctas, gpu="h200", heads=None):
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    from cases3 import setup
    prep = setup(launch, "cpu", heads=heads)
    module, meta = kernel_of(source, launch, prep, kernels_dir)
    func = module.get_function(launch.kernel)
    grid = tuple(prep.grid) + (1,) * (3 - len(prep.grid))
    programs = grid[0] * grid[1] * grid[2]
    args = runtime_arguments(ws, prep, (meta.get("global_scratch_size", 0), meta.get("profile_scratch_size", 0)),
                             programs)
    params = pack_arguments(func.kernel_name, func.params, args)
    t = predict(func.loaded_module, func.kernel_name, grid, (32 * meta["num_warps"], 1, 1), params,
                meta["shared"], gpu=gpu, max_ctas=ctas, prefer="sass")
    return {"time_us": t.time_s * 1e6, "cycles": t.cycles, "occupancy": t.achieved_occupancy,
            "issue_active": t.issue_active, "top_stall": t.top_stall, "stalls": t.stalls,
            "bottleneck": t.bottleneck, "source": t.source, "notes": [str(n) for n in t.notes],
            "instructions": t.details.get("instructions"),
            "details": {k: v for k, v in t.details.items() if isinstance(v, (int, float, str))},
            "shared": meta["shared"], "num_warps": meta["num_warps"],
            "num_stages": meta.get("num_stages")}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", choices=("triton39", "h200"), required=True)
    ap.add_argument("--kernels", default=os.path.join(HERE, "h200", "kernels"))
    ap.add_argument("--only")
    ap.add_argument("--ctas", type=int, default=6)
    ap.add_argument("--out")
    ap.add_argument("--gpu", default="h200", help="the preset to predict for (h100: a run on an H100)")
    ap.add_argument("--heads", type=int, help="an attention launch's heads (cases3.setup), as run3.py --heads")
    a = ap.parse_args()
    import triton
    from cases3 import LAUNCHES
    import warpsim
    out = {"source": a.source, "triton": triton.__version__, "ctas": a.ctas, "gpu": a.gpu, "heads": a.heads, "l2": "cold",
           "warpsim": os.path.dirname(warpsim.__file__), "model_commit": os.environ.get("SET3_MODEL_COMMIT", ""),
           "launches": {}}
    for launch in LAUNCHES:
        if a.only and not re.search(a.only, launch.label):
            continue
        t0 = time.time()
        try:
            rec = predict_one(a.source, launch, a.kernels, a.ctas, a.gpu, a.heads)
        except Exception as error:  # noqa: BLE001  (one launch's failure is recorded, the rest go on)
            traceback.print_exc()
            rec = {"error": f"{type(error).__name__}: {error}"[:1000]}
        rec["seconds"] = round(time.time() - t0, 1)
        out["launches"][launch.label] = rec
        print(f"{launch.label:32s} {rec.get('time_us', float('nan')):9.2f} us  "
              f"occ {rec.get('occupancy', float('nan')):5.1f} "
              f"iss {rec.get('issue_active', float('nan')):5.1f} {rec.get('top_stall', '-'):16s} "
              f"[{rec.get('bottleneck', rec.get('error', ''))}, {rec.get('source', '')}] ({rec['seconds']} s)",
              file=sys.stderr, flush=True)
        if a.out:
            with open(a.out, "w") as fh:
                json.dump(out, fh, indent=1)
    if not a.out:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
