// warpsim's cupy/hip_workaround.cuh: nothing to work around on CUDA.
#pragma once
