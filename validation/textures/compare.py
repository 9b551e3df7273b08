"""Compare the GPU's texture fetches (textures_gpu.npz, from probe.py on a GPU) with warpsim's (out/textures_warpsim.npz).

python validation/textures/compare.py [GPU.npz] [WARPSIM.npz]
Prints, per case, how many result words differ and the largest difference, with a few examples.
"""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
gpu = np.load(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "textures_gpu.npz"), allow_pickle=False)
sim = np.load(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "out", "textures_warpsim.npz"), allow_pickle=False)
print("GPU errors:", list(gpu["errors"]) if "errors" in gpu else [])
worst = 0
for key in sorted(gpu.files):
    if key == "errors" or key not in sim.files:
        continue
    a, b = gpu[key], sim[key]
    if a.shape != b.shape:
        print(f"{key:22} shapes differ {a.shape} {b.shape}")
        worst += 1
        continue
    wrong = np.flatnonzero(a.reshape(-1).view(np.uint8 if a.dtype.itemsize == 1 else f"u{a.dtype.itemsize}")
                           != b.reshape(-1).view(np.uint8 if b.dtype.itemsize == 1 else f"u{b.dtype.itemsize}"))
    if key.endswith("_out") or key.startswith(("surf", "txq", "fetch")):
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64)).max() if a.size else 0
        print(f"{key:22} {len(wrong):6} of {a.size} words differ, largest difference {diff:.3g}")
        coords = gpu[key[:-4] + "_coords"] if key[:-4] + "_coords" in gpu.files else None
        for j in wrong[:3]:
            lane = j // 4 if a.ndim == 2 else j
            at = coords[:, lane] if coords is not None and a.ndim == 2 else ""
            print(f"      word {j} coords {at}: GPU {a.reshape(-1)[j]!r} warpsim {b.reshape(-1)[j]!r}")
        worst = max(worst, len(wrong))
    elif len(wrong):
        print(f"{key:22} inputs differ")
sys.exit(1 if worst else 0)
