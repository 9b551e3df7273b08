// Stream-ordered allocation from memory pools, managed-memory hints and peer calls on one device.
// Usage: memory_pools x.bin out.bin. Reads n floats, computes y = 3x + 1 into memory from the default
// pool (cudaMallocAsync), from a created pool (cudaMallocFromPoolAsync) and from a pool set as the
// device's, and x * x into managed memory after prefetches and advice; writes the three results
// and the squares. Prints pool attributes and the codes of refused calls as "<what> <code name>".
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void affine(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0f * x[i] + 1.0f;
}

__global__ void square(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("%s failed: %s\n", #call, cudaGetErrorName(e)); return 1; } } while (0)

static void code(const char *what, cudaError_t e) {
    printf("%s %s\n", what, cudaGetErrorName(e));
    cudaGetLastError();
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    FILE *f = fopen(argv[1], "rb");
    fseek(f, 0, SEEK_END);
    int n = ftell(f) / sizeof(float);
    fseek(f, 0, SEEK_SET);
    std::vector<float> x(n), out(4 * n);
    fread(x.data(), sizeof(float), n, f);
    fclose(f);
    size_t bytes = n * sizeof(float);
    int blocks = (n + 127) / 128, supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("pools supported %d\n", supported);

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaMemPool_t pool, current;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    printf("default is current %d\n", pool == current);
    unsigned long long threshold = ~0ull, value = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &value));
    printf("threshold %d\n", value == threshold);

    float *dx, *dy;
    CHECK(cudaMallocAsync(&dx, bytes, stream));
    CHECK(cudaMallocAsync(&dy, bytes, stream));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value));
    printf("used %llu\n", value);
    CHECK(cudaMemcpyAsync(dx, x.data(), bytes, cudaMemcpyHostToDevice, stream));
    affine<<<blocks, 128, 0, stream>>>(dx, dy, n);
    CHECK(cudaMemcpyAsync(out.data(), dy, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaFreeAsync(dy, stream));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value));
    printf("used after free %llu\n", value);
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &value));
    printf("used high %llu\n", value);

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t mine;
    CHECK(cudaMemPoolCreate(&mine, &props));
    float *dz;
    CHECK(cudaMallocFromPoolAsync((void **)&dz, bytes, mine, stream));
    affine<<<blocks, 128, 0, stream>>>(dx, dz, n);
    CHECK(cudaMemcpyAsync(out.data() + n, dz, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &value));
    printf("mine used %llu\n", value);
    CHECK(cudaFree(dz));                               // a synchronous free of pool memory
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &value));
    printf("mine used after free %llu\n", value);
    CHECK(cudaDeviceSetMemPool(0, mine));
    CHECK(cudaMallocAsync(&dz, bytes, stream));        // now from the device's pool: mine
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &value));
    printf("mine used again %llu\n", value);
    CHECK(cudaMemcpyPeerAsync(dz, 0, dx, 0, bytes, stream));
    affine<<<blocks, 128, 0, stream>>>(dz, dz, n);
    printf("peer copy to host memory %s\n",
           cudaGetErrorName(cudaMemcpyPeer(out.data() + 2 * n, 0, dz, 0, bytes)));   // refused: not a device pointer
    CHECK(cudaMemcpyPeer(dx, 0, dz, 0, bytes));
    CHECK(cudaMemcpy(out.data() + 2 * n, dx, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFreeAsync(dz, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemPoolTrimTo(mine, 0));
    CHECK(cudaDeviceSetMemPool(0, pool));
    CHECK(cudaMemPoolDestroy(mine));
    CHECK(cudaFreeAsync(dx, stream));

    float *managed;
    CHECK(cudaMallocManaged(&managed, bytes));
    for (int i = 0; i < n; i++) managed[i] = x[i];
    cudaMemLocation device = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetPreferredLocation, device));
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetReadMostly, device));
    CHECK(cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachGlobal));
    CHECK(cudaMemPrefetchAsync(managed, bytes, device, 0, stream));
    square<<<blocks, 128, 0, stream>>>(managed, n);
    CHECK(cudaMemPrefetchAsync(managed, bytes, host, 0, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; i++) out[3 * n + i] = managed[i];

    int can = -1;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 0));
    printf("can access peer %d\n", can);
    float *plain;
    CHECK(cudaMalloc(&plain, bytes));
    code("prefetch of cudaMalloc memory", cudaMemPrefetchAsync(plain, bytes, device, 0, stream));
    code("prefetch past the allocation", cudaMemPrefetchAsync(managed, bytes + 4, device, 0, stream));
    code("prefetch to device 1", cudaMemPrefetchAsync(managed, bytes, cudaMemLocation{cudaMemLocationTypeDevice, 1}, 0, stream));
    code("advice 99", cudaMemAdvise(managed, bytes, (cudaMemoryAdvise)99, device));
    code("peer access to device 1", cudaDeviceEnablePeerAccess(1, 0));
    code("pool of device 1", cudaDeviceGetDefaultMemPool(&current, 1));
    code("destroy the default pool", cudaMemPoolDestroy(pool));
    code("set used now", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value));
    props.location.id = 3;
    code("pool on device 3", cudaMemPoolCreate(&mine, &props));
    CHECK(cudaFree(managed));
    CHECK(cudaFree(plain));
    CHECK(cudaStreamDestroy(stream));

    f = fopen(argv[2], "wb");
    fwrite(out.data(), sizeof(float), 4 * n, f);
    fclose(f);
    printf("done\n");
    return 0;
}
