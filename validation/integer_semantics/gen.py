import json, sys
import numpy as np
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, N

WIDTH = {"pred": 1, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
         "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
         "b64": 64, "u64": 64, "s64": 64, "f64": 64}
CLASS = {1: ".pred", 16: ".b16", 32: ".b32", 64: ".b64"}

def load(reg, w):
    return {1: f"setp.ne.u64 {reg}, %x, 0;", 16: f"cvt.u16.u64 {reg}, %x;",
            32: f"cvt.u32.u64 {reg}, %x;", 64: f"mov.b64 {reg}, %x;"}[w]

def store(reg, w):
    return {1: f"selp.u64 %y, 1, 0, {reg};", 16: f"cvt.u64.u16 %y, {reg};",
            32: f"cvt.u64.u32 %y, {reg};", 64: f"mov.b64 %y, {reg};"}[w]

def ptx(c):
    lines = [".version 8.8", ".target sm_90", ".address_size 64", "",
             ".visible .entry k(.param .u64 p_in, .param .u64 p_out)", "{",
             ".reg .b32 %lane, %cta, %nthreads, %tx;", ".reg .b64 %off, %base, %addr, %x, %y;"]
    regs = [s for s in c["srcs"] if not s.startswith("imm:")]
    for i, s in enumerate(c["srcs"]):
        if not s.startswith("imm:"):
            lines.append(f".reg {CLASS[WIDTH[s]]} %s{i};")
    for j, d in enumerate(c["dsts"]):
        lines.append(f".reg {CLASS[WIDTH[d]]} %d{j};")
    lines += ["mov.u32 %cta, %ctaid.x;", "mov.u32 %nthreads, %ntid.x;", "mov.u32 %tx, %tid.x;",
              "mad.lo.u32 %lane, %cta, %nthreads, %tx;", "mul.wide.u32 %off, %lane, 8;",
              "ld.param.u64 %base, [p_in];", "add.u64 %addr, %base, %off;"]
    row = 0
    for i, s in enumerate(c["srcs"]):
        if s.startswith("imm:"):
            continue
        if row:
            lines.append(f"add.u64 %addr, %addr, {N * 8};")
        lines += ["ld.global.u64 %x, [%addr];", load(f"%s{i}", WIDTH[s])]
        row += 1
    if c["body"]:
        lines.append(c["body"])
    else:
        ops = [s[4:] if s.startswith("imm:") else f"%s{i}" for i, s in enumerate(c["srcs"])]
        sep = "|" if c["mnemonic"].startswith("setp") else ", "
        dsts = sep.join(f"%d{j}" for j in range(len(c["dsts"])))
        lines.append(f"{c['mnemonic']} {dsts}, {', '.join(ops)};")
    lines += ["ld.param.u64 %base, [p_out];", "add.u64 %addr, %base, %off;"]
    for j, d in enumerate(c["dsts"]):
        if j:
            lines.append(f"add.u64 %addr, %addr, {N * 8};")
        lines += [store(f"%d{j}", WIDTH[d]), "st.global.u64 [%addr], %y;"]
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"

out = []
arrays = {}
for i, c in enumerate(CASES):
    out.append(dict(name=c["name"], ptx=ptx(c), ndst=len(c["dsts"])))
    arrays[f"in{i}"] = np.stack(c["pools"]) if c["pools"] else np.zeros((1, N), np.uint64)
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
json.dump(out, open(os.path.join(HERE, "cases.json"), "w"))
np.savez(os.path.join(HERE, "operands.npz"), **arrays)
print(len(out), "cases")
print(out[0]["ptx"])
