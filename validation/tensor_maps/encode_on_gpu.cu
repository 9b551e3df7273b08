// The bytes the driver's cuTensorMapEncodeTiled writes, for the cases in cases.txt, as JSON lines on
// stdout: {"case": N, "result": CUresult, "words": [32 x u32]}. Each line of cases.txt:
//   dtype rank address_offset dims(5) strides(4, bytes) box(5) element_strides(5) interleave swizzle l2 oob
// (enum values of cuda.h). Built and run on the H200 by run_on_device.sh.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

int main(int argc, char** argv) {
    cudaFree(0);                                   // the primary context
    void* base = nullptr;
    if (cudaMalloc(&base, 1 << 26) != cudaSuccess) return 2;
    FILE* in = fopen(argc > 1 ? argv[1] : "cases.txt", "r");
    if (!in) return 3;
    unsigned dtype, rank, interleave, swizzle, l2, oob;
    unsigned long long offset;
    int n = 0;
    while (fscanf(in, "%u %u %llu", &dtype, &rank, &offset) == 3) {
        cuuint64_t dims[5], strides[4];
        cuuint32_t box[5], estrides[5];
        for (int i = 0; i < 5; ++i) fscanf(in, "%llu", (unsigned long long*)&dims[i]);
        for (int i = 0; i < 4; ++i) fscanf(in, "%llu", (unsigned long long*)&strides[i]);
        for (int i = 0; i < 5; ++i) fscanf(in, "%u", &box[i]);
        for (int i = 0; i < 5; ++i) fscanf(in, "%u", &estrides[i]);
        fscanf(in, "%u %u %u %u", &interleave, &swizzle, &l2, &oob);
        alignas(64) CUtensorMap map;
        for (int i = 0; i < 16; ++i) map.opaque[i] = 0xA5A5A5A5A5A5A5A5ull;
        CUresult r = cuTensorMapEncodeTiled(&map, (CUtensorMapDataType)dtype, rank, (char*)base + offset, dims,
                                            strides, box, estrides, (CUtensorMapInterleave)interleave,
                                            (CUtensorMapSwizzle)swizzle, (CUtensorMapL2promotion)l2,
                                            (CUtensorMapFloatOOBfill)oob);
        const uint32_t* w = (const uint32_t*)&map;
        printf("{\"case\": %d, \"base\": %llu, \"result\": %d, \"words\": [", n++, (unsigned long long)(uintptr_t)base, (int)r);
        for (int i = 0; i < 32; ++i) printf("%u%s", w[i], i < 31 ? ", " : "]}\n");
    }
    return 0;
}
