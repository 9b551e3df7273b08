// Warp-aggregated atomics (simt-execution.md, end of "Warp primitives"):
// stream compaction with one atomic per kept element, and with one per warp.
extern "C" __global__ void compact_per_thread(const int* x, int n, int* out, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0)
        out[atomicAdd(count, 1)] = x[i];             // one atomic per keeper
}

extern "C" __global__ void compact_aggregated(const int* x, int n, int* out, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool keep = i < n && x[i] > 0;
    unsigned ballot = __ballot_sync(0xffffffffu, keep); // who keeps, warp-wide
    int leader = __ffs(ballot) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(count, __popc(ballot));     // one atomic per warp
    base = __shfl_sync(0xffffffffu, base, leader < 0 ? 0 : leader);
    if (keep)
        out[base + __popc(ballot & ((1u << lane) - 1))] = x[i];  // slot: keepers below me
}
