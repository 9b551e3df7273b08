"""The driver's virtual memory management: cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess.

warpsim's device memory is one heap of allocations at their device addresses (runtime/heap.py), with
no physical pages apart from their addresses. So a reserved range is an allocation of the heap from
the start (cuMemAddressReserve, at the granularity's alignment), a cuMemCreate handle names a size,
and cuMemMap ties a handle to a part of a reservation: what kernels read and write there is the
reservation's memory, as it is the handle's on a GPU. What this cannot be is one physical allocation
seen at two addresses: a handle mapped while it is mapped elsewhere, and a handle's export to another
process (cuMemExportToShareableHandle, not in the table), are CUDA_ERROR_NOT_SUPPORTED, with a line
naming why. CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED says 1 (properties.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import calls
from .driver import CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS, driver_call, refuse
from .hoststructs import read as _read, write as _write
from .memory_pools import ACCESS_FLAGS, ACCESS_READ_WRITE, LOCATION_DEVICE, _read_location, pool_properties, \
    read_access_descriptors

GRANULARITY = 2 << 20           # an H100's minimum and recommended granularity for device memory


@dataclass
class VirtualMemory:
    """A context's reservations {address: bytes}, handles {handle: bytes} with their references
    (cuMemCreate's and cuMemRetainAllocationHandle's, less cuMemRelease's) and mappings
    {address: (bytes, handle)}; a handle lives while it has references or mappings."""
    reserved: dict = field(default_factory=dict)
    handles: dict = field(default_factory=dict)
    references: dict = field(default_factory=dict)
    mapped: dict = field(default_factory=dict)
    next_handle: int = 1

    def is_mapped(self, handle: int) -> bool:
        return any(h == handle for _, h in self.mapped.values())

    def overlapping(self, address: int, size: int) -> list:
        """(start, bytes) of the mappings that share bytes with [address, address + size)."""
        return [(at, n) for at, (n, _) in self.mapped.items() if at < address + size and address < at + n]

    def forget_unused(self, handle: int) -> None:
        if not self.references.get(handle) and not self.is_mapped(handle):
            self.handles.pop(handle, None)
            self.references.pop(handle, None)


def _vmm(context) -> VirtualMemory:
    found = getattr(context, "virtual_memory", None)
    if found is None:
        found = context.virtual_memory = VirtualMemory()
    return found


def _device_properties(props: int) -> bool:
    """Whether a CUmemAllocationProp asks for pinned memory of device 0. Its leading fields (type,
    handle types, location) are a cudaMemPoolProps' too, whose layout the runtime library reports."""
    return bool(props) and pool_properties(props)[2] == calls.SUCCESS


def _reservation_of(vmm: VirtualMemory, address: int, size: int):
    """The reservation holding [address, address + size), or None."""
    for start, length in vmm.reserved.items():
        if start <= address and address + size <= start + length:
            return start
    return None


@driver_call()
def cuMemGetAllocationGranularity(context, out, props, option):
    if not out or not _device_properties(props) or option not in (0, 1):
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "Q", GRANULARITY)
    return CUDA_SUCCESS


@driver_call()
def cuMemAddressReserve(context, out, size, alignment, address, flags):
    if not out or not size or size % GRANULARITY or alignment & (alignment - 1) or flags:
        return CUDA_ERROR_INVALID_VALUE
    code = calls._allocate(context, out, size, align=max(GRANULARITY, alignment))     # (the address is a hint)
    if code == calls.SUCCESS:
        (start,) = _read(out, "Q")
        _vmm(context).reserved[start] = size
    return code


@driver_call()
def cuMemAddressFree(context, address, size):
    vmm = _vmm(context)
    if vmm.reserved.get(address) != size or any(_reservation_of(vmm, at, n) == address
                                                 for at, (n, _) in vmm.mapped.items()):
        return CUDA_ERROR_INVALID_VALUE        # (unmap first, as CUDA asks)
    del vmm.reserved[address]
    return calls.cudaFree.__wrapped__(context, address)


@driver_call()
def cuMemCreate(context, out, size, props, flags):
    if not out or not size or size % GRANULARITY or flags or not _device_properties(props):
        return CUDA_ERROR_INVALID_VALUE
    vmm = _vmm(context)
    handle, vmm.next_handle = vmm.next_handle, vmm.next_handle + 1
    vmm.handles[handle], vmm.references[handle] = size, 1
    _write(out, "Q", handle)
    return CUDA_SUCCESS


@driver_call()
def cuMemRelease(context, handle):
    vmm = _vmm(context)
    if not vmm.references.get(handle):
        return CUDA_ERROR_INVALID_VALUE
    vmm.references[handle] -= 1                # the memory lives on while it is mapped, as on a GPU
    vmm.forget_unused(handle)
    return CUDA_SUCCESS


@driver_call()
def cuMemMap(context, address, size, offset, handle, flags):
    vmm = _vmm(context)
    if not vmm.references.get(handle) or flags or not size \
            or offset + size > vmm.handles[handle] or _reservation_of(vmm, address, size) is None:
        return CUDA_ERROR_INVALID_VALUE
    if vmm.overlapping(address, size):
        return CUDA_ERROR_INVALID_VALUE        # a range already mapped
    if vmm.is_mapped(handle):
        return refuse(context, "cuMemMap", f"allocation handle {handle} is mapped already: one allocation at two "
                      "addresses is not simulated (warpsim's device memory is its addresses)",
                      CUDA_ERROR_NOT_SUPPORTED)
    vmm.mapped[address] = (size, handle)
    return CUDA_SUCCESS


@driver_call()
def cuMemUnmap(context, address, size):
    vmm = _vmm(context)
    inside = [at for at, (n, _) in vmm.mapped.items() if address <= at and at + n <= address + size]
    if not inside:
        return CUDA_ERROR_INVALID_VALUE
    for at in inside:
        _, handle = vmm.mapped.pop(at)
        vmm.forget_unused(handle)
    return CUDA_SUCCESS


@driver_call()
def cuMemSetAccess(context, address, size, descriptors, count):
    """Device 0 read-write over mapped ranges (kernels are not stopped from reaching the rest)."""
    covered = sum(min(at + n, address + size) - max(at, address) for at, n in _vmm(context).overlapping(address, size))
    if not count or not descriptors or covered != size:
        return CUDA_ERROR_INVALID_VALUE
    if any(location != (LOCATION_DEVICE, 0) or flags not in ACCESS_FLAGS
           for location, flags in read_access_descriptors(descriptors, count)):
        return CUDA_ERROR_INVALID_VALUE
    return CUDA_SUCCESS


@driver_call()
def cuMemGetAccess(context, out, location, address):
    if not out or not location or _read_location(location) != (LOCATION_DEVICE, 0):
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "Q", ACCESS_READ_WRITE if _vmm(context).overlapping(address, 1) else 0)
    return CUDA_SUCCESS


@driver_call()
def cuMemRetainAllocationHandle(context, out, address):
    vmm = _vmm(context)
    for at, (n, handle) in vmm.mapped.items():
        if out and at <= address < at + n:
            vmm.references[handle] = vmm.references.get(handle, 0) + 1
            _write(out, "Q", handle)
            return CUDA_SUCCESS
    return CUDA_ERROR_INVALID_VALUE
