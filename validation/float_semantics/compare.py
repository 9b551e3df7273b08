"""Compare warpsim with GPU results: python compare.py RESULTS_DIR [filter]"""
import json
import os
import sys

import numpy as np

from warpsim.machine.isa import lookup  # noqa: E402
from warpsim.machine.isa.evaluate import parse_mnemonic  # noqa: E402
from warpsim.ptx.types import TYPES, reinterpret  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hw import DATA, TBITS  # noqa: E402


def to_bits(result, t):
    result = np.asarray(result)
    if t == "pred":
        return result.astype(np.uint64)
    tt = TYPES[t]
    storage = tt.storage
    bits = result.astype(tt.dtype).view(storage).astype(np.uint64)
    return bits


def main():
    results = np.load(os.path.join(sys.argv[1], "results.npz"))
    errors = json.load(open(os.path.join(sys.argv[1], "errors.json")))
    flt = sys.argv[2] if len(sys.argv) > 2 else ""
    cases = json.load(open(os.path.join(DATA, "cases.json")))
    ops = np.load(os.path.join(DATA, "operands.npz"))
    summary = []
    for i, c in enumerate(cases):
        if flt and flt not in c["name"]:
            continue
        if c["name"] in errors:
            summary.append((c["name"], "GPU-ERROR", errors[c["name"]][:150]))
            continue
        ins = parse_mnemonic(c["mnemonic"], len(c["dsts"]), len(c["srcs"]))
        try:
            spec = lookup(ins)
        except Exception as e:
            summary.append((c["name"], "REJECTED", str(e)[-120:]))
            continue
        sig = spec.signature(ins)
        raw = ops[f"in{i}"]
        srcs = [reinterpret(raw[k], TYPES[t]) for k, t in enumerate(sig.srcs)]
        with np.errstate(all="ignore"):
            got = spec.compute(ins, *srcs)
        got = [got] if len(sig.dsts) == 1 else list(got)
        gpu = results[f"out{i}"]
        for j, t in enumerate(sig.dsts):
            mask = np.uint64((1 << TBITS[t]) - 1) if TBITS[t] < 64 else np.uint64(2 ** 64 - 1)
            mine = to_bits(np.broadcast_to(got[j], raw.shape[1:]), t) & mask
            theirs = gpu[j] & mask
            bad = np.flatnonzero(mine != theirs)
            if bad.size:
                k = bad[:4]
                ex = "; ".join(
                    "in=" + ",".join(hex(int(raw[s][b])) for s in range(raw.shape[0]))
                    + f" gpu={hex(int(theirs[b]))} sim={hex(int(mine[b]))}" for b in k)
                summary.append((c["name"], f"{bad.size} bad", ex))
            else:
                summary.append((c["name"], "ok", ""))
    for name, status, ex in summary:
        if status != "ok":
            print(f"{name:40s} {status:10s} {ex}")
    print(sum(s == "ok" for _, s, _ in summary), "ok of", len(summary))


if __name__ == "__main__":
    main()
