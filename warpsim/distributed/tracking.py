"""What one shard did to global memory: the bytes it read, wrote, and changed atomically.

A shard's writes are merged into the driver's memory, and two shards that
touch the same bytes may not give a one-process result; the driver decides
that from these records. Everything is marked from memory_access events, per
byte of the heap, in NumPy over the lanes of one access.

Atomics are kept per (operation, type, operand) key: the addresses each key
touched and how often, and whether the instruction's old value is read (an
`atom` whose result some instruction uses). The driver can merge the final
values of add/and/or/xor/min/max, and of inc/dec from the counts, when every
shard used the same key at an address and nobody read an old value.
"""

from __future__ import annotations

import numpy as np

from ..machine.events import LaunchObserver
from ..machine.isa.atomics import operation_of
from ..machine.memory import GLOBAL_BASE
from ..metrics.counters import operation
from ..ptx.ir import Imm

COUNTED_OPS = ("inc", "dec")        # merged from how many times they ran, so their operand matters


class ShardTracker(LaunchObserver):
    """Observer of one shard: byte masks of global reads and writes, and atomic records."""

    def __init__(self, program, heap_size: int):
        self.program = program
        self.read = np.zeros(heap_size, dtype=bool)
        self.written = np.zeros(heap_size, dtype=bool)
        self.atomic = np.zeros(heap_size, dtype=bool)
        self._atomic_events: dict = {}      # key -> list of offset arrays
        self._uses: dict = {}               # function -> registers it reads (operation()'s cache)

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if space != "global" or not len(idx):
            return
        offsets = addrs.astype(np.int64) - GLOBAL_BASE
        if kind == "atomic":
            key = self._atomic_key(ctx, site, idx)
            self._atomic_events.setdefault(key, []).append(offsets)
            _mark(self.atomic, offsets, size)
        else:
            _mark(self.written if kind == "store" else self.read, offsets, size * count)

    def _atomic_key(self, ctx, site, idx) -> tuple:
        ins = site.ins
        op = operation_of(ins)
        operand = _operand_value(ctx, ins, idx) if op in COUNTED_OPS else None
        old_value_read = operation(self.program, site, "atomic", self._uses) == "atom"
        return op, ins.type, operand, old_value_read

    def atomic_records(self) -> list:
        """[(op, type, operand, old value read, unique offsets, counts)] of this shard's atomics."""
        records = []
        for (op, type_name, operand, old_read), chunks in self._atomic_events.items():
            offsets, counts = np.unique(np.concatenate(chunks), return_counts=True)
            records.append((op, type_name, operand, old_read, offsets, counts))
        return records


def _mark(mask: np.ndarray, offsets: np.ndarray, nbytes: int) -> None:
    if nbytes == 1:
        mask[offsets] = True
    else:
        mask[(offsets[:, None] + np.arange(nbytes)).ravel()] = True


def _operand_value(ctx, ins, idx):
    """The b operand of atom.inc/dec when every lane gave the same one; None otherwise."""
    if len(ins.srcs) < 2:
        return None
    operand = ins.srcs[1]
    if isinstance(operand, Imm):
        return int(operand.value)
    values = ctx.regs.get(getattr(operand, "name", None))
    if values is None:
        return None
    bits = 64 if ins.type.endswith("64") else 32
    chosen = np.unique(values[idx].astype(np.uint64) & np.uint64((1 << bits) - 1))
    return int(chosen[0]) if len(chosen) == 1 else None
