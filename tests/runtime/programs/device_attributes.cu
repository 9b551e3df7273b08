// The device attributes the CUDA samples' helper code reads before anything else
// (findCudaDevice: compute mode, compute capability, SM count, clock rate), and the
// cudaDeviceProp fields with the same values: each printed as "name code value".
#include <cstdio>
#include <cuda_runtime.h>

static void attribute(const char *name, cudaDeviceAttr attr) {
    int value = -7;
    cudaError_t code = cudaDeviceGetAttribute(&value, attr, 0);
    printf("%s %s %d\n", name, cudaGetErrorName(code), value);
}

int main() {
    attribute("ComputeMode", cudaDevAttrComputeMode);
    attribute("KernelExecTimeout", cudaDevAttrKernelExecTimeout);
    attribute("ComputeCapabilityMajor", cudaDevAttrComputeCapabilityMajor);
    attribute("MultiProcessorCount", cudaDevAttrMultiProcessorCount);
    attribute("ClockRate", cudaDevAttrClockRate);
    attribute("TccDriver", cudaDevAttrTccDriver);
    attribute("StreamPrioritiesSupported", cudaDevAttrStreamPrioritiesSupported);
    attribute("GlobalL1CacheSupported", cudaDevAttrGlobalL1CacheSupported);
    attribute("LocalL1CacheSupported", cudaDevAttrLocalL1CacheSupported);
    attribute("IsMultiGpuBoard", cudaDevAttrIsMultiGpuBoard);
    attribute("HostNativeAtomicSupported", cudaDevAttrHostNativeAtomicSupported);
    attribute("PageableMemoryAccess", cudaDevAttrPageableMemoryAccess);
    attribute("ComputePreemptionSupported", cudaDevAttrComputePreemptionSupported);
    attribute("CanUseHostPointerForRegisteredMem", cudaDevAttrCanUseHostPointerForRegisteredMem);
    attribute("HostRegisterSupported", cudaDevAttrHostRegisterSupported);
    attribute("DirectManagedMemAccessFromHost", cudaDevAttrDirectManagedMemAccessFromHost);
    cudaDeviceProp prop;
    printf("props %s\n", cudaGetErrorName(cudaGetDeviceProperties(&prop, 0)));
    printf("prop tccDriver %d streamPrioritiesSupported %d globalL1CacheSupported %d "
           "localL1CacheSupported %d isMultiGpuBoard %d hostNativeAtomicSupported %d "
           "pageableMemoryAccess %d computePreemptionSupported %d "
           "canUseHostPointerForRegisteredMem %d directManagedMemAccessFromHost %d "
           "hostRegisterSupported %d\n",
           prop.tccDriver, prop.streamPrioritiesSupported, prop.globalL1CacheSupported,
           prop.localL1CacheSupported, prop.isMultiGpuBoard, prop.hostNativeAtomicSupported,
           prop.pageableMemoryAccess, prop.computePreemptionSupported,
           prop.canUseHostPointerForRegisteredMem, prop.directManagedMemAccessFromHost,
           prop.hostRegisterSupported);
    return 0;
}
