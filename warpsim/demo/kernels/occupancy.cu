// Latency hiding (simt-execution.md, "Latency hiding: why a GPU wants
// thousands of threads"): a memory-bound kernel. The demo compiles it with
// several register budgets (-maxrregcount) and launches it with several
// dynamic shared-memory budgets, which is what decides how many warps an SM
// keeps resident to hide the latency of its loads.
extern "C" __global__ void stream_triad(const float* a, const float* b, float* c,
                                        float s, int n) {
    extern __shared__ float staging[];           // only its size matters here
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + s * b[i];
    if (i == -1) staging[0] = 0.f;               // keep the array alive
}
