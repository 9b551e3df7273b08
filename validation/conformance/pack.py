"""Merge out/forms.npz (PTX + inputs) with the GPU's gpu.npz into tests/machine/conformance/h200.npz.

python validation/conformance/pack.py PATH/TO/gpu.npz
python validation/conformance/pack.py --append PATH/TO/gpu.npz   (forms recorded later: added to
    the forms already in h200.npz; a form of the same name is replaced)
Only the forms the GPU ran are kept; each keeps its PTX text, its input rows and the H200's bits.
"""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
dest = os.path.join(here, "..", "..", "tests", "machine", "conformance", "h200.npz")
append = sys.argv[1] == "--append"
src = np.load(os.path.join(here, "out", "forms.npz"))
gpu = np.load(sys.argv[-1])
names, texts, arrays = [], [], {}
if append:
    old = np.load(dest)
    new_names = {str(name) for i, name in enumerate(src["names"]) if f"out{i}" in gpu}
    for i, (name, text) in enumerate(zip(old["names"], old["ptx"])):
        if str(name) in new_names:
            continue
        j = len(names)
        names.append(str(name)); texts.append(str(text))
        arrays[f"in{j}"], arrays[f"out{j}"] = old[f"in{i}"], old[f"out{i}"]
for i, (name, text) in enumerate(zip(src["names"], src["ptx"])):
    if f"out{i}" not in gpu:
        continue
    j = len(names)
    names.append(str(name)); texts.append(str(text))
    arrays[f"in{j}"], arrays[f"out{j}"] = src[f"in{i}"], gpu[f"out{i}"]
np.savez_compressed(dest, names=np.array(names), ptx=np.array(texts), **arrays)
print(len(names), "forms,", sum(a.size for k, a in arrays.items() if k.startswith("out")), "instances ->",
      os.path.getsize(dest), "bytes")
