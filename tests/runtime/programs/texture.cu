// A 2D float texture over a CUDA array (clamp addressing, point filtering) read with tex2D at
// the coordinates of a file, and a surface over a second array written with surf2Dwrite.
#include <cuda_runtime.h>
#include "io.h"

__global__ void sample(cudaTextureObject_t tex, const float2 *at, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}

__global__ void doubled(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) surf2Dwrite(2.0f * tex2D<float>(tex, x + 0.5f, y + 0.5f), surf, x * 4, y);
}

int main(int argc, char **argv) {  // image.bin coords.bin samples.bin doubled.bin width height
  std::vector<float> image = read_file<float>(argv[1]), coords = read_file<float>(argv[2]);
  int width = atoi(argv[5]), height = atoi(argv[6]), n = (int)coords.size() / 2;
  size_t spitch = (width + 3) * sizeof(float);          // a host pitch wider than a row
  std::vector<float> pitched((width + 3) * height, -1.0f);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) pitched[y * (width + 3) + x] = image[y * width + x];

  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t array, target;
  CHECK(cudaMallocArray(&array, &desc, width, height));
  CHECK(cudaMallocArray(&target, &desc, width, height, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, pitched.data(), spitch, width * sizeof(float), height,
                            cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = target;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &sres));

  float2 *dat; float *dout;
  CHECK(cudaMalloc(&dat, n * sizeof(float2)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(dat, coords.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  sample<<<(n + 127) / 128, 128>>>(tex, dat, dout, n);
  doubled<<<dim3((width + 63) / 64, height), 64>>>(tex, surf, width, height);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> samples(n), twice(width * height);
  CHECK(cudaMemcpy(samples.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(twice.data(), width * sizeof(float), target, 0, 0, width * sizeof(float),
                              height, cudaMemcpyDeviceToHost));
  write_file(argv[3], samples.data(), n);
  write_file(argv[4], twice.data(), width * height);
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaDestroySurfaceObject(surf));
  printf("destroy again: %s\n", cudaGetErrorName(cudaDestroyTextureObject(tex)));
  CHECK(cudaFreeArray(array)); CHECK(cudaFreeArray(target));
  CHECK(cudaFree(dat)); CHECK(cudaFree(dout));
  printf("texture done n=%d\n", n);
  return 0;
}
