// Seventy-second microbenchmark batch (run_microbench72.py): whether two warpgroups' softmax phases collide
// because they run in step. In the seventy-first batch two warpgroups of an attention step with the online
// softmax took 1,058 cycles a step where one took 820 (+238, about one warp's MUFU work a step), while their
// QK wgmmas alone overlapped completely. Here the same step (microbench71_attention.h's attention71: QK
// wgmmas, the softmax, with or without the PV wgmmas; no copies) runs in two warpgroups a CTA, one CTA an SM,
// the second warpgroup starting `stagger` cycles after the first (a clock64 spin after the tile is loaded). If the
// collision comes from running in step, a stagger of about half a step keeps them apart, unless the contention
// itself pulls them back into step.
// Build: nvcc -arch=sm_90a -cubin -o microbench72.cubin microbench72.cu

#include "microbench71_attention.h"

#define MB72_KERNEL(S, P) \
    extern "C" __global__ void __launch_bounds__(256) mb72_s##S##_p##P( \
        const unsigned* t, const uint4* src, float* sink, int iters, unsigned mask, long long stagger) { \
        attention71<S, P, 0, true>(t, src, sink, iters, mask, stagger); \
    }
MB72_KERNEL(1, 0) MB72_KERNEL(1, 1)
