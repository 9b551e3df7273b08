"""Run warpsim's Hopper test kernels on a real H200 and record what it computes.

    python validation/hopper/run_on_h200.py OUTDIR

Records, into OUTDIR/h200.npz and OUTDIR/h200.json:
- the special registers PTX leaves to the implementation (%reserved_smem_offset_*,
  %total_smem_size, the cluster registers, mapa's shared::cluster and generic
  addresses) from the hand-written `specials` kernel (tests/machine/isa/hopper_ptx.py);
- the raw accumulator words of every wgmma probe case (tests/machine/isa/wgmma_cases.py);
- the outputs of the cooperative-groups and cluster kernels (tests/machine/isa/hopper_cuda.py)
  on fixed random inputs, and whether they equal NumPy's;
- Triton's matmul tutorial kernels at sm_90 (wgmma, stmatrix, TMA) against NumPy, and
  the Hopper instructions this Triton emitted;
- the bulk-copy probe (mbarrier transaction counts) and the tensor-copy probes with real
  CUtensorMaps from cuTensorMapEncodeTiled (cuda.bindings), against NumPy.
Needs CuPy, PyTorch and Triton (the device machine has them); nothing of warpsim.
`python run_on_h200.py OUTDIR bulk tensor_maps` runs only the sections named.
"""

import json
import os
import re
import sys
import tempfile

import numpy as np
import cupy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tests", "machine", "isa"), os.path.join(ROOT, "tests", "frontends")]

from hopper_ptx import BULK, SPECIALS, SPECIAL_WORDS, swizzled, tensor_probe  # noqa: E402
from wgmma_cases import CASES, build  # noqa: E402
import hopper_cuda  # noqa: E402

out_dir = sys.argv[1]
arrays, report = {}, {}


def ptx_module(text):
    path = os.path.join(tempfile.mkdtemp(), "k.ptx")
    with open(path, "w") as f:
        f.write(text)
    return cupy.RawModule(path=path)


def guarded(name, fn):
    try:
        fn()
    except Exception as exc:     # record and go on: one failure must not lose the rest
        report[name] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}


def specials():
    out = cupy.zeros((4 * 64, len(SPECIAL_WORDS)), cupy.uint32)
    ptx_module(SPECIALS).get_function("specials")((4,), (64,), (out,), shared_mem=4096)
    words = out.get()
    arrays["specials"] = words
    report["specials"] = {name: sorted(set(int(v) for v in words[:, k]))[:8]
                          for k, name in enumerate(SPECIAL_WORDS)}


def wgmma():
    results = {}
    for name in sorted(CASES):
        case = build(name)
        fill = 0x7FC00000 if case["dtype"] == "f32" else 0x7E007E00
        out = cupy.asarray(np.full((128, case["regs"]), fill, np.uint32))
        ptx_module(case["ptx"]).get_function("wgmma_probe")(
            (1,), (128,), (cupy.asarray(case["image"]), np.uint32(case["image"].size),
                           np.uint64(case["a_desc"]), np.uint64(case["b_desc"]), cupy.asarray(case["c_in"]),
                           out, cupy.asarray(case["afrag"]), np.uint32(case["accumulate"])),
            shared_mem=case["shared"])
        words = out.get()
        arrays[f"wgmma_{name}"] = words
        from hopper_ptx import accumulator_matrix
        got = accumulator_matrix(words, case["n"], case["dtype"]).astype(np.float64)
        results[name] = {"equals_numpy": bool(np.array_equal(got, case["want"])),
                         "mismatches": int((got != case["want"]).sum())}
    report["wgmma"] = results


def cooperative_groups():
    module = cupy.RawModule(code=hopper_cuda.SOURCE, options=("-std=c++17",))
    rng = np.random.default_rng(7)
    results = {}
    values = rng.integers(-1000, 1000, 512).astype(np.int32)
    for tile, kernel in ((64, "tile64_reduce"), (128, "tile128_reduce")):
        sums, maxima = cupy.zeros(512, cupy.int32), cupy.zeros(512, cupy.int32)
        module.get_function(kernel)((2,), (256,), (cupy.asarray(values), sums, maxima))
        groups = values.reshape(-1, tile)
        want_sum = np.repeat(groups.sum(axis=1), tile)
        want_max = np.repeat(groups.max(axis=1), tile)
        arrays[f"{kernel}_sums"], arrays[f"{kernel}_maxima"] = sums.get(), maxima.get()
        results[kernel] = bool(np.array_equal(sums.get(), want_sum) and np.array_equal(maxima.get(), want_max))
    n = 200
    data = rng.standard_normal(3 * n).astype(np.float32)
    out = cupy.zeros(3 * n, cupy.float32)
    module.get_function("block_memcpy_async")((3,), (64,), (cupy.asarray(data), out, np.int32(n)),
                                               shared_mem=4 * n)
    arrays["block_memcpy_async"] = out.get()
    results["block_memcpy_async"] = bool(np.array_equal(out.get(), 2 * data.reshape(3, n)[:, ::-1].ravel()))
    values = rng.integers(0, 1 << 20, 4 * 128).astype(np.int32)
    out, ranks = cupy.zeros(512, cupy.int32), cupy.zeros(12, cupy.int32)
    module.get_function("cluster_neighbour")((4,), (128,), (cupy.asarray(values), out, ranks))
    blocks = values.reshape(4, 128)
    want = blocks[[1, 0, 3, 2]][:, ::-1].ravel()
    arrays["cluster_neighbour"], arrays["cluster_ranks"] = out.get(), ranks.get()
    results["cluster_neighbour"] = bool(np.array_equal(out.get(), want))
    results["cluster_ranks"] = ranks.get().tolist()
    report["cooperative_groups"] = results


def triton_matmuls():
    import torch
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor
    from triton_kernels import matmul_kernel, matmul_tma_kernel
    results = {"triton": triton.__version__}
    torch.manual_seed(0)
    configs = [((32, 32, 32), 4, (64, 64, 64)), ((64, 64, 32), 4, (64, 64, 64)), ((64, 32, 16), 4, (64, 64, 64)),
               ((64, 128, 32), 4, (100, 200, 70)), ((128, 128, 64), 8, (128, 128, 128))]
    for (bm, bn, bk), warps, (m, n, k) in configs:
        a = torch.randn((m, k), device="cuda", dtype=torch.float16)
        b = torch.randn((k, n), device="cuda", dtype=torch.float16)
        c = torch.empty((m, n), device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        kernel = matmul_kernel[grid](a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                     BLOCK_SIZE_K=bk, GROUP_SIZE_M=2, num_warps=warps, num_stages=3)
        want = (a.cpu().double() @ b.cpu().double()).half().float().numpy()
        err = float(np.abs(c.cpu().float().numpy() - want).max())
        ops = sorted(set(re.findall(r"(wgmma\.mma_async\S+|stmatrix\S+|cp\.async\.bulk\S*|fence\.proxy\S+)",
                                    kernel.asm["ptx"])))
        results[f"matmul_{bm}x{bn}x{bk}"] = {"max_error": err, "emits": ops}
    m = n = k = 128
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16)
    c = torch.empty((m, n), device="cuda", dtype=torch.float16)
    descs = [TensorDescriptor(t, list(t.shape), list(t.stride()), [64, 64]) for t in (a, b, c)]
    kernel = matmul_tma_kernel[(2, 2)](*descs, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, num_warps=4)
    want = (a.cpu().double() @ b.cpu().double()).half().float().numpy()
    results["matmul_tma"] = {"max_error": float(np.abs(c.cpu().float().numpy() - want).max()),
                             "emits": sorted(set(re.findall(r"(cp\.async\.bulk\S*|mbarrier\.\S+|wgmma\.mma_async\S+)",
                                                            kernel.asm["ptx"])))}
    report["triton"] = results


def bulk():
    src = np.random.default_rng(3).integers(0, 1 << 30, 128).astype(np.uint32)
    dst, flags = cupy.full(128, 7, cupy.uint32), cupy.full(2, 9, cupy.uint32)
    ptx_module(BULK).get_function("bulk_probe")((1,), (64,), (cupy.asarray(src), dst, flags))
    arrays["bulk_flags"], arrays["bulk_dst"] = flags.get(), dst.get()
    report["bulk"] = {"flags": flags.get().tolist(),
                      "dst_equals_3_src": bool(np.array_equal(dst.get(), (3 * src.astype(np.uint64)).astype(np.uint32)))}


TENSOR_CASES = [((40, 24), (8, 16), (20, 30), "none", "zero"), ((5, 6, 32), (32, 4, 2), (0, -2, 4), "128B", "nan"),
                ((70,), (16,), (60,), "64B", "zero")]


def tensor_maps():
    from cuda.bindings import driver as cu
    from hopper_ptx import box_of
    swizzles = {"none": cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
                "64B": cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B,
                "128B": cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B}
    fills = {"zero": cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
             "nan": cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA}
    results = {}
    for shape, box, coords, swizzle, fill in TENSOR_CASES:
        rng = np.random.default_rng(5)
        tensor = rng.standard_normal(shape).astype(np.float32)
        target = np.full(shape, -1.0, np.float32)
        src, dst = cupy.asarray(tensor), cupy.asarray(target)
        dims = list(reversed(shape))
        strides = [4 * int(np.prod(shape[len(shape) - d:])) for d in range(1, len(shape))]

        def encode(pointer, oob):
            u32, u64 = cu.cuuint32_t, cu.cuuint64_t
            err, tmap = cu.cuTensorMapEncodeTiled(
                cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, u32(len(shape)), pointer,
                [u64(d) for d in dims], [u64(s) for s in strides], [u32(b) for b in box],
                [u32(1)] * len(shape), cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzles[swizzle], cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE, fills[oob])
            assert int(err) == 0, err
            return np.array([int(v) for v in tmap.opaque], np.uint64).tobytes()
        elements = int(np.prod(box))
        out = cupy.full(elements, 12345.0, cupy.float32)
        coords5 = np.array(list(coords) + [0] * (5 - len(coords)), np.int32)
        ptx_module(tensor_probe(len(shape), elements)).get_function("tensor_probe")(
            (1,), (64,), (encode(src.data.ptr, fill), cupy.asarray(coords5), out, encode(dst.data.ptr, "zero")))
        want, inside = box_of(tensor, coords, box, np.nan if fill == "nan" else 0.0)
        where = np.array([swizzled(4 * e, swizzle) // 4 for e in range(elements)])
        name = f"tensor_{len(shape)}d_{swizzle}_{fill}"
        arrays[name], arrays[name + "_stored"] = out.get(), dst.get()
        results[name] = {"box_equals_numpy": bool(np.array_equal(out.get()[where].reshape(want.shape), want,
                                                                 equal_nan=True)),
                         "stored_inside": int((dst.get() != -1.0).sum()), "inside": int(inside.sum())}
    report["tensor_maps"] = results


SECTIONS = {"specials": specials, "wgmma": wgmma, "cooperative_groups": cooperative_groups,
            "triton": triton_matmuls, "bulk": bulk, "tensor_maps": tensor_maps}
for name in sys.argv[2:] or SECTIONS:
    guarded(name, SECTIONS[name])
os.makedirs(out_dir, exist_ok=True)
np.savez_compressed(os.path.join(out_dir, "h200.npz"), **arrays)
with open(os.path.join(out_dir, "h200.json"), "w") as f:
    json.dump(report, f, indent=1)
print(json.dumps(report, indent=1)[:6000])
