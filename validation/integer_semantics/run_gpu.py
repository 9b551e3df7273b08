import json, os
import numpy as np
import cupy as cp
here = os.path.dirname(os.path.abspath(__file__))
cases = json.load(open(os.path.join(here, "cases.json")))
ops = np.load(os.path.join(here, "operands.npz"))
results, errors = {}, {}
for i, c in enumerate(cases):
    path = f"/tmp/k{i}.ptx"
    with open(path, "w") as f:
        f.write(c["ptx"])
    try:
        kernel = cp.RawModule(path=path).get_function("k")
        inp = cp.asarray(np.ascontiguousarray(ops[f"in{i}"]))
        n = inp.shape[1]
        out = cp.zeros((c["ndst"], n), dtype=cp.uint64)
        kernel((n // 128,), (128,), (inp, out))
        cp.cuda.Device().synchronize()
        results[f"out{i}"] = cp.asnumpy(out)
    except Exception as e:
        errors[c["name"]] = repr(e)[:500]
np.savez(os.path.join(os.environ["OUT"], "results.npz"), **results)
json.dump(errors, open(os.path.join(os.environ["OUT"], "errors.json"), "w"), indent=1)
print(len(results), "ran;", len(errors), "failed:", list(errors)[:20])
