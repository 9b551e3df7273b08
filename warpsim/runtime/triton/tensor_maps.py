"""Host-side tensor descriptors as Triton's NVIDIA launcher passes them to a kernel.

A kernel parameter of Triton type `tensordesc<...>` becomes several PTX
parameters. With TMA (the kernel's metadata has a `tensordesc_meta` entry for
the descriptor: sm_90 and later) they are a tensor map (cuTensorMapEncodeTiled's
CUtensorMap, in the GPU's layout, from
warpsim.machine.isa.bulk_copy.encode_tiled), the shape (i32 each) and the
strides (i64 each). Without TMA the descriptor is decomposed as Triton's
`decompose_descriptor` does: the base pointer, shape and strides (i64 each), the
padding-is-NaN and round-to-tf32 flags (i1), then the shape (i32) and strides
(i64) again. Both the backend's launcher and `warpsim.triton.launch` use this
module, so the layout has one home.
"""

from __future__ import annotations

import numpy as np

from ...errors import LaunchError
from ...machine.isa.bulk_copy import encode_tiled

TMA_SWIZZLES = {0: "none", 1: "32B", 2: "64B", 3: "128B"}      # CUtensorMapSwizzle, as Triton passes it


def encode_tensor_map(descriptor, meta: dict, address: int | None = None) -> bytes:
    """The tensor map Triton's launcher makes with cuTensorMapEncodeTiled, in the GPU's 128-byte layout.

    `meta` is Triton's per-descriptor metadata (swizzle, element size, the box
    it loads, in the tensor's order); dimensions go to the map innermost first,
    as Triton's fill_tma_descriptor_tiled passes them to the driver. `address`
    is the tensor's device address (default: its data_ptr()).
    """
    if meta.get("is_im2col") or meta.get("fp4_padded"):
        raise LaunchError("Triton's im2col and padded fp4 tensor descriptors are not simulated")
    size = meta["elem_size"]
    base = descriptor.base.data_ptr() if address is None else address
    return encode_tiled(base, size, list(reversed(descriptor.shape)),
                        [s * size for s in reversed(descriptor.strides[:-1])],
                        list(reversed(meta["block_size"])), swizzle_mode=TMA_SWIZZLES[meta["swizzle"]],
                        oob_fill="nan" if descriptor.padding == "nan" else "zero",
                        is_float=_is_float(descriptor.base.dtype))


def descriptor_parameters(descriptor, meta: dict | None, address: int) -> list:
    """The PTX parameter values (('ptr', int) or ('scalar', NumPy scalar)) one host-side descriptor
    becomes: the tensor map form with meta, the decomposed form without (module doc)."""
    shape32 = [("scalar", np.int32(d)) for d in descriptor.shape]
    strides64 = [("scalar", np.int64(s)) for s in descriptor.strides]
    if meta is not None:
        return [("tensormap", encode_tensor_map(descriptor, meta, address)), *shape32, *strides64]
    return [("ptr", address), *(("scalar", np.int64(d)) for d in descriptor.shape), *strides64,
            ("scalar", np.bool_(descriptor.padding == "nan")),
            ("scalar", np.bool_(getattr(descriptor, "round_f32_to_tf32", False))), *shape32, *strides64]


def _is_float(dtype) -> bool:
    flag = getattr(dtype, "is_floating_point", None)         # torch dtypes and warpsim's dtype names
    if flag is not None:
        return bool(flag)
    return np.dtype(dtype).kind == "f"
