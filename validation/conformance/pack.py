"""Merge out/forms.npz (PTX + inputs) with the GPU's gpu.npz into tests/machine/conformance/h200.npz.

python validation/conformance/pack.py PATH/TO/gpu.npz
Only the forms the GPU ran are kept; each keeps its PTX text, its input rows and the H200's bits.
"""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
src = np.load(os.path.join(here, "out", "forms.npz"))
gpu = np.load(sys.argv[1])
names, texts, arrays = [], [], {}
for i, (name, text) in enumerate(zip(src["names"], src["ptx"])):
    if f"out{i}" not in gpu:
        continue
    j = len(names)
    names.append(str(name)); texts.append(str(text))
    arrays[f"in{j}"], arrays[f"out{j}"] = src[f"in{i}"], gpu[f"out{i}"]
dest = os.path.join(here, "..", "..", "tests", "machine", "conformance", "h200.npz")
np.savez_compressed(dest, names=np.array(names), ptx=np.array(texts), **arrays)
print(len(names), "forms,", sum(a.size for k, a in arrays.items() if k.startswith("out")), "instances ->",
      os.path.getsize(dest), "bytes")
