// Fifteenth batch (run_microbench15.py): which pipe the conversions issue to on sm_90, and at what
// rate. Each kernel runs `iters` rounds of eight independent conversions of one kind per thread
// (one CTA of 1,024 threads per SM); ncu's sm__inst_executed_pipe_* count where they went and the
// time gives the rate. mb15_ex2 (MUFU.EX2) and mb15_ffma are the references.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CONVERT_KERNEL(NAME, TYPE, INIT, STEP, FOLD)                              \
    extern "C" __global__ void NAME(float* out, int iters) {                      \
        TYPE v[8];                                                                \
        unsigned acc = 0;                                                         \
        _Pragma("unroll") for (int j = 0; j < 8; ++j) v[j] = INIT;                \
        for (int i = 0; i < iters; ++i) {                                         \
            _Pragma("unroll") for (int j = 0; j < 8; ++j) { STEP; }               \
        }                                                                         \
        _Pragma("unroll") for (int j = 0; j < 8; ++j) { FOLD; }                   \
        if (acc == 0x12345u) out[blockIdx.x] = (float)acc;                        \
    }

// f32 pair -> f16x2 and back: F2FP.F16.F32.PACK_AB, then HADD2.F32 widening
CONVERT_KERNEL(mb15_f2fp_f16, float, threadIdx.x * 0.001f + j,
               { __half2 h = __floats2half2_rn(v[j], v[j] + 1.0f); v[j] = __low2float(h) * 1.0001f; },
               acc ^= __float_as_uint(v[j]))
// f32 pair -> bf16x2: F2FP.BF16.F32.PACK_AB
CONVERT_KERNEL(mb15_f2fp_bf16, float, threadIdx.x * 0.001f + j,
               { __nv_bfloat162 h = __floats2bfloat162_rn(v[j], v[j] + 1.0f); v[j] = __low2float(h) * 1.0001f; },
               acc ^= __float_as_uint(v[j]))
// int -> float -> int: I2FP.F32.S32 then F2I.TRUNC.NTZ
CONVERT_KERNEL(mb15_i2f_f2i, int, (int)threadIdx.x + j,
               { v[j] = (int)((float)v[j] * 1.5f) + 1; },
               acc ^= (unsigned)v[j])
// f32 -> f64 -> f32: F2F.F64.F32, F2F.F32.F64
CONVERT_KERNEL(mb15_f2f64, float, threadIdx.x * 0.001f + j,
               { double d = (double)v[j]; v[j] = (float)(d * 1.0000001); },
               acc ^= __float_as_uint(v[j]))
// round to integral: FRND
CONVERT_KERNEL(mb15_frnd, float, threadIdx.x * 0.37f + j,
               { v[j] = rintf(v[j]) * 1.37f + 0.5f; },
               acc ^= __float_as_uint(v[j]))
// MUFU.EX2 reference
CONVERT_KERNEL(mb15_ex2, float, threadIdx.x * 1e-4f + j * 1e-3f,
               { v[j] = exp2f(v[j]) * 0.25f; },
               acc ^= __float_as_uint(v[j]))
// FFMA reference
CONVERT_KERNEL(mb15_ffma, float, threadIdx.x * 1e-4f + j,
               { v[j] = fmaf(v[j], 1.0001f, 0.5f); },
               acc ^= __float_as_uint(v[j]))
