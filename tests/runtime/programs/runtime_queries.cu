// Queries of what a program made: a kernel's function handle and parameter layout, pinned memory's
// flags, what advice and prefetches say of managed ranges (a kernel then runs on that memory), the
// pools of a location and their access, a texture and a surface object's descriptions, the 1D linear
// texture width and peer attributes of one device; and the codes of bad calls.
// Usage: runtime_queries in.bin out.bin   (in.bin: float32 x; out.bin: float32 y = 2.5 x + y0, y0 = 1)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "io.h"
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

static int range_int(cudaMemRangeAttribute attribute, const void *p, size_t bytes) {
  int value = 12345;
  cudaError_t e = cudaMemRangeGetAttribute(&value, sizeof(value), attribute, p, bytes);
  return e ? -100 - (int)e : value;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size();

  // kernels
  cudaFunction_t function = nullptr;
  CHECK(cudaGetFuncBySymbol(&function, (const void *)saxpy));
  SAY("function of a host function", cudaGetFuncBySymbol(&function, (const void *)range_int));
  size_t count = 0, offset = 0, size = 0;
  CHECK(cudaFuncGetParamCount((const void *)saxpy, &count));
  printf("saxpy: function %d, %zu parameters:", function != nullptr, count);
  for (size_t k = 0; k < count; ++k) {
    CHECK(cudaFuncGetParamInfo((const void *)saxpy, k, &offset, &size));
    printf(" %zu+%zu", offset, size);
  }
  printf("\n");
  SAY("parameter past the last", cudaFuncGetParamInfo((const void *)saxpy, count, &offset, &size));
  SAY("parameters of a host function", cudaFuncGetParamCount((const void *)range_int, &count));

  // pinned memory's flags
  void *pinned, *mapped;
  unsigned flags = 0;
  CHECK(cudaMallocHost(&pinned, 64));
  CHECK(cudaHostAlloc(&mapped, 64, cudaHostAllocWriteCombined));
  CHECK(cudaHostGetFlags(&flags, pinned));
  printf("pinned flags %u", flags);
  CHECK(cudaHostGetFlags(&flags, mapped));
  printf(", write-combined flags %u\n", flags);
  void *pageable = malloc(64);
  SAY("flags of pageable memory", cudaHostGetFlags(&flags, pageable));

  // managed memory: advice and prefetches, then a kernel on it
  float *y, *dx;
  size_t bytes = n * sizeof(float), half = bytes / 2;
  CHECK(cudaMallocManaged(&y, bytes));
  CHECK(cudaMalloc(&dx, bytes));
  CHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  for (int i = 0; i < n; ++i) y[i] = 1.0f;
  cudaMemLocation device = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
  CHECK(cudaMemAdvise(y, bytes, cudaMemAdviseSetReadMostly, device));
  CHECK(cudaMemAdvise(y, half, cudaMemAdviseSetPreferredLocation, device));
  CHECK(cudaMemAdvise((char *)y + half, bytes - half, cudaMemAdviseSetPreferredLocation, host));
  CHECK(cudaMemAdvise(y, bytes, cudaMemAdviseSetAccessedBy, device));
  CHECK(cudaMemPrefetchAsync(y, half, device, 0, 0));
  printf("read mostly %d, preferred: whole %d first half %d second half %d, type %d id %d\n",
         range_int(cudaMemRangeAttributeReadMostly, y, bytes), range_int(cudaMemRangeAttributePreferredLocation, y, bytes),
         range_int(cudaMemRangeAttributePreferredLocation, y, half),
         range_int(cudaMemRangeAttributePreferredLocation, (char *)y + half, bytes - half),
         range_int(cudaMemRangeAttributePreferredLocationType, y, half),
         range_int(cudaMemRangeAttributePreferredLocationId, y, half));
  printf("last prefetch: first half %d whole %d, never prefetched type %d\n",
         range_int(cudaMemRangeAttributeLastPrefetchLocation, y, half),
         range_int(cudaMemRangeAttributeLastPrefetchLocation, y, bytes),
         range_int(cudaMemRangeAttributeLastPrefetchLocationType, (char *)y + half, bytes - half));
  int accessed[3];
  CHECK(cudaMemRangeGetAttribute(accessed, sizeof(accessed), cudaMemRangeAttributeAccessedBy, y, bytes));
  printf("accessed by %d %d %d\n", accessed[0], accessed[1], accessed[2]);
  CHECK(cudaMemAdvise(y, half / 2, cudaMemAdviseUnsetReadMostly, device));
  CHECK(cudaMemAdvise(y, bytes, cudaMemAdviseUnsetAccessedBy, device));
  int read_mostly = -1, preferred = -1;
  void *data[] = {&read_mostly, &preferred};
  size_t sizes[] = {4, 4};
  cudaMemRangeAttribute attributes[] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation};
  CHECK(cudaMemRangeGetAttributes(data, sizes, attributes, 2, (char *)y + half, half));
  CHECK(cudaMemRangeGetAttribute(accessed, sizeof(accessed), cudaMemRangeAttributeAccessedBy, y, bytes));
  printf("after unset: second half read mostly %d preferred %d, accessed by %d\n", read_mostly, preferred,
         accessed[0]);
  SAY("read mostly into 8 bytes", cudaMemRangeGetAttribute(accessed, 8, cudaMemRangeAttributeReadMostly, y, bytes));
  SAY("range of device memory", cudaMemRangeGetAttribute(accessed, 4, cudaMemRangeAttributeReadMostly, dx, bytes));
  saxpy<<<(n + 255) / 256, 256>>>(y, dx, 2.5f, n);
  CHECK(cudaDeviceSynchronize());
  write_file(argv[2], y, n);

  // pools of a location, and access to them
  cudaMemPool_t by_device, by_location, made, current;
  CHECK(cudaDeviceGetDefaultMemPool(&by_device, 0));
  CHECK(cudaMemGetDefaultMemPool(&by_location, &device, cudaMemAllocationTypePinned));
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = device;
  CHECK(cudaMemPoolCreate(&made, &props));
  CHECK(cudaMemSetMemPool(&device, cudaMemAllocationTypePinned, made));
  CHECK(cudaMemGetMemPool(&current, &device, cudaMemAllocationTypePinned));
  cudaMemPool_t device_current;
  CHECK(cudaDeviceGetMemPool(&device_current, 0));
  printf("pools: default same %d, set and got %d, device's %d\n", by_device == by_location, current == made,
         device_current == made);
  cudaMemLocation other = {cudaMemLocationTypeDevice, 1};
  SAY("pool of device 1", cudaMemGetMemPool(&current, &other, cudaMemAllocationTypePinned));
  SAY("host pool", cudaMemGetDefaultMemPool(&current, &host, cudaMemAllocationTypePinned));
  SAY("invalid allocation type", cudaMemGetMemPool(&current, &device, cudaMemAllocationTypeInvalid));
  cudaMemAccessDesc access = {};
  access.location = host; access.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(made, &access, 1));
  cudaMemAccessFlags got;
  CHECK(cudaMemPoolGetAccess(&got, made, &host));
  printf("host access %d", (int)got);
  CHECK(cudaMemPoolGetAccess(&got, made, &device));
  printf(", device access %d\n", (int)got);
  access.location = device; access.flags = cudaMemAccessFlagsProtRead;
  SAY("owner read only", cudaMemPoolSetAccess(made, &access, 1));
  access.location = other; access.flags = cudaMemAccessFlagsProtReadWrite;
  SAY("access of device 1", cudaMemPoolSetAccess(made, &access, 1));
  CHECK(cudaMemSetMemPool(&device, cudaMemAllocationTypePinned, by_device));
  CHECK(cudaMemPoolDestroy(made));

  // texture and surface objects give back what they were made from
  cudaResourceDesc res = {}, res_back = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = dx;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = bytes;
  cudaTextureDesc tex = {}, tex_back = {};
  tex.addressMode[0] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture;
  CHECK(cudaCreateTextureObject(&texture, &res, &tex, nullptr));
  CHECK(cudaGetTextureObjectResourceDesc(&res_back, texture));
  CHECK(cudaGetTextureObjectTextureDesc(&tex_back, texture));
  printf("texture: linear %d pointer %d bytes %d float %d, clamp %d point %d\n",
         res_back.resType == cudaResourceTypeLinear, res_back.res.linear.devPtr == dx,
         res_back.res.linear.sizeInBytes == bytes, res_back.res.linear.desc.f == cudaChannelFormatKindFloat,
         tex_back.addressMode[0] == cudaAddressModeClamp, tex_back.filterMode == cudaFilterModePoint);
  cudaResourceViewDesc view;
  SAY("resource view of a texture without one", cudaGetTextureObjectResourceViewDesc(&view, texture));
  cudaArray_t array;
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  CHECK(cudaMallocArray(&array, &channel, 16, 16, cudaArraySurfaceLoadStore));
  cudaResourceDesc surface_res = {};
  surface_res.resType = cudaResourceTypeArray;
  surface_res.res.array.array = array;
  cudaSurfaceObject_t surface;
  CHECK(cudaCreateSurfaceObject(&surface, &surface_res));
  CHECK(cudaGetSurfaceObjectResourceDesc(&res_back, surface));
  printf("surface: array %d\n", res_back.resType == cudaResourceTypeArray && res_back.res.array.array == array);
  SAY("texture description of a surface", cudaGetTextureObjectTextureDesc(&tex_back, surface));
  CHECK(cudaDestroyTextureObject(texture));
  SAY("destroyed texture", cudaGetTextureObjectResourceDesc(&res_back, texture));

  // device limits
  size_t width = 0;
  CHECK(cudaDeviceGetTexture1DLinearMaxWidth(&width, &channel, 0));
  printf("1D linear texture width %zu\n", width);
  cudaChannelFormatDesc none = cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
  SAY("1D linear width of no format", cudaDeviceGetTexture1DLinearMaxWidth(&width, &none, 0));
  int value = -1;
  SAY("p2p of device 0 and itself", cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 0));
  SAY("p2p of device 0 and 1", cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, 0, 1));
  printf("runtime queries done\n");
  return 0;
}
