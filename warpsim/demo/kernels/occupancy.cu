// Latency hiding (simt-execution.md, "Latency hiding: why a GPU wants
// thousands of threads"): a memory-bound kernel, c = a + s * b. Each thread
// handles LOADS elements and issues all their loads before using any, so
// more loads per thread keep more bytes in flight but need more registers.
// Registers per thread decide how many warps an SM keeps resident, and so
// does the dynamic shared memory a launch asks for (`staging`, unused here).
template <int LOADS>
__device__ void triad(const float* a, const float* b, float* c, float s, int n) {
    int first = blockIdx.x * blockDim.x * LOADS + threadIdx.x;
    float va[LOADS], vb[LOADS];
    #pragma unroll
    for (int k = 0; k < LOADS; ++k) {             // all loads first: in flight together
        int i = first + k * blockDim.x;
        va[k] = i < n ? a[i] : 0.f;
        vb[k] = i < n ? b[i] : 0.f;
    }
    #pragma unroll
    for (int k = 0; k < LOADS; ++k) {
        int i = first + k * blockDim.x;
        if (i < n) c[i] = va[k] + s * vb[k];
    }
}

extern "C" __global__ void triad_1(const float* a, const float* b, float* c, float s, int n) {
    extern __shared__ float staging[];
    triad<1>(a, b, c, s, n);
}

extern "C" __global__ void triad_8(const float* a, const float* b, float* c, float s, int n) {
    triad<8>(a, b, c, s, n);
}

extern "C" __global__ void triad_32(const float* a, const float* b, float* c, float s, int n) {
    triad<32>(a, b, c, s, n);
}

// The same work under a register budget: at least 8 blocks of 256 threads per
// SM leaves 65536 / 2048 = 32 registers per thread, and ptxas must fit them.
extern "C" __global__ void __launch_bounds__(256, 8)
triad_32_bounded(const float* a, const float* b, float* c, float s, int n) {
    triad<32>(a, b, c, s, n);
}
