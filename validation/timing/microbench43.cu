// Forty-third batch (run_microbench43.py): the issue cost of the address and select arithmetic every
// kernel has beside its math (IMAD.WIDE, 64-bit shifted adds, LEA, ISETP/SEL, FSETP), f64 conversions,
// SHFL and IDP.4A, in the forty-second batch's setting (microbench_chains.h: eight independent chains
// of one operation a thread, 64 warps an SM).
// Build: nvcc -arch=sm_90 -cubin -o microbench43.cubin microbench43.cu

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "microbench_chains.h"


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
