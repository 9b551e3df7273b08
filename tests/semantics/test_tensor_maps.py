"""Tensor maps in the GPU's layout: a map the kernel writes with tensormap.replace is the same 128 bytes
in the PTX run (semantics.tensor_maps.replace) and in the SASS run (ptxas's stores of masked bits), and
decodes to the fields written; encode_tiled's map is that same map.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.isa.bulk_copy import encode_tiled
from warpsim.profiler import Profiler
from warpsim.sass.replay import ReplayRequest
from warpsim.semantics.tensor_maps import DRIVER_DATA_TYPES, decode, problem

RECORDED = os.path.join(os.path.dirname(__file__), "..", "..", "validation", "tensor_maps")

# v[0] address, v[1] rank - 1, v[2..6] dims, v[7..10] strides, v[11..15] box, v[16..20] element strides
REGISTER_FIELDS = [("global_address", None, 0, "b64"), ("rank", None, 1, "b32"),
                   *(("global_dim", d, 2 + d, "b32") for d in range(5)),
                   *(("global_stride", d, 7 + d, "b64") for d in range(4)),
                   *(("box_dim", d, 11 + d, "b32") for d in range(5)),
                   *(("element_stride", d, 16 + d, "b32") for d in range(5))]


def map_writer(elemtype: int, swizzle: int, fill: int) -> str:
    """Kernel `write_map(v, out)`: zero a shared map, set every field (the register fields from v[], the
    enumerated ones as immediates), copy it to out with tensormap.cp_fenceproxy."""
    body = []
    for field, ordinal, index, width in REGISTER_FIELDS:
        reg = "%rd9" if width == "b64" else "%r9"
        load = f"ld.global.u64 %rd9, [%rd1+{8 * index}];" if width == "b64" else \
            f"ld.global.u64 %rd9, [%rd1+{8 * index}]; cvt.u32.u64 %r9, %rd9;"
        ordinal = "" if ordinal is None else f"{ordinal}, "
        body.append(f"    {load}\n    @%p1 tensormap.replace.tile.{field}.shared::cta.b1024.{width} [map], "
                    f"{ordinal}{reg};")
    for field, value in (("elemtype", elemtype), ("swizzle_mode", swizzle), ("fill_mode", fill),
                         ("interleave_layout", 0)):
        body.append(f"    @%p1 tensormap.replace.tile.{field}.shared::cta.b1024.b32 [map], {value};")
    lines = "\n".join(body)
    return f""".version 8.5
.target sm_90a
.address_size 64
.visible .entry write_map(.param .u64 v, .param .u64 out)
{{
    .shared .align 128 .b8 map[128];
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [v];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, map;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], 0;
    bar.sync 0;
    setp.eq.u32 %p1, %r1, 0;
{lines}
    bar.sync 0;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [map], 128;
    ret;
}}
"""


@pytest.mark.sass
@pytest.mark.parametrize("elemtype, swizzle, fill, esize", [(6, 3, 1, 2), (7, 1, 0, 4), (0, 2, 0, 1), (11, 0, 1, 4)],
                         ids=["f16-128B-nan", "f32-32B", "u8-64B", "tf32"])
def test_a_map_the_kernel_writes_is_the_same_in_both_runs_and_decodes_to_its_fields(elemtype, swizzle, fill, esize):
    rng = np.random.default_rng(20261202 + elemtype)
    rank = 5
    address = int(rng.integers(1, 1 << 44)) * 16
    dims = rng.integers(1, 1 << 32, rank, dtype=np.uint64)
    strides = rng.integers(1, 1 << 36, rank - 1, dtype=np.uint64) * 16
    box = rng.integers(1, 257, rank)
    element_strides = rng.integers(1, 9, rank)
    v = np.array([address, rank - 1, *dims, *strides, *box, *element_strides], np.uint64)
    out = cp.asarray(np.full(32, 0xA5A5A5A5, np.uint32))
    module = cp.RawModule(ptx=map_writer(elemtype, swizzle, fill))
    with ReplayRequest() as request, Profiler(level="sass") as profiler:   # the SASS run's bytes must equal the PTX run's
        module.get_function("write_map")((1,), (32,), (cp.asarray(v), out))
        (_, replay), = request._replays.values()
    assert replay.outcome().level == "sass", replay.outcome().note
    assert profiler[0].level == "sass", profiler[0].level_note
    record = decode(out.get().tobytes())
    assert int(record["address"]) == address and int(record["rank"]) == rank
    assert int(record["element_bytes"]) == esize and int(record["oob_nan"]) == fill
    assert int(record["swizzle"]) == {0: 0, 1: 3, 2: 2, 3: 1}[swizzle]
    np.testing.assert_array_equal(record["dims"], dims)
    np.testing.assert_array_equal(record["strides"][1:], strides)
    np.testing.assert_array_equal(record["box"], box)
    np.testing.assert_array_equal(record["element_strides"], element_strides)


@pytest.mark.sass
def test_encode_tiled_writes_the_bytes_the_kernel_does():
    """Ordinals past the rank get the kernel's neutral values (1 element, stride 0), which store as 0."""
    rng = np.random.default_rng(7)
    address, dims, strides, box = 0x7F00_1234_5670, [96, 40, 7], [256, 256 * 40], [64, 8, 2]
    v = np.array([address, 2, *dims, 1, 1, *strides, 0, 0, *box, 1, 1, *([1] * 5)], np.uint64)
    out = cp.asarray(rng.integers(0, 1 << 32, 32, dtype=np.uint32))
    cp.RawModule(ptx=map_writer(6, 3, 1)).get_function("write_map")((1,), (32,), (cp.asarray(v), out))
    # words 0x40 and 0x48 are the driver's alone (semantics.tensor_maps)
    encoded = encode_tiled(address, 2, dims, strides, box, swizzle_mode="128B", oob_fill="nan")
    assert out.get().tobytes()[:0x40] == encoded[:0x40]


def test_zero_bytes_are_not_a_map():
    assert "address is 0" in problem(decode(bytes(128)))


def test_encode_tiled_writes_the_drivers_bytes_and_refuses_what_it_refuses():
    """cuTensorMapEncodeTiled on an H200 (validation/tensor_maps/h200_encode.jsonl) over 55 cases: every
    data type, ranks 1-5, each swizzle and L2 promotion, NaN fill, arguments the driver refuses, and
    boxes of 128-255 KB (228 KB, an SM's shared memory, is the largest it encodes)."""
    sys.path.insert(0, RECORDED)
    from cases import DTYPES, SWIZZLE_NAMES, cases
    with open(os.path.join(RECORDED, "h200_encode.jsonl")) as fh:
        recorded = [json.loads(line) for line in fh]
    compared = refused = 0
    for (dtype, rank, offset, dims, strides, box, estr, _, swizzle, l2, oob), row in zip(cases(), recorded):
        if rank > 5 or any(e != 1 for e in estr[:rank]):
            continue                                   # element strides: not simulated (encode_tiled says so)
        args = (row["base"] + offset, DTYPES[dtype][0], dims[:rank], strides[:rank - 1], box[:rank])
        kwargs = dict(swizzle_mode=SWIZZLE_NAMES[swizzle], oob_fill="nan" if oob else "zero",
                      element_type=DRIVER_DATA_TYPES[dtype], l2_promotion=l2)
        if row["result"] == 0:
            assert encode_tiled(*args, **kwargs) == np.array(row["words"], np.uint32).tobytes(), row["case"]
            compared += 1
        else:
            with pytest.raises(ValueError, match="CUDA_ERROR_INVALID_VALUE"):
                encode_tiled(*args, **kwargs)
            refused += 1
    assert compared >= 30 and refused >= 15
