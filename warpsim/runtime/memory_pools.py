"""Stream-ordered memory pools, managed-memory hints and peer access on warpsim's one device.

Streams run in order and every call completes before it returns (docs/programs.md), so a
pool needs no deferred reuse: cudaMallocAsync and cudaMallocFromPoolAsync allocate from
the device heap at once and cudaFreeAsync frees at once. A pool (cudaMemPool_t) is a
handle with its attributes and the bytes allocated from it: the default pool of device 0,
and those cudaMemPoolCreate makes. What a pool has reserved is its used bytes rounded up
to the GPU's 2 MiB pages (a GPU reserves more, and keeps freed bytes up to the release
threshold: a program that prints reserved sizes sees other numbers). Limitations: pools
cannot be exported or imported (IPC), access descriptors are kept and read back
(cudaMemPool{Set,Get}Access) but stop no kernel, host and managed pools (CUDA 13's
cudaMem{Get,Set}MemPool of such locations) are not simulated, and a cudaMallocAsync inside a
stream capture allocates at capture time.

Managed memory lives at one address for host and device (docs/programs.md), so
cudaMemPrefetchAsync, cudaMemAdvise and cudaStreamAttachMemAsync check their arguments as a
GPU does and move nothing; the advice and prefetches are kept for cudaMemRangeGetAttribute[s]
to report (runtime/managed_ranges.py). There is one device: it has no peers, and cudaMemcpyPeer between
device 0 and itself is a device-to-device copy.

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from . import managed_ranges
from .calls import (CODES, INVALID_HANDLE, INVALID_VALUE, MEMORY_MANAGED, NODE_MEM_ALLOC, NODE_MEM_FREE, NODE_MEMCPY,
                    SUCCESS, _allocate, _allocation_start, _captured, _copy, _known_stream, _now_or_captured, _read,
                    _say_once, _write, call, free_device_memory)
from .context import GPU_PAGE_BYTES
from ..machine.memory import GLOBAL_BASE

INVALID_DEVICE = CODES["cudaErrorInvalidDevice"]

# cudaMemPoolAttr: the three reuse policies (int), the release threshold and the byte counters (uint64).
REUSE_ATTRIBUTES = (1, 2, 3)               # FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies
RELEASE_THRESHOLD, RESERVED_CURRENT, RESERVED_HIGH, USED_CURRENT, USED_HIGH = 4, 5, 6, 7, 8
ALLOCATION_TYPE, EXPORT_HANDLE_TYPES, LOCATION_ID, LOCATION_TYPE, MAX_POOL_SIZE = 9, 10, 11, 12, 13
ALLOCATION_TYPE_PINNED = 1                 # cudaMemAllocationTypePinned: what a device pool holds
ALLOCATION_TYPE_MANAGED = 2                # cudaMemAllocationTypeManaged (CUDA 13's managed pools)
LOCATION_DEVICE, LOCATION_HOST, LOCATION_HOST_NUMA, LOCATION_HOST_NUMA_CURRENT = 1, 2, 3, 4
ADVICES = range(1, 7)                      # cudaMemAdviseSetReadMostly .. cudaMemAdviseUnsetAccessedBy
ADVICE_NEEDS_LOCATION = {3, 5, 6}          # SetPreferredLocation, SetAccessedBy, UnsetAccessedBy name a location
ATTACH_FLAGS = {1, 2, 4}                   # cudaMemAttachGlobal, cudaMemAttachHost, cudaMemAttachSingle
DEFAULT_POOL = 0x700001                    # the handle of device 0's default pool


@dataclass
class MemoryPool:
    handle: int
    export_handle_types: int = 0
    max_size: int = 0
    attributes: dict = field(default_factory=lambda: {1: 1, 2: 1, 3: 1, RELEASE_THRESHOLD: 0})
    allocations: dict = field(default_factory=dict)    # device address -> bytes
    access: dict = field(default_factory=dict)         # (location type, id) of a host location -> cudaMemAccessFlags
    used_high: int = 0
    reserved_high: int = 0
    freed_synchronously: int = 0                       # bytes cudaFree (not cudaFreeAsync) gave back

    @property
    def used(self) -> int:
        """The bytes allocated from the pool and not freed in stream order: an H100 (CUDA 13.0) kept
        counting an allocation freed by a synchronous cudaFree in cudaMemPoolAttrUsedMemCurrent, and
        the pool's next allocation did not reuse it."""
        return sum(self.allocations.values()) + self.freed_synchronously

    @property
    def reserved(self) -> int:
        return -(-self.used // GPU_PAGE_BYTES) * GPU_PAGE_BYTES


def _pools(context) -> dict:
    """handle -> MemoryPool, the default pool made on first use; context.current_pool is the device's."""
    if not context.memory_pools:
        context.memory_pools[DEFAULT_POOL] = MemoryPool(DEFAULT_POOL)
        context.current_pool = DEFAULT_POOL
    return context.memory_pools


# --- pools -----------------------------------------------------------------------------------

@call()
def cudaDeviceGetDefaultMemPool(context, out, device):
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if not out:
        return context.fail(INVALID_VALUE)
    _pools(context)
    _write(out, "Q", DEFAULT_POOL)
    return SUCCESS


@call()
def cudaDeviceGetMemPool(context, out, device):
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if not out:
        return context.fail(INVALID_VALUE)
    _pools(context)
    _write(out, "Q", context.current_pool)
    return SUCCESS


def _location_pool_refusal(context, location: int, allocation_type: int) -> int:
    """The cudaError_t of asking for the pools of a cudaMemLocation and cudaMemAllocationType (cudaMemGetMemPool
    and friends, CUDA 13): device 0's pinned pools are warpsim's; host and managed pools are not simulated."""
    if not location:
        return context.fail(INVALID_VALUE)
    location_type, location_id = _read_location(location)
    if allocation_type not in (ALLOCATION_TYPE_PINNED, ALLOCATION_TYPE_MANAGED) or location_type not in (
            LOCATION_DEVICE, LOCATION_HOST, LOCATION_HOST_NUMA, LOCATION_HOST_NUMA_CURRENT):
        return context.fail(INVALID_VALUE)
    if location_type == LOCATION_DEVICE and location_id != 0:
        return context.fail(INVALID_DEVICE)
    if location_type != LOCATION_DEVICE or allocation_type != ALLOCATION_TYPE_PINNED:
        _say_once(context, f"pool {location_type} {allocation_type}", "warpsim: host and managed memory pools "
                  "are not simulated (device 0's pinned pools are): cudaErrorNotSupported")
        return context.fail(CODES["cudaErrorNotSupported"])
    return SUCCESS


def _read_location(location: int) -> tuple:
    """(type, id) of a struct cudaMemLocation at a host address."""
    from .hoststructs import offsets
    from .native import MEM_ACCESS_DESC_FIELDS
    at = offsets("ws_mem_access_desc_layout", MEM_ACCESS_DESC_FIELDS)     # its location leads a cudaMemAccessDesc
    return _read(location + at["location.type"], "i")[0], _read(location + at["location.id"], "i")[0]


@call()
def cudaMemGetDefaultMemPool(context, out, location, allocation_type):
    return _location_pool_refusal(context, location, allocation_type) or \
        cudaDeviceGetDefaultMemPool.__wrapped__(context, out, 0)


@call()
def cudaMemGetMemPool(context, out, location, allocation_type):
    return _location_pool_refusal(context, location, allocation_type) or \
        cudaDeviceGetMemPool.__wrapped__(context, out, 0)


@call()
def cudaMemSetMemPool(context, location, allocation_type, pool):
    return _location_pool_refusal(context, location, allocation_type) or \
        cudaDeviceSetMemPool.__wrapped__(context, 0, pool)


ACCESS_FLAGS = (0, 1, 3)                   # cudaMemAccessFlagsProtNone, ProtRead, ProtReadWrite
ACCESS_READ_WRITE = 3


def _access_location_refusal(context, location_type: int, location_id: int) -> int:
    if location_type == LOCATION_DEVICE:
        return SUCCESS if location_id == 0 else context.fail(INVALID_DEVICE)
    if location_type in (LOCATION_HOST, LOCATION_HOST_NUMA, LOCATION_HOST_NUMA_CURRENT):
        return SUCCESS
    return context.fail(INVALID_VALUE)


def read_access_descriptors(descriptors: int, count: int) -> list:
    """((location type, id), flags) of each of `count` cudaMemAccessDesc (CUmemAccessDesc: the same
    layout) at a host address."""
    from .hoststructs import offsets
    from .native import MEM_ACCESS_DESC_FIELDS
    size = _layout_size("ws_mem_access_desc_layout")
    at = offsets("ws_mem_access_desc_layout", MEM_ACCESS_DESC_FIELDS)
    return [(_read_location(descriptors + k * size), _read(descriptors + k * size + at["flags"], "i")[0])
            for k in range(count)]


@call()
def cudaMemPoolSetAccess(context, pool, descriptors, count):
    """Which locations may reach the pool's memory. Device 0 owns every pool and keeps read-write access
    (anything else for it is cudaErrorInvalidValue); a host location's access is kept and read back. Kernels
    are not stopped from reaching memory a location was not given (all of it is device 0's)."""
    found = _pools(context).get(pool)
    if found is None or count and not descriptors:
        return context.fail(INVALID_VALUE)
    changes = {}
    for location, flags in read_access_descriptors(descriptors, count):
        code = _access_location_refusal(context, *location)
        if code:
            return code
        if flags not in ACCESS_FLAGS or location[0] == LOCATION_DEVICE and flags != ACCESS_READ_WRITE:
            return context.fail(INVALID_VALUE)
        if location[0] != LOCATION_DEVICE:
            changes[location] = flags
    found.access.update(changes)
    return SUCCESS


@call()
def cudaMemPoolGetAccess(context, out, pool, location):
    found = _pools(context).get(pool)
    if found is None or not out or not location:
        return context.fail(INVALID_VALUE)
    where = _read_location(location)
    code = _access_location_refusal(context, *where)
    if code:
        return code
    _write(out, "i", ACCESS_READ_WRITE if where[0] == LOCATION_DEVICE else found.access.get(where, 0))
    return SUCCESS


def _layout_size(symbol: str) -> int:
    from .hoststructs import layout
    return layout(symbol, 0)[0]


@call()
def cudaDeviceSetMemPool(context, device, pool):
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if pool not in _pools(context):
        return context.fail(INVALID_VALUE)
    context.current_pool = pool
    return SUCCESS


def pool_properties(props: int, host_code: int = INVALID_VALUE) -> tuple:
    """(handle types, max size, cudaError_t) of a struct cudaMemPoolProps: device memory of device 0
    only (pinned allocations on the device), else cudaErrorInvalidValue; another device's id too, as
    on an H100 (validation/programs/h100/program_tests_native.txt). A host location is `host_code`
    (a graph's allocation node: cudaErrorNotSupported, as on the H100)."""
    from .hoststructs import offsets
    from .native import MEM_POOL_PROPS_FIELDS
    at = offsets("ws_mem_pool_props_layout", MEM_POOL_PROPS_FIELDS)
    (alloc_type,) = _read(props + at["allocType"], "i")
    (handle_types,) = _read(props + at["handleTypes"], "i")
    location_type, location_id = _read(props + at["location.type"], "i")[0], _read(props + at["location.id"], "i")[0]
    (max_size,) = _read(props + at["maxSize"], "Q")
    if location_type > LOCATION_DEVICE:
        return handle_types, max_size, host_code
    if alloc_type != ALLOCATION_TYPE_PINNED or location_type != LOCATION_DEVICE:
        return handle_types, max_size, INVALID_VALUE
    return handle_types, max_size, INVALID_VALUE if location_id != 0 else SUCCESS


@call()
def cudaMemPoolCreate(context, out, props):
    if not out or not props:
        return context.fail(INVALID_VALUE)
    handle_types, max_size, refused = pool_properties(props)
    if refused:
        return context.fail(refused)
    pools = _pools(context)
    handle = context.new_handle()
    pools[handle] = MemoryPool(handle, export_handle_types=handle_types, max_size=max_size)
    _write(out, "Q", handle)
    return SUCCESS


@call()
def cudaMemPoolDestroy(context, pool):
    pools = _pools(context)
    if pool not in pools or pool == DEFAULT_POOL:
        return context.fail(INVALID_VALUE)
    if context.current_pool == pool:         # destroying the device's current pool sets the default back
        context.current_pool = DEFAULT_POOL
    del pools[pool]                          # allocations made from it stay valid until freed (CUDA's rule)
    return SUCCESS


@call()
def cudaMemPoolTrimTo(context, pool, keep_bytes):
    return SUCCESS if pool in _pools(context) else context.fail(INVALID_VALUE)


@call()
def cudaMemPoolSetAttribute(context, pool, attribute, value):
    found = _pools(context).get(pool)
    if found is None or not value:
        return context.fail(INVALID_VALUE)
    if attribute in REUSE_ATTRIBUTES:
        found.attributes[attribute] = int(_read(value, "i")[0] != 0)
    elif attribute == RELEASE_THRESHOLD:
        found.attributes[attribute] = _read(value, "Q")[0]
    elif attribute in (RESERVED_HIGH, USED_HIGH):        # only a reset to zero (to the current value) is allowed
        if _read(value, "Q")[0] != 0:
            return context.fail(INVALID_VALUE)
        if attribute == USED_HIGH:
            found.used_high = found.used
        else:
            found.reserved_high = found.reserved
    else:                                                # the counters and the pool's properties are read-only
        return context.fail(INVALID_VALUE)
    return SUCCESS


@call()
def cudaMemPoolGetAttribute(context, pool, attribute, value):
    found = _pools(context).get(pool)
    if found is None or not value:
        return context.fail(INVALID_VALUE)
    if attribute in REUSE_ATTRIBUTES:
        _write(value, "i", found.attributes[attribute])
        return SUCCESS
    counters = {RELEASE_THRESHOLD: found.attributes[RELEASE_THRESHOLD], RESERVED_CURRENT: found.reserved,
                RESERVED_HIGH: found.reserved_high, USED_CURRENT: found.used, USED_HIGH: found.used_high,
                MAX_POOL_SIZE: found.max_size}
    ints = {ALLOCATION_TYPE: ALLOCATION_TYPE_PINNED, EXPORT_HANDLE_TYPES: found.export_handle_types,
            LOCATION_ID: 0, LOCATION_TYPE: LOCATION_DEVICE}
    if attribute in counters:
        _write(value, "Q", counters[attribute])
    elif attribute in ints:
        _write(value, "i", ints[attribute])
    else:
        return context.fail(INVALID_VALUE)
    return SUCCESS


def _allocate_from(context, out, size, pool, stream) -> int:
    pools = _pools(context)
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    found = pools.get(pool)
    if found is None:
        return context.fail(INVALID_VALUE)
    if found.max_size and found.used + size > found.max_size:
        return context.fail(CODES["cudaErrorMemoryAllocation"])
    code = _allocate(context, out, size)
    (address,) = _read(out, "Q") if code == SUCCESS else (0,)
    if code == SUCCESS and _captured(context, stream, lambda: context.graph_memory_allocated(address),
                                     NODE_MEM_ALLOC):
        own_graph_memory(context, address, size)    # in a capture, graph-owned memory: allocated now, at one
    if code == SUCCESS and size:                    # address for the graph's every launch
        found.allocations[address] = size
        found.used_high = max(found.used_high, found.used)
        found.reserved_high = max(found.reserved_high, found.reserved)
    return code


def own_graph_memory(context, address: int, size: int) -> None:
    """Count an allocation as graph-owned memory (freed by nothing outside the graph; the graph
    memory attributes report it)."""
    context.graph_allocations[address] = size
    context.graph_memory_high = max(context.graph_memory_high, sum(context.graph_allocations.values()))


GRAPH_MEM_USED, GRAPH_MEM_USED_HIGH, GRAPH_MEM_RESERVED, GRAPH_MEM_RESERVED_HIGH = 0, 1, 2, 3


@call()
def cudaDeviceGetGraphMemAttribute(context, device, attribute, out):
    """Graph-owned memory in use and reserved (the same: warpsim keeps it at its addresses until the
    program ends), and the most of it held since the last reset."""
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if not out or attribute not in (GRAPH_MEM_USED, GRAPH_MEM_USED_HIGH, GRAPH_MEM_RESERVED, GRAPH_MEM_RESERVED_HIGH):
        return context.fail(INVALID_VALUE)
    held = sum(context.graph_allocations.values())
    _write(out, "Q", held if attribute in (GRAPH_MEM_USED, GRAPH_MEM_RESERVED) else max(held, context.graph_memory_high))
    return SUCCESS


@call()
def cudaDeviceSetGraphMemAttribute(context, device, attribute, value):
    """Resets a high watermark (to the memory held now), the one change CUDA allows."""
    if device != 0:
        return context.fail(INVALID_DEVICE)
    if attribute not in (GRAPH_MEM_USED_HIGH, GRAPH_MEM_RESERVED_HIGH) or not value or _read(value, "Q")[0] != 0:
        return context.fail(INVALID_VALUE)
    context.graph_memory_high = sum(context.graph_allocations.values())
    return SUCCESS


@call()
def cudaMallocAsync(context, out, size, stream):
    _pools(context)
    return _allocate_from(context, out, size, context.current_pool, stream)


@call()
def cudaMallocFromPoolAsync(context, out, size, pool, stream):
    return _allocate_from(context, out, size, pool, stream)


@call()
def cudaFreeAsync(context, address, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if address in context.graph_allocations and stream not in context.captures:
        return context.free_graph_memory(address)      # freed outside its graph
    if _captured(context, stream, lambda: context.free_graph_memory(address), NODE_MEM_FREE):
        return SUCCESS
    return free_device_memory(context, address, stream_ordered=True)


# --- managed memory hints --------------------------------------------------------------------

def _managed_range(context, address: int, count: int) -> bool:
    """Whether [address, address + count) lies in one cudaMallocManaged allocation."""
    start = _allocation_start(context, address)
    if start is None or context.memory_kinds.get(start) != MEMORY_MANAGED:
        return False
    return address + count <= start + context.device.memory.live[start - GLOBAL_BASE]


def _location_error(context, location) -> int:
    location_type, location_id = location
    if location_type == LOCATION_DEVICE:
        return SUCCESS if location_id == 0 else INVALID_DEVICE
    if location_type in (LOCATION_HOST, LOCATION_HOST_NUMA, LOCATION_HOST_NUMA_CURRENT):
        return SUCCESS
    return INVALID_VALUE


@call()
def cudaMemPrefetchAsync(context, address, count, location, flags, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if flags or not count or not _managed_range(context, address, count):
        return context.fail(INVALID_VALUE)
    code = _location_error(context, location)
    if code:
        return context.fail(code)
    managed_ranges.note(context, address, count, managed_ranges.PREFETCH, location)
    return SUCCESS


@call()
def cudaMemAdvise(context, address, count, advice, location):
    if advice not in ADVICES or not count or not _managed_range(context, address, count):
        return context.fail(INVALID_VALUE)
    code = _location_error(context, location) if advice in ADVICE_NEEDS_LOCATION else SUCCESS
    if code:
        return context.fail(code)
    managed_ranges.note(context, address, count, advice, location)
    return SUCCESS


@call()
def cudaMemRangeGetAttribute(context, data, size, attribute, address, count):
    """What the advice and prefetches given so far say of a managed range (runtime/managed_ranges.py)."""
    if not data or not count or not _managed_range(context, address, count):
        return context.fail(INVALID_VALUE)
    values = managed_ranges.attribute(context, address, count, attribute, size)
    if values is None:
        return context.fail(INVALID_VALUE)
    _write(data, f"{len(values)}i", *values)
    return SUCCESS


@call()
def cudaMemRangeGetAttributes(context, data, sizes, attributes, number, address, count):
    if not data or not sizes or not attributes or not number:
        return context.fail(INVALID_VALUE)
    for k in range(number):
        (out,), (size,), (attribute,) = _read(data + 8 * k, "Q"), _read(sizes + 8 * k, "Q"), _read(attributes + 4 * k, "i")
        code = cudaMemRangeGetAttribute.__wrapped__(context, out, size, attribute, address, count)
        if code:
            return code
    return SUCCESS


@call()
def cudaStreamAttachMemAsync(context, stream, address, length, flags):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if flags not in ATTACH_FLAGS or not _managed_range(context, address, max(length, 1)):
        return context.fail(INVALID_VALUE)
    return SUCCESS


# --- peers: one device -----------------------------------------------------------------------

@call()
def cudaDeviceCanAccessPeer(context, out, device, peer):
    if device != 0 or peer != 0:
        return context.fail(INVALID_DEVICE)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "i", 0)           # a device is not its own peer
    return SUCCESS


@call()
def cudaDeviceEnablePeerAccess(context, peer, flags):
    if flags:
        return context.fail(INVALID_VALUE)
    return context.fail(INVALID_DEVICE)        # device 0 is the only one, and not its own peer


@call()
def cudaDeviceDisablePeerAccess(context, peer):
    return context.fail(INVALID_DEVICE)


@call()
def cudaMemcpyPeer(context, dst, dst_device, src, src_device, count):
    if dst_device != 0 or src_device != 0:
        return context.fail(INVALID_DEVICE)
    if not _both_on_the_device(context, dst, src):
        return context.fail(INVALID_VALUE)
    return _copy(context, dst, src, count)


def _both_on_the_device(context, dst, src) -> bool:
    """A peer copy's ends are device pointers: CUDA refuses a host one, pageable or not, with
    cudaErrorInvalidValue (an H100, CUDA 13.0)."""
    return _allocation_start(context, dst) is not None and _allocation_start(context, src) is not None


@call()
def cudaMemcpyPeerAsync(context, dst, dst_device, src, src_device, count, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if dst_device != 0 or src_device != 0:
        return context.fail(INVALID_DEVICE)
    if not _both_on_the_device(context, dst, src):
        return context.fail(INVALID_VALUE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(_copy, context, dst, src, count, stream))
