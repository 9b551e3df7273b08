// Stream, event and device queries: flags and priorities read back, events recorded with flags
// around a kernel, the capture-mode exchange, device choice and PCI identity.
// Usage: stream_queries x.bin out.bin. Writes 2x + 1 computed on a prioritized non-blocking stream.
// Prints "<what> <value>" lines, and "<what> <code name>" for refused calls.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void twice_plus_one(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
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
    std::vector<float> x(n), y(n);
    fread(x.data(), sizeof(float), n, f);
    fclose(f);

    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t high, low, plain;
    CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest - 10));   // clamped
    CHECK(cudaStreamCreateWithPriority(&low, cudaStreamDefault, least));
    CHECK(cudaStreamCreate(&plain));
    unsigned int flags;
    int priority, device;
    unsigned long long id_high, id_low;
    CHECK(cudaStreamGetFlags(high, &flags));
    CHECK(cudaStreamGetPriority(high, &priority));
    printf("high flags %u priority is greatest %d\n", flags, priority == greatest);
    CHECK(cudaStreamGetFlags(low, &flags));
    CHECK(cudaStreamGetPriority(low, &priority));
    printf("low flags %u priority is least %d\n", flags, priority == least);
    CHECK(cudaStreamGetPriority(plain, &priority));
    printf("plain priority %d\n", priority);
    CHECK(cudaStreamGetDevice(high, &device));
    printf("device %d\n", device);
    CHECK(cudaStreamGetId(high, &id_high));
    CHECK(cudaStreamGetId(low, &id_low));
    printf("ids differ %d\n", id_high != id_low);

    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpyAsync(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, high));
    CHECK(cudaEventRecordWithFlags(start, high, cudaEventRecordDefault));
    twice_plus_one<<<(n + 127) / 128, 128, 0, high>>>(dx, dy, n);
    printf("external record outside a capture %s\n",
           cudaGetErrorName(cudaEventRecordWithFlags(stop, high, cudaEventRecordExternal)));
    cudaGetLastError();
    CHECK(cudaEventRecordWithFlags(stop, high, cudaEventRecordDefault));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("elapsed positive %d\n", ms > 0);
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));

    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("previous mode %d\n", (int)mode);
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("restored from %d\n", (int)mode);

    cudaDeviceProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.major = 9;
    int chosen = -1, by_bus = -1;
    CHECK(cudaChooseDevice(&chosen, &prop));
    printf("chosen %d\n", chosen);
    CHECK(cudaInitDevice(0, 0, 0));
    char bus[32];
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), 0));
    CHECK(cudaDeviceGetByPCIBusId(&by_bus, bus));
    printf("bus id round trip %d\n", by_bus);

    cudaStreamAttrValue window = {}, read_back = {};
    window.accessPolicyWindow.base_ptr = dy;
    window.accessPolicyWindow.num_bytes = n * sizeof(float);
    window.accessPolicyWindow.hitRatio = 0.75f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(plain, cudaStreamAttributeAccessPolicyWindow, &window));
    CHECK(cudaStreamCopyAttributes(low, plain));
    CHECK(cudaStreamGetAttribute(low, cudaStreamAttributeAccessPolicyWindow, &read_back));
    printf("window copied %d ratio %g\n", read_back.accessPolicyWindow.base_ptr == (void *)dy &&
           read_back.accessPolicyWindow.num_bytes == n * sizeof(float), read_back.accessPolicyWindow.hitRatio);
    code("reset persisting lines", cudaCtxResetPersistingL2Cache());
    CHECK(cudaStreamGetAttribute(high, cudaStreamAttributePriority, &read_back));
    printf("priority attribute is greatest %d\n", read_back.priority == greatest);
    const char *kernel_name = nullptr;
    CHECK(cudaFuncGetName(&kernel_name, twice_plus_one));
    printf("kernel name %s\n", kernel_name);
    code("stream attribute 2", cudaStreamSetAttribute(plain, (cudaStreamAttrID)2, &window));
    CHECK(cudaStreamDestroy(plain));
    code("record with flags 4", cudaEventRecordWithFlags(start, high, 4));
    code("stream with flags 8", cudaStreamCreateWithFlags(&plain, 8));
    code("init device 1", cudaInitDevice(1, 0, 0));
    code("bus id of device 1", cudaDeviceGetPCIBusId(bus, sizeof(bus), 1));
    code("device on another bus", cudaDeviceGetByPCIBusId(&by_bus, "0000:41:00.0"));

    CHECK(cudaStreamDestroy(high));
    CHECK(cudaStreamDestroy(low));
    f = fopen(argv[2], "wb");
    fwrite(y.data(), sizeof(float), n, f);
    fclose(f);
    printf("done\n");
    return 0;
}
