"""Numba kernels -> PTX, with numba-cuda's own compiler (no GPU needed).

numba-cuda compiles a Python kernel for given argument types to PTX on a
machine without a GPU (libNVVM comes from PyPI's nvidia-nvvm). This module is
that step only; the host side a GPU would otherwise need (the `@cuda.jit`
dispatcher, argument marshalling, launches) is warpsim.cuda.

Kernels are compiled with line info, so every runtime error and every report
names the Python file and line of the kernel, not PTX. Code Numba links in
(fp16 shims, `link=` files in PTX or CUDA C++) is merged into the kernel's
module (numba_link.py). A cooperative grid sync (cg.this_grid().sync()) calls
the CUDA device runtime, whose cooperative-groups functions warpsim supplies as
PTX of its own (device_runtime.py); such a kernel launches cooperatively.
"""

from __future__ import annotations

from dataclasses import dataclass

from .device_runtime import COOPERATIVE_GROUPS_PTX
from .numba_link import linked_ptx, merge_ptx

__all__ = ["DEFAULT_CC", "NumbaPtx", "compile_kernel"]

DEFAULT_CC = (9, 0)   # the compute capability warpsim compiles for (as NVRTC's default sm_90)


@dataclass
class NumbaPtx:
    """One kernel specialization compiled: numba-cuda's compile result and its linked PTX."""
    cres: object
    ptx: str
    entry: str
    debug: bool


def _default(value, config_name: str, convert):
    from numba.cuda.core import config
    return convert(getattr(config, config_name)) if value is None else value


def compile_kernel(py_func, argtypes, *, debug=None, opt=None, lineinfo=None, fastmath=False,
                   launch_bounds=None, link=(), cc=DEFAULT_CC, **_ignored) -> NumbaPtx:
    """Compile `py_func` as a kernel for `argtypes` (Numba types) to one PTX module.

    Line info is on unless `lineinfo=False`: warpsim's reports and errors
    name Python lines from it. If numba-cuda fails to emit line info for a
    kernel (it has bugs there, e.g. with empty tuples) and the user did not
    ask for it, the kernel is compiled again without.
    """
    from numba.cuda.core.errors import NumbaError
    from numba.cuda.core.compiler_lock import global_compiler_lock

    debug = _default(debug, "CUDA_DEBUGINFO_DEFAULT", bool)
    opt = _default(opt, "OPT", lambda level: level != 0)
    with global_compiler_lock:
        try:
            cres = _compile_cres(py_func, argtypes, debug, opt, lineinfo is not False, fastmath,
                                 launch_bounds, cc)
        except NumbaError:
            raise
        except Exception:
            if lineinfo or debug:
                raise
            cres = _compile_cres(py_func, argtypes, debug, opt, False, fastmath, launch_bounds, cc)
        ptx = linked_ptx(cres.library, cc, link)
        if cres.library.use_cooperative:          # cg.this_grid(): cudadevrt's functions, warpsim's way
            ptx = merge_ptx(ptx, [COOPERATIVE_GROUPS_PTX])
    return NumbaPtx(cres, ptx, cres.fndesc.llvm_func_name, debug)

def _compile_cres(py_func, argtypes, debug, opt, lineinfo, fastmath, launch_bounds, cc):
    """numba-cuda's compile result for a kernel, fixed up as its _Kernel does."""
    from numba.cuda import types
    from numba.cuda.compiler import compile_cuda, kernel_fixup
    from numba.cuda.cudadrv import nvvm
    nvvm_options = {"fastmath": fastmath, "opt": 3 if opt else 0}
    if debug:
        nvvm_options["g"] = None
    cres = compile_cuda(py_func, types.void, tuple(argtypes), debug=debug,
                        lineinfo=lineinfo and not debug, fastmath=fastmath,
                        nvvm_options=nvvm_options, cc=cc)
    if cres.signature.return_type not in (None, types.void):
        raise TypeError("CUDA kernel must have void return type.")
    entry = cres.fndesc.llvm_func_name
    kernel_fixup(cres.library.get_function(entry), debug)
    nvvm.set_launch_bounds(cres.library.get_function(entry), launch_bounds)
    cres.library._entry_name = entry
    return cres
