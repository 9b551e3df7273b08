// Zero-copy host memory: malloc'd bytes registered with cudaHostRegister, scaled in place by a
// kernel through the device pointer cudaHostGetDevicePointer gives, then unregistered.
#include <cstdlib>
#include <cuda_runtime.h>
#include "io.h"

__global__ void scale(float *x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

int main(int argc, char **argv) {
  std::vector<float> input = read_file<float>(argv[1]);
  int n = (int)input.size();
  float *host = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) host[i] = input[i];
  CHECK(cudaHostRegister(host, n * sizeof(float), cudaHostRegisterMapped));
  float *device = nullptr;
  CHECK(cudaHostGetDevicePointer((void **)&device, host, 0));
  printf("same address %d\n", device == host);
  scale<<<(n + 127) / 128, 128>>>(device, n, 3.0f);
  CHECK(cudaDeviceSynchronize());
  write_file(argv[2], host, n);
  printf("again %s\n", cudaGetErrorName(cudaHostRegister(host, n * sizeof(float), 0)));
  cudaGetLastError();
  CHECK(cudaHostUnregister(host));
  printf("unregistered twice %s\n", cudaGetErrorName(cudaHostUnregister(host)));
  free(host);
  return 0;
}
