// Twenty-third microbenchmark batch: do the CTAs an SM holds stay in step, wave after wave?
// Tile transposes through shared memory (one barrier), and the same tiles done `rounds` times a
// CTA (two barriers a round); thread (0, 0) of each CTA records its SM, its start and its end
// (%globaltimer, ns) with one store after its own last store. run_microbench23.py launches them.
#include <cstdint>

__device__ __forceinline__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned sm_id() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

template <int PAD>
__device__ void mb23_tiles(float* out, const float* in, int n, int rounds, unsigned long long* stamps) {
    __shared__ float tile[32][32 + PAD];
    bool recorder = threadIdx.x == 0 && threadIdx.y == 0;    // one thread reads the timer, once at each end
    unsigned long long start = recorder ? now_ns() : 0;
    int cta = blockIdx.y * gridDim.x + blockIdx.x;
    int tiles_x = n / 32;
    for (int r = 0; r < rounds; ++r) {
        int t = cta * rounds + r;
        int bx = t % tiles_x, by = t / tiles_x;
        int x = bx * 32 + threadIdx.x, y = by * 32 + threadIdx.y;
        for (int j = 0; j < 32; j += blockDim.y) tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * n + x];
        __syncthreads();
        x = by * 32 + threadIdx.x;
        y = bx * 32 + threadIdx.y;
        for (int j = 0; j < 32; j += blockDim.y) out[(long long)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
        if (rounds > 1) __syncthreads();
    }
    if (recorder) {
        unsigned long long* s = stamps + 3 * (long long)cta;
        s[0] = sm_id();
        s[1] = start;
        s[2] = now_ns();
    }
}

extern "C" __global__ void mb23_conflicted(float* out, const float* in, int n, int rounds, unsigned long long* stamps) {
    mb23_tiles<0>(out, in, n, rounds, stamps);
}
extern "C" __global__ void mb23_padded(float* out, const float* in, int n, int rounds, unsigned long long* stamps) {
    mb23_tiles<1>(out, in, n, rounds, stamps);
}
