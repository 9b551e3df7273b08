// Every device attribute code (deviceQuery reads dozens), the ones the CUDA samples' helper code
// reads before anything else (findCudaDevice: compute mode, compute capability, SM count, clock
// rate), and the cudaDeviceProp fields with the same values: each printed as "name code value".
#include <cstdio>
#include <cuda_runtime.h>

static void attribute(const char *name, cudaDeviceAttr attr) {
    int value = -7;
    cudaError_t code = cudaDeviceGetAttribute(&value, attr, 0);
    printf("%s %s %d\n", name, cudaGetErrorName(code), value);
}

int main() {
    for (int code = 1; code <= 160; ++code) {         // every code: "attr code error value"
        int value = -7;
        cudaError_t error = cudaDeviceGetAttribute(&value, (cudaDeviceAttr)code, 0);
        printf("attr %d %s %d\n", code, cudaGetErrorName(error), value);
    }
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
    printf("prop maxTexture1D %d maxTexture2D1 %d maxTexture3D2 %d maxSurface2DLayered2 %d surfaceAlignment %zu "
           "memoryBusWidth %d asyncEngineCount %d accessPolicyMaxWindowSize %d ipcEventSupported %d\n",
           prop.maxTexture1D, prop.maxTexture2D[1], prop.maxTexture3D[2], prop.maxSurface2DLayered[2],
           prop.surfaceAlignment, prop.memoryBusWidth, prop.asyncEngineCount, prop.accessPolicyMaxWindowSize,
           prop.ipcEventSupported);
    return 0;
}
