"""CuPy's headers for kernels that include them: warpsim's own cupy/*.cuh, on every include path.

CuPy puts its include folder on the NVRTC command line of every kernel it
compiles, so CUDA sources may `#include <cupy/complex.cuh>` (complex<float>,
complex<double> and their functions), `<cupy/carray.cuh>` (CArray, CIndexer),
`<cupy/cuComplex_bridge.h>`, `<cupy/atomics.cuh>`, `<cupy/math_constants.h>`,
`<cupy/float16.cuh>`. warpsim ships its own equivalents of those in
warpsim/api/include/cupy and passes `-I` to that folder likewise. A CuPy
header warpsim does not have stops the compile with NVRTC's "cannot open
source file" naming it.
"""

from __future__ import annotations

import os

__all__ = ["include_dir", "include_option", "translate_cucomplex"]


def include_dir() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def include_option() -> str:
    return f"-I{include_dir()}"


def translate_cucomplex(source: str) -> str:
    """CuPy's translate_cucomplex: <cuComplex.h> becomes cupy/cuComplex_bridge.h (complex<T>)."""
    return source.replace("#include <cuComplex.h>", "#include <cupy/cuComplex_bridge.h>")
