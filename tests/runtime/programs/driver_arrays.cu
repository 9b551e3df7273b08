// The driver API's launches, pitched copies, CUDA arrays, texture objects and host memory in one
// program built with -lcuda, its kernels from a fatbinary (kernels.cu in the test, loaded with
// cuModuleLoad): a cooperative launch whose grid syncs, cuLaunchKernelEx with a cluster shape (each
// block writes its %cluster_ctarank) and with the cooperative attribute; cuMemAllocPitch with
// cuMemcpy2D both ways and cuMemsetD2D32; a CUDA array written by cuMemcpy2D, read back by cuMemcpy3D
// and fetched through a point-filtered texture object; host and managed memory; codes of bad calls.
// Usage: driver_arrays kernels.fatbin in.bin pitched.bin texture.bin
//   in.bin: H x W floats (W = 96, H = 40); pitched.bin: a W x H region round trip, a sub-box and the
//   memset rows; texture.bin: the array read back, then tex2D at every texel centre.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "io.h"
#include "driver_check.h"

static const int W = 96, H = 40;

int main(int argc, char **argv) {
  if (argc < 5) { printf("usage: driver_arrays kernels.fatbin in.bin pitched.bin texture.bin\n"); return 2; }
  std::vector<float> in = read_file<float>(argv[2]);
  if (in.size() != (size_t)W * H) { printf("in.bin holds %zu floats\n", in.size()); return 2; }
  DRV(cuInit(0));
  CUdevice device;
  CUcontext context;
  DRV(cuDeviceGet(&device, 0));
  DRV(cuDevicePrimaryCtxRetain(&context, device));
  DRV(cuCtxSetCurrent(context));
  CUmodule module;
  DRV(cuModuleLoad(&module, argv[1]));
  CUfunction grid_sum, cluster_rank, fetch;
  DRV(cuModuleGetFunction(&grid_sum, module, "grid_sum"));
  DRV(cuModuleGetFunction(&cluster_rank, module, "cluster_rank"));
  DRV(cuModuleGetFunction(&fetch, module, "fetch"));
  const char *name = nullptr;
  DRV(cuFuncGetName(&name, fetch));
  printf("function name %s\n", name);
  SAY("name of a bogus function", cuFuncGetName(&name, (CUfunction)0x1234));

  // --- launches ---------------------------------------------------------------------------------
  CUdeviceptr scratch, sum;
  DRV(cuMemAlloc(&scratch, 256 * sizeof(int)));
  DRV(cuMemAlloc(&sum, sizeof(int)));
  void *sum_args[] = {&scratch, &sum};
  DRV(cuLaunchCooperativeKernel(grid_sum, 4, 1, 1, 64, 1, 1, 0, 0, sum_args));
  int total = 0;
  DRV(cuMemcpyDtoH(&total, sum, sizeof total));
  printf("cooperative sum %d\n", total);
  SAY("cooperative grid too large", cuLaunchCooperativeKernel(grid_sum, 1 << 20, 1, 1, 64, 1, 1, 0, 0, sum_args));

  CUlaunchAttribute cooperative = {};
  cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  cooperative.value.cooperative = 1;
  CUlaunchConfig config = {};
  config.gridDimX = 2; config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128; config.blockDimY = config.blockDimZ = 1;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  DRV(cuMemsetD32(sum, 0, 1));
  DRV(cuLaunchKernelEx(&config, grid_sum, sum_args, nullptr));
  DRV(cuMemcpyDtoH(&total, sum, sizeof total));
  printf("cooperative attribute sum %d\n", total);

  CUlaunchAttribute cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = 4; cluster.value.clusterDim.y = cluster.value.clusterDim.z = 1;
  CUdeviceptr ranks;
  DRV(cuMemAlloc(&ranks, 8 * sizeof(unsigned)));
  void *rank_args[] = {&ranks};
  config.gridDimX = 8; config.blockDimX = 32;
  config.attrs = &cluster;
  DRV(cuLaunchKernelEx(&config, cluster_rank, rank_args, nullptr));
  unsigned rank_of[8];
  DRV(cuMemcpyDtoH(rank_of, ranks, sizeof rank_of));
  printf("cluster ranks");
  for (unsigned r : rank_of) printf(" %u", r);
  printf("\n");
  cluster.value.clusterDim.x = 32;
  config.gridDimX = 32;
  SAY("cluster of 32", cuLaunchKernelEx(&config, cluster_rank, rank_args, nullptr));
  SAY("launch without a config", cuLaunchKernelEx(nullptr, cluster_rank, rank_args, nullptr));

  // --- pitched memory and 2D copies ---------------------------------------------------------------
  CUdeviceptr pitched;
  size_t pitch = 0;
  DRV(cuMemAllocPitch(&pitched, &pitch, W * sizeof(float), H, 4));
  printf("pitch covers a row %d, aligned %d\n", pitch >= W * sizeof(float), pitch % 256 == 0);
  CUDA_MEMCPY2D up = {};
  up.srcMemoryType = CU_MEMORYTYPE_HOST; up.srcHost = in.data(); up.srcPitch = W * sizeof(float);
  up.dstMemoryType = CU_MEMORYTYPE_DEVICE; up.dstDevice = pitched; up.dstPitch = pitch;
  up.WidthInBytes = W * sizeof(float); up.Height = H;
  DRV(cuMemcpy2D(&up));
  std::vector<float> round(W * H), box(32 * 20, -1.0f), filled(W * H);
  CUDA_MEMCPY2D down = {};
  down.srcMemoryType = CU_MEMORYTYPE_DEVICE; down.srcDevice = pitched; down.srcPitch = pitch;
  down.dstMemoryType = CU_MEMORYTYPE_HOST; down.dstHost = round.data(); down.dstPitch = W * sizeof(float);
  down.WidthInBytes = W * sizeof(float); down.Height = H;
  DRV(cuMemcpy2DUnaligned(&down));
  CUDA_MEMCPY2D sub = down;                    // 25 x 17 texels from (7, 3) into a 32-wide host box at (2, 1)
  sub.srcXInBytes = 7 * sizeof(float); sub.srcY = 3;
  sub.dstHost = box.data(); sub.dstPitch = 32 * sizeof(float); sub.dstXInBytes = 2 * sizeof(float); sub.dstY = 1;
  sub.WidthInBytes = 25 * sizeof(float); sub.Height = 17;
  CUstream stream;
  DRV(cuStreamCreate(&stream, 0));
  DRV(cuMemcpy2DAsync(&sub, stream));
  DRV(cuStreamSynchronize(stream));
  DRV(cuMemsetD2D32(pitched + 5 * pitch + 4 * sizeof(float), pitch, 0x3f800000u, 10, 3));   // 1.0f
  down.dstHost = filled.data();
  DRV(cuMemcpy2D(&down));
  std::vector<float> pitched_out(round);
  pitched_out.insert(pitched_out.end(), box.begin(), box.end());
  pitched_out.insert(pitched_out.end(), filled.begin(), filled.end());
  write_file(argv[3], pitched_out.data(), pitched_out.size());
  CUDA_MEMCPY2D wide = up;
  wide.WidthInBytes = pitch + 4;
  SAY("row wider than the pitch", cuMemcpy2D(&wide));
  CUDA_MEMCPY2D no_type = up;
  no_type.srcMemoryType = (CUmemorytype)9;
  SAY("unknown memory type", cuMemcpy2D(&no_type));
  SAY("element size 3", cuMemAllocPitch(&pitched, &pitch, 64, 4, 3));

  // --- a CUDA array and a texture object over it ----------------------------------------------------
  CUDA_ARRAY_DESCRIPTOR described = {};
  described.Width = W; described.Height = H; described.Format = CU_AD_FORMAT_FLOAT; described.NumChannels = 1;
  CUarray array;
  DRV(cuArrayCreate(&array, &described));
  CUDA_ARRAY_DESCRIPTOR back = {};
  DRV(cuArrayGetDescriptor(&back, array));
  printf("array %zu x %zu format 0x%x channels %u\n", back.Width, back.Height, back.Format, back.NumChannels);
  CUDA_MEMCPY2D to_array = up;
  to_array.dstMemoryType = CU_MEMORYTYPE_ARRAY; to_array.dstArray = array; to_array.dstDevice = 0;
  DRV(cuMemcpy2D(&to_array));
  std::vector<float> texture_out(2 * W * H);
  CUDA_MEMCPY3D from_array = {};
  from_array.srcMemoryType = CU_MEMORYTYPE_ARRAY; from_array.srcArray = array;
  from_array.dstMemoryType = CU_MEMORYTYPE_HOST; from_array.dstHost = texture_out.data();
  from_array.dstPitch = W * sizeof(float); from_array.dstHeight = H;
  from_array.WidthInBytes = W * sizeof(float); from_array.Height = H; from_array.Depth = 1;
  DRV(cuMemcpy3D(&from_array));
  CUDA_MEMCPY2D ragged = to_array;
  ragged.WidthInBytes = 6;
  SAY("width not whole texels", cuMemcpy2D(&ragged));

  CUDA_RESOURCE_DESC resource = {};
  resource.resType = CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = array;
  CUDA_TEXTURE_DESC sampling = {};
  sampling.addressMode[0] = sampling.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
  sampling.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject texture;
  DRV(cuTexObjectCreate(&texture, &resource, &sampling, nullptr));
  CUdeviceptr fetched;
  DRV(cuMemAlloc(&fetched, W * H * sizeof(float)));
  int width = W, height = H;
  void *fetch_args[] = {&fetched, &texture, &width, &height};
  DRV(cuLaunchKernel(fetch, (W + 15) / 16, (H + 15) / 16, 1, 16, 16, 1, 0, 0, fetch_args, nullptr));
  DRV(cuMemcpyDtoH(texture_out.data() + W * H, fetched, W * H * sizeof(float)));
  write_file(argv[4], texture_out.data(), texture_out.size());
  CUsurfObject surface;
  DRV(cuSurfObjectCreate(&surface, &resource));
  DRV(cuSurfObjectDestroy(surface));
  DRV(cuTexObjectDestroy(texture));
  SAY("texture without a descriptor", cuTexObjectCreate(&texture, &resource, nullptr, nullptr));
  resource.res.array.hArray = (CUarray)0x1234;
  SAY("texture of a bogus array", cuTexObjectCreate(&texture, &resource, &sampling, nullptr));
  DRV(cuArrayDestroy(array));
  SAY("destroyed twice", cuArrayDestroy(array));
  described.Format = (CUarray_format)0x55;
  SAY("unknown format", cuArrayCreate(&array, &described));
  CUDA_ARRAY3D_DESCRIPTOR volume = {};
  volume.Width = 8; volume.Height = 4; volume.Depth = 2; volume.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  volume.NumChannels = 4; volume.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  DRV(cuArray3DCreate(&array, &volume));
  CUDA_ARRAY3D_DESCRIPTOR volume_back = {};
  DRV(cuArray3DGetDescriptor(&volume_back, array));
  printf("3D array %zu x %zu x %zu format 0x%x channels %u flags %u\n", volume_back.Width, volume_back.Height,
         volume_back.Depth, volume_back.Format, volume_back.NumChannels, volume_back.Flags);
  DRV(cuArrayDestroy(array));

  // --- host and managed memory ----------------------------------------------------------------------
  void *mapped = nullptr;
  DRV(cuMemHostAlloc(&mapped, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  unsigned flags = 0;
  DRV(cuMemHostGetFlags(&flags, mapped));
  CUdeviceptr mapped_device;
  DRV(cuMemHostGetDevicePointer(&mapped_device, mapped, 0));
  printf("host alloc flags has devicemap %d, device pointer set %d\n", (flags & CU_MEMHOSTALLOC_DEVICEMAP) != 0,
         mapped_device != 0);
  DRV(cuMemFreeHost(mapped));
  std::vector<char> plain(1 << 16);
  DRV(cuMemHostRegister(plain.data(), plain.size(), 0));
  SAY("registered twice", cuMemHostRegister(plain.data(), plain.size(), 0));
  DRV(cuMemHostUnregister(plain.data()));
  SAY("unregistered twice", cuMemHostUnregister(plain.data()));
  CUdeviceptr managed;
  DRV(cuMemAllocManaged(&managed, 1 << 12, CU_MEM_ATTACH_GLOBAL));
  CUmemLocation on_device = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  DRV(cuMemPrefetchAsync(managed, 1 << 12, on_device, 0, stream));
  ((int *)managed)[3] = 42;
  printf("managed memory read %d\n", ((int *)managed)[3]);
  SAY("managed of 0 bytes", cuMemAllocManaged(&managed, 0, CU_MEM_ATTACH_GLOBAL));
  DRV(cuStreamDestroy(stream));
  DRV(cuModuleUnload(module));
  printf("driver arrays done\n");
  return 0;
}
