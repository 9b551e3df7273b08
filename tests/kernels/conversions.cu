// Conversions of NaN, infinities, out-of-range and halfway values: float to
// integer in each rounding mode (PTX saturates, NaN -> 0), double to float
// and integer to float with directed rounding, __half and __nv_bfloat16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void float_to_int(const float* X, int* s32, unsigned* u32, long long* s64,
                                        unsigned long long* u64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = X[i];
    s32[0 * n + i] = __float2int_rn(x);
    s32[1 * n + i] = __float2int_rz(x);
    s32[2 * n + i] = __float2int_rd(x);
    s32[3 * n + i] = __float2int_ru(x);
    s32[4 * n + i] = (int)x;
    u32[0 * n + i] = __float2uint_rz(x);
    u32[1 * n + i] = __float2uint_rn(x);
    u32[2 * n + i] = (unsigned)x;
    s64[0 * n + i] = __float2ll_rz(x);
    s64[1 * n + i] = (long long)x;
    s64[2 * n + i] = __float2ll_rd(x);
    u64[0 * n + i] = __float2ull_rz(x);
    u64[1 * n + i] = __float2ull_ru(x);
}

extern "C" __global__ void to_float(const double* D, const int* K, const long long* L, float* out,
                                    double* wide, int* from_double, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double d = D[i];
    int k = K[i];
    long long l = L[i];
    out[0 * n + i] = __double2float_rn(d);
    out[1 * n + i] = __double2float_rz(d);
    out[2 * n + i] = __double2float_rd(d);
    out[3 * n + i] = __double2float_ru(d);
    out[4 * n + i] = (float)d;
    out[5 * n + i] = __int2float_rn(k);
    out[6 * n + i] = __int2float_rz(k);
    out[7 * n + i] = __int2float_rd(k);
    out[8 * n + i] = __int2float_ru(k);
    out[9 * n + i] = __uint2float_rz((unsigned)k);
    out[10 * n + i] = __ll2float_rn(l);
    out[11 * n + i] = __ll2float_rz(l);
    out[12 * n + i] = (float)(unsigned long long)l;
    wide[0 * n + i] = __ll2double_rn(l);
    wide[1 * n + i] = __ll2double_rz(l);
    wide[2 * n + i] = (double)k;
    wide[3 * n + i] = (double)__double2float_rn(d);
    from_double[0 * n + i] = __double2int_rz(d);
    from_double[1 * n + i] = __double2int_rn(d);
    from_double[2 * n + i] = (int)__double2uint_ru(d);
}

extern "C" __global__ void half_and_bfloat(const float* X, unsigned short* bits, float* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = X[i];
    __half h = __float2half(x);
    bits[0 * n + i] = __half_as_ushort(h);
    bits[1 * n + i] = __half_as_ushort(__float2half_rz(x));
    bits[2 * n + i] = __half_as_ushort(__float2half_rd(x));
    bits[3 * n + i] = __half_as_ushort(__float2half_ru(x));
    __nv_bfloat16 b = __float2bfloat16(x);
    bits[4 * n + i] = __bfloat16_as_ushort(b);
    bits[5 * n + i] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
    back[0 * n + i] = __half2float(h);
    back[1 * n + i] = __bfloat162float(b);
    back[2 * n + i] = __half2float(__hadd(h, __float2half(1.0f)));
}

// bf16 -> 8-bit integers: on sm_90 cuda_bf16.hpp uses cvt.rzi.s8.bf16 / cvt.rzi.u8.bf16 into a
// .b8 register, widened by mov.b16 {byte, 0}.
extern "C" __global__ void bfloat_to_bytes(const unsigned short* bits, signed char* s8, unsigned char* u8, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 b = __ushort_as_bfloat16(bits[i]);
    s8[i] = __bfloat162char_rz(b);
    u8[i] = __bfloat162uchar_rz(b);
}
