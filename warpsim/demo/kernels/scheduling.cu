// Independent thread scheduling (simt-execution.md, "Independent thread
// scheduling since Volta").

// Lane 0 waits for a flag that lane 1 of its own warp sets after the branch.
extern "C" __global__ void spin_wait(volatile int* flag, int* out) {
    int lane = threadIdx.x % 32;
    if (lane == 0) {
        while (*flag == 0) { }                       // spins until lane 1 runs
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
