// cupy/type_dispatcher.cuh is CuPy's host-side CUB/Thrust dispatch for nvcc builds.
#pragma once
#error "cupy/type_dispatcher.cuh: warpsim does not provide it (CuPy's host-side CUB dispatch); see docs/cupy.md"
