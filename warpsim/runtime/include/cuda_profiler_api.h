/* warpsim's cuda_profiler_api.h: PyPI's CUDA headers have none, and CUDA samples include it.
   `warpsim nvcc` puts this folder on the include path only where the toolkit lacks the header.
   warpsim's runtime answers both calls with cudaSuccess and does nothing, as CUDA does with no
   profiler attached (`warpsim profile` profiles every launch). */
#ifndef WARPSIM_CUDA_PROFILER_API_H
#define WARPSIM_CUDA_PROFILER_API_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

extern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);
extern __host__ cudaError_t CUDARTAPI cudaProfilerStop(void);

#ifdef __cplusplus
}
#endif

#endif
