"""Link the code a Numba kernel calls into its PTX, so warpsim loads one module.

numba-cuda hands some work to code compiled separately and linked by the
CUDA driver: the fp16/bf16/fp8 operations (CUDA C++ shims around
cuda_fp16.h and friends), array reshape helpers, the NRT memory runtime,
and whatever the user passes as `link=`. warpsim simulates PTX, so each
piece becomes PTX (CUDA C++ through warpsim's NVRTC with -rdc=true, as
Numba compiles it) and the modules are linked as nvcc -rdc=true programs
are (ptx_link.py): one header, `.file` numbers that continue from module to
module, every `.extern` declaration resolved to the module that defines it
(a prototype where the call comes first, as ptxas wants), a `.weak`
function several modules define kept once.

Cubins, fatbins, LTO-IR, objects and archives hold no PTX and are refused.
"""

from __future__ import annotations

import os
import re

from ..errors import CompileError
from .ptx_link import link_ptx

__all__ = ["linked_ptx", "merge_ptx"]

_RESHAPE_FUNCTIONS = ("nocopy_empty_reshape", "numba_attempt_nocopy_reshape")


def merge_ptx(main: str, others) -> str:
    """One PTX module holding `main` and the functions of `others`."""
    return link_ptx([main, *others])


def _ptx_of(code, cc) -> str:
    """The PTX of one piece of linkable code."""
    from numba.cuda.cudadrv.mappings import FILE_EXTENSION_MAP
    data = code.data
    if code.kind == "cu":
        return _compile_cu(data.decode() if isinstance(data, bytes) else data, code.name, cc)
    if code.kind == FILE_EXTENSION_MAP["ptx"]:
        return data.decode() if isinstance(data, bytes) else data
    raise CompileError(f"cannot link {code.name}: it is not PTX or CUDA C++ "
                       f"({type(code).__name__}); warpsim simulates PTX, so link a .ptx or .cu")


def _compile_cu(source: str, name: str, cc) -> str:
    from .nvrtc import compile_cuda, nvrtc_version
    import numba.cuda
    numba_include = os.path.join(os.path.dirname(numba.cuda.__file__), "include",
                                 str(nvrtc_version()[0]))
    nrt_include = os.path.join(os.path.dirname(numba.cuda.__file__), "memory_management")
    options = (f"-arch=sm_{cc[0]}{cc[1]}", "-rdc=true", f"-I{numba_include}", f"-I{nrt_include}")
    return compile_cuda(source, options, name=name if name.endswith(".cu") else f"{name}.cu").ptx


def linked_ptx(library, cc, link=()) -> str:
    """The kernel's PTX with every file Numba would link merged in."""
    from numba.cuda.cudadrv.linkable_code import LinkableCode
    main = library.get_asm_str(cc=cc)
    sources = list(library._linking_files) + list(link or ())
    if any(name in main for name in _RESHAPE_FUNCTIONS):
        import numba.cuda
        sources.append(os.path.join(os.path.dirname(numba.cuda.__file__), "reshape_funcs.cu"))
    if re.search(r"\.extern\s+\.func[^;]*\bNRT_\w+", main):
        from numba.cuda.memory_management.nrt import NRT_LIBRARY
        sources.append(NRT_LIBRARY)
    if not sources:
        return main
    pieces = []
    for source in sources:
        code = LinkableCode.from_path_or_obj(source)
        pieces.append(_ptx_of(code, cc))
    return merge_ptx(main, pieces)
