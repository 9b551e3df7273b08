// Warp-synchronous misuse: full-mask shuffles that not every named lane reaches.
// (The spin-wait and the legacy reduction are the demo's: warpsim/demo/kernels/scheduling.cu.)

// A full-mask shuffle inside a branch that only half the warp takes.
extern "C" __global__ void divergent_shuffle(const int* x, int* out) {
    int t = threadIdx.x;
    int v = x[t];
    if (t % 32 < 16) {
        v = __shfl_sync(0xffffffffu, v, 0);
    }
    out[t] = v;
}

// The same shuffle, but the other half waits at a CTA barrier: it can never meet.
extern "C" __global__ void shuffle_vs_barrier(const int* x, int* out) {
    int t = threadIdx.x;
    int v = x[t];
    if (t % 32 < 16) {
        v = __shfl_sync(0xffffffffu, v, 0);
    } else {
        __syncthreads();
    }
    out[t] = v;
}

// Lanes that converge again before a full-mask shuffle: fine under both models.
extern "C" __global__ void converged_shuffle(const int* x, int* out) {
    int t = threadIdx.x;
    int v = x[t];
    if (t % 2) v = v * 3; else v = v + 7;
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    out[t] = v;
}

// Lanes 0-15 shuffle among themselves with a half mask, but read from lanes 16+.
extern "C" __global__ void shuffle_from_outside_mask(const int* x, int* out) {
    int t = threadIdx.x;
    int v = x[t];
    if (t < 16) v = __shfl_sync(0x0000ffffu, v, t + 16);
    out[t] = v;
}
