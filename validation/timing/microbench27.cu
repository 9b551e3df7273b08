// Twenty-seventh batch (run_microbench27.py): is a CTA barrier's cost per arriving warp the SM's or
// the CTA's? k CTAs of W warps an SM, every thread looping over `iters` rounds of one FFMA and a
// __syncthreads, no skew: if the SM serves the arrivals of all its CTAs one after another, a round
// takes about k * W arrivals' time; if each CTA's barrier is served apart, about W's.
// Build: nvcc -arch=sm_90 -cubin -o microbench27.cubin microbench27.cu

extern "C" __global__ void mb27_bar(float* out, int iters) {
    float x = threadIdx.x * 1e-3f;
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
