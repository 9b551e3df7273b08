// warpsim's cupy/float16.cuh: CuPy kernels' float16 is CUDA's __half (cuda_fp16.h).
#pragma once
#include <cuda_fp16.h>
typedef __half float16;
