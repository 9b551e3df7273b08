// Tenth batch: how long a load waits when other CTAs read the same line at the same time.
//
// mb10_chase: every CTA's lane 0 follows the same pointer chain (one 4-byte index a 128-byte line,
// `steps` lines in a random order), each load's address the value the previous one returned, and
// records its clock64 span. `offset` shifts the chain a CTA follows by that many steps (0: every CTA
// reads the same line at the same step; 1: CTA b reads at step s the line CTA b + 1 read a step
// before; a large odd offset: each CTA its own part of the order).
// ld.global.cg: the load goes to L2, never to L1, so only L2 and HBM are measured.
//
// mb10_flush: writes and reads a buffer larger than the L2, so the next launch finds the chain in HBM.

extern "C" __global__ void mb10_chase(const unsigned* __restrict__ chain, long long* spans, int steps,
                                      int offset, unsigned* sink) {
    if (threadIdx.x != 0) return;
    unsigned at = (unsigned)(((long long)blockIdx.x * offset) % steps) * 32u;
    long long start = clock64();
    for (int s = 0; s < steps; ++s) {
        unsigned next;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(next) : "l"(chain + at));
        at = next;
    }
    long long end = clock64();
    spans[blockIdx.x] = end - start;
    if (at == 0xFFFFFFFFu) sink[0] = at;      // keeps the chain's loads
}

extern "C" __global__ void mb10_flush(float* buffer, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        buffer[i] = buffer[i] * 0.5f + 1.0f;
}
