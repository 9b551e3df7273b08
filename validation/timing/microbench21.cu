// Twenty-first batch (run_microbench21.py): HBM latency under load. One CTA per SM (its dynamic
// shared memory keeps a second out). Lane 0 of warp 0 chases a random chain of 128-byte lines over
// 256 MB (each line visited once: every L2 lookup misses) while the CTA's other `streamers` warps move
// data as fast as they can until every chaser is done:
//   mode 0: read float4s, `ilp` (1, 2 or 4) independent loads in flight a lane (a coalesced stream);
//   mode 1: copy float4s (read and write, ilp 1);
//   mode 2: write one 128-byte line a warp, consecutive warps a row of `row_lines` lines apart (a
//           transpose's output rows; 128 lines: 16 KB);
//   mode 3: write float4s, coalesced;
//   mode 4: read one 128-byte line a warp, consecutive warps a row apart (as mode 2).
// The chaser's cycles and nanoseconds a hop give the loaded latency; the streamers' bytes over their
// span (globaltimer) the load. Build: nvcc -arch=sm_90 -cubin -o microbench21.cubin microbench21.cu

__device__ __forceinline__ unsigned long long mb21_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int ILP>
__device__ __forceinline__ float mb21_read(const float4* src, unsigned& i, unsigned step, unsigned n4) {
    float4 v[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
        unsigned k = i + j * step;
        if (k >= n4) k -= n4;
        v[j] = src[k];
    }
    i += ILP * step;
    while (i >= n4) i -= n4;
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < ILP; ++j) s += v[j].x + v[j].y + v[j].z + v[j].w;
    return s;
}

extern "C" __global__ void __launch_bounds__(1024, 2) mb21_loaded(const unsigned* __restrict__ chain, const unsigned* __restrict__ starts,
                                       int warm, int hops, unsigned long long* lat,
                                       const float4* __restrict__ src, float4* dst, long long n4, int mode,
                                       int ilp, int row_lines, volatile int* done, unsigned long long* bytes,
                                       unsigned long long* span, float* sink) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp == 0) {
        if (lane == 0) {
            unsigned p = starts[blockIdx.x];
            for (int h = 0; h < warm; ++h) p = chain[p];
            long long c0 = clock64();
            unsigned long long t0 = mb21_ns();
            for (int h = 0; h < hops; ++h) p = chain[p];
            long long c1 = clock64();
            unsigned long long t1 = mb21_ns();
            lat[blockIdx.x * 3 + 0] = (unsigned long long)(c1 - c0);
            lat[blockIdx.x * 3 + 1] = t1 - t0;
            lat[blockIdx.x * 3 + 2] = p;
            __threadfence();
            atomicAdd((int*)done, 1);
        }
        return;
    }
    const unsigned per_cta = blockDim.x / 32 - 1;
    const unsigned warps = gridDim.x * per_cta;
    const unsigned w = blockIdx.x * per_cta + warp - 1;
    const unsigned step = warps * 32, m4 = (unsigned)n4;
    unsigned i = w * 32 + lane;
    unsigned moved = 0;
    float acc = 0.f;
    if (lane == 0) atomicMin(&span[0], mb21_ns());
    float* out = (float*)dst;
    const unsigned rows = m4 / (8 * row_lines);       // rows of `row_lines` 128-byte lines
    unsigned r = w;
    while (true) {
        for (int round = 0; round < 16; ++round) {
            if (mode == 0) {
                if (ilp == 1) acc += mb21_read<1>(src, i, step, m4);
                else if (ilp == 2) acc += mb21_read<2>(src, i, step, m4);
                else acc += mb21_read<4>(src, i, step, m4);
                moved += 16 * ilp;
            } else if (mode == 1) {
                dst[i] = src[i];
                i += step;
                if (i >= m4) i -= m4;
                moved += 32;
            } else if (mode == 2 || mode == 4) {
                unsigned row = r % rows, chunk = (r / rows) % row_lines;
                size_t at = (size_t)row * row_lines * 32 + chunk * 32 + lane;
                if (mode == 2) out[at] = (float)lane;
                else acc += ((const float*)src)[at];
                r += warps;
                moved += 4;
            } else {
                dst[i] = make_float4(acc, acc, acc, acc);
                i += step;
                if (i >= m4) i -= m4;
                moved += 16;
            }
        }
        if (*done >= (int)gridDim.x) break;
    }
    if (acc == 12345.f) sink[0] = acc;
    if (lane == 0) {
        atomicAdd(bytes, (unsigned long long)moved * 32);
        atomicMax(&span[1], mb21_ns());
    }
}
