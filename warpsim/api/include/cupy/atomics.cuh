// warpsim's cupy/atomics.cuh: atomicAdd on complex values, as CuPy's header adds it
// (each part added atomically on its own, so the pair is not one atomic update).
#pragma once
#include <cupy/complex.cuh>

__device__ inline complex<float> atomicAdd(complex<float>* address, complex<float> value) {
  float* parts = reinterpret_cast<float*>(address);
  float re = atomicAdd(parts, value.real());
  float im = atomicAdd(parts + 1, value.imag());
  return complex<float>(re, im);
}

__device__ inline complex<double> atomicAdd(complex<double>* address, complex<double> value) {
  double* parts = reinterpret_cast<double*>(address);
  double re = atomicAdd(parts, value.real());
  double im = atomicAdd(parts + 1, value.imag());
  return complex<double>(re, im);
}
