// Seventh batch (run_microbench7.py): HBM traffic by the order a grid's CTAs visit the rows of a
// matrix. Each CTA of 32 x 8 threads moves one 32 x 32 tile of an N x N float matrix, a 128-byte
// piece of each of 32 rows. `across`: CTA (bx, by) takes tile row by, tile column bx, so the CTAs
// resident together cover whole rows (a row-major copy's order); `down`: tile row bx, column by, so
// the CTAs resident together take one 128-byte piece from each of many rows 16 KB apart (a
// transpose's writes). Writes only, reads only (one float per CTA kept), and a copy in one order
// written in the other (the transpose's traffic without shared memory).

extern "C" {

__device__ __forceinline__ void tile_of(int mode, int& tr, int& tc) {
    tr = mode == 0 ? blockIdx.y : blockIdx.x;
    tc = mode == 0 ? blockIdx.x : blockIdx.y;
}

__global__ void mb7_write(float* out, int n, int mode) {
    int tr, tc;
    tile_of(mode, tr, tc);
    for (int j = threadIdx.y; j < 32; j += 8)
        out[(long long)(tr * 32 + j) * n + tc * 32 + threadIdx.x] = (float)(j + threadIdx.x);
}

__global__ void mb7_read(float* out, const float* in, int n, int mode) {
    int tr, tc;
    tile_of(mode, tr, tc);
    float acc = 0.f;
    for (int j = threadIdx.y; j < 32; j += 8)
        acc += in[(long long)(tr * 32 + j) * n + tc * 32 + threadIdx.x];
    if (acc == 12345.f) out[0] = acc;
}

// read tile (by, bx) in the `across` order, write it to tile (bx, by): the naive transpose's traffic
__global__ void mb7_copy_down(float* out, const float* in, int n) {
    for (int j = threadIdx.y; j < 32; j += 8) {
        float v = in[(long long)(blockIdx.y * 32 + j) * n + blockIdx.x * 32 + threadIdx.x];
        out[(long long)(blockIdx.x * 32 + j) * n + blockIdx.y * 32 + threadIdx.x] = v;
    }
}

__global__ void mb7_copy_across(float* out, const float* in, int n) {
    for (int j = threadIdx.y; j < 32; j += 8) {
        long long i = (long long)(blockIdx.y * 32 + j) * n + blockIdx.x * 32 + threadIdx.x;
        out[i] = in[i];
    }
}

}
