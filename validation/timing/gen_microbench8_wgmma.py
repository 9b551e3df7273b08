"""Writes microbench8_wgmma.h: one inline-PTX wrapper per wgmma form the eighth batch times.

    python validation/timing/gen_microbench8_wgmma.py      # rewrites validation/timing/microbench8_wgmma.h

A wgmma names every accumulator register of the warpgroup's m64nN tile (N / 2 f32 registers per
thread), so each wrapper's operand list is written out here rather than by hand. Forms: m64nNk
(K = 16 for f16 and bf16, 8 for tf32, 32 for e4m3), N = 64, 128, 256, A from shared memory (a
descriptor, `ss`) or from registers (`rs`); f32 accumulators; B always from shared memory.
"""

from __future__ import annotations

import os

TYPES = {"f16": ("f16", 16), "bf16": ("bf16", 16), "tf32": ("tf32", 8), "e4m3": ("e4m3", 32)}
WIDTHS = (64, 128, 256)
HERE = os.path.dirname(os.path.abspath(__file__))


# what the batches that include this header (8, 14, 17, 26) build their wgmma operands with
HELPERS = """__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// A wgmma shared-memory descriptor without swizzle: 8-row x 16-byte core matrices, `lbo` bytes apart
// along K and `sbo` bytes apart along M/N.
__device__ __forceinline__ unsigned long long wgmma_desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32);
}

// The tile a batch's wgmmas read (batches 14, 17, 26, 28, 29): `bytes` of `words` copied into shared
// memory by the CTA's threads, fenced for the async proxy the wgmmas read through, and the CTA met.
__device__ __forceinline__ void load_tile(unsigned char* tile, const unsigned* words, int bytes) {
    for (int i = threadIdx.x; i < bytes / 4; i += blockDim.x) ((unsigned*)tile)[i] = words[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
}
"""


def wrapper(kind: str, n: int, source: str) -> str:
    ptx_type, k = TYPES[kind]
    regs = n // 2
    d = ", ".join(f"%{i}" for i in range(regs))
    # f16 and bf16 take the transpose immediates; tf32 and 8-bit forms do not
    trans = kind in ("f16", "bf16")
    if source == "ss":
        a, first = f"%{regs}", regs + 1
        tail = ", p, 1, 1, 0, 0;" if trans else ", p, 1, 1;"
        a_in = '"l"(desc_a)'
    else:
        a, first = "{" + ", ".join(f"%{regs + i}" for i in range(4)) + "}", regs + 4
        tail = ", p, 1, 1, 0;" if trans else ", p, 1, 1;"
        a_in = ", ".join(f'"r"(a[{i}])' for i in range(4))
    b = f"%{first}"
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    name = f"wgmma_{kind}_{source}_n{n}"
    return (f"__device__ __forceinline__ void {name}(float (&d)[{regs}], const unsigned (&a)[4], "
            f"unsigned long long desc_a, unsigned long long desc_b) {{\n"
            f"    (void)a; (void)desc_a;\n"
            f"    asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{first + 1}, 0;\\n\"\n"
            f"        \"wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ptx_type}.{ptx_type} \"\n"
            f"        \"{{{d}}}, {a}, {b}{tail}\\n}}\\n\"\n"
            f"        : {outs}\n"
            f"        : {a_in}, \"l\"(desc_b), \"r\"(1));\n}}\n")


def main() -> None:
    parts = ["// Written by gen_microbench8_wgmma.py: one wrapper per wgmma form of the eighth batch.\n",
             "#pragma once\n", HELPERS]
    for kind in TYPES:
        for n in WIDTHS:
            for source in ("ss", "rs"):
                parts.append(wrapper(kind, n, source))
    forms = [f"    X({kind}, {source}, {n})" for kind in TYPES for n in WIDTHS for source in ("ss", "rs")]
    parts.append("// the kernels, one per form (MB8_WGMMA_KERNEL in microbench8.cu)\n#define MB8_WGMMA_FORMS(X) \\\n"
                 + " \\\n".join(forms) + "\n")
    with open(os.path.join(HERE, "microbench8_wgmma.h"), "w") as fh:
        fh.write("\n".join(parts))


if __name__ == "__main__":
    main()
