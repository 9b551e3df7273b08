// A kernel that launches a kernel (dynamic parallelism, nvcc -rdc=true -lcudadevrt): warpsim does
// not simulate the device runtime, so the parent's launch is refused with cudaErrorNotSupported
// (named on stderr), not a crash or a hang; the error is not sticky and plain kernels still run.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void child(int *x) { x[threadIdx.x] += 1; }

__global__ void parent(int *x) {
  if (threadIdx.x == 0) child<<<1, 32>>>(x);
}

__global__ void plain(int *x) { x[threadIdx.x] = 2 * threadIdx.x; }

int main() {
  int *x, host[32];
  cudaMalloc(&x, 32 * sizeof(int));
  cudaMemset(x, 0, 32 * sizeof(int));
  parent<<<1, 32>>>(x);
  printf("parent %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  plain<<<1, 32>>>(x);
  cudaMemcpy(host, x, sizeof(host), cudaMemcpyDeviceToHost);
  printf("plain %s %d\n", cudaGetErrorName(cudaGetLastError()), host[31]);
  return 0;
}
