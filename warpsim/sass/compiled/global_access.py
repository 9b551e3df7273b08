"""Global loads and stores (LDG, STG) of any group as machine code: two passes over its lanes.

The NumPy step of an `LDG.E R7, desc[UR4][R2.64+0x10]` makes a dozen passes over the group's lanes:
the pair's two words widened and summed with the offset, the alignment and heap checks, byte offsets,
an element gather, the words split and scattered into the destination rows. For the common form (a
64-bit address in one register pair plus an offset; 1, 2, 4, 8 or 16 bytes a lane) this module
makes two:

  addresses  each lane's address into an array (the memory observers get it, as from the step),
             with the lowest, the highest and the OR of them all;
  access     where those show every lane aligned and inside one live allocation (the test
             GlobalMemory.check_heap's fast path makes), each lane's bytes moved between the heap's
             buffer and its registers in lane order (a store's last lane wins, as NumPy's scatter).

Anything else (an address the test refuses: a fault, a host range, two allocations, a mapped page;
a form not covered) runs the NumPy step, whole, from the start: the first pass changed nothing.
Only batches that run machine code take this path (SassState.compiled_memory), so settings
engine='numpy' keeps the NumPy steps, which tests/sass/test_compiled_global_access.py runs beside.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...semantics.addresses import GLOBAL_BASE
from .machine_code import forget_if_stale

ADDRESS_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
BASE = np.uint64(GLOBAL_BASE)
NO_REGISTER = -1            # RZ as a destination (the load's bytes are dropped) or as store data (zeros)


@njit(cache=True, nogil=True)
def pair_addresses(R, row, offset, idx, addrs):
    """addrs[j] = the pair {R[row+1]:R[row]} of lane idx[j] plus offset, wrapping in 64 bits;
    (lowest, highest, OR of all)."""
    lowest, highest, ored = ADDRESS_MAX, np.uint64(0), np.uint64(0)
    for j in range(idx.shape[0]):
        lane = idx[j]
        address = ((np.uint64(R[row + 1, lane]) << np.uint64(32)) | np.uint64(R[row, lane])) + offset
        addrs[j] = address
        lowest = min(lowest, address)
        highest = max(highest, address)
        ored |= address
    return lowest, highest, ored


@njit(cache=True, nogil=True)
def load_lanes(heap, words, addrs, size, signed, R, dst, idx):
    """Each lane's `size` bytes at its address (checked) into R[dst..] (sign-extended 1 and 2-byte
    values where `signed`); dst NO_REGISTER drops them."""
    if dst == NO_REGISTER:
        return
    for j in range(idx.shape[0]):
        lane = idx[j]
        at = np.int64(addrs[j] - BASE)
        if size >= 4:
            word = at >> 2
            for k in range(size >> 2):
                R[dst + k, lane] = words[word + k]
        elif size == 2:
            half = np.uint32(heap[at]) | (np.uint32(heap[at + 1]) << np.uint32(8))
            if signed and half & np.uint32(0x8000):
                half |= np.uint32(0xFFFF0000)
            R[dst, lane] = half
        else:
            byte = np.uint32(heap[at])
            if signed and byte & np.uint32(0x80):
                byte |= np.uint32(0xFFFFFF00)
            R[dst, lane] = byte


@njit(cache=True, nogil=True)
def store_lanes(heap, words, addrs, size, R, data, idx):
    """Each lane's registers R[data..] (zeros for NO_REGISTER) as `size` bytes at its address (checked),
    in lane order; a 1 or 2-byte store writes the low bytes of the first register."""
    for j in range(idx.shape[0]):
        lane = idx[j]
        at = np.int64(addrs[j] - BASE)
        if size >= 4:
            word = at >> 2
            for k in range(size >> 2):
                words[word + k] = R[data + k, lane] if data != NO_REGISTER else np.uint32(0)
        else:
            value = R[data, lane] if data != NO_REGISTER else np.uint32(0)
            for k in range(size):
                heap[at + k] = np.uint8((value >> np.uint32(8 * k)) & np.uint32(0xFF))


forget_if_stale(pair_addresses)
forget_if_stale(load_lanes)
forget_if_stale(store_lanes)

DISPATCHERS = (pair_addresses, load_lanes, store_lanes)


def pair_address(op):
    """(register row, offset as uint64) of a [Rn.64+offset] address (a descriptor aside), or None."""
    if op.kind != "mem" or len(op.parts) != 1:
        return None
    part = op.parts[0]
    lone_pair = not part.suffixes and op.descriptor is None      # access.address_reader's bare `[R4]`
    if part.kind != "reg" or part.number is None or not (part.suffixes == ("64",) or lone_pair):
        return None
    return part.number, np.uint64((op.offset or 0) & 0xFFFFFFFFFFFFFFFF)


class GlobalAccess:
    """One LDG or STG of the covered form: `run(st, g)` is True once it ran (and told the memory
    observers), False where the NumPy step must run instead (nothing was changed)."""

    __slots__ = ("ins", "kind", "size", "signed", "address_row", "offset", "register")

    def __init__(self, ins, kind: str, size: int, signed: bool, address, register_op):
        self.ins, self.kind, self.size, self.signed = ins, kind, size, signed
        self.address_row, self.offset = address
        self.register = NO_REGISTER if register_op.number is None else register_op.number

    @classmethod
    def of(cls, ins, kind: str, size: int, signed: bool, address_op, register_op):
        """The access for `ins`, or None where its form is not covered."""
        address = pair_address(address_op)
        if address is None or register_op.kind != "reg" or size not in (1, 2, 4, 8, 16):
            return None
        return cls(ins, kind, size, signed, address, register_op)

    def run(self, st, g) -> bool:
        memory, size = st.memory, self.size
        heap = getattr(memory, "buffer", None)
        if heap is None or not hasattr(memory, "in_one_allocation"):
            return False
        addrs = np.empty(g.n, dtype=np.uint64)
        lowest, highest, ored = pair_addresses(st.R, self.address_row, self.offset, g.idx, addrs)
        if int(ored) & (size - 1) or not memory.in_one_allocation(int(lowest), int(highest) + size):
            return False
        words = heap[:len(heap) & ~3].view(np.uint32)
        if self.kind == "ld":
            load_lanes(heap, words, addrs, size, self.signed, st.R, self.register, g.idx)
        else:
            store_lanes(heap, words, addrs, size, st.R, self.register, g.idx)
            st.writes += 1
        for observer in st.memory_observers:
            observer.sass_memory_access(st, self.ins, "global", self.kind, g.idx, addrs, size)
        return True
