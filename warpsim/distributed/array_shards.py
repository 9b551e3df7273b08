"""Sharded launches by arrays: shards that run on the compiled tier and send back only their changes.

When a kernel's footprint (footprint.py) shows that no CTA can see another
CTA's writes (the arrays it loads are not the ones it stores or updates
atomically, and each atomically updated array takes one commutative
operation whose old value nobody reads), the shards need no observer of their
accesses, so the compiled tier runs them at full speed. Then:

- the image: only the arrays the kernel touches, at their heap offsets. On one
  host (a LocalCluster) it is one file in /dev/shm that every shard maps
  copy-on-write, so nothing is pickled or copied before a shard runs; a remote
  cluster gets the arrays scattered once per launch.
- a shard sends back, per stored or atomically updated array, the span of bytes
  it changed and a bit mask of which (so it returns what it wrote, not the heap).
  On one host the stored bytes themselves go into a second file in /dev/shm, each
  shard's at their heap offsets (shards of a launch without races change
  different bytes), so the driver reads them where they lie instead of
  receiving them through Dask's connections.
- the driver writes the stored spans in shard order (bytes changed by two
  shards are a race: it reruns in one process) and merges each atomic array
  from the start value and every shard's final value (merge.merged_values):
  an add's changes are summed, min/max/and/or taken over the shards, xor's
  changes combined.

Bytes that two shards changed are a race between CTAs: the launch runs
again on the path that watches every access, which names both CTAs and keeps
the later one's bytes, as one process does. A plain store that rewrites the
start value of a byte another shard changed is not seen here (the change
masks do not show it): one process keeps the later CTA's bytes, this path the
earlier shard's. Such a kernel races between CTAs on a GPU too.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import time
import warnings

import numpy as np
from numba import njit

from ..machine.memory import GLOBAL_BASE
from ..semantics.atomics import ONE_VALUE_OPS, ORDER_FREE_OPS
from ..settings import settings
from . import memory_image
from .merge import DTYPES, MergeRefused, merged_values
from .shard import is_loaded, loaded_module, portable_error, _one_at_a_time

MERGED_BY_VALUE = ORDER_FREE_OPS


def plan_reason(footprint) -> tuple:
    """('', '') when this path serves the footprint; else (kind, why): kind 'unmergeable' (atomics that
    no path can merge: run in one process) or 'watch' (the path that watches every access could)."""
    writes = footprint.stores | set(footprint.atomics)
    for place in footprint.loads & writes:
        return "watch", f"it loads the array at heap offset 0x{place[0]:x}, which it also writes"
    for place in footprint.stores & set(footprint.atomics):
        return "watch", f"it stores to and updates atomically the array at heap offset 0x{place[0]:x}"
    for place, uses in footprint.atomics.items():
        for op, type_name, old_read in sorted(uses):
            name = f"atom.{op}.{type_name}"
            if old_read:
                return "unmergeable", (f"threads read the old value of {name} (as in out[atomicAdd(&n, 1)]): "
                                       "the values they get depend on the order of CTAs")
            if op in ONE_VALUE_OPS:
                return "unmergeable", f"{name} keeps one CTA's value: which one depends on the order of CTAs"
            if op == "add" and type_name.startswith("f"):
                return "unmergeable", f"{name}: a float sum's rounding depends on the order of CTAs"
            if op not in MERGED_BY_VALUE or type_name not in DTYPES:
                return "watch", f"{name} is merged from counts, not values"
        if len(uses) > 1:
            return "watch", f"several atomic operations on the array at heap offset 0x{place[0]:x}"
    return "", ""


# ---------------------------------------------------------------- the image

def write_image(memory, places, local: bool) -> dict:
    """The image of the arrays `places` ((offset, size) pairs): a shared file on one host, else arrays."""
    top = int(memory.top)
    size = max(4096, -(-top // 8) * 8)            # the compiled tier reads the heap as 64-bit words
    image = {"live": dict(memory.live), "top": top, "size": size, "places": sorted(places)}
    if not local:
        image["segments"] = [(offset, memory.buffer[offset:offset + n].copy()) for offset, n in image["places"]]
        return image
    image["path"] = path = _shared_file("warpsim-image-", size)
    image["results"] = _shared_file("warpsim-results-", size)     # sparse: pages exist where shards write
    with open(path, "r+b") as file, mmap.mmap(file.fileno(), size) as mapped:
        view = np.frombuffer(mapped, dtype=np.uint8)
        for offset, n in image["places"]:
            if _any(memory.buffer[offset:offset + n]):   # the file reads zeros where nothing was written
                view[offset:offset + n] = memory.buffer[offset:offset + n]
        del view
    return image


def _shared_file(prefix: str, size: int) -> str:
    """A new file of `size` zero bytes in shared memory (else the temporary folder)."""
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    handle, path = tempfile.mkstemp(prefix=prefix, dir=folder)
    try:
        os.ftruncate(handle, size)
    except BaseException:
        os.close(handle)
        os.unlink(path)
        raise
    os.close(handle)
    return path


def _any(data: np.ndarray) -> bool:
    words = data[:len(data) // 8 * 8].view(np.uint64)
    return bool(words.any()) or bool(data[len(words) * 8:].any())


def remove_image(image: dict) -> None:
    for key in ("path", "results"):
        if key in image:
            with contextlib.suppress(OSError):
                os.unlink(image[key])


def read_results(image: dict, shards: list) -> None:
    """Give the shards' store changes that lie in the results file their bytes (views of it)."""
    if "results" not in image:
        return
    with open(image["results"], "rb") as file:
        mapped = mmap.mmap(file.fileno(), image["size"], flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    results = np.frombuffer(mapped, dtype=np.uint8)      # the views keep the mapping open
    for shard in shards:
        for offset, change in (shard.get("changes") or {}).items():
            if change is not None and isinstance(change[1], int):
                first, length, bits = change
                shard["changes"][offset] = (first, results[offset + first:offset + first + length], bits)


@contextlib.contextmanager
def _heap_of(image: dict):
    """(a heap the shard may change, the image's bytes read-only) for the length of one shard."""
    size = image["size"]
    if "path" not in image:
        buffer = np.zeros(size, dtype=np.uint8)
        for offset, data in image["segments"]:
            buffer[offset:offset + len(data)] = data
        original = buffer.copy()
        yield memory_image.heap_over(buffer, image["live"], image["top"]), original
        return
    with open(image["path"], "rb") as file:
        private = mmap.mmap(file.fileno(), size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        shared = mmap.mmap(file.fileno(), size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    try:
        yield (memory_image.heap_over(np.frombuffer(private, dtype=np.uint8), image["live"], image["top"]),
               np.frombuffer(shared, dtype=np.uint8))
    finally:
        for mapped in (private, shared):
            with contextlib.suppress(BufferError):   # a view still held: the mapping goes with it
                mapped.close()


@contextlib.contextmanager
def _results_of(image: dict):
    """The results file, writable and shared, or None (a remote cluster: changes travel by Dask)."""
    if "results" not in image:
        yield None
        return
    with open(image["results"], "r+b") as file:
        mapped = mmap.mmap(file.fileno(), image["size"], flags=mmap.MAP_SHARED)
    try:
        yield np.frombuffer(mapped, dtype=np.uint8)
    finally:
        with contextlib.suppress(BufferError):
            mapped.close()


# ---------------------------------------------------------------- on a worker

def run_shard(job: dict, image: dict, first: int, stop: int) -> dict:
    """Run CTAs [first, stop) on the image; per written array (offset -> (start, bytes, bit mask))."""
    with _one_at_a_time:
        started, cpu_started = time.perf_counter(), time.process_time()
        warm = is_loaded(job)
        loaded = loaded_module(job["ptx"], job["name"], job["globals"])
        out = {"first": first, "stop": stop, "error": None, "warnings": [], "warm": warm}
        with _heap_of(image) as (memory, original), _results_of(image) as results, \
                warnings.catch_warnings(record=True) as caught, settings(**job["settings"]):
            warnings.simplefilter("always")
            loaded.device.memory = memory
            try:
                result = loaded.launch(job["kernel"], job["grid"], job["block"], job["params"],
                                       shared_mem=job["shared_mem"], cta_range=(first, stop))
                stored = set(job["stored"]) if results is not None else set()
                out["changes"] = {offset: changes(memory.buffer[offset:offset + n], original[offset:offset + n],
                                                  results[offset:offset + n] if offset in stored else None)
                                  for offset, n in job["written"]}
            except Exception as exc:       # the driver raises it as the one-process run would
                out["error"] = portable_error(exc)
                return out
            finally:
                loaded.device.memory = None
                del memory, original
        out["warnings"] = [(w.category, str(w.message)) for w in caught]
        out["result"] = {"warp_instructions": result.warp_instructions,
                         "thread_instructions": result.thread_instructions, "rounds": result.rounds,
                         "diagnostics": result.diagnostics, "seconds": result.seconds}
        out["seconds"] = time.perf_counter() - started
        out["cpu_seconds"] = time.process_time() - cpu_started
        return out


def changes(now: np.ndarray, before: np.ndarray, into: np.ndarray = None):
    """(first changed byte, the bytes from there to the last changed one, their changed bits or None
    when every one changed), or None when nothing changed. With `into` (an array as long as `now`),
    the changed bytes are written there at their places and their count stands for the bytes."""
    first, stop = _changed_span(now, before)
    if first == stop:
        return None
    changed = now[first:stop] != before[first:stop]
    bits = None if changed.all() else np.packbits(changed)
    if into is None:
        return first, now[first:stop].copy(), bits
    np.copyto(into[first:stop], now[first:stop], where=changed)
    return first, stop - first, bits


def _changed_span(now: np.ndarray, before: np.ndarray) -> tuple:
    """[first, stop) of the bytes that differ ((0, 0) when none): 64-bit words from both ends, then
    the bytes of the two end words and of the tail shorter than a word."""
    words = len(now) // 8
    word_first, word_stop = _differing_span(now[:words * 8].view(np.uint64), before[:words * 8].view(np.uint64))
    tail_first, tail_stop = _differing_span(now[words * 8:], before[words * 8:])
    if word_first < word_stop:
        at = word_first * 8
        first = at + _differing_span(now[at:at + 8], before[at:at + 8])[0]
    elif tail_first < tail_stop:
        first = words * 8 + tail_first
    else:
        return 0, 0
    if tail_first < tail_stop:
        return first, words * 8 + tail_stop
    at = (word_stop - 1) * 8
    return first, at + _differing_span(now[at:at + 8], before[at:at + 8])[1]


@njit(cache=True, nogil=True)
def _differing_span(a, b):
    """[first, stop) of the elements where a and b differ, (0, 0) when none; stops at the first
    difference from each end (a NumPy comparison would read every element and keep a mask)."""
    n = len(a)
    first = 0
    while first < n and a[first] == b[first]:
        first += 1
    if first == n:
        return 0, 0
    stop = n
    while a[stop - 1] == b[stop - 1]:
        stop -= 1
    return first, stop


def _mask(change) -> np.ndarray:
    first, data, bits = change
    if bits is None:
        return np.ones(len(data), dtype=bool)
    return np.unpackbits(bits, count=len(data)).view(bool)


# ---------------------------------------------------------------- on the driver

def merge(memory, footprint, shards: list) -> tuple:
    """Write the shards' changes into the driver's heap: ('', '') when done, else (kind, why) and the
    heap as it was; kind 'race' (stores of two shards met: the watched path names the CTAs) or
    'refused' (atomics whose merged value would not be one process's)."""
    writes = []                                     # (heap offset, bytes, mask or None: all)
    for offset, size in sorted(footprint.stores):
        earlier = []                                # (first, stop, change) of earlier shards
        for j, shard in enumerate(shards):
            change = shard["changes"].get(offset)
            if change is None:
                continue
            first, data, bits = change
            stop = first + len(data)
            for other_first, other_stop, other in earlier:
                low, high = max(first, other_first), min(stop, other_stop)
                if low < high:
                    clash = _mask(change)[low - first:high - first] & _mask(other)[low - other_first:high - other_first]
                    if clash.any():
                        at = GLOBAL_BASE + offset + low + int(clash.argmax())
                        return "race", (f"CTAs of shard {j} stored to bytes (first at 0x{at:x}) that earlier "
                                        "CTAs stored: a race between CTAs")
            earlier.append((first, stop, change))
            writes.append((offset + first, data, None if bits is None else _mask(change)))
    for (offset, size), uses in sorted(footprint.atomics.items()):
        [(op, type_name, _)] = uses
        start = memory.buffer[offset:offset + size]
        finals = []
        for shard in shards:
            final = start.copy()
            change = shard["changes"].get(offset)
            if change is not None:
                first, data, _ = change
                np.copyto(final[first:first + len(data)], data, where=_mask(change))
            finals.append(final)
        itemsize = np.dtype(DTYPES[type_name]).itemsize
        elements = np.arange(0, size - size % itemsize, itemsize, dtype=np.int64)
        try:
            merged = merged_values(op, type_name, None, start, finals, elements, None)
        except MergeRefused as exc:
            return "refused", f"atom.{op}.{type_name} of several shards: {exc}"
        data = np.ascontiguousarray(merged.astype(DTYPES[type_name])).view(np.uint8)
        writes.append((offset, data, data != start[:len(data)]))
    for offset, data, mask in writes:
        if mask is None:
            memory.buffer[offset:offset + len(data)] = data
            memory.initialized[offset:offset + len(data)] = True
        else:
            np.copyto(memory.buffer[offset:offset + len(data)], data, where=mask)
            memory.initialized[offset:offset + len(data)] |= mask
    return "", ""
