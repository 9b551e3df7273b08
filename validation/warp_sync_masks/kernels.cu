// Warp votes whose member mask leaves out the calling lane (undefined in PTX; a GPU runs on):
// what the H200 returns, to set against warpsim. Each thread writes what it got.
extern "C" __global__ void votes(const unsigned* pred, unsigned* ballot_lt, unsigned* ballot_gt,
                                 unsigned* any_lt, unsigned* all_gt, unsigned* ballot_even, unsigned* ballot_full) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    unsigned lt, gt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    bool p = pred[i] != 0;
    ballot_lt[i] = __ballot_sync(lt, p);
    ballot_gt[i] = __ballot_sync(gt, p);
    any_lt[i] = __any_sync(lt, p);
    all_gt[i] = __all_sync(gt, p);
    ballot_even[i] = __ballot_sync(0x55555555u, p);      // odd lanes are left out of their own mask
    ballot_full[i] = __ballot_sync(0xffffffffu, p);
}
