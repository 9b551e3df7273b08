"""The wgmma probe cases: shapes, types, operand layouts and swizzles, with their inputs.

One list for the warpsim tests (test_wgmma.py) and the H200 run
(validation/hopper/run_on_h200.py), so both see the same kernels and inputs.
Inputs are small integers, so every product and sum is exact in f32 (and in
f16 for the f16 accumulator case): the hardware's result is the exact one.
"""

import numpy as np

from hopper_ptx import ELEMENT_BYTES, K_OF, ROW_BYTES, a_fragments, a_fragments_8bit, descriptor, place, wgmma_probe

# name -> (N, accumulator, input type, A layout or "registers", B layout, scale_a, accumulate)
CASES = {
    "n64_f16_k128B_n128B": (64, "f32", "f16", ("K", "128B"), ("MN", "128B"), 1, 1),
    "n32_f16_interleaved": (32, "f32", "f16", ("K", "none"), ("K", "none"), 1, 1),
    "n16_bf16_m64B_n32B": (16, "f32", "bf16", ("MN", "64B"), ("MN", "32B"), 1, 1),
    "n8_f16_a_registers_k32B": (8, "f32", "f16", "registers", ("K", "32B"), 1, 1),
    "n16_tf32_k128B_k64B": (16, "f32", "tf32", ("K", "128B"), ("K", "64B"), 1, 1),
    "n32_f16_accumulator": (32, "f16", "f16", ("K", "64B"), ("MN", "none"), 1, 1),
    "n24_negated_a_no_accumulate": (24, "f32", "f16", ("MN", "32B"), ("K", "128B"), -1, 0),
}


def layout_strides(mn: int, k: int, esize: int, major: str, swizzle: str) -> tuple[int, int]:
    """(LBO, SBO) of a dense tile in a canonical layout."""
    row = ROW_BYTES[swizzle]
    if major == "K":
        if swizzle == "none":
            return 128, 128 * -(-k * esize // 16)                 # K chunks adjacent, then 8 more rows
        return 16, 8 * row                                        # LBO unused
    if swizzle == "none":
        return 128 * -(-mn * esize // 16), 128                   # LBO: next 8 K rows; SBO: next chunk
    return 8 * row * -(-k // 8), 8 * row                          # LBO: next row-wide column


def element_bits(values: np.ndarray, atype: str) -> np.ndarray:
    if atype == "f16":
        return values.astype(np.float16).view(np.uint16)
    if atype == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return values.astype(np.float32).view(np.uint32)


def build(name: str, seed: int = 0) -> dict:
    """PTX, launch arguments (as NumPy arrays and ints) and the NumPy reference of one case."""
    n, dtype, atype, a_layout, b_layout, scale_a, accumulate = CASES[name]
    rng = np.random.default_rng(seed)
    k = K_OF[atype]
    esize = ELEMENT_BYTES[atype]
    a = rng.integers(-4, 5, (64, k)).astype(np.float64)
    b = rng.integers(-4, 5, (k, n)).astype(np.float64)
    c = rng.integers(-20, 21, (64, n)).astype(np.float64)
    image = np.zeros(64 * 1024, np.uint8)
    a_desc = 0
    b_base = 0
    if a_layout != "registers":
        major, swizzle = a_layout
        lbo, sbo = layout_strides(64, k, esize, major, swizzle)
        place(image, 0, element_bits(a, atype), esize, major, swizzle, lbo, sbo)
        a_desc = descriptor(0, lbo, sbo, swizzle)
        b_base = 16 * 1024
    major, swizzle = b_layout
    lbo, sbo = layout_strides(n, k, esize, major, swizzle)
    place(image, b_base, element_bits(b.T, atype), esize, major, swizzle, lbo, sbo)
    b_desc = descriptor(b_base, lbo, sbo, swizzle)
    used = int(np.flatnonzero(image).max()) + 16 if image.any() else 16
    image = image[:(used + 15) // 16 * 16].copy()
    ptx, regs = wgmma_probe(n, dtype, atype, a_in_registers=a_layout == "registers",
                            trans_a=int(a_layout != "registers" and a_layout[0] == "MN"),
                            trans_b=int(b_layout[0] == "MN"), scale_a=scale_a)
    c_words = _fragment_words(c, n, dtype)
    afrag = a_fragments(element_bits(a, atype)) if a_layout == "registers" else \
        np.zeros((128, 4), np.uint32)
    want = (scale_a * a) @ b + (c if accumulate else 0)
    return {"ptx": ptx, "regs": regs, "n": n, "dtype": dtype, "image": image.view(np.uint32),
            "a_desc": a_desc, "b_desc": b_desc, "c_in": c_words, "afrag": afrag,
            "accumulate": accumulate, "want": want, "shared": len(image)}


def _fragment_words(c: np.ndarray, n: int, dtype: str) -> np.ndarray:
    """(128, registers) words holding matrix c in the accumulator layout."""
    values = np.zeros((128, n // 2))
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            values[t, i] = c[16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2]
    typed = values.astype({"f32": np.float32, "s32": np.int32}.get(dtype, np.float16))
    return np.ascontiguousarray(typed).view(np.uint32).reshape(128, -1)


def fp8_bits(values: np.ndarray, atype: str) -> np.ndarray:
    """e4m3 / e5m2 bits of small integers (each exactly representable): sign, biased exponent, mantissa."""
    mantissa_bits, bias = (3, 7) if atype == "e4m3" else (2, 15)
    magnitude = np.abs(values)
    exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1))).astype(np.int64)
    mantissa = ((magnitude / 2.0 ** exponent - 1) * (1 << mantissa_bits)).astype(np.int64)
    bits = ((exponent + bias) << mantissa_bits) | mantissa
    return np.where(magnitude > 0, bits | ((values < 0) << 7), 0).astype(np.uint8)


def fp8_register_a_case(atype: str, n: int, dtype: str, seed: int = 0) -> dict:
    """As build() returns, for fp8 wgmma with A in registers (m64nNk32; B K-major, 32-byte swizzle)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (64, 32)).astype(np.float64)
    b = rng.integers(-4, 5, (32, n)).astype(np.float64)
    c = rng.integers(-20, 21, (64, n)).astype(np.float64)
    image = np.zeros(16 * 1024, np.uint8)
    lbo, sbo = layout_strides(n, 32, 1, "K", "32B")
    place(image, 0, fp8_bits(b.T, atype), 1, "K", "32B", lbo, sbo)
    image = image[:(int(np.flatnonzero(image).max()) + 16) // 16 * 16].copy()
    ptx, regs = wgmma_probe(n, dtype, atype, a_in_registers=True)
    return {"ptx": ptx, "regs": regs, "n": n, "dtype": dtype, "image": image.view(np.uint32), "a_desc": 0,
            "b_desc": descriptor(0, lbo, sbo, "32B"), "c_in": _fragment_words(c, n, dtype),
            "afrag": a_fragments_8bit(fp8_bits(a, atype)), "accumulate": 1, "want": a @ b + c,
            "shared": image.size}
