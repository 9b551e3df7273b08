// Block sizes that are not multiples of 32 (simt-execution.md, "Failure
// modes"): a block of 100 threads is four warps, the last with four live lanes.
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
