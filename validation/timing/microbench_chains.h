// The forty-second and forty-third batches' kernel body (microbench42.cu, microbench43.cu): eight
// independent chains of STEP a thread, unrolled four steps, folded into out[t] with FOLD.
#pragma once

#define CHAINS(T, INIT, STEP, FOLD)                                                    \
    int t = blockIdx.x * blockDim.x + threadIdx.x;                                      \
    T a0 = INIT(0), a1 = INIT(1), a2 = INIT(2), a3 = INIT(3);                           \
    T a4 = INIT(4), a5 = INIT(5), a6 = INIT(6), a7 = INIT(7);                           \
    _Pragma("unroll 4")                                                                 \
    for (int s = 0; s < steps; ++s) {                                                   \
        a0 = STEP(a0); a1 = STEP(a1); a2 = STEP(a2); a3 = STEP(a3);                     \
        a4 = STEP(a4); a5 = STEP(a5); a6 = STEP(a6); a7 = STEP(a7);                     \
    }                                                                                   \
    out[t] = FOLD(FOLD(FOLD(a0, a1), FOLD(a2, a3)), FOLD(FOLD(a4, a5), FOLD(a6, a7)));
