"""State spaces, and checked, vectorized loads and stores for every one.

An instruction names its state space with a modifier (space_of); each access turns per-lane addresses into byte offsets of one backing array
(global heap, the batch's shared memory, per-thread local memory, the kernel
parameter buffer), checks bounds and alignment for every lane, and gathers or
scatters with a typed view. A bad lane stops the launch with a MemoryFault
naming the kernel, block, thread, instruction and source line. Atomics
(machine.isa.atomics), tensor fragments and mbarriers resolve their addresses
through the same checks.
"""

from __future__ import annotations

import sys

import numpy as np

from ..errors import MemoryFault
from ..ptx.opcodes import SPACE_MODIFIERS
from .cluster import peer_offsets
from ..semantics import addresses
from ..semantics.addresses import GENERIC_SPACES, GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, generic_space
from .memory import describe_freed

def space_of(ins) -> str:
    """The state space an instruction names ('generic' when it names none)."""
    for m in ins.mods:
        if m in SPACE_MODIFIERS:
            return SPACE_MODIFIERS[m]
    return "generic"


def vector_count(ins) -> int:
    """Elements per lane of a vector access (.v2/.v4/.v8), 1 for a scalar one."""
    for m in ins.mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1:])
    return 1


def _fault(ctx, site, idx, lane_ok, addrs, what, size, space=None):
    """`space`: the one accessed, for instructions that name two (cp.async reads global, writes shared)."""
    bad = int(np.flatnonzero(~lane_ok)[0])
    slot = int(idx[bad])
    addr = int(addrs[bad])
    where = ctx.where(slot)
    detail = describe_address(ctx, space or site.space_of(addr), addr, size)
    raise MemoryFault(f"{what} of {size} bytes at 0x{addr:x}: {detail}",
                      kernel=ctx.kernel, block=where["block"], thread=where["thread"],
                      ptx_line=site.ins.line, instruction=str(site.ins),
                      source_line=site.described)


def _tolerate_mapped(ctx, site, idx, ok, addrs, size, write):
    """`ok` with the lanes a GPU would not fault on added (GlobalMemory.tolerated: whole CUDA
    programs), said on stderr once an instruction (warn_tolerated)."""
    tolerated = ctx.memory.tolerated(addrs, size, ok)
    if not tolerated.any():
        return ok
    lane = int(np.flatnonzero(tolerated)[0])
    where = ctx.where(int(idx[lane]))
    warn_tolerated(ctx.memory, ctx.kernel, site.ins.line, "store" if write else "load", int(addrs[lane]), size,
                   f"block {where['block']} thread {where['thread']}, PTX line {site.ins.line}: {site.ins}"
                   f"{' (' + site.described + ')' if site.described else ''}")
    return ok | tolerated


def warn_tolerated(memory, kernel, line, what: str, addr: int, size: int, place: str) -> None:
    """Say once per (kernel, PTX line) that an access outside every allocation lands in mapped pages:
    the GPU reads and writes those bytes silently (what `warpsim check` would call an error). The
    PTX machine and the SASS executor both say it, in these words."""
    said = memory.__dict__.setdefault("_tolerated_said", set())
    if (kernel, line) in said:
        return
    said.add((kernel, line))
    verb = "lands in" if what == "store" else "reads" if what == "load" else "reaches"
    print(f"warpsim: warning: kernel {kernel}: global {what} of {size} bytes at 0x{addr:x}: "
          f"{describe_global_address(memory, addr, size)}; {place}. "
          f"A GPU does not fault here: the address is in the {memory.mapped_page_bytes >> 20} MiB pages "
          f"mapped for a live allocation{' or the driver' if addr < GLOBAL_BASE + memory.driver_bytes else ''}, "
          f"so the {what} {verb} the bytes there "
          f"(`warpsim check` reports it as an error)", file=sys.stderr)


def describe_global_address(memory, addr: int, size: int) -> str:
    """What a bad global address is against the allocations and host ranges of `memory` (both
    executors' faults say it)."""
    if addr < 4096:
        return "a null pointer (or a small integer used as one)"
    if addr % size:
        return f"misaligned (a {size}-byte access needs {size}-byte alignment)"
    freed = memory.freed_allocation(addr)
    if freed is not None:
        return f"use after free: {describe_freed(freed)}"
    near = _nearest_allocation(memory, addr)
    host, distance = memory.host.nearest(addr)
    if host is not None and distance <= NEARBY and (near is None or distance < _distance(addr, *near)):
        return describe_host_range(host, addr)
    if near is None or abs(addr - near[0]) > NEARBY:
        return ("in no allocation: not a pointer into any live array (freed, never allocated, "
                "or a host pointer)")
    start, length = near
    if addr >= start + length:
        return (f"out of bounds: {addr - (start + length)} bytes past the end of the "
                f"{length}-byte allocation at 0x{start:x}")
    if addr < start:
        return f"out of bounds: {start - addr} bytes before the allocation at 0x{start:x}"
    return f"out of bounds: runs past the end of the {length}-byte allocation at 0x{start:x}"


def describe_address(ctx, space: str, addr: int, size: int) -> str:
    if space == "global":
        return describe_global_address(ctx.memory, addr, size)
    if space == "shared":
        off = addr - SHARED_WINDOW if addr >= SHARED_WINDOW else addr
        if off % size:
            return f"misaligned shared address {off}"
        return f"shared offset {off} is outside the block's {ctx.shared_size} bytes of shared memory"
    if space == "local":
        off = addr - LOCAL_WINDOW if addr >= LOCAL_WINDOW else addr
        return f"local offset {off} is outside the thread's {ctx.local_size}-byte frame"
    if space == "param":
        return f"parameter offset {addr} is outside the {len(ctx.params)}-byte parameter buffer"
    return "address in no state space"


NEARBY = 1 << 24     # an address this close to an allocation is described relative to it


def describe_host_range(host, addr: int) -> str:
    """Where addr lies against a registered host range, as allocations are described."""
    end = host.base + host.nbytes
    if addr >= end:
        return f"out of bounds: {addr - end} bytes past the end of the {host.describe()}"
    if addr < host.base:
        return f"out of bounds: {host.base - addr} bytes before the {host.describe()}"
    return f"out of bounds: runs past the end of the {host.describe()}"


def _distance(addr: int, start: int, size: int) -> int:
    return start - addr if addr < start else max(0, addr - (start + size) + 1)


def _nearest_allocation(memory, addr):
    """(start, size) of the live allocation closest to addr (0 bytes away if inside it)."""
    best, best_distance = None, None
    for start, size in memory.live.copy().items():
        a = GLOBAL_BASE + start
        distance = a - addr if addr < a else max(0, addr - (a + size) + 1)
        if best is None or distance < best_distance:
            best, best_distance = (a, size), distance
    return best


def resolve(ctx, site, idx, space: str, addrs: np.ndarray, size: int, write: bool):
    """(backing array, element offsets in bytes) for one space, all lanes checked."""
    addrs = addrs.astype(np.uint64, copy=False)
    if space in ("global", "const"):
        off = ctx.memory.heap_offsets(addrs, size)          # every lane inside one allocation, aligned
        if off is not None:
            return ctx.memory.buffer, off
        ok, buf, off = ctx.memory.resolve(addrs, size)      # the heap, or registered host ranges too
        ok = ok & addresses.aligned(addrs, size)
        if not ok.all() and buf is ctx.memory.buffer:
            ok = _tolerate_mapped(ctx, site, idx, ok, addrs, size, write)
        if not ok.all():
            _fault(ctx, site, idx, ok, addrs, "global " + ("store" if write else "load"), size, "global")
        return buf, off
    if space == "shared":
        off = addresses.window_offsets(addrs, SHARED_WINDOW)
        cta, off = peer_offsets(ctx, idx, off)          # shared::cluster: a CTA of the cluster
        ok = addresses.inside(off, size, ctx.shared_used)
        if not ok.all():
            _fault(ctx, site, idx, ok, addrs, "shared " + ("store" if write else "load"), size, "shared")
        return ctx.shared, cta * ctx.shared_size + off
    if space == "local":
        off = addresses.window_offsets(addrs, LOCAL_WINDOW)
        ok = addresses.inside(off, size, ctx.local_size)
        if not ok.all():
            _fault(ctx, site, idx, ok, addrs, "local " + ("store" if write else "load"), size)
        return ctx.local, idx.astype(np.int64) * ctx.local_size + off
    if space == "param":
        off = addrs.astype(np.int64)
        ok = addresses.inside(off, size, len(ctx.params))
        if not ok.all() or write:
            _fault(ctx, site, idx, ok & (not write), addrs, "parameter " + ("store" if write else "load"), size)
        return ctx.params, off
    raise AssertionError(space)


def split_generic(addrs: np.ndarray):
    """Yield (space name, lane selector or None for all) for a generic access."""
    space = generic_space(addrs)
    if not space.any():
        yield "global", None
        return
    for code, name in enumerate(GENERIC_SPACES):
        sel = np.flatnonzero(space == code)
        if sel.size:
            yield name, sel


def load(ctx, site, idx, space, addrs, dtype, count=1, packed=False):
    """Typed values (list of `count` arrays) read at addrs, addrs+size, ...; `packed`: one (lanes, count)
    array instead, as store takes it (a copy moves whole vectors without splitting them into elements)."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    if packed:
        if space != "generic":
            total = size * count
            buf, off = resolve(ctx, site, idx, space, addrs, total if count > 1 else size, False)
            wide = _wide_view(buf, total) if count > 1 else None
            if wide is not None and addresses.aligned(off, total).all():
                for obs in ctx.memory_observers:
                    obs.memory_access(ctx, site, space, "load", idx, addrs, size, count)
                return wide[off // total].view(dtype).reshape(len(off), count)
        return np.stack(load(ctx, site, idx, space, addrs, dtype, count), axis=1)
    if space == "generic":
        outs = [np.zeros(len(idx), dtype=dtype) for _ in range(count)]
        for name, sel in split_generic(addrs):
            if sel is None:
                return load(ctx, site, idx, name, addrs, dtype, count)
            part = load(ctx, site, idx[sel], name, addrs[sel], dtype, count)
            for out, p in zip(outs, part):
                out[sel] = p
        return outs
    total = size * count
    buf, off = resolve(ctx, site, idx, space, addrs, total if count > 1 else size, False)
    if count > 1 and not (ok := addresses.aligned(off, total)).all():
        _fault(ctx, site, idx, ok, addrs, f"vector load (.v{count})", total)
    for obs in ctx.memory_observers:
        obs.memory_access(ctx, site, space, "load", idx, addrs, size, count)
    wide = _wide_view(buf, total) if count > 1 else None
    if wide is not None:                    # one gather of whole vectors, then each element's column
        lanes = wide[off // total].view(dtype).reshape(len(off), count)
        return [np.ascontiguousarray(lanes[:, k]) for k in range(count)]
    view = buf.view(dtype)
    base = off // size
    return [view[base + k] for k in range(count)]


def store(ctx, site, idx, space, addrs, dtype, values):
    """Write values (a list of `count` arrays or scalars, or load's packed (lanes, count) array) at
    addrs, addrs+size, ..."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    size = dtype.itemsize
    packed = values if type(values) is np.ndarray and values.ndim == 2 else None
    if packed is not None:
        values = [packed[:, k] for k in range(packed.shape[1])]
    count = len(values)
    if space == "generic":
        for name, sel in split_generic(addrs):
            if sel is None:
                return store(ctx, site, idx, name, addrs, dtype, values)
            store(ctx, site, idx[sel], name, addrs[sel], dtype,
                  [v[sel] if np.ndim(v) else v for v in values])
        return
    total = size * count
    # resolve's first look, made here for the commonest store (every lane in one allocation)
    off = ctx.memory.heap_offsets(addrs, total if count > 1 else size) \
        if space == "global" and addrs.dtype is _U64 else None
    if off is not None:
        buf = ctx.memory.buffer
    else:
        buf, off = resolve(ctx, site, idx, space, addrs, total if count > 1 else size, True)
    if count > 1 and not (ok := addresses.aligned(off, total)).all():
        _fault(ctx, site, idx, ok, addrs, f"vector store (.v{count})", total)
    changed = not ctx.changes_only
    wide = _wide_view(buf, total) if count > 1 and changed else None
    base = off // size
    if wide is not None and packed is not None and packed.shape == (len(off), count):
        wide[off // total] = np.ascontiguousarray(packed, dtype).view(wide.dtype).reshape(len(off))
    elif wide is not None and all(type(v) is np.ndarray and v.shape == off.shape for v in values):
        lanes = np.empty((len(off), count), dtype)     # the elements side by side: one scatter of
        for k, v in enumerate(values):                 # whole vectors
            lanes[:, k] = v
        wide[off // total] = lanes.view(wide.dtype).reshape(len(off))
    else:
        view = buf.view(dtype)
        for k, v in enumerate(values):
            if v is None:
                continue
            at = base + k if k else base
            before = None if changed else view[at]
            view[at] = v
            changed = changed or before.tobytes() != view[at].tobytes()
    ctx.writes += changed
    if space == "global":
        if buf is ctx.memory.buffer:
            mark_initialized(ctx.memory.initialized, off, total, base if count == 1 else None)
        else:                                       # lanes in host ranges (host bytes count as written)
            ctx.memory.mark_written(addrs, total)
    for obs in ctx.memory_observers:
        obs.memory_access(ctx, site, space, "store", idx, addrs, size, count)


_U64 = np.dtype(np.uint64)
WIDE_ITEMS = {8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}   # a vector access's bytes as one item


def _wide_view(buf: np.ndarray, total: int):
    """buf as items of a whole vector access (8 or 16 bytes, offsets aligned to them: .v2/.v4 and
    cp.async), or None where it does not divide into them: one gather or scatter moves every lane's
    vector, where an element at a time takes count of them. complex128 items only copy bytes."""
    item = WIDE_ITEMS.get(total)
    if item is None or buf.nbytes % total:
        return None
    return buf.view(item)

# Flag words of initcheck's byte flags: an aligned access of 2, 4 or 8 bytes sets its flags with one store.
FLAG_WORDS = {2: (np.uint16, 0x0101), 4: (np.uint32, 0x0101_0101), 8: (np.uint64, 0x0101_0101_0101_0101)}


def mark_initialized(initialized: np.ndarray, offsets: np.ndarray, nbytes: int, words=None) -> None:
    """Set the flags of bytes [offset, offset + nbytes) of each lane (offsets aligned to nbytes;
    words: offsets // nbytes, where the caller has them already)."""
    word = FLAG_WORDS.get(nbytes)
    if word is not None and len(initialized) % nbytes == 0:
        dtype, ones = word
        initialized.view(dtype)[offsets // nbytes if words is None else words] = ones
    elif nbytes % 8 == 0 and len(initialized) % 8 == 0:        # .v4.b32, .v2.b64, ...: 8 flags a store
        dtype, ones = FLAG_WORDS[8]
        first = offsets // 8
        flags = initialized.view(dtype)
        for k in range(nbytes // 8):
            flags[first + k] = ones
    elif nbytes == 1:
        initialized[offsets] = True
    else:
        initialized[offsets[:, None] + np.arange(nbytes)] = True
