// Microbenchmarks for the timing model's H200 preset (validation/timing/README.md).
// Built with nvcc -arch=sm_90 -cubin (build.sh). Every kernel name starts with mb_.
//
// Latency kernels run as one thread (<<<1,1>>>) and time a chain of n dependent
// operations with clock64(); the host runs each with n and 2n and takes the
// difference, which cancels the clock reads, the set-up and the loop exit.
// Inside the loop the chain is unrolled UNROLL times, so the loop's own
// compare-and-branch (independent of the chain) is spread over UNROLL ops.



#define UNROLL 32

__device__ __forceinline__ float ex2_ftz(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float rsqrt_ftz(float x) {
    float y;
    asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

extern "C" {

// ---------------------------------------------------------------- ALU latency
__global__ void mb_lat_fadd(float* out, long long* cycles, int n, float a, float b) {
    float x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(b));
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

__global__ void mb_lat_ffma(float* out, long long* cycles, int n, float a, float b) {
    float x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(b));
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

__global__ void mb_lat_imad(int* out, long long* cycles, int n, int a, int b) {
    int x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("mad.lo.s32 %0, %0, %1, %1;" : "+r"(x) : "r"(b));
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

__global__ void mb_lat_iadd(int* out, long long* cycles, int n, int a, int b) {
    int x = a, y = b;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("add.s32 %0, %0, %1;\n\txor.b32 %1, %1, %0;" : "+r"(x), "+r"(y));
    }
    long long t1 = clock64();
    out[0] = x + y; cycles[0] = t1 - t0;   // 2 dependent ops per step: an add and a xor (SASS: microbench.sass)
}

__global__ void mb_lat_dfma(double* out, long long* cycles, int n, double a, double b) {
    double x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("fma.rn.f64 %0, %0, %1, %1;" : "+d"(x) : "d"(b));
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

__global__ void mb_lat_ex2(float* out, long long* cycles, int n, float a, float b) {
    float x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) x = ex2_ftz(x);   // x -> 2^x: stays finite only a few steps, timing unaffected
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

__global__ void mb_lat_rsqrt(float* out, long long* cycles, int n, float a, float b) {
    float x = a;
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) x = rsqrt_ftz(x);   // x -> 1/sqrt(x): bounded
    }
    long long t1 = clock64();
    out[0] = x; cycles[0] = t1 - t0;
}

// --------------------------------------------------------------- memory chases
// Shared: s[] holds byte addresses (in the shared window) of the next element.
__global__ void mb_lat_shared(unsigned* out, long long* cycles, int n, int words, int stride_words) {
    extern __shared__ unsigned s[];
    for (int i = 0; i < words; ++i) {
        unsigned next = (unsigned)((i + stride_words) % words);
        s[i] = (unsigned)__cvta_generic_to_shared(&s[next]);
    }
    __syncthreads();
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[0]);
    long long t0 = clock64();
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a));
    }
    long long t1 = clock64();
    out[0] = a; cycles[0] = t1 - t0;
}

// Global: p[] holds 64-bit pointers; mode 0 = ld.ca (L1), 1 = ld.cg (L2 only).
// A first untimed pass over `warm` hops brings the working set into the cache.
__global__ void mb_lat_global(unsigned long long* out, long long* cycles, const unsigned long long* start,
                              int n, int warm, int mode) {
    unsigned long long p = (unsigned long long)start;
    if (mode == 0) {
        for (int i = 0; i < warm; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
    } else {
        for (int i = 0; i < warm; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    }
    p = (unsigned long long)start;
    long long t0 = clock64();
    if (mode == 0) {
        for (int i = 0; i < n; ++i) {
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
        }
    } else {
        for (int i = 0; i < n; ++i) {
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
        }
    }
    long long t1 = clock64();
    out[0] = p; cycles[0] = t1 - t0;
}

// L2 latency per address (near / far partition): for each of `count` addresses,
// a self-chase (the word holds its own address) of 2*UNROLL hops after a warm-up;
// cycles[k] = the cycles of UNROLL hops (the second half, so the line is in L2).
// The block's SM id goes to smid[0]. One thread.
__global__ void mb_l2_per_address(long long* cycles, unsigned* smid, const unsigned long long* base,
                                  int count, int stride_words) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    smid[0] = id;
    for (int k = 0; k < count; ++k) {
        unsigned long long p = (unsigned long long)(base + (long long)k * stride_words);
#pragma unroll
        for (int j = 0; j < 4; ++j) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
        long long t0 = clock64();
#pragma unroll
        for (int j = 0; j < UNROLL; ++j) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
        long long t1 = clock64();
        cycles[k] = (t1 - t0) + (long long)(p & 1);   // p & 1 is 0: keeps the chain live
    }
}

// ---------------------------------------------------------------- throughput
// Each thread runs ILP=8 independent chains, 64 operations per loop iteration, n iterations.
// All SMs, full occupancy.
// One loop iteration = 8 repetitions x 8 chains = 64 operations per thread.
#define TP_BODY(OP)                                                       \
    _Pragma("unroll 1") for (int i = 0; i < n; ++i) {                     \
        _Pragma("unroll") for (int r = 0; r < 8; ++r)                      \
            _Pragma("unroll") for (int k = 0; k < 8; ++k) { OP; }          \
    }

__global__ void mb_tp_ffma(float* out, int n, float b) {
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    TP_BODY(asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[k]) : "f"(b)))
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_fadd(float* out, int n, float b) {
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    TP_BODY(asm volatile("add.f32 %0, %0, %1;" : "+f"(x[k]) : "f"(b)))
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_dfma(double* out, int n, double b) {
    double x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    TP_BODY(asm volatile("fma.rn.f64 %0, %0, %1, %1;" : "+d"(x[k]) : "d"(b)))
    double s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_imad(int* out, int n, int b) {
    int x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    TP_BODY(asm volatile("mad.lo.s32 %0, %0, %1, %1;" : "+r"(x[k]) : "r"(b)))
    int s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_iadd(int* out, int n, int b) {
    int x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    // pairs (x[2j], x[2j+1]): add then xor, so ptxas cannot fold the chain; 8 ops a step
    _Pragma("unroll 1") for (int i = 0; i < n; ++i) {
        _Pragma("unroll") for (int r = 0; r < 8; ++r)
        _Pragma("unroll") for (int k = 0; k < 8; k += 2)
            asm volatile("add.s32 %0, %0, %1;\n\txor.b32 %1, %1, %0;" : "+r"(x[k]), "+r"(x[k + 1]));
    }
    int s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_lop(int* out, int n, int b) {
    int x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    _Pragma("unroll 1") for (int i = 0; i < n; ++i) {
        _Pragma("unroll") for (int r = 0; r < 8; ++r)
        _Pragma("unroll") for (int k = 0; k < 8; k += 2)
            asm volatile("shf.l.wrap.b32 %0, %0, %0, %1;\n\txor.b32 %1, %1, %0;" : "+r"(x[k]), "+r"(x[k + 1]));
    }
    int s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_ex2(float* out, int n, float b) {
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
    TP_BODY(x[k] = ex2_ftz(x[k]))
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void mb_tp_rsqrt(float* out, int n, float b) {
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k + 1;
    TP_BODY(x[k] = rsqrt_ftz(x[k]))
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Tensor: mma.sync m16n8k16 f16 x f16 -> f32, 4 independent accumulators per warp.
__global__ void mb_tp_hmma(float* out, int n) {
    unsigned a0 = 0x3c003c00u + threadIdx.x, a1 = a0, a2 = a0, a3 = a0, b0 = 0x3c003c00u, b1 = b0;
    float c[4][4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int r = 0; r < 4; ++r) c[q][r] = 0.f;
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int q = 0; q < 4; ++q)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(c[q][0]), "+f"(c[q][1]), "+f"(c[q][2]), "+f"(c[q][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    float s = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int r = 0; r < 4; ++r) s += c[q][r];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Shared-memory load throughput: conflict-free 32-bit loads, 8 independent per step.
__global__ void mb_tp_lds(float* out, int n) {
    __shared__ float s[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = i;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x & 255]);
    float acc[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[k] = 0.f;
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            float v;
            asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(base + k * 1024));
            acc[k] += v;
        }
    }
    float t = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) t += acc[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}

// ---------------------------------------------------------------- bandwidth
__global__ void mb_copy_f4(float4* __restrict__ dst, const float4* __restrict__ src, long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += stride) dst[i] = src[i];
}

// Read a buffer that fits in L2 `passes` times with ld.cg (L1 bypassed); one sum per thread.
__global__ void mb_l2_read(float* out, const float4* src, long long n4, int passes) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (int p = 0; p < passes; ++p) {
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += stride) {
            float4 v = __ldcg(&src[i]);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---------------------------------------------------------------- launch, clock
__global__ void mb_empty() {}

// Each block spins on FFMAs and records its clock64 and globaltimer deltas and its SM.
__global__ void mb_clock(long long* cyc, long long* ns, unsigned* smid, float* out, int n) {
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    long long c0 = clock64();
    float x = threadIdx.x, y = 1.0001f;
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) x = fmaf(x, y, 0.5f);
    }
    long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    if (threadIdx.x == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        cyc[blockIdx.x] = c1 - c0;
        ns[blockIdx.x] = (long long)(g1 - g0);
        smid[blockIdx.x] = id;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

}  // extern "C"
