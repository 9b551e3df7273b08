"""Address checks both executors make (semantics/addresses.py), and the SASS executor's faults built on them.

The window a generic address falls in, and whether an access of a width is
aligned and inside its space, are compared lane by lane with Python integers
on random addresses salted with the windows' edges. The SASS executor's
LDS/LDL/LD steps must fault on the first lane the reference says is bad, with
the message they have always given (the PTX machine's are in tests/sanitizer).
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.sass.disasm import parse_instruction
from warpsim.sass.executor.errors import SassFault
from warpsim.sass.executor.state import Group, SassState
from warpsim.sass.executor.table import build_step
from warpsim.semantics.addresses import (LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, aligned, generic_space, inside,
                                         window_offsets)

WIDTHS = {".U8": 1, ".U16": 2, "": 4, ".64": 8, ".128": 16}
SHARED_BYTES, LOCAL_BYTES, LANES = 256, 64, 64


def _edge_addresses(rng, n=4096):
    edges = [0, 1, 4095, SHARED_WINDOW - 1, SHARED_WINDOW, SHARED_WINDOW + 3, SHARED_WINDOW + WINDOW_SIZE - 1,
             SHARED_WINDOW + WINDOW_SIZE, LOCAL_WINDOW - 1, LOCAL_WINDOW, LOCAL_WINDOW + WINDOW_SIZE - 1,
             LOCAL_WINDOW + WINDOW_SIZE, 0x7F00_0000_0000, 2 ** 64 - 1]
    base = rng.choice(np.array(edges, dtype=np.uint64), n)
    return base + rng.integers(0, 17, n).astype(np.uint64) * rng.integers(0, 2, n).astype(np.uint64)


def test_generic_windows_and_offsets():
    addrs = _edge_addresses(np.random.default_rng(1))
    codes = generic_space(addrs)
    for a, code in zip(addrs.tolist(), codes.tolist()):
        want = 1 if SHARED_WINDOW <= a < SHARED_WINDOW + WINDOW_SIZE else \
            2 if LOCAL_WINDOW <= a < LOCAL_WINDOW + WINDOW_SIZE else 0
        assert code == want, hex(a)
    small = np.array([0, 8, SHARED_WINDOW, SHARED_WINDOW + 40], dtype=np.uint64)
    assert window_offsets(small, SHARED_WINDOW).tolist() == [0, 8, 0, 40]


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16])
def test_inside_and_aligned(size):
    rng = np.random.default_rng(size)
    offsets = rng.integers(-40, 300, 2000)
    got = inside(offsets, size, SHARED_BYTES)
    want = [0 <= o and o + size <= SHARED_BYTES and o % size == 0 for o in offsets.tolist()]
    assert got.tolist() == want
    addrs = _edge_addresses(rng)
    assert aligned(addrs, size).tolist() == [a % size == 0 for a in addrs.tolist()]


class _Program:
    registers = 16
    uniform_registers = 8


def _state():
    return SassState(_Program(), (1, 1, 1), (LANES, 1, 1), np.arange(1), {}, SHARED_BYTES, LOCAL_BYTES, None)


def _run(text, addrs):
    st = _state()
    st.R[2][:] = (addrs & 0xFFFFFFFF).astype(np.uint32)
    st.R[3][:] = (addrs >> 32).astype(np.uint32)
    build_step(parse_instruction(text)).run(st, Group(np.arange(LANES)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("space", ["shared", "local", "generic"])
def test_sass_faults_on_the_first_bad_lane(space, width, seed):
    size = WIDTHS[width]
    rng = np.random.default_rng(seed * 31 + size)
    limit = SHARED_BYTES if space != "local" else LOCAL_BYTES
    offsets = rng.integers(0, limit // size, LANES) * size
    bad_lane = int(rng.integers(0, LANES)) if seed else None       # seed 0: every lane is good
    if bad_lane is not None:
        offsets[bad_lane] = [limit, limit - size + max(size // 2, 1), limit + 64][seed % 3]
        offsets[bad_lane + 1:] = np.minimum(offsets[bad_lane + 1:], limit - size) // size * size
    if space == "shared":
        text, addrs = f"LDS{width} R4, [R2] ;", (offsets + 0x400).astype(np.uint64)
    elif space == "local":
        text, addrs = f"LDL{width} R4, [R2] ;", offsets.astype(np.uint64)
    else:
        text, addrs = f"LD.E{width} R4, [R2.64] ;", offsets.astype(np.uint64) + np.uint64(SHARED_WINDOW + 0x400)
    if bad_lane is None:
        _run(text, addrs)
        return
    with pytest.raises(SassFault) as caught:
        _run(text, addrs)
    what = (f"shared access of {size} bytes outside the CTA's {SHARED_BYTES} bytes" if space != "local" else
            f"local access of {size} bytes outside the thread's {LOCAL_BYTES} bytes")
    shown = int(offsets[bad_lane]) + (0x400 if space != "local" else 0)
    assert str(caught.value).startswith(f"{what} at 0x{shown:x} by block (0, 0, 0) thread ({bad_lane}, 0, 0)")


def test_local_words_interleave_the_lanes_of_a_warp():
    """Lane l's local word w lies at w * 128 + l * 4 of its warp's local memory; a byte keeps its place
    in the word, and an 8- or 16-byte access is 2 or 4 words 128 bytes apart."""
    import numpy as np
    from warpsim.semantics.addresses import LOCAL_WINDOW, local_hardware_bytes
    lanes = np.arange(32)
    hw, of_lane, nbytes = local_hardware_bytes(lanes, np.full(32, 8), 4)
    assert nbytes == 4 and (hw == 2 * 128 + lanes * 4).all() and (of_lane == lanes).all()
    hw, _, nbytes = local_hardware_bytes(lanes[:2], np.array([LOCAL_WINDOW + 5, 6]), 1)
    assert nbytes == 1 and hw.tolist() == [128 + 1, 128 + 4 + 2]
    hw, of_lane, nbytes = local_hardware_bytes(lanes[3:4], np.array([16]), 16)
    assert nbytes == 4 and hw.tolist() == [4 * 128 + 12, 5 * 128 + 12, 6 * 128 + 12, 7 * 128 + 12]
    assert of_lane.tolist() == [0, 0, 0, 0]
