// Forty-second batch (run_microbench43.py): the issue cost of the arithmetic opcodes the model has no
// measurement for. Set 4's pipe_half2 (HFMA2 chains) ran at 57.5% issue active with math-pipe throttle
// stalls where the model, which issues HFMA2 on the FP32 pipe at FFMA's rate, put 90.5%. Each kernel
// here runs eight independent chains of one operation a thread (unrolled four steps, 64 warps an SM),
// so a pipe's throughput bounds it: the op's cycles a warp instruction in a sub-partition are the SM's
// cycles over its warp instructions of that opcode per sub-partition. Where an operation needs a second
// instruction to chain (POPC's result added back), the row names both.
// Build: nvcc -arch=sm_90 -cubin -o microbench43.cubin microbench43.cu

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CHAINS(T, INIT, STEP, FOLD)                                                    \
    int t = blockIdx.x * blockDim.x + threadIdx.x;                                      \
    T a0 = INIT(0), a1 = INIT(1), a2 = INIT(2), a3 = INIT(3);                           \
    T a4 = INIT(4), a5 = INIT(5), a6 = INIT(6), a7 = INIT(7);                           \
    _Pragma("unroll 4")                                                                 \
    for (int s = 0; s < steps; ++s) {                                                   \
        a0 = STEP(a0); a1 = STEP(a1); a2 = STEP(a2); a3 = STEP(a3);                     \
        a4 = STEP(a4); a5 = STEP(a5); a6 = STEP(a6); a7 = STEP(a7);                     \
    }                                                                                   \
    out[t] = FOLD(FOLD(FOLD(a0, a1), FOLD(a2, a3)), FOLD(FOLD(a4, a5), FOLD(a6, a7)));


#define U_INIT(k) (0x9E3779B9u * ((k) + 1) + threadIdx.x)
#define U_FOLD(x, y) ((x) ^ (y))
#define L_INIT(k) (0x9E3779B97F4A7C15ull * ((k) + 1) + threadIdx.x)
#define L_FOLD(x, y) ((x) ^ (y))
#define F_INIT(k) (0.25f * (k) + 1e-3f * (threadIdx.x & 31))
#define F_FOLD(x, y) ((x) + (y))
#define INT_KERNEL(NAME, EXPR)                                                          \
extern "C" __global__ void mb43_##NAME(unsigned* out, unsigned m, unsigned c, int steps) { \
    CHAINS(unsigned, U_INIT, EXPR, U_FOLD)                                              \
}
#define LONG_KERNEL(NAME, EXPR)                                                         \
extern "C" __global__ void mb43_##NAME(unsigned long long* out, unsigned m, unsigned c, int steps) { \
    CHAINS(unsigned long long, L_INIT, EXPR, L_FOLD)                                    \
}
#define FLOAT_KERNEL(NAME, EXPR)                                                        \
extern "C" __global__ void mb43_##NAME(float* out, float m, float c, int steps) {       \
    CHAINS(float, F_INIT, EXPR, F_FOLD)                                                 \
}
#define S_WIDE(a) ((unsigned long long)(unsigned)(a) * m + (a))
#define S_ADD64(a) ((a) + ((a) << 13) + m)
#define S_LEA(a) (((a) << 3) + m)
#define S_SEL(a) ((a) > m ? (a) - c : (a) + m)
#define S_SHFL(a) (__shfl_xor_sync(0xffffffffu, a, 1) + m)
#define S_DP4A(a) ((unsigned)__dp4a((int)(a), (int)m, (int)c))
#define S_I2F64(a) ((unsigned)(int)((double)(int)(a) * 0.75))
#define S_FSEL(a) ((a) > m ? (a) * c : (a) + m)
LONG_KERNEL(imad_wide, S_WIDE)
LONG_KERNEL(add64, S_ADD64)
INT_KERNEL(lea, S_LEA)
INT_KERNEL(isetp_sel, S_SEL)
INT_KERNEL(shfl, S_SHFL)
INT_KERNEL(dp4a, S_DP4A)
INT_KERNEL(i2f64, S_I2F64)
FLOAT_KERNEL(fsetp_fsel, S_FSEL)
