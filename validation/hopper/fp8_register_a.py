"""Check on a real H200 the register layout warpsim reads for fp8 wgmma with A in registers.

    python validation/hopper/fp8_register_a.py OUTDIR

Runs tests/machine/isa/wgmma_cases.fp8_register_a_case's probes (wgmma.mma_async m64nNk32 with
.e4m3/.e5m2 A in four registers, B from shared memory) and writes OUTDIR/fp8_register_a.json:
per case, whether the accumulators equal NumPy's A @ B + C (small integers: exact). A layout that
put any A element elsewhere would change the product. Needs CuPy; nothing of warpsim.
"""

import json
import os
import sys
import tempfile

import numpy as np
import cupy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "machine", "isa"))

from hopper_ptx import accumulator_matrix  # noqa: E402
from wgmma_cases import fp8_register_a_case  # noqa: E402

CASES = [("e4m3", 16, "f32"), ("e5m2", 8, "f16"), ("e4m3", 64, "f32"), ("e5m2", 32, "f32")]


def run(case) -> np.ndarray:
    path = os.path.join(tempfile.mkdtemp(), "k.ptx")
    with open(path, "w") as f:
        f.write(case["ptx"])
    fill = 0x7FC00000 if case["dtype"] == "f32" else 0x7E007E00
    out = cupy.asarray(np.full((128, case["regs"]), fill, np.uint32))
    cupy.RawModule(path=path).get_function("wgmma_probe")(
        (1,), (128,), (cupy.asarray(case["image"]), np.uint32(case["image"].size), np.uint64(case["a_desc"]),
                       np.uint64(case["b_desc"]), cupy.asarray(case["c_in"]), out, cupy.asarray(case["afrag"]),
                       np.uint32(case["accumulate"])), shared_mem=case["shared"])
    return accumulator_matrix(out.get(), case["n"], case["dtype"]).astype(np.float64)


report = {}
for atype, n, dtype in CASES:
    case = fp8_register_a_case(atype, n, dtype, seed=4)
    got = run(case)
    report[f"{atype}_n{n}_{dtype}"] = {"equals_numpy": bool(np.array_equal(got, case["want"])),
                                       "mismatches": int((got != case["want"]).sum())}
os.makedirs(sys.argv[1], exist_ok=True)
with open(os.path.join(sys.argv[1], "fp8_register_a.json"), "w") as f:
    json.dump({"device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), "cases": report}, f, indent=1)
print(json.dumps(report))
