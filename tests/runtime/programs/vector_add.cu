// c = a * alpha + b on a stream, copies both ways, the grid rounded up past n.
#include <cuda_runtime.h>
#include "io.h"

__global__ void axpy(const float *a, const float *b, float *c, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * alpha + b[i];
}

int main(int argc, char **argv) {
  std::vector<float> a = read_file<float>(argv[1]), b = read_file<float>(argv[2]);
  int n = (int)a.size();
  float alpha = (float)atof(argv[4]);
  float *da, *db, *dc;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemset(dc, 0, n * sizeof(float)));
  CHECK(cudaMemcpyAsync(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyDefault));
  axpy<<<(n + 127) / 128, 128, 0, stream>>>(da, db, dc, alpha, n);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> c(n);
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[3], c.data(), n);
  CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
  CHECK(cudaStreamDestroy(stream));
  printf("vector_add done n=%d\n", n);
  return 0;
}
