"""Every recorded form of tests/machine/conformance/h200.npz on the SASS executor (ptxas's SASS for it).

python validation/conformance/sass_level.py [PREFIX ...]

Each form's kernel runs under Profiler(level="sass"): the SASS executor runs ptxas's SASS beside the
PTX run and its result stands only when it wrote the same memory. Printed per form that does not
stay at SASS level: why (an opcode or modifier the executor lacks, or the first differing byte),
and per form whose results differ from the H200's, the first few; then the counts.
"""
import collections, sys, time
import numpy as np
import warpsim as cp
from warpsim.profiler import Profiler

data = np.load(__file__.rsplit("/", 1)[0] + "/../../tests/machine/conformance/h200.npz")
names = [str(n) for n in data["names"]]
start, levels, wrong = time.time(), collections.Counter(), []
for i, name in enumerate(names):
    if sys.argv[1:] and not name.startswith(tuple(sys.argv[1:])):
        continue
    rows, want = data[f"in{i}"], data[f"out{i}"]
    n = rows.shape[1]
    out = cp.zeros(n, dtype=cp.uint64)
    kernel = cp.RawModule(ptx=str(data["ptx"][i])).get_function("k")
    with np.errstate(all="ignore"), Profiler(level="sass") as profiler:
        kernel(((n + 127) // 128,), (128,), (cp.asarray(np.ascontiguousarray(rows)), out, np.uint32(n)))
    launch = profiler[0]
    levels[launch.level] += 1
    if launch.level != "sass":
        print(f"{name:32} {launch.level}: {launch.level_note[:200]}")
    got = cp.asnumpy(out)
    differ = np.nonzero(got != want)[0]
    if len(differ):
        wrong.append(name)
        print(f"{name:32} {len(differ)} of {n} differ from the H200's:",
              [(hex(int(rows[0, j])), hex(int(want[j])), hex(int(got[j]))) for j in differ[:3]])
print(f"{sum(levels.values())} forms: {levels['sass']} at SASS level, {levels['ptx']} fell back to the PTX run; "
      f"{len(wrong)} differ from the H200 ({time.time() - start:.0f} s)")
