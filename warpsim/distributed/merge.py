"""Shards' writes into the driver's memory, exactly as one process would have left it.

Shards hold whole CTA batches in grid order, and one process runs batches in
that order too, so one process behaves like the shards run one after the
other. Applying each shard's changed bytes in shard order therefore gives the
same memory, unless a later shard depended on an earlier one:

- it read (or atomically updated) bytes an earlier shard stored: it saw the old
  value where one process sees the new one (a race between CTAs) -> rerun;
- plain stores and atomics of different shards met on the same bytes -> rerun;
- atomics of several shards met on an address: merged from the shards' final
  values where the operation allows (integer add, and, or, xor, min, max; float
  min/max without NaN or signed-zero ties; inc/dec from their counts with the
  wrap rule), when every shard used the same operation and operand and no
  shard read an old value; otherwise -> rerun.

Plain stores of two shards to the same bytes are a race too, but the result
still matches (the later shard wins, as in one process): it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import memory_image

MERGEABLE = {"add", "and", "or", "xor", "min", "max", "inc", "dec"}
DTYPES = {"u32": np.uint32, "b32": np.uint32, "s32": np.int32, "u64": np.uint64, "b64": np.uint64,
          "s64": np.int64, "f32": np.float32, "f64": np.float64}
RACES_REPORTED = 4                  # racing byte ranges named per pair of shards


@dataclass
class MergeOutcome:
    rerun_reason: str = ""                       # non-empty: the shards cannot give one process's result
    races: list = field(default_factory=list)    # (heap offset, earlier shard, later shard)
    merged_atomics: int = 0                      # addresses whose atomics several shards combined
    atomic_writes: list = field(default_factory=list)   # (byte offsets, bytes) of those addresses


def plan(original: np.ndarray, shards: list) -> MergeOutcome:
    """Check the shards against each other (original: the heap bytes they all started from)."""
    size = len(original)
    outcome = MergeOutcome()
    stored_before = np.zeros(size, dtype=bool)
    atomic_before = np.zeros(size, dtype=bool)
    atomic_shards = np.zeros(size, dtype=np.uint16)
    last_writer = np.full(size, -1, dtype=np.int32)
    for j, shard in enumerate(shards):
        written = memory_image.mask_of(shard["written"], size)
        read = memory_image.mask_of(shard["read"], size)
        atomic = memory_image.mask_of(shard["atomic"], size)
        if j:
            stale = (read | atomic) & stored_before
            if stale.any():
                return _rerun(outcome, f"CTAs of shard {j} read bytes that earlier CTAs stored "
                              f"(first at heap offset 0x{int(np.argmax(stale)):x}): a race between "
                              "CTAs whose result depends on their order")
            if (read & atomic_before).any() or (written & atomic_before).any():
                return _rerun(outcome, f"CTAs of shard {j} load or store bytes that earlier CTAs "
                              "changed atomically")
            overlap = written & stored_before
            if overlap.any():
                for offset in _first_runs(overlap, RACES_REPORTED):
                    outcome.races.append((offset, int(last_writer[offset]), j))
        stored_before |= written
        if len(shard["atomic"]):
            atomic_before |= atomic
            atomic_shards += atomic
        last_writer[written] = j
    shared = atomic_shards >= 2
    if shared.any():
        reason, outcome.merged_atomics = _check_shared_atomics(shards, shared)
        if not reason:
            try:
                outcome.atomic_writes = _merged_atomic_bytes(original, shards, shared)
            except MergeRefused as exc:
                reason = f"atomics of several shards met on an address: {exc}"
        if reason:
            return _rerun(outcome, reason)
    return outcome


def apply(memory, outcome: MergeOutcome, shards: list) -> None:
    """Write the shards' bytes into the driver's heap in shard order, then the merged atomics."""
    for shard in shards:
        touched = memory_image.mask_of(shard["touched"], shard["heap"])
        memory_image.scatter_into(memory.buffer, touched, shard["data"])
        memory.initialized[:len(touched)][touched] = True
    for element, data in outcome.atomic_writes:
        memory.buffer[element] = data


def _merged_atomic_bytes(original, shards, shared) -> list:
    """[(byte offsets, bytes)] of the atomics several shards applied, as one process leaves them."""
    finals = []
    for shard in shards:
        final = original.copy()
        memory_image.scatter_into(final, memory_image.mask_of(shard["touched"], len(original)),
                                  shard["data"])
        finals.append(final)
    writes = []
    for (op, type_name, operand), offsets, counts in _shared_atomic_groups(shards, shared)[0]:
        merged = merged_values(op, type_name, operand, original, finals, offsets, counts)
        dtype = np.dtype(DTYPES[type_name])
        element = (offsets[:, None] + np.arange(dtype.itemsize)).ravel()
        writes.append((element, np.ascontiguousarray(merged.astype(dtype)).view(np.uint8)))
    return writes


# ---------------------------------------------------------------- atomics of several shards

def _shared_atomic_groups(shards, shared: np.ndarray):
    """[((op, type, operand), offsets, counts per shard)] of the atomics several shards applied."""
    entries = []                                  # (offset, shard, key, old read, count)
    for s, shard in enumerate(shards):
        for op, type_name, operand, old_read, offsets, counts in shard["atomics"]:
            keep = shared[offsets]
            for offset, count in zip(offsets[keep], counts[keep]):
                entries.append((int(offset), s, (op, type_name, operand), old_read, int(count)))
    by_offset: dict = {}
    for offset, s, key, old_read, count in entries:
        by_offset.setdefault(offset, []).append((s, key, old_read, count))
    groups: dict = {}
    for offset, uses in by_offset.items():
        keys = {key for _, key, _, _ in uses}
        key = keys.pop() if len(keys) == 1 else None
        groups.setdefault(key, []).append((offset, uses))
    out = []
    for key, items in groups.items():
        offsets = np.array([offset for offset, _ in items], dtype=np.int64)
        counts = np.zeros((len(shards), len(items)), dtype=np.int64)
        for k, (_, uses) in enumerate(items):
            for s, _, _, count in uses:
                counts[s, k] += count
        out.append((key, offsets, counts))
    return out, by_offset


def _check_shared_atomics(shards, shared: np.ndarray) -> tuple:
    groups, by_offset = _shared_atomic_groups(shards, shared)
    if any(old_read for uses in by_offset.values() for _, _, old_read, _ in uses):
        return "atomics of several shards met on an address whose old value a thread reads", 0
    covered = np.zeros(len(shared), dtype=bool)
    for key, offsets, _ in groups:
        if key is None:
            return "atomics of several shards met on an address with different operations", 0
        op, type_name, operand = key
        if op not in MERGEABLE or type_name not in DTYPES:
            return f"atom.{op}.{type_name} of several shards met on an address (not mergeable)", 0
        if op == "add" and type_name.startswith("f"):
            return "float atomic adds of several shards met on an address (rounding depends on order)", 0
        if op in ("inc", "dec") and operand is None:
            return f"atom.{op} of several shards met on an address with differing operands", 0
        width = np.dtype(DTYPES[type_name]).itemsize
        covered[(offsets[:, None] + np.arange(width)).ravel()] = True
    if (shared & ~covered).any():
        return "atomics of several shards overlap at different addresses or sizes", 0
    return "", sum(len(offsets) for _, offsets, _ in groups)


def merged_values(op, type_name, operand, original, finals, offsets, counts) -> np.ndarray:
    """The value one process leaves at each offset, from the start value and each shard's final one."""
    dtype = np.dtype(DTYPES[type_name])
    element = (offsets[:, None] + np.arange(dtype.itemsize)).ravel()
    start = original[element].view(dtype)
    ends = np.stack([final[element].view(dtype) for final in finals])
    if op in ("min", "max") and dtype.kind == "f":
        if np.isnan(ends).any() or ((ends == 0).any(axis=0) & (np.signbit(ends).any(axis=0)
                                                              != np.signbit(ends).all(axis=0))).any():
            raise MergeRefused("float min/max with NaN or signed zeros")
        return (np.fmin if op == "min" else np.fmax).reduce(ends, axis=0)
    if op == "min":
        return ends.min(axis=0)
    if op == "max":
        return ends.max(axis=0)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    u_start, u_ends = start.view(unsigned), ends.view(unsigned)
    if op == "add":            # wrap-around: the start plus every shard's change
        return (u_start + (u_ends - u_start).sum(axis=0, dtype=unsigned)).view(dtype)
    if op == "xor":
        return (u_start ^ np.bitwise_xor.reduce(u_ends ^ u_start, axis=0)).view(dtype)
    if op == "and":
        return np.bitwise_and.reduce(u_ends, axis=0).view(dtype)
    if op == "or":
        return np.bitwise_or.reduce(u_ends, axis=0).view(dtype)
    return _counted(op, int(operand), u_start, counts.sum(axis=0)).astype(unsigned).view(dtype)


def _counted(op: str, bound: int, start: np.ndarray, n: np.ndarray) -> np.ndarray:
    """n applications of atom.inc/dec with operand `bound` to `start` (PTX's wrap rules)."""
    period = bound + 1
    out = []
    for value, times in zip(start.tolist(), n.tolist()):
        if times == 0:
            out.append(value)
        elif op == "inc":      # old >= b ? 0 : old + 1
            out.append((value + times) % period if value <= bound else (times - 1) % period)
        else:                  # (old == 0 || old > b) ? b : old - 1
            out.append((value - times) % period if value <= bound else (bound - (times - 1)) % period)
    return np.array(out, dtype=object)


class MergeRefused(Exception):
    """Values the shards left cannot be combined into the one-process value."""


def _first_runs(mask: np.ndarray, limit: int) -> list:
    return [int(start) for start, _ in memory_image.runs_of(mask)[:limit]]


def _rerun(outcome: MergeOutcome, reason: str) -> MergeOutcome:
    outcome.rerun_reason = reason
    return outcome
