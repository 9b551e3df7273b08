// X independent instructions of one kind, as eight chains (so none waits for another): the filler of the
// twenty-ninth and thirty-fourth batches. Kinds: integer adds (IADD3 and IMAD.IADD: ptxas splits them
// over the ALU and FMA pipes), integer multiply-adds (IMAD), FP32 FMAs (FFMA), compare-and-selects
// (ISETP + SEL, as Triton's loops mask their loads).
#pragma once

enum Kind { ADD = 0, IMAD = 1, FFMA = 2, SEL = 3 };

template <int KIND, int X>
__device__ __forceinline__ void filler(unsigned (&u)[8], float (&f)[8]) {
#pragma unroll
    for (int i = 0; i < X / 8; ++i) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            if (KIND == ADD) asm volatile("add.u32 %0, %0, %1;" : "+r"(u[c]) : "r"(u[(c + 1) & 7]));
            if (KIND == IMAD) asm volatile("mad.lo.u32 %0, %0, %1, %0;" : "+r"(u[c]) : "r"(u[(c + 3) & 7]));
            if (KIND == FFMA) asm volatile("fma.rn.f32 %0, %0, 0f3F800347, 0f3F000000;" : "+f"(f[c]));
            if (KIND == SEL) asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %0, %1;\nselp.u32 %0, %0, 16, p;\n}"
                                          : "+r"(u[c]) : "r"(u[(c + 5) & 7]));
        }
    }
}
