// Forty-ninth microbenchmark batch (run_microbench49.py): global accesses to words picked by a hash
// over tables from 4 MB (the L2 keeps them) to 1 GB (HBM serves most). Thread t's access r names
// word mix(t + r * threads) & mask, a 32-bit mixing hash, so a warp's 32 words lie on 32 lines with
// gaps at random, as a hash table's or a scatter's do:
//   mb49_red_u32 / mb49_red_f32: atomicAdd with the result unused (RED), u32 and f32;
//   mb49_cas: atomicCAS(word, 0, key) whose old values are summed and stored (ATOMG, waited for);
//   mb49_gather: plain loads of the same words, summed and stored (the thirty-fifth batch's G = 1).
extern "C" {

__device__ __forceinline__ unsigned mb49_mix(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__global__ void mb49_red_u32(unsigned* table, unsigned mask, int reps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
#pragma unroll 1
    for (int r = 0; r < reps; ++r) atomicAdd(&table[mb49_mix(t + r * threads) & mask], 1u);
}

__global__ void mb49_red_f32(float* table, unsigned mask, int reps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
#pragma unroll 1
    for (int r = 0; r < reps; ++r) atomicAdd(&table[mb49_mix(t + r * threads) & mask], 1.0f);
}

__global__ void mb49_cas(unsigned* table, unsigned* out, unsigned mask, int reps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    unsigned acc = 0;
#pragma unroll 1
    for (int r = 0; r < reps; ++r) {
        unsigned k = t + r * threads;
        acc += atomicCAS(&table[mb49_mix(k) & mask], 0u, k + 1);
    }
    out[t] = acc;
}

__global__ void mb49_gather(const unsigned* table, unsigned* out, unsigned mask, int reps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    unsigned acc = 0;
#pragma unroll 1
    for (int r = 0; r < reps; ++r) acc += table[mb49_mix(t + r * threads) & mask];
    out[t] = acc;
}

}
