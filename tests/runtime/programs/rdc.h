// Declarations shared by rdc_a.cu and rdc_b.cu (built together with nvcc -rdc=true).
#pragma once
#define WEIGHTS 8
extern __device__ float weigh(float v, int i);          // defined in rdc_b.cu
extern __device__ unsigned long long calls;             // defined in rdc_b.cu
extern __constant__ float weights[WEIGHTS];             // defined in rdc_b.cu
__global__ void count_calls(unsigned long long *out);   // defined in rdc_b.cu

// An inline function both units instantiate (a weak symbol in each unit's PTX).
template <typename T> __device__ __noinline__ T clamp_of(T v, T limit) {
  return v > limit ? limit : (v < -limit ? -limit : v);
}
