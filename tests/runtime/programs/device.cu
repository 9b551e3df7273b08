// Device queries, events around kernels, managed and pinned memory, an unsupported call.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(float *x, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * factor + 1.0f;
}

int main() {
  int count = -1, device = -1;
  cudaGetDeviceCount(&count);
  cudaSetDevice(0);
  cudaGetDevice(&device);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  printf("count %d device %d\nname %s\ncc %d.%d\nsms %d %d\nwarp %d\nmaxthreads %d\nsmem_optin %zu\n",
         count, device, prop.name, prop.major, prop.minor, prop.multiProcessorCount, sms, prop.warpSize,
         prop.maxThreadsPerBlock, prop.sharedMemPerBlockOptin);
  printf("bad device %s\n", cudaGetErrorName(cudaSetDevice(3)));
  cudaGetLastError();

  int n = 1 << 16;
  float *managed;
  cudaError_t m = cudaMallocManaged(&managed, n * sizeof(float));
  for (int i = 0; i < n; i++) managed[i] = (float)i;
  cudaEvent_t start, stop, empty_a, empty_b;
  cudaEventCreate(&start); cudaEventCreate(&stop); cudaEventCreate(&empty_a); cudaEventCreate(&empty_b);
  cudaEventRecord(empty_a); cudaEventRecord(empty_b);
  cudaEventRecord(start);
  scale<<<n / 256, 256>>>(managed, n, 2.0f);
  scale<<<n / 256, 256>>>(managed, n, 0.5f);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = -1, none = -1;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventElapsedTime(&none, empty_a, empty_b);
  double worst = 0;
  for (int i = 0; i < n; i++) { double d = managed[i] - (i + 1.5); if (d < 0) d = -d; if (d > worst) worst = d; }
  printf("managed %s worst %g\nelapsed_positive %d empty %g\n", cudaGetErrorName(m), worst, ms > 0, none);
  float *pinned;
  cudaMallocHost(&pinned, 16 * sizeof(float));
  cudaMemcpy(pinned, managed + 10, 16 * sizeof(float), cudaMemcpyDefault);
  printf("pinned %g\n", pinned[0]);
  cudaFreeHost(pinned);
  cudaFree(managed);
  cudaGraph_t graph;
  cudaError_t g1 = cudaGraphCreate(&graph, 0);
  cudaError_t g2 = cudaGraphCreate(&graph, 0);
  printf("graph %s %s\n", cudaGetErrorName(g1), cudaGetErrorName(g2));
  return 0;
}
