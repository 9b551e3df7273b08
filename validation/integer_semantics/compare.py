import json, sys
import numpy as np
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, N
from warpsim.ptx.types import TYPES, reinterpret
from warpsim.machine.isa.evaluate import evaluate

res_dir = sys.argv[1]
results = np.load(f"{res_dir}/results.npz")
errors = json.load(open(f"{res_dir}/errors.json"))
print("GPU load/launch errors:", json.dumps(errors, indent=1)[:3000])

def typed(row, t):
    return reinterpret(row, TYPES[t]) if t != "pred" else (row & np.uint64(1)).astype(bool)

def bits(values, t):
    if t == "pred":
        return np.asarray(values).astype(np.uint64)
    info = TYPES[t]
    v = np.asarray(values)
    if v.dtype != info.dtype:
        v = v.astype(info.dtype)
    return np.broadcast_to(v.view(info.storage).astype(np.uint64), (N,))

def local(c, srcs):
    name, m = c["name"], c["mnemonic"]
    t = c["dsts"][0]
    if name.startswith(("addchain", "subchain")):
        op = "add" if name.startswith("add") else "sub"
        d0, cc = evaluate(f"{op}.cc.{t}", srcs[0], srcs[1])
        d1, cc = evaluate(f"{op}c.cc.{t}", srcs[2], srcs[3], cc)
        zero = TYPES[t].dtype.type(0)
        d2 = evaluate(f"{op}c.{t}", zero, zero, cc)
        return [d0, d1, d2]
    if name == "sub_then_addc":
        d0, cc = evaluate("sub.cc.u32", *srcs)
        return [d0, evaluate("addc.u32", np.uint32(0), np.uint32(0), cc)]
    if name == "add_then_subc":
        d0, cc = evaluate("add.cc.u32", *srcs)
        return [d0, evaluate("subc.u32", np.uint32(0), np.uint32(0), cc)]
    if name == "madchain":
        d0, cc = evaluate("mad.lo.cc.u32", srcs[0], srcs[1], srcs[2])
        d1, cc = evaluate("madc.hi.cc.u32", srcs[0], srcs[1], srcs[3], cc)
        return [d0, d1, evaluate("addc.u32", np.uint32(0), np.uint32(0), cc)]
    if name == "madchain64":
        d0, cc = evaluate("mad.hi.cc.u64", srcs[0], srcs[1], srcs[2])
        d1, cc = evaluate("madc.lo.cc.u64", srcs[0], srcs[1], srcs[3], cc)
        return [d0, d1, evaluate("addc.u64", np.uint64(0), np.uint64(0), cc)]
    out = evaluate(m, *srcs, n_dsts=len(c["dsts"]))
    return list(out) if isinstance(out, tuple) else [out]

bad_cases = 0
for i, c in enumerate(CASES):
    if f"out{i}" not in results:
        continue
    gpu = results[f"out{i}"]
    rows = iter(np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "operands.npz"))[f"in{i}"])
    srcs = []
    for s in c["srcs"]:
        if s.startswith("imm:"):
            srcs.append(np.uint32(int(s[4:])))
        else:
            srcs.append(typed(next(rows), s))
    with np.errstate(all="ignore"):
        mine = local(c, srcs)
    problems = []
    for j, d in enumerate(c["dsts"]):
        width = 1 if d == "pred" else TYPES[d].bits
        mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(2**64 - 1)
        want = gpu[j] & mask
        got = bits(mine[j], d) & mask
        wrong = np.flatnonzero(want != got)
        if len(wrong):
            k = wrong[0]
            ins = [hex(int(r[k])) for r in np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "operands.npz"))[f"in{i}"]]
            problems.append(f"dst{j}: {len(wrong)} lanes differ, e.g. lane {k} inputs {ins} gpu {hex(int(want[k]))} sim {hex(int(got[k]))}")
    if problems:
        bad_cases += 1
        print(c["name"], "|", "; ".join(problems))
print(f"{len(results.files)} cases compared, {bad_cases} differ")
