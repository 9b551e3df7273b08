// Warp collectives whose member mask leaves out the calling lane (undefined in PTX): what the
// H200 does with each, to set against warpsim. One collective a kernel, so that a kernel the
// GPU stops (an illegal instruction ends the context) leaves the others' answers standing.
// Each thread writes what it got.
__device__ unsigned lt_mask() { unsigned m; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); return m; }
__device__ unsigned gt_mask() { unsigned m; asm("mov.u32 %0, %%lanemask_gt;" : "=r"(m)); return m; }
__device__ unsigned le_mask() { unsigned m; asm("mov.u32 %0, %%lanemask_le;" : "=r"(m)); return m; }

#define COLLECTIVE(name, expr)                                                              \
    extern "C" __global__ void name(const unsigned* pred, unsigned* out) {                 \
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;        \
        bool p = pred[i] != 0;                                                              \
        (void)lane;                                                                         \
        out[i] = (expr);                                                                    \
    }

COLLECTIVE(ballot_lt, __ballot_sync(lt_mask(), p))           // lane 0: an empty mask
COLLECTIVE(ballot_gt, __ballot_sync(gt_mask(), p))           // lane 31: an empty mask
COLLECTIVE(ballot_le, __ballot_sync(le_mask(), p))           // names itself; masks differ by lane
COLLECTIVE(ballot_even, __ballot_sync(0x55555555u, p))       // odd lanes left out of their own mask
COLLECTIVE(ballot_full, __ballot_sync(0xffffffffu, p))
COLLECTIVE(ballot_zero, __ballot_sync(0u, p))
COLLECTIVE(any_lt, __any_sync(lt_mask(), p))
COLLECTIVE(all_gt, __all_sync(gt_mask(), p))
COLLECTIVE(any_le, __any_sync(le_mask(), p))
COLLECTIVE(any_even, __any_sync(0x55555555u, p))
COLLECTIVE(shfl_even, __shfl_sync(0x55555555u, i, 0))
COLLECTIVE(shfl_lt, __shfl_sync(lt_mask(), i, 0))
// the same ballot where lanes have diverged: ptxas's slow path, WARPSYNC.COLLECTIVE on the mask
COLLECTIVE(ballot_lt_diverged, p ? __ballot_sync(lt_mask(), lane & 1) : 7u)
COLLECTIVE(ballot_even_diverged, p ? __ballot_sync(0x55555555u, lane & 2) : 7u)
