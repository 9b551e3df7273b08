"""What a texture fetch computes: address modes, filtering weights and texel formats.

The rules of the CUDA programming guide's texture-fetching appendix, on NumPy
arrays of coordinates (one per lane), for the PTX machine's tex/tld4 and for
tests' references:

- Coordinates are f32. Normalized coordinates are first scaled by the size
  (wrap and mirror apply only to normalized coordinates; with unnormalized
  ones they act as clamp, as CUDA says).
- Point filtering reads texel floor(x).
- Linear filtering reads texels i and i+1 around xB = x - 0.5 with weight
  alpha = frac(xB) held as a 9-bit fixed-point number with 8 fractional bits
  (xB rounded to the nearest 1/256 on the H200), so alpha is a multiple of
  1/256 and 1.0 is exact.
- Address modes act on texel indices: clamp to [0, N-1], wrap modulo N, mirror
  (0..N-1, N-1..0, ...), border (an index outside reads the border colour).
- A cubemap fetch (texCubemap) takes a direction (x, y, z): its largest magnitude m
  picks the face, +x 0, -x 1, +y 2, -y 3, +z 4, -z 5 (x first, then y, on a tie),
  and the other two components (s, t) give the face's normalized coordinates
  ((s / m + 1) / 2, (t / m + 1) / 2) in f32, as the CUDA programming guide's
  cubemap table says: +x (-z, -y), -x (z, -y), +y (x, z), -y (x, -z), +z (x, -y),
  -z (-x, -y). The face is then fetched as a 2D layer, its indices clamped.
- Read mode: element type returns the texel as stored (f16 widened, 8/16-bit
  integers extended to 32 bits); normalized float maps unsigned n-bit
  integers to [0, 1] by v / (2^n - 1) and signed ones to [-1, 1] by
  max(v / (2^(n-1) - 1), -1).
"""

from __future__ import annotations

import numpy as np

# cudaTextureAddressMode, cudaTextureFilterMode, cudaTextureReadMode, cudaChannelFormatKind values
WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
POINT, LINEAR = 0, 1
ELEMENT_TYPE, NORMALIZED_FLOAT = 0, 1
SIGNED, UNSIGNED, FLOAT = 0, 1, 2

FRACTION_BITS = 8                       # the linear filter's weights are multiples of 1/256


def texel_coordinate(coords: np.ndarray, size: int, normalized: bool) -> np.ndarray:
    """The f32 coordinate in texels (normalized ones scaled by the size, as the GPU does in f32)."""
    coords = np.asarray(coords, dtype=np.float32)
    return coords * np.float32(size) if normalized else coords


def filtered_coordinate(texel_coords: np.ndarray, size: int, mode: int) -> np.ndarray:
    """Clamp mode keeps a linear fetch's coordinate between the first and last texels' centres: past
    them every tap reads the edge texel, and the weights of the other axes are split as at the edge
    (validation/textures: a 3D clamp fetch's nested weights round otherwise)."""
    if mode != CLAMP:
        return texel_coords
    return np.clip(texel_coords, np.float32(0.5), np.float32(size - 0.5))


def cube_face(x, y, z) -> tuple:
    """(face, u, v) of cubemap directions: the face each picks and its normalized coordinates there."""
    x, y, z = (np.asarray(c, dtype=np.float32) for c in (x, y, z))
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    on_x = (ax >= ay) & (ax >= az)
    on_y = ~on_x & (ay >= az)
    face = np.where(on_x, np.where(x >= 0, 0, 1), np.where(on_y, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    s = np.select([face == 0, face == 1, face == 5], [-z, z, -x], x)
    t = np.select([face == 2, face == 3], [z, -z], -y)
    m = np.where(on_x, ax, np.where(on_y, ay, az))
    with np.errstate(divide="ignore", invalid="ignore"):
        half, one = np.float32(0.5), np.float32(1)
        return face.astype(np.int64), (s / m + one) * half, (t / m + one) * half


def effective_mode(mode: int, normalized: bool) -> int:
    """Wrap and mirror need normalized coordinates; otherwise CUDA fetches as with clamp."""
    return mode if normalized or mode in (CLAMP, BORDER) else CLAMP


def fixed_point(texel_coords: np.ndarray) -> np.ndarray:
    """The coordinate in fixed point with 8 fractional bits (int64; NaN reads as 0, +-inf saturate)."""
    scaled = np.asarray(texel_coords, dtype=np.float64) * (1 << FRACTION_BITS)
    scaled = np.nan_to_num(scaled, nan=0.0, posinf=2.0 ** 40, neginf=-2.0 ** 40)
    return np.floor(np.clip(scaled, -2.0 ** 40, 2.0 ** 40)).astype(np.int64)


def point_index(texel_coords: np.ndarray) -> np.ndarray:
    """Point filtering: the texel holding the coordinate, floor(x)."""
    return fixed_point(texel_coords) >> FRACTION_BITS


def linear_taps(texel_coords: np.ndarray):
    """Linear filtering: (index of the lower texel, weight of the upper one as k/256 with k in 0..255).

    xB = x - 0.5 is rounded to the nearest 1/256 (halves up), as the H200 does
    (validation/textures: x = 0.5 + 1/512 already weighs the upper texel 1/256)."""
    scaled = (np.asarray(texel_coords, dtype=np.float64) - 0.5) * (1 << FRACTION_BITS) + 0.5
    scaled = np.nan_to_num(scaled, nan=0.0, posinf=2.0 ** 40, neginf=-2.0 ** 40)
    shifted = np.floor(np.clip(scaled, -2.0 ** 40, 2.0 ** 40)).astype(np.int64)
    return shifted >> FRACTION_BITS, shifted & ((1 << FRACTION_BITS) - 1)


def one_d_border_taps(weight: np.ndarray):
    """A 1D texture filtered linearly in border mode: (weight of the lower texel, of the upper one, of the
    border colour), each k/256. The H200 fetches a 1D CUDA array as a 2D one whose second coordinate
    lies on its edge, half in the border row: the texels share 128/256, the upper one ceil(a/2) of
    them for an upper weight of a/256 (validation/textures: 4,350 of 16,384 fetches differed from a
    1D interpolation, 50 from this, by an ulp). Other address modes read the texel row twice and
    give the 1D interpolation."""
    upper = (np.asarray(weight, np.int64) + 1) >> 1
    half = 1 << (FRACTION_BITS - 1)
    return half - upper, upper, half


def filtered(total: np.ndarray, bits: int, kind: int, read_mode: int) -> np.ndarray:
    """A linear filter's sum (f64) at the precision the texture unit filters in, as the H200 does
    (validation/textures): 16-bit float texels in f16 (the result rounded to it: 7,450 of 9,216 fetches
    differed from the f32 sum, 82 from this); 8-bit unsigned ones read as normalized floats in 16-bit
    unorm, each texel v as v x 257 and the sum rounded to an integer, halves up (30,394 of 36,864
    differed, none now)."""
    if kind == FLOAT and bits == 16:
        return total.astype(np.float16).astype(np.float64)
    if kind == UNSIGNED and bits == 8 and read_mode == NORMALIZED_FLOAT:
        raw = np.rint(np.asarray(total, np.float64) * (65535 << FRACTION_BITS)).astype(np.int64)
        return ((raw + (1 << (FRACTION_BITS - 1))) >> FRACTION_BITS) / 65535.0
    return total


def address(index: np.ndarray, size: int, mode: int):
    """(index inside 0..size-1, inside flags): the address mode applied to texel indices.

    `inside` is False only for border mode's indices outside the texture (they read the border colour).
    """
    index = np.asarray(index, dtype=np.int64)
    if mode == WRAP:
        return np.mod(index, size), np.ones(index.shape, dtype=bool)
    if mode == MIRROR:
        period = np.mod(index, 2 * size)
        return np.where(period < size, period, 2 * size - 1 - period), np.ones(index.shape, dtype=bool)
    inside = (index >= 0) & (index < size)
    return np.clip(index, 0, size - 1), (inside if mode == BORDER else np.ones(index.shape, dtype=bool))


def _half_up(numerator: np.ndarray) -> np.ndarray:
    """numerator / 256 rounded to an integer, halves up."""
    return (numerator + (1 << (FRACTION_BITS - 1))) >> FRACTION_BITS


def footprint_weights(uppers) -> np.ndarray:
    """The weights (integers, k/256) of a linear fetch's corners, indexed [x][y][z] by lower (0) or
    upper (1) texel, for the upper texels' axis weights `uppers` (x first): as the H100 weighs them,
    read corner by corner (validation/textures/weights_probe.py, 4,352 2D and 4,096 3D footprints).

    - 2D: the upper-upper corner ax ay / 256, halves up; the others what keeps each axis's weights
      exact (all 4,352 as measured; the product of the axis weights rounded per corner left 159).
    - 3D: the z planes by az, each plane's x columns by ax (the upper one rounded halves up, the
      lower the rest), each column's rows by ay, the upper column's upper row and the lower
      column's lower row rounded halves up, the other the rest (all 4,096 as measured; the
      products rounded per corner left 2,486)."""
    uppers = [np.asarray(u, np.int64) for u in uppers]
    one = np.int64(1 << FRACTION_BITS)
    if len(uppers) == 1:
        return np.stack([one - uppers[0], uppers[0]])
    if len(uppers) == 2:
        ax, ay = uppers
        both = _half_up(ax * ay)
        return np.stack([np.stack([one - ax - ay + both, ay - both]), np.stack([ax - both, both])])
    ax, ay, az = uppers
    out = np.zeros((2, 2, 2) + ax.shape, np.int64)
    for z, plane in ((0, one - az), (1, az)):
        upper_x = _half_up(plane * ax)
        for x, column in ((0, plane - upper_x), (1, upper_x)):
            # the upper column's upper row rounded halves up, the lower column's lower row so
            lower_y = column - _half_up(column * ay) if x else _half_up(column * (one - ay))
            out[x, 0, z], out[x, 1, z] = lower_y, column - lower_y
    return out


def interpolate(low: np.ndarray, high: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(1 - a) * low + a * high in f32, a = weight / 256: both products are exact in f32 for
    f32 texels only to 24 bits, so the sum is formed in f64 and rounded once to f32."""
    a = np.asarray(weight, dtype=np.float64) / (1 << FRACTION_BITS)
    return ((1.0 - a) * low.astype(np.float64) + a * high.astype(np.float64)).astype(np.float32)


def normalized_float(values: np.ndarray, bits: int, kind: int) -> np.ndarray:
    """An integer texel channel read as a normalized float (cudaReadModeNormalizedFloat)."""
    v = np.asarray(values, dtype=np.float64)
    if kind == UNSIGNED:
        return (v / float((1 << bits) - 1)).astype(np.float32)
    return np.maximum(v / float((1 << (bits - 1)) - 1), -1.0).astype(np.float32)
