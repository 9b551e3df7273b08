// Atomics: a shared-then-global histogram, warp-aggregated stream compaction,
// compare-and-swap loops, and every integer atomic on int, unsigned and 64-bit.

#define BINS 256

extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
    __shared__ unsigned local_bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local_bins[b]) atomicAdd(&bins[b], local_bins[b]);
}

// Keep x[i] > threshold: one atomicAdd per warp reserves room for its keepers.
extern "C" __global__ void compact(const int* x, int n, int threshold, int* out, int* count,
                                   int* slot_of) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = i < n && x[i] > threshold;
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    int lane = threadIdx.x % 32;
    int leader = __ffs(ballot) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(count, __popc(ballot));
    base = __shfl_sync(0xffffffffu, base, leader < 0 ? 0 : leader);
    int slot = base + __popc(ballot & ((1u << lane) - 1));
    if (keep) {
        out[slot] = x[i];
        slot_of[i] = slot;
    } else if (i < n) {
        slot_of[i] = -1;
    }
}

// atomicMax on floats through atomicCAS on their bits.
__device__ float atomic_max_float(float* address, float value) {
    int* bits = (int*)address;
    int old = *bits, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(bits, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

// A custom atomic: multiply (wrapping) via a CAS loop, on 32 and 64 bits.
__device__ unsigned atomic_mul(unsigned* address, unsigned value) {
    unsigned old = *address, assumed;
    do {
        assumed = old;
        old = atomicCAS(address, assumed, assumed * value);
    } while (assumed != old);
    return old;
}

__device__ unsigned long long atomic_mul64(unsigned long long* address, unsigned long long value) {
    unsigned long long old = *address, assumed;
    do {
        assumed = old;
        old = atomicCAS(address, assumed, assumed * value);
    } while (assumed != old);
    return old;
}

extern "C" __global__ void cas_loops(const float* x, const unsigned* factors, int n, int groups,
                                     float* maxima, unsigned* products, unsigned long long* products64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int g = i % groups;
    atomic_max_float(&maxima[g], x[i]);
    atomic_mul(&products[g], factors[i]);
    atomic_mul64(&products64[g], factors[i] | 0x100000000ull);
}

// Every lane hits one of `groups` counters per operation; `old` collects the
// values atomics returned (row per op) so the test can check they form a
// sequential history.
extern "C" __global__ void int_atomics(const int* x, int n, int groups, int* s32, unsigned* u32,
                                       int* old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int g = i % groups;
    int v = x[i];
    unsigned u = (unsigned)v;
    old[0 * n + i] = atomicAdd(&s32[0 * groups + g], (v & 0xFFFF) | 1);
    old[1 * n + i] = atomicSub(&s32[1 * groups + g], (v & 0xFF) | 1);
    old[2 * n + i] = atomicMin(&s32[2 * groups + g], v);
    old[3 * n + i] = atomicMax(&s32[3 * groups + g], v);
    old[4 * n + i] = atomicExch(&s32[4 * groups + g], v);
    old[5 * n + i] = atomicAnd(&s32[5 * groups + g], v | 0x01010101);
    old[6 * n + i] = atomicOr(&s32[6 * groups + g], v & 0x10204081);
    old[7 * n + i] = atomicXor(&s32[7 * groups + g], v);
    old[8 * n + i] = atomicInc(&u32[0 * groups + g], 13u);
    old[9 * n + i] = atomicDec(&u32[1 * groups + g], 13u);
    old[10 * n + i] = atomicMin(&u32[2 * groups + g], u);
    old[11 * n + i] = atomicMax(&u32[3 * groups + g], u);
    old[12 * n + i] = atomicAdd(&u32[4 * groups + g], u);
    old[13 * n + i] = atomicCAS(&u32[5 * groups + g], (unsigned)(i / groups), (unsigned)(i / groups + 1));
}

extern "C" __global__ void int64_atomics(const long long* x, int n, int groups,
                                         unsigned long long* u64, long long* s64,
                                         unsigned long long* old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int g = i % groups;
    long long v = x[i];
    unsigned long long u = (unsigned long long)v;
    old[0 * n + i] = atomicAdd(&u64[0 * groups + g], u);
    old[1 * n + i] = atomicExch(&u64[1 * groups + g], u);
    old[2 * n + i] = atomicAnd(&u64[2 * groups + g], u | 0x0101010101010101ull);
    old[3 * n + i] = atomicOr(&u64[3 * groups + g], u & 0x1020408010204080ull);
    old[4 * n + i] = atomicXor(&u64[4 * groups + g], u);
    old[5 * n + i] = atomicMin(&u64[5 * groups + g], u);
    old[6 * n + i] = atomicMax(&u64[6 * groups + g], u);
    old[7 * n + i] = (unsigned long long)atomicMin(&s64[0 * groups + g], v);
    old[8 * n + i] = (unsigned long long)atomicMax(&s64[1 * groups + g], v);
    old[9 * n + i] = atomicCAS(&u64[7 * groups + g], (unsigned long long)(i / groups),
                               (unsigned long long)(i / groups + 1));
}

// The same operations on shared memory, folded into global results by thread 0.
extern "C" __global__ void shared_atomics(const int* x, int n, int* result) {
    __shared__ int s[8];
    __shared__ unsigned u[3];
    __shared__ unsigned long long w[2];
    if (threadIdx.x == 0) {
        s[0] = 0; s[1] = 0x7fffffff; s[2] = (int)0x80000000; s[3] = 0; s[4] = -1; s[5] = 0; s[6] = 0; s[7] = 0;
        u[0] = 0; u[1] = 0; u[2] = 0xffffffffu;
        w[0] = 0; w[1] = 0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = x[i];
        atomicAdd(&s[0], v);
        atomicMin(&s[1], v);
        atomicMax(&s[2], v);
        atomicXor(&s[3], v);
        atomicAnd(&s[4], v | 0x11111111);
        atomicOr(&s[5], v & 0x01020408);
        atomicInc(&u[0], 6u);
        atomicDec(&u[1], 6u);
        atomicMin(&u[2], (unsigned)v);
        atomicAdd(&w[0], (unsigned long long)(unsigned)v);
        atomicExch(&s[6], 1234);
        atomicCAS(&s[7], 0, 99);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int* r = result + blockIdx.x * 14;
        for (int k = 0; k < 8; ++k) r[k] = s[k];
        r[8] = (int)u[0]; r[9] = (int)u[1]; r[10] = (int)u[2];
        r[11] = (int)(w[0] & 0xffffffffu); r[12] = (int)(w[0] >> 32);
        r[13] = blockDim.x;
    }
}
