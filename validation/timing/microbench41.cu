// Forty-first batch (run_microbench41.py): random gathers from a cold L2. Set 4's t4_gather over a
// random permutation of 8M floats (32 MB, which the L2 holds) read 164.6 MB from HBM under ncu, as if
// each 64-byte block of the array came from HBM about four times, and ran 21.8% longer than the
// model, which reads an array that fits the L2 from HBM once. The thirty-fifth batch's random lines
// ran warm (resident in L2). Here 8M threads each read one float of an array of 4 to 64 MB at a
// random place: the index hashed from the thread (mode bit 0 clear) or loaded from an array of
// indices (set), the result written to an array (bit 1 set) or only summed in a register (clear):
// which of the streams beside the gather, the index array's and the output's, takes the L2 from it.

__device__ __forceinline__ unsigned mix41(unsigned h) {
    h ^= h >> 16; h *= 0x7FEB352Du; h ^= h >> 15; h *= 0x846CA68Bu; h ^= h >> 16;
    return h;
}

extern "C" __global__ void mb41_gather(float* out, const float* __restrict__ src, const int* __restrict__ idx,
                                       unsigned region_mask, int mode, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned at = (mode & 1) ? (unsigned)idx[i] : (mix41((unsigned)i) & region_mask);
    float v = 2.f * src[at];
    if ((mode & 2) || v == -12345.f) out[i] = v;     // without bit 1 nothing is stored (v is never that)
}
