// Separate compilation (nvcc -rdc=true rdc_a.cu rdc_b.cu): a kernel here calls weigh() from
// rdc_b.cu, which counts its calls in a __device__ variable and reads a __constant__ table that
// this unit fills; rdc_b.cu's kernel is launched from here. Both units have a static twist()
// and printf strings of their own.
#include <cuda_runtime.h>
#include "io.h"
#include "rdc.h"

static __device__ float twist(float v) { return v + 100.0f; }     // not rdc_b.cu's twist

__global__ void apply(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = weigh(x[i], i) + twist(0.0f) + clamp_of(x[i], 0.5f);
  if (i == 0) printf("unit a launched %d blocks\n", gridDim.x);
}

int main(int argc, char **argv) {
  std::vector<float> x = read_file<float>(argv[1]), w = read_file<float>(argv[2]);
  int n = (int)x.size();
  float *dx, *dy;
  unsigned long long *dcalls, host_calls = 0;
  CHECK(cudaMemcpyToSymbol(weights, w.data(), WEIGHTS * sizeof(float)));
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dcalls, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  apply<<<(n + 127) / 128, 128>>>(dx, dy, n);
  CHECK(cudaGetLastError());
  count_calls<<<1, 1>>>(dcalls);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> y(n);
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&host_calls, dcalls, sizeof(host_calls), cudaMemcpyDeviceToHost));
  unsigned long long symbol_calls = 0;
  CHECK(cudaMemcpyFromSymbol(&symbol_calls, calls, sizeof(symbol_calls)));
  write_file(argv[3], y.data(), n);
  printf("calls %llu %llu\n", host_calls, symbol_calls);
  return 0;
}
