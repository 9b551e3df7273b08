// Integer corner cases: division overflow and by zero, shifts past the width
// (PTX clamps them; in C++ they are undefined, hence inline asm), high
// multiplies, bit counting and permuting intrinsics, bit-field extract/insert.

extern "C" __global__ void int32_corners(const int* A, const int* B, const unsigned* S, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = A[i], b = B[i];
    unsigned s = S[i], ua = (unsigned)a, ub = (unsigned)b;
    int k = 0;
    out[k++ * n + i] = a / b;
    out[k++ * n + i] = a % b;
    out[k++ * n + i] = (int)(ua / ub);
    out[k++ * n + i] = (int)(ua % ub);
    out[k++ * n + i] = __mulhi(a, b);
    out[k++ * n + i] = (int)__umulhi(ua, ub);
    out[k++ * n + i] = __popc(ua);
    out[k++ * n + i] = __clz(a);
    out[k++ * n + i] = (int)__brev(ua);
    out[k++ * n + i] = (int)__byte_perm(ua, ub, s & 0x7777u);
    out[k++ * n + i] = (int)__funnelshift_l(ua, ub, s);
    out[k++ * n + i] = (int)__funnelshift_r(ua, ub, s);
    out[k++ * n + i] = (int)__funnelshift_lc(ua, ub, s);
    out[k++ * n + i] = (int)__funnelshift_rc(ua, ub, s);
    unsigned shift = s % 48;                       // a third of them >= 32
    unsigned r;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(ua), "r"(shift));
    out[k++ * n + i] = (int)r;
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(ua), "r"(shift));
    out[k++ * n + i] = (int)r;
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(shift));
    out[k++ * n + i] = (int)r;
    unsigned pos = s & 0x3f, len = (s >> 8) & 0x3f;  // fields reaching past bit 31 too
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(ua), "r"(pos), "r"(len));
    out[k++ * n + i] = (int)r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    out[k++ * n + i] = (int)r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ua), "r"(ub), "r"(pos), "r"(len));
    out[k++ * n + i] = (int)r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(ua), "r"(ub), "r"(s));
    out[k++ * n + i] = (int)r;
    out[k++ * n + i] = __ffs(a);
    out[k++ * n + i] = __hadd(a, b);
    out[k++ * n + i] = __rhadd(a, b);
    out[k++ * n + i] = (int)__uhadd(ua, ub);
    out[k++ * n + i] = abs(a);
    out[k++ * n + i] = -a;
    out[k++ * n + i] = (int)__sad(a, b, s);
}

extern "C" __global__ void int64_corners(const long long* A, const long long* B, const unsigned* S,
                                         long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long a = A[i], b = B[i];
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    unsigned shift = S[i] % 96;
    int k = 0;
    out[k++ * n + i] = __mul64hi(a, b);
    out[k++ * n + i] = (long long)__umul64hi(ua, ub);
    out[k++ * n + i] = __popcll(ua);
    out[k++ * n + i] = __clzll(a);
    out[k++ * n + i] = (long long)__brevll(ua);
    out[k++ * n + i] = a / b;
    out[k++ * n + i] = a % b;
    out[k++ * n + i] = (long long)(ua / ub);
    unsigned long long r;
    asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(ua), "r"(shift));
    out[k++ * n + i] = (long long)r;
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(shift));
    out[k++ * n + i] = (long long)r;
    out[k++ * n + i] = __ffsll(a);
    out[k++ * n + i] = a * b;
}
