/* warpsim's cudaProfiler.h: PyPI's CUDA headers have none, and CUDA samples include it.
   `warpsim nvcc` puts this folder on the include path only where the toolkit lacks the header.
   warpsim's driver answers both calls with CUDA_SUCCESS and does nothing, as CUDA does with no
   profiler attached (`warpsim profile` profiles every launch). */
#ifndef WARPSIM_CUDA_PROFILER_H
#define WARPSIM_CUDA_PROFILER_H

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);

#ifdef __cplusplus
}
#endif

#endif
