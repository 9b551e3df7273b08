// Thirty-second batch: CTA slots turning over. Each thread runs a chain of `n` x 8 dependent FMAs
// (about 4 cycles each), then leaves; dynamic shared memory holds K CTAs an SM, and the grid is 16
// waves of them. ncu's achieved occupancy and active cycles against the chain's length, K and the
// warps a CTA give how long a slot sits empty between two CTAs, and whether it counts warps then.
extern "C" {

__global__ void mb32_chain(float* out, int n) {
    extern __shared__ float pad[];
    float v = threadIdx.x * 1e-3f, a = 0.999f + 1e-9f * blockIdx.x, b = 1e-3f;
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v = fmaf(v, a, b);
    }
    if (v == -1.0f) {                     // never: keeps the chain and the shared memory
        pad[threadIdx.x] = v;
        out[blockIdx.x] = pad[threadIdx.x ^ 1];
    }
}

}
