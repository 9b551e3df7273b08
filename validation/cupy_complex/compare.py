"""Compare the GPU's bits (cupy_complex_gpu.npz, from the H200) with warpsim's (out/cupy_complex_warpsim.npz).

python validation/cupy_complex/compare.py [GPU.npz] [WARPSIM.npz]
Prints, per dtype and operation, how many results differ (NaNs compared by their bits too).
"""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
gpu = np.load(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "cupy_complex_gpu.npz"))
sim = np.load(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "out", "cupy_complex_warpsim.npz"))
worst = 0
for name in ("c64", "c128"):
    assert (gpu[f"{name}_a"].view(np.uint8) == sim[f"{name}_a"].view(np.uint8)).all(), "operands differ"
    for op in ("div", "abs", "kernel_div", "kernel_abs"):
        want, got = gpu[f"{name}_{op}"], sim[f"{name}_{op}"]
        wrong = np.nonzero(want != got)[0]
        worst = max(worst, len(wrong))
        print(f"{name:5} {op:11} {len(wrong):6} of {want.size} words differ")
        for j in wrong[:3]:
            k = j // 2 if op.endswith("div") else j
            print(f"        a={gpu[f'{name}_a'][k]!r} b={gpu[f'{name}_b'][k]!r}: GPU {int(want[j]):#x}, "
                  f"warpsim {int(got[j]):#x}")
sys.exit(1 if worst else 0)
