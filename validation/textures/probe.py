"""Texture fetches and surface accesses on the GPU, and the same through warpsim's CuPy API.

On the device (CuPy):   python validation/textures/probe.py            -> $OUT/textures_gpu.npz
Here, on warpsim:       WARPSIM=1 python validation/textures/probe.py  -> out/textures_warpsim.npz
Then:                   python validation/textures/compare.py

Each case makes one texture (CUDA array, linear or pitch2D memory), fetches it with tex1D/2D/3D
(float4 or int4 results, every component kept) at coordinates drawn from a fixed seed, and keeps
texels, coordinates and results: fine coordinate steps show how the linear filter's weights are
quantized, normalized coordinates past [0, 1) show each address mode.
"""
import os
import numpy as np

if os.environ.get("WARPSIM"):
    import warpsim as cp
    from warpsim.api.cupy.cuda import runtime, texture
else:
    import cupy as cp
    from cupy.cuda import runtime, texture

SRC = r"""
extern "C" __global__ void f1(cudaTextureObject_t t, const float* x, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float4>(t, x[i]); }
extern "C" __global__ void f2(cudaTextureObject_t t, const float* x, const float* y, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, x[i], y[i]); }
extern "C" __global__ void f3(cudaTextureObject_t t, const float* x, const float* y, const float* z, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float4>(t, x[i], y[i], z[i]); }
extern "C" __global__ void i2(cudaTextureObject_t t, const float* x, const float* y, int4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<int4>(t, x[i], y[i]); }
extern "C" __global__ void fetch(cudaTextureObject_t t, const int* x, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<float4>(t, x[i]); }
extern "C" __global__ void g2(cudaTextureObject_t t, const float* x, const float* y, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2Dgather<float4>(t, x[i], y[i], 0); }
extern "C" __global__ void query(cudaTextureObject_t t, int* out) {
    int w, h, d, k, o, nc, fm, am;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t)); asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(t)); asm("txq.channel_data_type.b32 %0, [%1];" : "=r"(k) : "l"(t));
    asm("txq.channel_order.b32 %0, [%1];" : "=r"(o) : "l"(t)); asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(nc) : "l"(t));
    asm("txq.filter_mode.b32 %0, [%1];" : "=r"(fm) : "l"(t)); asm("txq.addr_mode_0.b32 %0, [%1];" : "=r"(am) : "l"(t));
    out[0] = w; out[1] = h; out[2] = d; out[3] = k; out[4] = o; out[5] = nc; out[6] = fm; out[7] = am; }
extern "C" __global__ void surf(cudaSurfaceObject_t s, float* out, int n) {
    for (int i = 0; i < n + 4; ++i) surf1Dwrite((float)i, s, (i - 2) * 4, cudaBoundaryModeClamp);
    for (int i = 0; i < n + 4; ++i) surf1Dwrite(100.f + i, s, (i - 2) * 4, cudaBoundaryModeZero);
    for (int i = 0; i < n + 4; ++i) { out[2 * i] = surf1Dread<float>(s, (i - 2) * 4, cudaBoundaryModeClamp);
                                      out[2 * i + 1] = surf1Dread<float>(s, (i - 2) * 4, cudaBoundaryModeZero); } }
"""
MODES = {"wrap": runtime.cudaAddressModeWrap, "clamp": runtime.cudaAddressModeClamp,
         "mirror": runtime.cudaAddressModeMirror, "border": runtime.cudaAddressModeBorder}
FLOAT, SIGNED, UNSIGNED = (runtime.cudaChannelFormatKindFloat, runtime.cudaChannelFormatKindSigned,
                           runtime.cudaChannelFormatKindUnsigned)
rng = np.random.default_rng(20)
mod = cp.RawModule(code=SRC)
results = {}
errors = []


class guard:
    """Run one case; a failure is kept (and printed) and the next case runs."""
    def __init__(self, label):
        self.label = label

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if value is not None:
            errors.append(f"{self.label}: {kind.__name__}: {value}")
            print("FAILED", errors[-1], flush=True)
        return True


def texture_of(data, bits, kind, channels, mode, linear, normalized, read_float=False, border=None):
    """A texture object over a CUDA array holding data (shape (..., channels) innermost last)."""
    ch = texture.ChannelFormatDescriptor(*([bits] * channels + [0] * (4 - channels)), kind)
    shape = data.shape[:-1] if channels > 1 else data.shape
    dims = shape[::-1] + (0,) * (3 - len(shape))
    array = texture.CUDAarray(ch, *dims)
    array.copy_from(np.ascontiguousarray(data.reshape(data.shape[:-2] + (-1,)) if channels > 1 else data))
    res = texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array)
    desc = texture.TextureDescriptor((mode,) * 3, runtime.cudaFilterModeLinear if linear else runtime.cudaFilterModePoint,
                                     runtime.cudaReadModeNormalizedFloat if read_float else runtime.cudaReadModeElementType,
                                     normalizedCoords=int(normalized), borderColors=border)
    return texture.TextureObject(res, desc), array


def run(name, kernel, tex, coords, out_dtype=np.float32):
    n = len(coords[0])
    out = cp.zeros((n, 4), dtype=out_dtype)
    args = [tex] + [cp.asarray(np.asarray(c, dtype=np.float32)) for c in coords] + [out, np.int32(n)]
    mod.get_function(kernel)(((n + 127) // 128,), (128,), tuple(args))
    results[name + "_coords"] = np.stack([np.asarray(c, np.float32) for c in coords])
    results[name + "_out"] = cp.asnumpy(out)


# 1D float, every address mode and both filters, normalized coordinates in fine steps past [0, 1)
with guard('1D float, every address mode and both filters, normalized coordinates in fine steps past [0, 1)'):
    t1 = rng.uniform(-1, 1, 16).astype(np.float32)
    results["t1"] = t1
    xs_norm = np.arange(-1.5, 2.5, 1 / 4096, dtype=np.float32)
    for mode in MODES:
        for linear in (False, True):
            tex, keep = texture_of(t1, 32, FLOAT, 1, MODES[mode], linear, True, border=(0.25, 0.5, 0.75, 1.0))
            run(f"n1_{mode}_{'lin' if linear else 'pt'}", "f1", tex, [xs_norm])

# unnormalized 1D linear with clamp: the weight quantization
with guard('unnormalized 1D linear with clamp'):
    tex, keep = texture_of(t1, 32, FLOAT, 1, MODES["clamp"], True, False)
    run("u1_clamp_lin", "f1", tex, [np.arange(-2, 18, 1 / 1024, dtype=np.float32)])
    tex, keep = texture_of(t1, 32, FLOAT, 1, MODES["border"], False, False)
    run("u1_border_pt", "f1", tex, [np.concatenate([np.arange(-2, 18, 1 / 64), [-0.0, -1e-7, 15.999999, 16.0]]).astype(np.float32)])

# uchar4 read as normalized float, linear; short2 normalized, point; half float linear
with guard('uchar4 read as normalized float, linear; short2 normalized, point; half float linear'):
    t_u8 = rng.integers(0, 256, (16, 4), dtype=np.uint8)
    results["t_u8"] = t_u8
    tex, keep = texture_of(t_u8, 8, UNSIGNED, 4, MODES["clamp"], True, False, read_float=True)
    run("u8_clamp_lin", "f1", tex, [np.arange(-1, 17, 1 / 512, dtype=np.float32)])
    t_s16 = rng.integers(-32768, 32768, (16, 2), dtype=np.int16)
    t_s16[0] = (-32768, -32767)
    results["t_s16"] = t_s16
    tex, keep = texture_of(t_s16, 16, SIGNED, 2, MODES["clamp"], False, False, read_float=True)
    run("s16_clamp_pt", "f1", tex, [np.arange(-1, 17, 1 / 8, dtype=np.float32)])
    t_f16 = rng.uniform(-4, 4, 16).astype(np.float16)
    results["t_f16"] = t_f16
    tex, keep = texture_of(t_f16, 16, FLOAT, 1, MODES["clamp"], True, False)
    run("f16_clamp_lin", "f1", tex, [np.arange(-1, 17, 1 / 512, dtype=np.float32)])

# 2D float (width 8, height 5), random normalized coordinates, each mode, linear
with guard('2D float (width 8, height 5), random normalized coordinates, each mode, linear'):
    t2 = rng.uniform(-1, 1, (5, 8)).astype(np.float32)
    results["t2"] = t2
    c2 = rng.uniform(-1, 2, (2, 8192)).astype(np.float32)
    for mode in MODES:
        tex, keep = texture_of(t2, 32, FLOAT, 1, MODES[mode], True, True)
        run(f"n2_{mode}_lin", "f2", tex, list(c2))
    tex, keep = texture_of(t2, 32, FLOAT, 1, MODES["clamp"], False, False)
    run("g2_clamp", "g2", tex, list(rng.uniform(-2, 10, (2, 2048)).astype(np.float32)))

# 2D int32 point, border, unnormalized
with guard('2D int32 point, border, unnormalized'):
    t2i = rng.integers(-2**31, 2**31, (6, 7), dtype=np.int64).astype(np.int32)
    results["t2i"] = t2i
    tex, keep = texture_of(t2i, 32, SIGNED, 1, MODES["border"], False, False)
    ci = rng.uniform(-3, 10, (2, 4096)).astype(np.float32)
    n = ci.shape[1]
    out = cp.zeros((n, 4), dtype=np.int32)
    mod.get_function("i2")(((n + 127) // 128,), (128,), (tex, cp.asarray(ci[0]), cp.asarray(ci[1]), out, np.int32(n)))
    results["i2_border_pt_coords"], results["i2_border_pt_out"] = ci, cp.asnumpy(out)

# 3D float (5 x 4 x 3), linear, clamp and wrap (normalized)
with guard('3D float (5 x 4 x 3), linear, clamp and wrap (normalized)'):
    t3 = rng.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
    results["t3"] = t3
    tex, keep = texture_of(t3, 32, FLOAT, 1, MODES["clamp"], True, False)
    run("u3_clamp_lin", "f3", tex, list(rng.uniform(-1, 6, (3, 8192)).astype(np.float32)))
    tex, keep = texture_of(t3, 32, FLOAT, 1, MODES["wrap"], True, True)
    run("n3_wrap_lin", "f3", tex, list(rng.uniform(-1, 2, (3, 8192)).astype(np.float32)))
    q = cp.zeros(8, dtype=np.int32)
    mod.get_function("query")((1,), (1,), (tex, q))
    results["txq_n3_wrap_lin"] = cp.asnumpy(q)

# tex1Dfetch on linear memory: integer coordinates, zero outside
with guard('tex1Dfetch on linear memory'):
    lin = cp.asarray(t1)
    res = texture.ResourceDescriptor(runtime.cudaResourceTypeLinear, arr=lin,
                                     chDesc=texture.ChannelFormatDescriptor(32, 0, 0, 0, FLOAT), sizeInBytes=lin.nbytes)
    tex = texture.TextureObject(res, texture.TextureDescriptor((MODES["clamp"],) * 3, runtime.cudaFilterModePoint,
                                                               runtime.cudaReadModeElementType))
    xi = np.arange(-4, 21, dtype=np.int32)
    out = cp.zeros((len(xi), 4), dtype=np.float32)
    mod.get_function("fetch")((1,), (32,), (tex, cp.asarray(xi), out, np.int32(len(xi))))
    results["fetch_out"] = cp.asnumpy(out)

# a 1D surface of 8 floats: clamped and dropped writes, clamped and zero reads
with guard('a 1D surface of 8 floats'):
    ch = texture.ChannelFormatDescriptor(32, 0, 0, 0, FLOAT)
    sarr = texture.CUDAarray(ch, 8, 0, 0, getattr(runtime, 'cudaArraySurfaceLoadStore', 2))
    sarr.copy_from(np.zeros(8, np.float32))
    sobj = texture.SurfaceObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=sarr))
    out = cp.zeros(2 * 12, dtype=np.float32)
    mod.get_function("surf")((1,), (1,), (sobj, out, np.int32(8)))
    results["surf_out"] = cp.asnumpy(out)
    back = np.zeros(8, np.float32)
    sarr.copy_to(back)
    results["surf_array"] = back

where = os.environ.get("OUT") if not os.environ.get("WARPSIM") else os.path.join(os.path.dirname(__file__), "out")
os.makedirs(where, exist_ok=True)
name = "textures_warpsim.npz" if os.environ.get("WARPSIM") else "textures_gpu.npz"
np.savez_compressed(os.path.join(where, name), errors=np.array(errors, dtype=object).astype(str), **results)
print("saved", name, len(results), "arrays;", len(errors), "failed cases")
for key in ("txq_n3_wrap_lin", "surf_out", "surf_array", "fetch_out"):
    print(key, results.get(key))
