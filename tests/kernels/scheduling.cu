// Kernels that behave differently under the two scheduling models.

// Lane 0 waits for a flag that lane 1 of its own warp sets after the branch.
extern "C" __global__ void spin_wait(volatile int* flag, int* out) {
    int lane = threadIdx.x % 32;
    if (lane == 0) {
        while (*flag == 0) { }
        out[blockIdx.x] = 1;
    }
    if (lane == 1) *flag = 1;
}

// Legacy warp-synchronous reduction: the last 32 partial sums are folded
// through shared memory without any barrier, relying on lockstep execution.
extern "C" __global__ void legacy_reduce(const int* x, int* out) {
    __shared__ volatile int s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// The same reduction made safe for independent thread scheduling.
extern "C" __global__ void syncwarp_reduce(const int* x, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        int v = s[t] + s[t + 32];
        for (int offset = 16; offset > 0; offset >>= 1) {
            s[t] = v;
            __syncwarp();
            v += s[t + offset] * (t + offset < 32);
            __syncwarp();
        }
        s[t] = v;
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

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
