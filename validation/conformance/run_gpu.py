"""Run every form of out/forms.npz on the GPU (CuPy) and save the result bits.

On the device: python validation/conformance/run_gpu.py  -> $OUT/gpu.npz, $OUT/errors.json
WARPSIM=1 runs the same driver on warpsim (a dry run of everything but the GPU).
"""
import json, os, sys, tempfile, time
import numpy as np
if os.environ.get("WARPSIM"):
    import warpsim as cp
else:
    import cupy as cp

here = os.path.dirname(os.path.abspath(__file__))
src = np.load(os.path.join(here, "out", "forms.npz"))
names, texts = [str(x) for x in src["names"]], [str(x) for x in src["ptx"]]
out_dir = os.environ.get("OUT") or os.path.join(here, "out")
results, errors = {}, {}
tmp = tempfile.mkdtemp()
t0 = time.time()
for i, (name, text) in enumerate(zip(names, texts)):
    path = os.path.join(tmp, f"k{i}.ptx")
    with open(path, "w") as f:
        f.write(text)
    try:
        kernel = cp.RawModule(path=path).get_function("k")
        rows = src[f"in{i}"]
        n = rows.shape[1]
        inp = cp.asarray(np.ascontiguousarray(rows))
        out = cp.zeros(n, dtype=cp.uint64)
        kernel(((n + 127) // 128,), (128,), (inp, out, np.uint32(n)))
        cp.cuda.Device().synchronize()
        results[f"out{i}"] = cp.asnumpy(out)
    except Exception as e:
        errors[name] = repr(e)[:500]
name = "warpsim.npz" if os.environ.get("WARPSIM") else "gpu.npz"
np.savez_compressed(os.path.join(out_dir, name), **results)
json.dump(errors, open(os.path.join(out_dir, "errors.json" if name == "gpu.npz" else "warpsim_errors.json"), "w"),
          indent=1)
print(f"{len(results)} ran, {len(errors)} failed in {time.time() - t0:.1f}s:", list(errors)[:40])
for k, v in list(errors.items())[:40]:
    print(" ", k, v[:300])
