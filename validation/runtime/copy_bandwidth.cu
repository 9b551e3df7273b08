// cudaMemcpy time between CUDA events on the GPU: pinned and pageable host <-> device, and
// device to device, for sizes from 4 KB to 256 MB (the preset's pcie_gbps and copy_overhead_us).
//   nvcc -O2 copy_bandwidth.cu -o copy_bandwidth && ./copy_bandwidth
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

static float timed(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaEvent_t a, cudaEvent_t b) {
  float best = 1e30f;
  for (int k = 0; k < 7; k++) {
    cudaEventRecord(a);
    cudaMemcpy(dst, src, bytes, kind);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  return best;
}

int main() {
  const size_t most = 256u << 20;
  void *pinned, *pageable = malloc(most), *d1, *d2;
  cudaMallocHost(&pinned, most);
  cudaMalloc(&d1, most); cudaMalloc(&d2, most);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  printf("bytes,pinned_htod_us,pinned_dtoh_us,pageable_htod_us,pageable_dtoh_us,dtod_us\n");
  for (size_t bytes = 4096; bytes <= most; bytes *= 4) {
    printf("%zu,%.2f,%.2f,%.2f,%.2f,%.2f\n", bytes,
           1e3f * timed(d1, pinned, bytes, cudaMemcpyHostToDevice, a, b),
           1e3f * timed(pinned, d1, bytes, cudaMemcpyDeviceToHost, a, b),
           1e3f * timed(d1, pageable, bytes, cudaMemcpyHostToDevice, a, b),
           1e3f * timed(pageable, d1, bytes, cudaMemcpyDeviceToHost, a, b),
           1e3f * timed(d2, d1, bytes, cudaMemcpyDeviceToDevice, a, b));
  }
  return 0;
}
