// Thirty-seventh batch: three kinds of global memory traffic the programs of public suites are made
// of, and which the earlier batches timed only in their plain forms.
//
// mb37_aos_store / mb37_aos_load: arrays of structs of `fields` floats, each thread's struct written
// (or read) field by field, `written` of its fields: a warp's store of one field touches the lines of
// 32 structs with 4 bytes of each, and the next field's store the same lines again.
// mb37_red_*: reductions (atomicAdd whose result is unused: RED) of 32- and 64-bit integers and floats,
// `iters` a thread, to an address per thread, per warp, per CTA, or one for the grid.
// mb37_walk: one word of each of 32 lines a request, the lines `spacing` lines apart, 32 MB resident
// in L2 (ld.global.cg), the warps' bases (mode) 0: side by side (each iteration the grid's requests
// cover a run of lines, every spacing-th one), 1: picked at random (the thirty-sixth batch), 2:
// interleaved (`spacing` neighbouring warps share a run of 32 x spacing lines, every line of it read
// once): whether the lines of neighbouring warps' requests, asked for at once, slow the L2 where
// random ones do not.
// mb37_strided: a grid of few CTAs streaming int loads whose successive steps lie `step` ints apart
// (a warp's load is one 128-byte line): the latency of HBM when the steps leave the DRAM page.

extern "C" __global__ void mb37_aos_store(float* out, int n, int fields, int written, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* s = out + (size_t)i * fields;
    for (int f = 0; f < written; ++f) s[f] = v + f;
}

extern "C" __global__ void mb37_aos_load(const float* __restrict__ in, float* out, int n, int fields, int read) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* s = in + (size_t)i * fields;
    float acc = 0.f;
    for (int f = 0; f < read; ++f) acc += s[f];
    out[i] = acc;
}

// where a thread's reductions go: 0 its own word, 1 its warp's, 2 its CTA's, 3 one word for the grid
__device__ __forceinline__ size_t red_slot(int spread) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return spread == 0 ? t : spread == 1 ? t >> 5 : spread == 2 ? (size_t)blockIdx.x : 0;
}

extern "C" __global__ void mb37_red_u32(unsigned* out, int spread, int iters) {
    size_t k = red_slot(spread);
    for (int it = 0; it < iters; ++it) atomicAdd(out + k, 1u + it);
}
extern "C" __global__ void mb37_red_u64(unsigned long long* out, int spread, int iters) {
    size_t k = red_slot(spread);
    for (int it = 0; it < iters; ++it) atomicAdd(out + k, 1ull + it);
}
extern "C" __global__ void mb37_red_f32(float* out, int spread, int iters) {
    size_t k = red_slot(spread);
    for (int it = 0; it < iters; ++it) atomicAdd(out + k, 1.0f + it);
}
extern "C" __global__ void mb37_red_f64(double* out, int spread, int iters) {
    size_t k = red_slot(spread);
    for (int it = 0; it < iters; ++it) atomicAdd(out + k, 1.0 + it);
}

extern "C" __global__ void mb37_strided(const int* __restrict__ in, int* out, int steps, long long step) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int k = 0; k < steps; ++k) acc += in[(size_t)k * step + t];
    out[t] = acc;
}

__device__ __forceinline__ unsigned mix37(unsigned h) {
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    return h;
}

extern "C" __global__ void mb37_walk(const float* __restrict__ src, float* out, unsigned lines_mask, int iters,
                                     int spacing, int mode) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = t >> 5;
    unsigned warps = (gridDim.x * blockDim.x) >> 5;
    float acc = 0.f;
#pragma unroll 8
    for (int it = 0; it < iters; ++it) {
        unsigned step = warp + (unsigned)it * warps;
        unsigned base = mode == 1 ? mix37(warp * 0x9E3779B1u + it * 0x85EBCA77u)
                      : mode == 0 ? step * 32u * spacing
                                  : (step / spacing) * 32u * spacing + step % spacing;
        unsigned line = (base + lane * spacing) & lines_mask;
        acc += __ldcg(src + (size_t)line * 32);
    }
    out[t] = acc;
}
