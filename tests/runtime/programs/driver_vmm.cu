// The driver's virtual memory management (built with -lcuda): a reserved range of two granules with an
// allocation mapped into each half, device 0 given read-write access, a kernel reading one half and
// writing the other through the runtime API, the codes of misuse, and the teardown.
// Usage: driver_vmm in.bin out.bin   (in.bin: n floats, n <= one granule's floats; out.bin: 2 x + 1)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include "io.h"
#include "driver_check.h"

__global__ void twice_plus_one(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size();
  DRV(cuInit(0));
  CUdevice device;
  CUcontext context;
  DRV(cuDeviceGet(&device, 0));
  DRV(cuDevicePrimaryCtxRetain(&context, device));
  DRV(cuCtxSetCurrent(context));
  int supported = -1;
  DRV(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device));
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t granule = 0;
  DRV(cuMemGetAllocationGranularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  printf("supported %d granularity %zu\n", supported, granule);
  CUdeviceptr base;
  SAY("reserve a part of a granule", cuMemAddressReserve(&base, granule / 2, 0, 0, 0));
  DRV(cuMemAddressReserve(&base, 2 * granule, 0, 0, 0));
  printf("aligned %d\n", (int)(base % granule == 0));
  CUmemGenericAllocationHandle in_handle, out_handle;
  DRV(cuMemCreate(&in_handle, granule, &prop, 0));
  DRV(cuMemCreate(&out_handle, granule, &prop, 0));
  DRV(cuMemMap(base, granule, 0, in_handle, 0));
  DRV(cuMemMap(base + granule, granule, 0, out_handle, 0));
  SAY("map over a mapping", cuMemMap(base, granule, 0, out_handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DRV(cuMemSetAccess(base, 2 * granule, &access, 1));
  unsigned long long flags = 0;
  DRV(cuMemGetAccess(&flags, &prop.location, base + granule + 64));
  printf("access %llu\n", flags);
  CUmemGenericAllocationHandle found = 0;
  DRV(cuMemRetainAllocationHandle(&found, (void *)(base + granule + 4)));
  printf("retained the output's handle %d\n", (int)(found == out_handle));
  DRV(cuMemRelease(found));
  float *in = (float *)base, *out = (float *)(base + granule);
  CHECK(cudaMemcpy(in, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  twice_plus_one<<<(n + 255) / 256, 256>>>(out, in, n);
  CHECK(cudaGetLastError());
  std::vector<float> y(n);
  CHECK(cudaMemcpy(y.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  DRV(cuMemRelease(in_handle));             // mapped: released once unmapped
  SAY("free while mapped", cuMemAddressFree(base, 2 * granule));
  DRV(cuMemUnmap(base, 2 * granule));
  SAY("release twice", cuMemRelease(in_handle));
  DRV(cuMemRelease(out_handle));
  DRV(cuMemAddressFree(base, 2 * granule));
  write_file(argv[2], y.data(), n);
  printf("done\n");
  return 0;
}
