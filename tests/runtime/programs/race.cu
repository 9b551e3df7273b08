// A shared-memory race (a neighbour's value read with no barrier between the write and the
// read) and an uninitialized read of global memory: what `warpsim check` reports.
// Argument "fail": the program also exits with status 3 (a failed target).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void shift_left(const float *in, float *out) {
  __shared__ float tile[64];
  tile[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

__global__ void read_unset(const float *never_written, float *out) {
  out[threadIdx.x] = never_written[threadIdx.x] + 1.0f;
}

int main(int argc, char **argv) {
  float host[64], *in, *out, *unset;
  for (int k = 0; k < 64; k++) host[k] = (float)k;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&out, sizeof(host));
  cudaMalloc(&unset, sizeof(host));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  shift_left<<<1, 64>>>(in, out);
  read_unset<<<1, 32>>>(unset, out);
  cudaError_t status = cudaDeviceSynchronize();
  printf("race done %s\n", cudaGetErrorName(status));
  return argc > 1 && !strcmp(argv[1], "fail") ? 3 : 0;
}
