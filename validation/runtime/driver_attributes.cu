// Every CUdevice_attribute of this CUDA's cuda.h through cuDeviceGetAttribute, and what the runtime's
// cudaDeviceGetAttribute gives for the same number: "number driver-code driver-value runtime-code
// runtime-value" a line. Run on a GPU (driver_attributes_native.txt) and under warpsim.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
int main() {
  cuInit(0);
  CUdevice d;
  cuDeviceGet(&d, 0);
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
    int v = -1, w = -1;
    CUresult r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, d);
    cudaError_t e = cudaDeviceGetAttribute(&w, (cudaDeviceAttr)a, 0);
    printf("%d %d %d %d %d\n", a, (int)r, v, (int)e, w);
  }
  return 0;
}
