// Seventy-first microbenchmark batch (run_microbench71.py): how an attention loop's parts overlap. Set 3's
// attention launches run 12-21% longer on the H200 than the model has them, and the sixty-ninth batch found
// their softmax's issue alone within 1-14% of the model: what is left is how the softmax overlaps the
// wgmmas and the copies. Each warpgroup (1 or 2 a CTA, 64 query rows each) runs `iters` steps of a
// flash-attention forward's inner loop at head dim 64 and 64 keys a step:
// - S = Q K^T: four wgmma.m64n64k16 (f16 -> f32, A and B in shared memory), committed and waited for;
// - with SOFTMAX, the online softmax on S's 32 scores a thread (two rows of 16): row maxima (FMNMX chains,
//   SHFL.BFLY over a row's four lanes), the rescale factor and P = exp2 of the scaled scores (FFMA then
//   MUFU.EX2), the row sums (FADD chains and the same shuffles), O rescaled (32 FMULs);
// - with PV, P (or S, without SOFTMAX) packed to f16x2 and O += P V: four wgmma.m64n64k16 with A from
//   registers, committed and waited for;
// - with COPY, first a stage of cp.async copies (16 bytes a thread, 8 a step, from an L2-resident region),
//   its commit, a wait letting one stage pend, and a __syncthreads, as Triton's K/V loads.
// Build: nvcc -arch=sm_90a -cubin -o microbench71.cubin microbench71.cu

#include "microbench71_attention.h"

#define MB71_KERNEL(S, P, C) \
    extern "C" __global__ void __launch_bounds__(256) mb71_s##S##_p##P##_c##C( \
        const unsigned* t, const uint4* src, float* sink, int iters, unsigned mask) { \
        attention71<S, P, C>(t, src, sink, iters, mask); \
    }
MB71_KERNEL(0, 0, 0) MB71_KERNEL(1, 0, 0) MB71_KERNEL(0, 1, 0) MB71_KERNEL(1, 1, 0) MB71_KERNEL(1, 1, 1)
