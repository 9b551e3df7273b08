"""Which instructions of the repo's CUDA C++ kernels the SASS executor cannot build, without running
anything: every kernel of every .cu corpus is compiled (NVRTC, then ptxas for sm_90) and decoded.

    python -m validation.sass_coverage.static            # a table: opcode, kernels using it, one example

A launch-level tally (what fell back and why, including mismatches and round budgets) is the pytest
plugin's (plugin.py); this one lists each missing opcode with an instruction that uses it.
"""

from __future__ import annotations

import glob
import os
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPORA = ["tests/kernels/*.cu", "tests/sass/kernels.cu", "validation/kernels.cu", "validation/timing/kernels.cu",
           "validation/timing/microbench*.cu", "warpsim/demo/kernels/*.cu"]


def sources() -> list:
    return [path for pattern in CORPORA for path in sorted(glob.glob(os.path.join(ROOT, pattern)))]


def survey(arch: str = "sm_90") -> tuple:
    """(kernel count, {opcode: kernels}, {opcode: example text}, [(file, error)])."""
    from warpsim.frontends.nvrtc import compile_cuda
    from warpsim.sass import sass_for_ptx
    from warpsim.sass.executor import SassUnsupported
    from warpsim.sass.executor.program import SassProgram
    users, examples, failures, kernels = Counter(), {}, [], 0
    for path in sources():
        try:
            ptx = compile_cuda(open(path).read(), (f"-I{os.path.dirname(path)}", f"-arch={arch.replace('sm', 'compute')}"),
                               name=path).ptx
            module = sass_for_ptx(ptx, arch)
        except Exception as exc:          # a corpus file NVRTC or ptxas refuses is listed, not fatal
            failures.append((os.path.relpath(path, ROOT), str(exc).splitlines()[0][:160]))
            continue
        for name in module.kernel_names:
            kernels += 1
            function = module.kernel(name)
            try:
                SassProgram(function)
            except SassUnsupported as exc:
                by_offset = {f"/*{ins.offset:04x}*/": ins.text for ins in function.instructions}
                for opcode, why in dict.fromkeys(exc.unsupported):
                    offset = why.rsplit(" at ", 1)[-1]
                    examples.setdefault(opcode, f"{by_offset.get(offset, '?')}  ({why}; "
                                                f"{os.path.basename(path)}:{name[:40]})")
                users.update({opcode for opcode, _ in exc.unsupported})     # kernels, not instructions
    return kernels, users, examples, failures


def main(argv=None) -> int:
    arch = (argv or sys.argv[1:] or ["sm_90"])[0]
    kernels, users, examples, failures = survey(arch)
    print(f"{kernels} kernels ({arch}); {len(users)} opcodes the executor lacks")
    for opcode, count in users.most_common():
        print(f"  {count:3d}  {opcode:28s} {examples[opcode]}")
    for path, error in failures:
        print(f"  not compiled: {path}: {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
