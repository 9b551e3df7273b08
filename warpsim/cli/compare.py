"""`warpsim compare`: two versions side by side on a GPU: predicted time of each, the ratio, and why.

    warpsim compare naive.py tiled.py --gpu h200                 # two programs: every launch of each
    warpsim compare ./app_a ./app_b                              # two programs built with `warpsim nvcc`
    warpsim compare k.cu --kernel mm --grid 32,32 --block 16,16 --n 262144 \\
        --a-define TILE=8 --b-define TILE=16                     # one .cu, two -D variants
    warpsim compare a.cu b.cu --kernel k --grid 1024 --block 256 --args setup.py:arguments
    warpsim compare "bench.py --size 4096" "bench.py --size 8192" --kernel saxpy

A side is a Python program or a compiled CUDA program (its launches run under
the profiler with the GPU chosen; --kernel keeps only launches of kernels whose name contains it) or a
.cu file (compiled with --option and its -D defines, the kernel --kernel
launched on --grid x --block with arguments from --args FILE.py:FUNCTION,
function(xp) -> the argument tuple with xp the warpsim module, or else from
--n: a zeroed buffer of n x 8 bytes per pointer, n per integer, 1.0 per
float). The same arguments are built afresh for each side.

Python API, the same thing:

    from warpsim.cli.compare import compare
    c = compare("naive.py", "tiled.py", gpu="h200")
    c = compare(kernel_a, kernel_b, grid=(1024,), block=(256,), args=(out, x, n))   # two RawKernels
    c.ratio, c.speedup, c.faster, c.reasons; print(c.render())
"""

from __future__ import annotations

import argparse
import ast
import os
import runpy
import shlex
import sys

import numpy as np

from ..errors import WarpsimError


class CompareError(WarpsimError):
    """A side of `warpsim compare` could not be predicted (said with the side and why)."""


def _dims(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = ast.literal_eval(value if "," not in value or value.startswith("(") else f"({value})")
    return tuple(value) if isinstance(value, (tuple, list)) else (int(value),)


def _gpu(gpu):
    if gpu:
        return gpu
    from ..settings import current
    return current().gpu or "h200"


def _script_timings(argv: list, gpu: str, kernel: str | None, label: str) -> list:
    from ..profiler import profile
    from ..settings import settings
    from .run import run_script
    with settings(gpu=gpu), profile() as prof:
        status = run_script(list(argv))
    if status:
        raise CompareError(f"{label}: the program {' '.join(argv)} exited with status {status}")
    launches = [x for x in prof.launches if not kernel or kernel in x.kernel_name]
    timings = [x.timing for x in launches if x.timing is not None]
    if not timings:
        what = f" of a kernel named like '{kernel}'" if kernel else ""
        raise CompareError(f"{label}: {' '.join(argv)} made no launch{what} the timing model could predict")
    return timings


def _arguments(kernel, args, n, xp):
    if callable(args):
        return tuple(args(xp))
    if args is not None:
        return tuple(args)
    from ..distributed.points import default_args
    values = default_args(kernel.params, {"n": 1 if n is None else int(n)})
    return tuple(xp.asarray(v) if isinstance(v, np.ndarray) else v for v in values)   # buffers on the device


def _kernel_timing(kernel, grid, block, args, n, shared_mem, gpu, label, max_ctas):
    import warpsim as ws
    from ..api.raw import pack_arguments
    from ..timing import predict
    if grid is None or block is None:
        raise CompareError(f"{label}: a kernel needs --grid and --block")
    values = _arguments(kernel, args, n, ws)
    params = pack_arguments(kernel.kernel_name, kernel.params, values)
    return predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, int(shared_mem), gpu=gpu,
                   max_ctas=max_ctas)


def _cu_kernel(path: str, name: str | None, options: tuple, defines: tuple, label: str):
    import warpsim as ws
    try:
        with open(path, encoding="utf-8") as fh:
            code = fh.read()
    except OSError as exc:
        raise CompareError(f"{label}: cannot read {path}: {exc.strerror}") from None
    flags = tuple(options) + tuple(d if d.startswith("-D") else f"-D{d}" for d in defines)
    module = ws.RawModule(code=code, options=flags)
    if not name:
        kernels = module.kernel_names
        if len(kernels) != 1:
            found = f" (it has {', '.join(kernels)})" if kernels else ""
            raise CompareError(f"{label}: {path}: name the kernel to launch (--kernel){found}")
        name = kernels[0]
    return module.get_function(name)


def _side(spec, label, gpu, kernel, grid, block, args, n, shared_mem, options, defines, max_ctas):
    """A Timing, or a list of a program's Timings, for one side."""
    if hasattr(spec, "loaded_module") and hasattr(spec, "kernel_name"):      # a RawKernel
        return _kernel_timing(spec, grid, block, args, n, shared_mem, gpu, label, max_ctas)
    argv = shlex.split(spec) if isinstance(spec, str) else list(spec)
    argv = [a for a in argv if a not in ("python", "python3")] if argv and argv[0] in ("python", "python3") else argv
    if not argv:
        raise CompareError(f"{label}: nothing to compare")
    path = argv[0]
    if path.endswith(".cu"):
        k = _cu_kernel(path, kernel, options, defines, label)
        return _kernel_timing(k, grid, block, args, n, shared_mem, gpu, label, max_ctas)
    from .programs import is_elf
    if path.endswith(".py") or path in ("-m", "-c") or is_elf(path):   # a script, or a `warpsim nvcc` program
        if defines:
            raise CompareError(f"{label}: -D defines apply to a .cu side, not to the program {path}")
        return _script_timings(argv, gpu, kernel, label)
    raise CompareError(f"{label}: {path} is neither a .py program nor a .cu file, nor a compiled CUDA program")


def compare(a, b=None, gpu: str | None = None, labels=None, kernel: str | None = None, grid=None, block=None,
            args=None, n=None, shared_mem: int = 0, options=(), defines_a=(), defines_b=(), max_ctas: int = 6):
    """The Comparison (warpsim.timing.Comparison) of two versions on `gpu` (default: the settings' GPU,
    else the H200). a, b: a Python program ('x.py args' or an argv list), a .cu path, or a RawKernel;
    b left out: a again (with other defines)."""
    from ..timing import compare_timings
    gpu = _gpu(gpu)
    b = a if b is None else b
    if labels is None:
        labels = (_label(a, defines_a, "A"), _label(b, defines_b, "B"))
        if labels[0] == labels[1]:
            labels = (labels[0] + " (A)", labels[1] + " (B)")
    grid, block = _dims(grid), _dims(block)
    sides = []
    for spec, label, defines in ((a, labels[0], defines_a), (b, labels[1], defines_b)):
        try:
            sides.append(_side(spec, label, gpu, kernel, grid, block, args, n, shared_mem, tuple(options),
                               tuple(defines), max_ctas))
        except CompareError:
            raise
        except WarpsimError as exc:             # a fault or a compile error: say which side
            raise CompareError(f"{label}: {exc}") from exc
    return compare_timings(sides[0], sides[1], labels)


def _label(spec, defines, default: str) -> str:
    if hasattr(spec, "kernel_name"):
        name = getattr(spec, "name", spec.kernel_name)
    elif isinstance(spec, str):
        name = os.path.basename(shlex.split(spec)[0]) if spec.strip() else default
    else:
        name = default
    return name + ("".join(f" -D{d.removeprefix('-D')}" for d in defines) if defines else "")


def _function(spec: str):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise CompareError(f"--args wants FILE.py:FUNCTION, got {spec!r}")
    try:
        return runpy.run_path(path)[name]
    except (OSError, KeyError) as exc:
        raise CompareError(f"--args {spec}: {exc}") from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim compare", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("a", help="a .py program (quote it with its arguments) or a .cu file")
    p.add_argument("b", nargs="?", help="the other version (default: a again, with --b-define)")
    p.add_argument("--gpu", help="the GPU preset (h200, h100, a100, l4; default WARPSIM_GPU, else h200)")
    p.add_argument("--kernel", help="the kernel of a .cu side; for programs, only launches whose kernel "
                                    "name contains it")
    p.add_argument("--grid", help="grid of a .cu side's launch: 1024 or 32,32")
    p.add_argument("--block", help="block of a .cu side's launch: 256 or 16,16")
    p.add_argument("--n", type=int, help="problem size for the default arguments of a .cu side")
    p.add_argument("--args", help="FILE.py:FUNCTION, function(xp) -> a .cu side's arguments")
    p.add_argument("--shared-mem", type=int, default=0, help="dynamic shared memory per block, bytes")
    p.add_argument("--option", action="append", default=[], help="an NVRTC option for both .cu sides")
    p.add_argument("-D", "--define", action="append", default=[], help="NAME=VALUE for both .cu sides")
    p.add_argument("--a-define", action="append", default=[], help="NAME=VALUE for side A only")
    p.add_argument("--b-define", action="append", default=[], help="NAME=VALUE for side B only")
    p.add_argument("--labels", help="two names for the columns, comma-separated")
    p.add_argument("--ctas", type=int, default=6, help="CTAs of a .cu side's grid to run (default 6)")
    p.add_argument("--lines", action="store_true", help="also print each side's most stalled source lines")
    return p


def main(argv=None) -> int:
    ns = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if ns.b is None and not (ns.a_define or ns.b_define):
        print("warpsim compare: give two versions (A B), or one .cu file with --a-define/--b-define",
              file=sys.stderr)
        return 2
    labels = tuple(x.strip() for x in ns.labels.split(",")) if ns.labels else None
    if labels is not None and len(labels) != 2:
        print("warpsim compare: --labels wants two names, comma-separated", file=sys.stderr)
        return 2
    try:
        c = compare(ns.a, ns.b, gpu=ns.gpu, labels=labels, kernel=ns.kernel, grid=ns.grid, block=ns.block,
                    args=_function(ns.args) if ns.args else None, n=ns.n, shared_mem=ns.shared_mem,
                    options=tuple(ns.option), defines_a=tuple(ns.define + ns.a_define),
                    defines_b=tuple(ns.define + ns.b_define), max_ctas=ns.ctas)
    except (WarpsimError, ValueError, SyntaxError) as exc:
        print(f"warpsim compare: {exc}", file=sys.stderr)
        return 1
    print(c.render())
    if ns.lines:
        for label, t in zip(c.labels, (c.a, c.b)):
            if t.lines:
                print(f"\n{label}: predicted stalls by source line")
                print(t.line_table(top=6))
    return 0
