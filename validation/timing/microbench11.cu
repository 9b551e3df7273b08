// Eleventh batch: does a line one CTA read stay in L1 for the next CTAs on its SM?
//
// mb11_table: each CTA (4 warps) reads a table every CTA reads (`table_floats`, whole lines,
// coalesced) and, between two passes over it, `private_floats` of data no other CTA reads
// (streaming through L1), then writes one float. ncu's L1 hit rate and L2 read sectors tell how
// much of the table each CTA found in L1: left there by a CTA before it on the SM (or beside it),
// or by its own first pass.

extern "C" __global__ void mb11_table(const float* __restrict__ table, int table_floats,
                                      const float* __restrict__ stream, int private_floats,
                                      float* out) {
    float sum = 0.0f;
    for (int i = threadIdx.x; i < table_floats; i += blockDim.x) sum += table[i];
    const float* mine = stream + (long long)blockIdx.x * private_floats;
    for (int i = threadIdx.x; i < private_floats; i += blockDim.x) sum += mine[i];
    for (int i = threadIdx.x; i < table_floats; i += blockDim.x) sum += table[i] * 0.5f;
    if (sum == -1.0f) out[blockIdx.x] = sum;          // never true: keeps the loads
}
