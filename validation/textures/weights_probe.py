"""The weights a linear fetch gives each corner of its 2D / 3D footprint, read one corner at a time:
a 2 x 2 (x 2) float texture holding 1.0 in one texel and 0 elsewhere returns that corner's weight.
Unnormalized coordinates 0.5 + k / 256 on each axis give the axis weight k / 256 exactly; 4,096
random (kx, ky) pairs and 4,096 random (kx, ky, kz) triples, and every kx with ky = 128 (2D).

On a GPU (CuPy):   python3 weights_probe.py OUTDIR          -> OUTDIR/weights_gpu.npz
Here, on warpsim:  WARPSIM=1 python validation/textures/weights_probe.py OUT -> OUT/weights_warpsim.npz
"""

from __future__ import annotations

import os
import sys

import numpy as np

if os.environ.get("WARPSIM"):
    import warpsim as cp
    from warpsim.api.cupy.cuda import runtime, texture
else:
    import cupy as cp
    from cupy.cuda import runtime, texture

SRC = r"""
extern "C" __global__ void f2(cudaTextureObject_t t, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, x[i], y[i]); }
extern "C" __global__ void f3(cudaTextureObject_t t, const float* x, const float* y, const float* z, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float>(t, x[i], y[i], z[i]); }
"""


def one_hot_texture(dims: int, corner: int):
    data = np.zeros((2,) * dims, np.float32)
    data[np.unravel_index(corner, data.shape)] = 1.0
    ch = texture.ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    array = texture.CUDAarray(ch, *((2,) * dims + (0,) * (3 - dims)))
    array.copy_from(data)
    desc = texture.TextureDescriptor((runtime.cudaAddressModeClamp,) * 3, runtime.cudaFilterModeLinear,
                                     runtime.cudaReadModeElementType, normalizedCoords=0)
    return texture.TextureObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array), desc), array


def main(out_dir: str) -> None:
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(2026)
    k2 = np.concatenate([rng.integers(0, 256, (4096, 2)), np.stack([np.arange(256), np.full(256, 128)], 1)])
    k3 = rng.integers(0, 256, (4096, 3))
    results = {"k2": k2, "k3": k3}
    for dims, ks in ((2, k2), (3, k3)):
        coords = [cp.asarray((0.5 + ks[:, a] / 256).astype(np.float32)) for a in range(dims)]
        n = len(ks)
        weights = np.zeros((n, 2 ** dims), np.float32)
        for corner in range(2 ** dims):           # corner index over (z, y, x) of the data array
            tex, keep = one_hot_texture(dims, corner)
            out = cp.zeros(n, np.float32)
            mod.get_function(f"f{dims}")(((n + 127) // 128,), (128,), (tex, *coords, out, np.int32(n)))
            weights[:, corner] = cp.asnumpy(out)
            del tex, keep                         # (the array lives until its texture's fetch is done)
        results[f"w{dims}"] = weights
    os.makedirs(out_dir, exist_ok=True)
    name = "weights_warpsim.npz" if os.environ.get("WARPSIM") else "weights_gpu.npz"
    np.savez_compressed(os.path.join(out_dir, name), **results)
    print("wrote", os.path.join(out_dir, name))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
