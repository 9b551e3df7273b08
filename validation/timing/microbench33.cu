// Thirty-third batch: warps that wait for memory, and their stores at exit. Each thread follows a
// chain of `loads` dependent loads (next[] sends lane i of a warp to the same place `stride` floats
// on, so every load of a warp is one coalesced request), then stores its last value or not; dynamic
// shared memory holds K CTAs an SM, 16 waves of them. ncu's achieved occupancy and active cycles
// against the model's give how far apart a CTA's warps finish when they wait for HBM, and how long
// a warp stays resident after its last store (the drain).
extern "C" {

__global__ void mb33_chase(const unsigned* next, unsigned* out, int loads, int store) {
    extern __shared__ unsigned pad[];
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < loads; ++k) j = next[j];
    if (store) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = j;
    } else if (j == 0xffffffffu) {          // never: keeps the chain and the shared memory
        pad[threadIdx.x] = j;
        out[blockIdx.x] = pad[threadIdx.x ^ 1];
    }
}

}
