// Forty-second batch (run_microbench42.py): the issue cost of the arithmetic opcodes the model has no
// measurement for. Set 4's pipe_half2 (HFMA2 chains) ran at 57.5% issue active with math-pipe throttle
// stalls where the model, which issues HFMA2 on the FP32 pipe at FFMA's rate, put 90.5%. Each kernel
// here runs eight independent chains of one operation a thread (unrolled four steps, 64 warps an SM),
// so a pipe's throughput bounds it: the op's cycles a warp instruction in a sub-partition are the SM's
// cycles over its warp instructions of that opcode per sub-partition. Where an operation needs a second
// instruction to chain (POPC's result added back), the row names both.
// Build: nvcc -arch=sm_90 -cubin -o microbench42.cubin microbench42.cu

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "microbench_chains.h"

// ---- 16-bit floats, two a register
#define H2_INIT(k) __float2half2_rn(0.25f * (k) + 1e-3f * (threadIdx.x & 31))
#define H2_FOLD(x, y) __hadd2(x, y)
extern "C" __global__ void mb42_hfma2(__half2* out, __half2 m, __half2 c, int steps) {
#define STEP(a) __hfma2(a, m, c)
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_hadd2(__half2* out, __half2 m, __half2 c, int steps) {
#define STEP(a) __hadd2(a, c)
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_hmul2(__half2* out, __half2 m, __half2 c, int steps) {
#define STEP(a) __hmul2(a, m)
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_hmin2(__half2* out, __half2 m, __half2 c, int steps) {
#define STEP(a) __hadd2(__hmin2(a, m), c)
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_hfma2_imm(__half2* out, __half2 m, __half2 c, int steps) {   // set 4's form
#define STEP(a) __hfma2(a, __float2half2_rn(0.99f), __float2half2_rn(0.01f))
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_hadd2_imm(__half2* out, __half2 m, __half2 c, int steps) {
#define STEP(a) __hadd2(a, __float2half2_rn(0.01f))
    CHAINS(__half2, H2_INIT, STEP, H2_FOLD)
#undef STEP
}
#define B2_INIT(k) __float2bfloat162_rn(0.25f * (k) + 1e-3f * (threadIdx.x & 31))
#define B2_FOLD(x, y) __hadd2(x, y)
extern "C" __global__ void mb42_bfma2(__nv_bfloat162* out, __nv_bfloat162 m, __nv_bfloat162 c, int steps) {
#define STEP(a) __hfma2(a, m, c)
    CHAINS(__nv_bfloat162, B2_INIT, STEP, B2_FOLD)
#undef STEP
}

// ---- 32-bit floats
#define F_INIT(k) (0.25f * (k) + 1e-3f * (threadIdx.x & 31))
#define F_FOLD(x, y) ((x) + (y))
extern "C" __global__ void mb42_ffma(float* out, float m, float c, int steps) {
#define STEP(a) fmaf(a, m, c)
    CHAINS(float, F_INIT, STEP, F_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_fmin(float* out, float m, float c, int steps) {
#define STEP(a) (fminf(a, m) + c)
    CHAINS(float, F_INIT, STEP, F_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_f2h2f(float* out, float m, float c, int steps) {     // F2FP / HADD2.F32
#define STEP(a) __half2float(__float2half_rn(a))
    CHAINS(float, F_INIT, STEP, F_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_frnd(float* out, float m, float c, int steps) {
#define STEP(a) rintf(a * m)
    CHAINS(float, F_INIT, STEP, F_FOLD)
#undef STEP
}

// ---- 32-bit integers
#define U_INIT(k) (0x9E3779B9u * ((k) + 1) + threadIdx.x)
#define U_FOLD(x, y) ((x) ^ (y))
#define INT_KERNEL(NAME, EXPR)                                                          \
extern "C" __global__ void mb42_##NAME(unsigned* out, unsigned m, unsigned c, int steps) { \
    CHAINS(unsigned, U_INIT, EXPR, U_FOLD)                                              \
}
#define S_IMAD(a) ((a) * m + c)
#define S_MULHI(a) (__umulhi(a, m) + (a))
#define S_SHF(a) __funnelshift_l(a, m, 5)
#define S_PRMT(a) __byte_perm(a, m, 0x5140)
#define S_IMIN(a) min((a) + c, m)
#define S_POPC(a) (__popc(a) + (a))
#define S_CLZ(a) (__clz(a) + (a))
#define S_BREV(a) (__brev(a) + m)
#define S_SAD(a) __sad(a, m, c)
#define S_IABS(a) ((unsigned)abs((int)(a)) + c)
#define S_I2F(a) ((unsigned)__float2uint_rz(__uint2float_rn(a) * 0.75f))
INT_KERNEL(imad, S_IMAD)
INT_KERNEL(mulhi, S_MULHI)
INT_KERNEL(shf, S_SHF)
INT_KERNEL(prmt, S_PRMT)
INT_KERNEL(imin, S_IMIN)
INT_KERNEL(popc, S_POPC)
INT_KERNEL(clz, S_CLZ)
INT_KERNEL(brev, S_BREV)
INT_KERNEL(sad, S_SAD)
INT_KERNEL(iabs, S_IABS)
INT_KERNEL(i2f, S_I2F)

// ---- 64-bit floats
#define D_INIT(k) (0.25 * (k) + 1e-3 * (threadIdx.x & 31))
#define D_FOLD(x, y) ((x) + (y))
extern "C" __global__ void mb42_dfma(double* out, double m, double c, int steps) {
#define STEP(a) fma(a, m, c)
    CHAINS(double, D_INIT, STEP, D_FOLD)
#undef STEP
}
extern "C" __global__ void mb42_d2f(double* out, double m, double c, int steps) {     // F2F.F32.F64 and back
#define STEP(a) ((double)(float)(a * m))
    CHAINS(double, D_INIT, STEP, D_FOLD)
#undef STEP
}
