"""Addresses of SASS memory instructions and checked, vectorized access to each space.

An address operand `[R2.64+UR4+0x10]` is the sum of its registers (a `.64`
register is a pair, others 32-bit, as `.U32` says outright in `[RZ.U32+UR4]`;
`R14.X4` is R14 times 4, ptxas's scaled index of sm_80 shared loads) and its
immediate. The spaces:

- global (LDG/STG/ATOMG/RED): real 64-bit addresses of warpsim's device heap
  (GlobalMemory), checked per lane against the live allocations, and of
  registered host ranges (host memory addressed in place, GlobalMemory.resolve);
  in a whole CUDA program an aligned access past an allocation but in the pages
  mapped for one reaches those bytes with a warning, as on the GPU and the PTX
  machine (GlobalMemory.tolerated);
- shared (LDS/STS/ATOMS): 32-bit addresses of the CTA's shared window, where
  sm_90 reserves the first 0x400 bytes, so shared byte k is at 0x400 + k
  (sm_80 reserves none: byte k is at k); in a launch with clusters, bits 24
  and up name the rank of a CTA of the cluster, which a shared::cluster
  access (space "cluster": generic addresses in the shared window, bulk
  copies) reaches and a shared::cta one ignores (cluster.shared_place);
- local (LDL/STL): 32-bit offsets into the thread's local memory; the stack
  pointer starts at c[0x0][0x28], the top of that memory, and grows down;
- generic (LD/ST/ATOM): global addresses as they are, and the shared and
  local windows at the generic bases the PTX machine uses (their high words
  are what S2R SR_SWINHI / SR_LWINHI read).

Every lane is checked for bounds and alignment; a bad lane is a SassFault
naming the instruction, block and thread.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...semantics import addresses
from ...semantics.addresses import LOCAL_WINDOW, SHARED_WINDOW
from .cluster import shared_place
from ...machine.access import describe_global_address, warn_tolerated
from .errors import SassFault, lane_place, source_line, where
from .operands import U32, U64, source
from .table import Unsupported

WIDTHS = {"U8": (1, False), "S8": (1, True), "8": (1, False), "U16": (2, False), "S16": (2, True),
          "16": (2, False), "32": (4, False), "64": (8, False), "128": (16, False)}


def access_width(ins) -> tuple:
    """(bytes per lane, sign-extended) from the width modifier (32-bit when none)."""
    found = [WIDTHS[m] for m in ins.mods if m in WIDTHS]
    if len(found) > 1:
        raise Unsupported("two widths")
    return found[0] if found else (4, False)


SCALED_INDEX = {"X4": 4, "X8": 8, "X16": 16}   # [R14.X4]: a register index scaled by the access's element size


def address_reader(op, wide: bool):
    """Reader of a [..] address: uint64 per lane (64-bit sums for global, 32-bit wrap otherwise)."""
    if op.kind != "mem":
        raise Unsupported(f"address {op.text}")
    parts = []
    # ATOMG.E.CAS prints its 64-bit address as a bare `[R4]` (no desc, no .64): a global address in one
    # 32-bit register would be below the heap, so a lone register of a 64-bit space is the pair
    lone_pair = wide and len(op.parts) == 1 and not op.parts[0].suffixes and op.descriptor is None
    scales = []
    # [RZ.U32+UR4]: beside a zero-extended 32-bit register, a bare uniform register of a 64-bit address is a pair
    zero_extended = any("U32" in part.suffixes for part in op.parts)
    for part in op.parts:
        if part.kind not in ("reg", "ureg"):
            raise Unsupported(f"address {op.text}")
        if any(s not in ("64", "U32") + tuple(SCALED_INDEX) for s in part.suffixes):
            raise Unsupported(f"address {op.text}")
        pair = "64" in part.suffixes or lone_pair or wide and part.kind == "ureg" and zero_extended
        parts.append(source(replace(part, suffixes=()), 64 if pair else 32))
        scales.append(U64(next((SCALED_INDEX[s] for s in part.suffixes if s in SCALED_INDEX), 1)))
    offset = np.int64(op.offset or 0)

    def read(st, g):
        total = np.full(g.n, offset, dtype=np.int64).astype(U64)
        for r, scale in zip(parts, scales):
            total = total + np.asarray(r(st, g), dtype=U64) * scale
        if not wide:
            total = total & U64(0xFFFFFFFF)
        return total
    return read


def fault(st, ins, g, bad, addrs, what: str, detail: str = ""):
    """Raise the SassFault of the first lane in `bad`: what, where, and (global) what the address is
    against the allocations and host ranges, as the PTX machine's fault says it."""
    k = int(np.flatnonzero(bad)[0])
    cta, thread = lane_place(st, g, k)
    detail = f" ({detail})" if detail else ""
    raise SassFault(f"{what} at 0x{int(addrs[k]):x}{detail} by block {cta} thread {thread}: {where(ins)}",
                    block=cta, thread=thread, instruction=f"/*{ins.offset:04x}*/ {ins.text}",
                    source_line=source_line(ins))


def tolerated(st, ins, g, ok, addrs, size: int) -> np.ndarray:
    """The lanes outside `ok` a GPU does not fault on (GlobalMemory.tolerated: in the pages mapped for
    a live allocation, whole CUDA programs), said on stderr as the PTX machine says them."""
    lanes = st.memory.tolerated(addrs, size, ok)
    if lanes.any():
        k = int(np.flatnonzero(lanes)[0])
        cta, thread = lane_place(st, g, k)
        warn_tolerated(st.memory, st.program.name, ins.ptx_line, "access", int(addrs[k]), size,
                       f"block {cta} thread {thread}, SASS {where(ins)}")
    return lanes


ELEMENT_TYPES = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64), 16: np.dtype("V16")}


class Space:
    """Resolved byte offsets of one access into one backing array.

    Where every offset is a multiple of the access's size (aligned accesses: all global ones,
    nearly all others), the bytes move as one element per lane of a view of the array with that
    element size, not as size separate bytes per lane: a quarter (or less) of the indexing."""

    def __init__(self, array: np.ndarray, offsets: np.ndarray):
        self.array, self.offsets = array, offsets

    def _elements(self, size: int):
        """(the array as size-byte elements, each lane's element index), or None."""
        dtype = ELEMENT_TYPES.get(size)
        array = self.array
        if dtype is None or array.ndim != 1 or not array.flags.c_contiguous or array.dtype != np.uint8 or \
                (self.offsets & (size - 1)).any():
            return None
        return array[:len(array) - len(array) % size].view(dtype), self.offsets // size

    def gather(self, size: int) -> np.ndarray:
        """(lanes, size) bytes."""
        elements = self._elements(size)
        if elements is not None:
            view, index = elements
            return view[index].view(np.uint8).reshape(-1, size)
        return self.array[self.offsets[:, None] + np.arange(size)]

    def scatter(self, data: np.ndarray) -> None:
        size = data.shape[1]
        elements = self._elements(size)
        if elements is not None:
            view, index = elements
            view[index] = np.ascontiguousarray(data).view(view.dtype)[:, 0]
            return
        self.array[self.offsets[:, None] + np.arange(size)] = data


def resolve(st, ins, g, space: str, addrs: np.ndarray, size: int):
    """Per space, the Space objects and lane masks of an access ([(mask, Space, space name)])."""
    addrs = np.asarray(addrs, dtype=U64)
    if space == "generic":
        windows = addresses.generic_space(addrs)
        out = []
        for code, (name, base) in enumerate(zip(addresses.GENERIC_SPACES, (0, SHARED_WINDOW, LOCAL_WINDOW))):
            mask = windows == code
            if mask.any():
                sub = g.subset(mask)
                space_of = "cluster" if name == "shared" else name      # the window reaches the cluster's CTAs
                out.append((mask, resolve(st, ins, sub, space_of, addrs[mask] - U64(base), size)[0][1], name))
        return out
    if space == "global":
        misaligned = ~addresses.aligned(addrs, size)
        ok, array, offsets = st.memory.resolve(addrs, size)     # the heap, or registered host ranges too
        ok = ok & ~misaligned
        if not ok.all() and array is st.memory.buffer:
            ok = ok | tolerated(st, ins, g, ok, addrs, size)
        if not ok.all():
            bad = int(addrs[int(np.flatnonzero(~ok)[0])])
            fault(st, ins, g, ~ok, addrs, f"{'misaligned' if misaligned.any() else 'out-of-bounds'} "
                                          f"global access of {size} bytes",
                  describe_global_address(st.memory, bad, size))
        return [(None, Space(array, offsets), "global")]
    if space in ("shared", "cluster"):
        cta, within = shared_place(st, g, addrs, space == "cluster")  # bits 24 and up: a CTA of the cluster
        offsets = within.astype(np.int64) - st.shared_reserved
        ok = addresses.inside(offsets, size, st.shared_size)      # the reserved bytes keep every width's alignment
        if not ok.all():
            fault(st, ins, g, ~ok, addrs, f"shared access of {size} bytes outside the CTA's "
                                          f"{st.shared_size} bytes")
        return [(None, Space(st.shared, cta * st.shared_size + offsets), "shared")]
    if space == "local":
        offsets = addrs.astype(np.int64)
        ok = addresses.inside(offsets, size, st.local_size)
        if not ok.all():
            fault(st, ins, g, ~ok, addrs, f"local access of {size} bytes outside the thread's "
                                          f"{st.local_size} bytes")
        return [(None, Space(st.local, g.idx * st.local_size + offsets), "local")]
    raise Unsupported(f"space {space}")


def bytes_to_words(raw: np.ndarray, size: int, signed: bool):
    """(lanes, size) bytes -> a value for the destination writer (uint32, uint64 or 4 words)."""
    raw = np.ascontiguousarray(raw)
    if size == 1:
        value = raw[:, 0].astype(np.int8 if signed else np.uint8)
        return value.astype(np.int64).astype(U64).astype(U32) if signed else value.astype(U32)
    if size == 2:
        value = raw.view(np.int16 if signed else np.uint16)[:, 0]
        return value.astype(np.int64).astype(U32) if signed else value.astype(U32)
    if size == 4:
        return raw.view(U32)[:, 0]
    if size == 8:
        return raw.view(U64)[:, 0]
    words = raw.view(U32)
    return [words[:, k] for k in range(4)]


def words_to_bytes(values: list, size: int, n: int) -> np.ndarray:
    """Store data (32-bit words from consecutive registers) -> (lanes, size) bytes."""
    words = np.stack([np.broadcast_to(np.asarray(v, dtype=U32), (n,)) for v in values], axis=1)
    raw = np.ascontiguousarray(words).view(np.uint8)
    return raw[:, :size]
