"""Texture and surface objects: NVRTC kernels fetch through cupy.cuda.texture's objects, compared with a
NumPy reference of the CUDA programming guide's fetch rules written here on its own (address modes on
texel indices, point = floor, linear = weights rounded to the nearest 1/256 around x - 0.5, a 2D/3D corner's weight rounded to 1/256 too (halves to even),
border colour), the rules warpsim's fetch follows (validation/textures: the H200's bits for 1D, near for 2D/3D)."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.cupy.cuda import runtime, texture
from warpsim.errors import LaunchError

SRC = r"""
extern "C" __global__ void f1(cudaTextureObject_t t, const float* x, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float4>(t, x[i]); }
extern "C" __global__ void f2(cudaTextureObject_t t, const float* x, const float* y, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, x[i], y[i]); }
extern "C" __global__ void f3(cudaTextureObject_t t, const float* x, const float* y, const float* z,
                              float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float4>(t, x[i], y[i], z[i]); }
extern "C" __global__ void i2(cudaTextureObject_t t, const float* x, const float* y, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<int>(t, x[i], y[i]); }
extern "C" __global__ void fetch(cudaTextureObject_t t, const int* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, x[i]); }
extern "C" __global__ void gather(cudaTextureObject_t t, const float* x, const float* y, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2Dgather<float4>(t, x[i], y[i], 0); }
extern "C" __global__ void query(cudaTextureObject_t t, int* out) {
    asm("txq.width.b32 %0, [%1];" : "=r"(out[0]) : "l"(t)); asm("txq.height.b32 %0, [%1];" : "=r"(out[1]) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(out[2]) : "l"(t));
    asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(out[3]) : "l"(t));
    asm("txq.filter_mode.b32 %0, [%1];" : "=r"(out[4]) : "l"(t)); }
extern "C" __global__ void bump(cudaSurfaceObject_t s, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) { float4 v = surf2Dread<float4>(s, x * 16, y); v.x += 1.f; v.w = x + 100.f * y;
                          surf2Dwrite(v, s, x * 16, y); } }
extern "C" __global__ void edges(cudaSurfaceObject_t s, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) { out[2 * i] = surf1Dread<float>(s, (i - 2) * 4, cudaBoundaryModeClamp);
                 out[2 * i + 1] = surf1Dread<float>(s, (i - 2) * 4, cudaBoundaryModeZero); } }
extern "C" __global__ void layered1(cudaTextureObject_t t, const float* x, const int* layer, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1DLayered<float>(t, x[i], layer[i]); }
extern "C" __global__ void layered2(cudaTextureObject_t t, const float* x, const float* y, const int* layer,
                                    float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLayered<float>(t, x[i], y[i], layer[i]); }
extern "C" __global__ void cube(cudaTextureObject_t t, const float* x, const float* y, const float* z, float* out,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = texCubemap<float>(t, x[i], y[i], z[i]); }
extern "C" __global__ void trap_read(cudaSurfaceObject_t s, float* out) { out[0] = surf1Dread<float>(s, 4 * 1000); }
"""
MODES = {"wrap": runtime.cudaAddressModeWrap, "clamp": runtime.cudaAddressModeClamp,
         "mirror": runtime.cudaAddressModeMirror, "border": runtime.cudaAddressModeBorder}
BORDER = (0.25, 0.5, 0.75, 1.0)


@pytest.fixture(scope="module")
def mod():
    return cp.RawModule(code=SRC)


def make_texture(data, mode, linear, normalized, kind=runtime.cudaChannelFormatKindFloat):
    bits = data.dtype.itemsize * 8
    ch = texture.ChannelFormatDescriptor(bits, 0, 0, 0, kind)
    dims = data.shape[::-1] + (0,) * (3 - data.ndim)
    array = texture.CUDAarray(ch, *dims)
    array.copy_from(data)
    desc = texture.TextureDescriptor((MODES[mode],) * 3,
                                     runtime.cudaFilterModeLinear if linear else runtime.cudaFilterModePoint,
                                     runtime.cudaReadModeElementType, normalizedCoords=int(normalized),
                                     borderColors=BORDER)
    return texture.TextureObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array), desc)


# ------------------------------------------------------------ the reference

def ref_index(i, n, mode):
    """(index, inside) after the address mode; wrap and mirror only with normalized coordinates."""
    if mode == "wrap":
        return i % n, np.ones(i.shape, bool)
    if mode == "mirror":
        m = i % (2 * n)
        return np.where(m < n, m, 2 * n - 1 - m), np.ones(i.shape, bool)
    return np.clip(i, 0, n - 1), (i >= 0) & (i < n) if mode == "border" else np.ones(i.shape, bool)


def ref_fetch(data, coords, mode, linear, normalized):
    """One-channel float texture; coords innermost first, as tex1D/2D/3D take them."""
    sizes = data.shape[::-1]
    if not normalized and mode in ("wrap", "mirror"):
        mode = "clamp"
    taps = []
    for x, n in zip(coords, sizes):
        t = (np.float32(x) * np.float32(n)) if normalized else np.float32(x)
        if linear and mode == "clamp":                 # between the edge texels' centres
            t = np.clip(t, np.float32(0.5), np.float32(n - 0.5))
        fixed = np.floor(t.astype(np.float64) * 256).astype(np.int64)
        if linear:
            fixed -= 128
            fixed = np.floor((t.astype(np.float64) - 0.5) * 256 + 0.5).astype(np.int64)   # nearest 1/256
            taps.append([(fixed >> 8, 256 - (fixed & 255)), ((fixed >> 8) + 1, fixed & 255)])
        else:
            taps.append([(fixed >> 8, np.full(len(fixed), 256))])
    total = np.zeros(len(coords[0]))
    if linear and mode == "border" and len(taps) == 1:
        # the H200 filters a 1D array as a 2D one whose second coordinate lies on its edge: half the
        # border row; the texel row's half split as ceil(a / 2) for the upper texel (validation/textures)
        (low, _), (high, w_high) = taps[0]
        upper = (w_high + 1) // 2
        taps = [[(low, 128 - upper), (high, upper)]]
        total += 128 / 256 * BORDER[0]
    weights = ref_corner_weights([t[-1][1] for t in taps]) if linear and len(taps) > 1 else None
    for corner in np.ndindex(*[len(t) for t in taps]):
        weight = np.ones(len(coords[0]), np.int64)
        inside = np.ones(len(coords[0]), bool)
        index = []
        for axis, k in enumerate(corner):
            i, w = taps[axis][k]
            i, ok = ref_index(i, sizes[axis], mode)
            index.append(i)
            inside &= ok
            weight = weight * w
        weight = weights[corner] if weights is not None else weight >> (8 * (len(corner) - 1))
        texel = data[tuple(index[::-1])].astype(np.float64)
        total += weight / 256 * np.where(inside, texel, BORDER[0])
    return total.astype(np.float32)


def ref_corner_weights(uppers):
    """Corner weights (k/256) by [x][y][z] as the H100 gives them (validation/textures/weights_probe.py):
    2D, the upper corner's product rounded halves up and the rest keeping each axis exact; 3D, z
    planes, then x columns (upper rounded up), then rows (upper column's upper row, lower column's
    lower row rounded up)."""
    up = lambda n: (n + 128) // 256  # noqa: E731
    if len(uppers) == 2:
        x, y = uppers
        p = up(x * y)
        return {(0, 0): 256 - x - y + p, (1, 0): x - p, (0, 1): y - p, (1, 1): p}
    x, y, z = uppers
    out = {}
    for k, plane in ((0, 256 - z), (1, z)):
        hi = up(plane * x)
        for i, column in ((0, plane - hi), (1, hi)):
            low_row = up(column * (256 - y)) if i == 0 else column - up(column * y)
            out[(i, 0, k)], out[(i, 1, k)] = low_row, column - low_row
    return out


def fetch(mod, kernel, tex, coords):
    n = len(coords[0])
    out = cp.zeros((n, 4), dtype=np.float32)
    args = [tex] + [cp.asarray(np.asarray(c, np.float32)) for c in coords] + [out, np.int32(n)]
    mod.get_function(kernel)(((n + 127) // 128,), (128,), tuple(args))
    return out.get()


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_fetch_matches_reference(mod, mode, linear, dims):
    rng = np.random.default_rng(dims * 10 + linear)
    shape = {1: (13,), 2: (5, 7), 3: (3, 4, 6)}[dims]
    data = rng.uniform(-1, 1, shape).astype(np.float32)
    for normalized in (True, False):
        coords = [rng.uniform(-1.5, 2.5, 600) if normalized else rng.uniform(-3, n + 3, 600)
                  for n in shape[::-1]]
        coords = [c.astype(np.float32) for c in coords]
        got = fetch(mod, f"f{dims}", make_texture(data, mode, linear, normalized), coords)
        want = ref_fetch(data, coords, mode, linear, normalized)
        np.testing.assert_array_equal(got[:, 0], want, err_msg=f"{mode} linear={linear} normalized={normalized}")
        np.testing.assert_array_equal(got[:, 1:], 0)          # channels the format lacks read 0 (H200)


@pytest.mark.parametrize("dims", [1, 2])
@pytest.mark.parametrize("linear", [False, True])
def test_a_layered_fetch_reads_its_layer_and_never_filters_across(mod, dims, linear):
    """tex1DLayered/tex2DLayered: a layer index (clamped to the layers), then the layer fetched as a
    1D/2D texture of its own; a CUDA array made with cudaArrayLayered, its depth the layer count."""
    rng = np.random.default_rng(40 + dims + 2 * linear)
    layers, shape = 4, {1: (9,), 2: (5, 7)}[dims]
    data = rng.uniform(-1, 1, (layers,) + shape).astype(np.float32)
    ch = texture.ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    extent = (shape[-1], shape[0] if dims == 2 else 1, layers)     # (CuPy makes no 1D layered array: one row)
    array = texture.CUDAarray(ch, *extent, runtime.cudaArrayLayered)
    array.copy_from(data)
    desc = texture.TextureDescriptor((MODES["wrap"],) * 3,
                                     runtime.cudaFilterModeLinear if linear else runtime.cudaFilterModePoint,
                                     runtime.cudaReadModeElementType, normalizedCoords=1)
    tex = texture.TextureObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array), desc)
    n = 500
    coords = [rng.uniform(-1.5, 2.5, n).astype(np.float32) for _ in range(dims)]
    layer = rng.integers(0, layers + 2, n).astype(np.int32)                 # past the last: clamped
    out = cp.zeros(n, np.float32)
    mod.get_function(f"layered{dims}")(((n + 127) // 128,), (128,),
                                       (tex, *[cp.asarray(c) for c in coords], cp.asarray(layer), out, np.int32(n)))
    got, want = out.get(), np.empty(n, np.float32)
    for k in range(layers):
        mine = np.minimum(layer, layers - 1) == k
        want[mine] = ref_fetch(data[k], [c[mine] for c in coords], "wrap", linear, True)
    np.testing.assert_array_equal(got, want)


def cube_reference(data, x, y, z):
    """The CUDA programming guide's cubemap table, direction by direction: the face of the largest
    magnitude (x, then y, on a tie), its (s, t), then point filtering at ((s/m + 1)/2, (t/m + 1)/2)."""
    width = data.shape[-1]
    out = []
    for dx, dy, dz in zip(x.tolist(), y.tolist(), z.tolist()):
        ax, ay, az = abs(dx), abs(dy), abs(dz)
        if ax >= ay and ax >= az:
            face, s, t, m = (0, -dz, -dy, ax) if dx >= 0 else (1, dz, -dy, ax)
        elif ay >= az:
            face, s, t, m = (2, dx, dz, ay) if dy >= 0 else (3, dx, -dz, ay)
        else:
            face, s, t, m = (4, dx, -dy, az) if dz >= 0 else (5, -dx, -dy, az)
        u = (np.float32(s) / np.float32(m) + np.float32(1)) * np.float32(0.5)
        v = (np.float32(t) / np.float32(m) + np.float32(1)) * np.float32(0.5)
        i, j = (min(max(int(np.floor(c * np.float32(width))), 0), width - 1) for c in (u, v))
        out.append(data[face, j, i])
    return np.array(out, np.float32)


def test_a_cubemap_fetch_reads_the_face_its_direction_picks(mod):
    rng = np.random.default_rng(61)
    width = 8
    data = rng.uniform(-1, 1, (6, width, width)).astype(np.float32)
    ch = texture.ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    array = texture.CUDAarray(ch, width, width, 6, runtime.cudaArrayCubemap)
    array.copy_from(data)
    desc = texture.TextureDescriptor((MODES["clamp"],) * 3, runtime.cudaFilterModePoint,
                                     runtime.cudaReadModeElementType, normalizedCoords=1)
    tex = texture.TextureObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array), desc)
    n = 600
    x, y, z = (rng.uniform(-2, 2, n).astype(np.float32) for _ in range(3))
    x[:6], y[:6], z[:6] = [1, -1, 0, 0, 0, 0], [0, 0, 1, -1, 0, 0], [0, 0, 0, 0, 1, -1]   # each axis
    out = cp.zeros(n, np.float32)
    mod.get_function("cube")(((n + 127) // 128,), (128,),
                             (tex, cp.asarray(x), cp.asarray(y), cp.asarray(z), out, np.int32(n)))
    np.testing.assert_array_equal(out.get(), cube_reference(data, x, y, z))


def test_linear_weights_are_multiples_of_1_256(mod):
    data = np.array([0.0, 1.0], np.float32)
    xs = np.arange(0.5, 1.5, 1 / 2048, dtype=np.float32)
    got = fetch(mod, "f1", make_texture(data, "clamp", True, False), [xs])[:, 0]
    np.testing.assert_array_equal(got, np.floor((xs - 0.5) * 256 + 0.5) / 256)
    assert len(np.unique(got)) == 257


def test_integer_texels_point_border(mod):
    rng = np.random.default_rng(3)
    data = rng.integers(-2**31, 2**31, (6, 7), dtype=np.int64).astype(np.int32)
    tex = make_texture(data, "border", False, False, runtime.cudaChannelFormatKindSigned)
    x, y = rng.uniform(-2, 9, (2, 500)).astype(np.float32)
    out = cp.zeros(500, dtype=np.int32)
    mod.get_function("i2")((4,), (128,), (tex, cp.asarray(x), cp.asarray(y), out, np.int32(500)))
    i, j = np.floor(x).astype(int), np.floor(y).astype(int)
    inside = (i >= 0) & (i < 7) & (j >= 0) & (j < 6)
    want = np.where(inside, data[np.clip(j, 0, 5), np.clip(i, 0, 6)], np.float32(BORDER[0]).view(np.int32))
    np.testing.assert_array_equal(out.get(), want)


def test_tex1dfetch_on_linear_memory_reads_zero_outside(mod):
    data = cp.asarray(np.arange(10, dtype=np.float32) * 1.5)
    res = texture.ResourceDescriptor(runtime.cudaResourceTypeLinear, arr=data, sizeInBytes=data.nbytes,
                                     chDesc=texture.ChannelFormatDescriptor(32, 0, 0, 0,
                                                                            runtime.cudaChannelFormatKindFloat))
    tex = texture.TextureObject(res, texture.TextureDescriptor())
    xs = np.arange(-3, 14, dtype=np.int32)
    out = cp.zeros(len(xs), dtype=np.float32)
    mod.get_function("fetch")((1,), (32,), (tex, cp.asarray(xs), out, np.int32(len(xs))))
    np.testing.assert_array_equal(out.get(), np.where((xs >= 0) & (xs < 10), xs * 1.5, 0).astype(np.float32))


def test_gather_and_query(mod):
    data = np.arange(20, dtype=np.float32).reshape(4, 5)
    tex = make_texture(data, "clamp", False, False)
    x = np.array([1.5, 0.2, 4.9], np.float32)
    y = np.array([2.5, 0.2, 3.9], np.float32)
    got = fetch(mod, "gather", tex, [x, y])
    i, j = np.floor(x - 0.5).astype(int), np.floor(y - 0.5).astype(int)
    t = lambda a, b: data[np.clip(b, 0, 3), np.clip(a, 0, 4)]
    np.testing.assert_array_equal(got, np.stack([t(i, j + 1), t(i + 1, j + 1), t(i + 1, j), t(i, j)], 1))
    out = cp.zeros(5, dtype=np.int32)
    mod.get_function("query")((1,), (1,), (tex, out))
    assert out.get().tolist() == [5, 4, 1, 0, 0]


def test_surface_round_trip(mod):
    rng = np.random.default_rng(5)
    w, h = 9, 4
    ch = texture.ChannelFormatDescriptor(32, 32, 32, 32, runtime.cudaChannelFormatKindFloat)
    array = texture.CUDAarray(ch, w, h, 0, runtime.cudaArraySurfaceLoadStore)
    data = rng.uniform(-1, 1, (h, w * 4)).astype(np.float32)
    array.copy_from(data)
    surf = texture.SurfaceObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array))
    mod.get_function("bump")((1, h), (16, 1), (surf, np.int32(w), np.int32(h)))
    back = np.zeros_like(data)
    array.copy_to(back)
    want = data.reshape(h, w, 4).copy()
    want[..., 0] += 1
    want[..., 3] = np.arange(w)[None, :] + 100 * np.arange(h)[:, None]
    np.testing.assert_array_equal(back, want.reshape(h, w * 4))


def test_surface_boundary_modes(mod):
    ch = texture.ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    array = texture.CUDAarray(ch, 8, 0, 0, runtime.cudaArraySurfaceLoadStore)
    array.copy_from(np.arange(8, dtype=np.float32) + 10)
    surf = texture.SurfaceObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array))
    out = cp.zeros(24, dtype=np.float32)
    mod.get_function("edges")((1,), (32,), (surf, out, np.int32(12)))
    x = np.arange(12) - 2
    got = out.get().reshape(12, 2)
    np.testing.assert_array_equal(got[:, 0], np.clip(x, 0, 7) + 10)
    np.testing.assert_array_equal(got[:, 1], np.where((x >= 0) & (x < 8), x + 10, 0))
    with pytest.raises(LaunchError, match="outside the surface"):
        mod.get_function("trap_read")((1,), (1,), (surf, out))


def test_a_handle_that_is_no_texture_object_is_named(mod):
    out = cp.zeros((1, 4), dtype=np.float32)
    with pytest.raises(LaunchError, match="is not a texture object"):
        mod.get_function("f1")((1,), (1,), (out.data.ptr, cp.zeros(1, dtype=np.float32), out, np.int32(1)))


@pytest.mark.parametrize("shape", [(64,), (32, 64), (19, 32, 64)])
def test_elementwise_kernel_with_a_texture_input(shape):
    """As CuPy's TestElementwiseKernelTexture: 'U texObj' binds to the object's handle."""
    data = np.random.default_rng(1).random(shape, dtype=np.float32)
    tex = make_texture(data, "clamp", False, False)
    width = shape[-1]
    height = shape[-2] if len(shape) > 1 else 0
    body = {1: "T temp = tex1D<T>(texObj, float(i));",
            2: "T temp = tex2D<T>(texObj, (float)(i % width), (float)(i / width));",
            3: "T temp = tex3D<T>(texObj, (float)((i % (width * height)) % width), "
               "(float)((i % (width * height)) / width), (float)(i / (width * height)));"}[len(shape)]
    params = {1: "T x, U texObj", 2: "T x, U texObj, uint64 width", 3: "T x, U texObj, uint64 width, uint64 height"}
    kernel = cp.ElementwiseKernel(params[len(shape)], "T y", body + " y = temp + x;", name=f"tex{len(shape)}")
    x = cp.arange(data.size, dtype=np.float32).reshape(shape)
    extra = [width, height][:len(shape) - 1]
    np.testing.assert_allclose(kernel(x, tex, *extra).get(), x.get() + data)


def test_footprint_weights_keep_every_axis_exact_and_sum_to_one():
    """2D: the four corners sum to 256/256 and each axis's upper texels to its weight, at all 65,536
    pairs of fractions (a constant texture reads back its value; rounding each corner's product gave
    258/256 of it at some); 3D: the corners sum to 256 and the z planes to their weights."""
    from warpsim.semantics.texture_fetch import footprint_weights
    a, b = (g.ravel() for g in np.meshgrid(np.arange(256), np.arange(256)))
    w = footprint_weights([a, b])
    np.testing.assert_array_equal(w.sum(axis=(0, 1)), 256)
    np.testing.assert_array_equal(w[1].sum(axis=0), a)
    np.testing.assert_array_equal(w[:, 1].sum(axis=0), b)
    assert (w >= 0).all()
    c = np.random.default_rng(3).integers(0, 256, (3, 20000))
    w3 = footprint_weights(list(c))
    np.testing.assert_array_equal(w3.sum(axis=(0, 1, 2)), 256)
    np.testing.assert_array_equal(w3[:, :, 1].sum(axis=(0, 1)), c[2])
    assert (w3 >= 0).all()


def _filtered_1d(mod, data, kind, read_mode):
    """tex1D of a one-channel 1D array `data`, clamp, linear, unnormalized coordinates in 1/512 steps."""
    ch = texture.ChannelFormatDescriptor(data.dtype.itemsize * 8, 0, 0, 0, kind)
    array = texture.CUDAarray(ch, len(data), 0, 0)
    array.copy_from(data)
    desc = texture.TextureDescriptor((runtime.cudaAddressModeClamp,) * 3, runtime.cudaFilterModeLinear, read_mode,
                                     normalizedCoords=0)
    tex = texture.TextureObject(texture.ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=array), desc)
    x = np.arange(-1, len(data) + 1, 1 / 512, dtype=np.float32)
    fixed = np.floor((x.astype(np.float64) - 0.5) * 256 + 0.5).astype(np.int64)
    low, a = fixed >> 8, fixed & 255
    lo, hi = (data[np.clip(i, 0, len(data) - 1)].astype(np.int64 if data.dtype == np.uint8 else np.float64)
              for i in (low, low + 1))
    return fetch(mod, "f1", tex, [x])[:, 0], lo, hi, a


def test_8_bit_texels_read_as_normalized_floats_filter_in_16_bit_unorm(mod):
    data = np.random.default_rng(8).integers(0, 256, 24).astype(np.uint8)
    got, lo, hi, a = _filtered_1d(mod, data, runtime.cudaChannelFormatKindUnsigned, runtime.cudaReadModeNormalizedFloat)
    raw = (256 - a) * lo * 257 + a * hi * 257                 # in 1/256 of a 16-bit unorm step
    want = (((raw + 128) >> 8) / 65535).astype(np.float32)    # rounded to one, halves up (the H200)
    np.testing.assert_array_equal(got, want)
    assert (want != (((256 - a) * lo + a * hi) / 256 / 255).astype(np.float32)).any()    # not the f32 sum


def test_half_texels_filter_to_a_half_result(mod):
    data = np.random.default_rng(16).uniform(-4, 4, 24).astype(np.float16)
    got, lo, hi, a = _filtered_1d(mod, data, runtime.cudaChannelFormatKindFloat, runtime.cudaReadModeElementType)
    exact = ((256 - a) * lo + a * hi) / 256
    np.testing.assert_array_equal(got, exact.astype(np.float16).astype(np.float32))
    assert (got != exact.astype(np.float32)).any()
