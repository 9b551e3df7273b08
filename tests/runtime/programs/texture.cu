// A 2D float texture over a CUDA array (clamp addressing, point filtering) read with tex2D at
// the coordinates of a file, a surface over a second array written with surf2Dwrite, the same
// image as linear memory (tex1Dfetch, past the end too) and as pitch2D memory (normalized,
// wrapping coordinates), and the error codes of refused calls.
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

__global__ void resources(cudaTextureObject_t linear, cudaTextureObject_t pitched, float *out, int width,
                          int height) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, n = width * height;
  if (i < n + 16) out[i] = tex1Dfetch<float>(linear, i);
  if (i < n) out[n + 16 + i] = tex2D<float>(pitched, (i % width + 0.5f) / width + 1.0f,
                                            (i / width + 0.5f) / height - 1.0f);
}

int main(int argc, char **argv) {  // image.bin coords.bin samples.bin doubled.bin width height resources.bin
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
  CHECK(cudaMemcpy2DToArray(array, 0, 0, pitched.data(), spitch, width * sizeof(float), height - 1,
                            cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToArray(array, 0, height - 1, &image[(height - 1) * width], width * sizeof(float),
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
  float *dlinear, *dpitched, *dres;
  size_t pitch;
  int texels = width * height;
  CHECK(cudaMalloc(&dlinear, texels * sizeof(float)));
  CHECK(cudaMemcpy(dlinear, image.data(), texels * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMallocPitch((void **)&dpitched, &pitch, width * sizeof(float), height));
  CHECK(cudaMemcpy2D(dpitched, pitch, image.data(), width * sizeof(float), width * sizeof(float), height,
                     cudaMemcpyHostToDevice));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeLinear;
  lres.res.linear.devPtr = dlinear;
  lres.res.linear.desc = cudaCreateChannelDesc<float>();
  lres.res.linear.sizeInBytes = texels * sizeof(float);
  cudaTextureDesc ltd = {};
  cudaTextureObject_t linear, wrapped;
  CHECK(cudaCreateTextureObject(&linear, &lres, &ltd, nullptr));
  cudaResourceDesc pres = {};
  pres.resType = cudaResourceTypePitch2D;
  pres.res.pitch2D.devPtr = dpitched;
  pres.res.pitch2D.desc = desc;
  pres.res.pitch2D.width = width;
  pres.res.pitch2D.height = height;
  pres.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc wtd = {};
  wtd.addressMode[0] = wtd.addressMode[1] = cudaAddressModeWrap;
  wtd.normalizedCoords = 1;
  CHECK(cudaCreateTextureObject(&wrapped, &pres, &wtd, nullptr));
  CHECK(cudaMalloc(&dres, (2 * texels + 16) * sizeof(float)));
  resources<<<(texels + 16 + 127) / 128, 128>>>(linear, wrapped, dres, width, height);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> res_out(2 * texels + 16);
  CHECK(cudaMemcpy(res_out.data(), dres, res_out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  write_file(argv[7], res_out.data(), res_out.size());

  cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
  cudaArray_t refused;
  printf("mixed widths: %s\n", cudaGetErrorName(cudaMallocArray(&refused, &mixed, 4, 4)));
  printf("surface on pitch2D: %s\n", cudaGetErrorName(cudaCreateSurfaceObject(&surf, &pres)));
  printf("copy past the array: %s\n", cudaGetErrorName(cudaMemcpy2DToArray(
      array, 4, 0, image.data(), width * sizeof(float), width * sizeof(float), 1, cudaMemcpyHostToDevice)));
  cudaResourceViewDesc view = {};
  printf("resource view: %s\n", cudaGetErrorName(cudaCreateTextureObject(&tex, &res, &td, &view)));
  cudaGetLastError();
  CHECK(cudaDestroyTextureObject(linear));
  CHECK(cudaDestroyTextureObject(wrapped));
  CHECK(cudaFree(dlinear)); CHECK(cudaFree(dpitched)); CHECK(cudaFree(dres));
  write_file(argv[3], samples.data(), n);
  write_file(argv[4], twice.data(), width * height);
  // after the files: a GPU's runtime dies here (it reads the pointer as an array), warpsim answers a code
  printf("free a non-array: %s\n", cudaGetErrorName(cudaFreeArray((cudaArray_t)dout)));
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaDestroySurfaceObject(surf));
  printf("destroy again: %s\n", cudaGetErrorName(cudaDestroyTextureObject(tex)));
  CHECK(cudaFreeArray(array)); CHECK(cudaFreeArray(target));
  CHECK(cudaFree(dat)); CHECK(cudaFree(dout));
  printf("texture done n=%d\n", n);
  return 0;
}
