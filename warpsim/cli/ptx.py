"""`warpsim ptx`: compile CUDA C++ (or read PTX) and check that warpsim runs it.

    warpsim ptx kernels.cu [-o out.ptx] [--option=-DN=4 ...]   # compile, check, summarize
    warpsim ptx kernel.ptx                                       # check hand-written PTX
    warpsim ptx --opcodes                                        # the instruction table
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from ..errors import WarpsimError


def instruction_table() -> str:
    from ..machine.isa import OPS
    rows = []
    for opcode in sorted(OPS):
        for spec in OPS[opcode]:
            types = ",".join(sorted(spec.types)) if spec.types else "any"
            rows.append(f"{opcode:<14}{spec.family:<12}{spec.pipe:<8}{spec.kind:<9}{types}")
    return "\n".join([f"{'opcode':<14}{'family':<12}{'pipe':<8}{'kind':<9}types"] + rows)


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="warpsim ptx", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", help=".cu or .ptx file")
    parser.add_argument("-o", "--output", help="write the PTX here")
    parser.add_argument("--option", action="append", default=[], help="an NVRTC option (repeatable)")
    parser.add_argument("--opcodes", action="store_true", help="print warpsim's instruction table")
    args = parser.parse_args(argv)
    if args.opcodes:
        print(instruction_table())
        return 0
    if not args.source:
        parser.error("give a .cu or .ptx file, or --opcodes")
    try:
        text = open(args.source).read()
        if args.source.endswith(".ptx"):
            ptx = text
        else:
            from ..frontends.nvrtc import compile_cuda
            ptx = compile_cuda(text, tuple(args.option), name=args.source).ptx
        from ..machine.program import Program
        from ..ptx.parser import parse_ptx
        module = parse_ptx(ptx, args.source)
        program = Program(module, args.source)
        program.check_all()
    except (WarpsimError, OSError) as exc:
        print(f"warpsim ptx: {exc}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as f:
            f.write(ptx)
    for fn in module.functions.values():
        if not fn.has_body:
            continue
        ops = Counter(ins.opcode for ins in fn.body)
        blocks = len(program.cfgs[fn.name].blocks)
        print(f"{fn.kind} {fn.name}: {len(fn.body)} instructions, {blocks} blocks, "
              f"{len(fn.regs)} registers; " + ", ".join(f"{k} {v}" for k, v in ops.most_common(8)))
    print("all instructions supported")
    return 0
