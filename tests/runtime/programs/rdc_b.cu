// Separate compilation, the second unit: device functions, a __device__ counter and a __constant__
// table that rdc_a.cu uses through extern declarations, a kernel of its own, and names that
// rdc_a.cu also gives its own static function and printf string.
#include <cstdio>
#include "rdc.h"

__device__ unsigned long long calls;         // extern in rdc_a.cu
__constant__ float weights[WEIGHTS];         // written from rdc_a.cu's host code

static __device__ float twist(float v) { return v * 0.25f - 1.0f; }   // rdc_a.cu has another twist

__device__ float weigh(float v, int i) {
  atomicAdd(&calls, 1ull);
  return twist(v) * weights[i % WEIGHTS] + clamp_of(v, 2.0f);
}

__global__ void count_calls(unsigned long long *out) {
  *out = calls;
  printf("unit b sees %llu calls\n", calls);
}
