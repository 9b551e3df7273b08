"""Run a NumPy callable on device arrays so that memory behaves as it does on the device.

warpsim computes CuPy's array library (operators, ufuncs, reductions, joins,
sorting, ...) with NumPy on the host. Copying each operand to the host and
uploading the result would get values right and memory wrong: an in-place
operator on a view would change a copy, `out=` would fill a temporary, and
`split` would return copies where CuPy returns views. So a call goes through
host *images* that mirror device memory byte for byte:

1. Group the device arrays among the arguments (inside lists and tuples too)
   by the allocation they live in; read, per allocation, the bytes that its
   arrays span into one host buffer (the image).
2. Give NumPy each array as a host view of its image with the array's own
   offset and strides, so views of one allocation alias each other on the
   host exactly as on the device (NumPy's overlap rules then apply as they
   would to the device arrays).
3. Call the function.
4. Write back to the device whatever bytes of an image the call changed
   (in-place operators, `out=`, `copyto`, `ufunc.at`, `sort()`, ...).
5. Map the result: the very host view given for an argument is that device
   array (so `a += 1` and `out=o` return the same object); an array lying in
   an image is a device view at the matching address; any other array is
   uploaded; a NumPy scalar from a call on device arrays is a 0-d device
   array, as CuPy returns one.

`kind` is the device array class: it provides `_upload(host, order)` (a new
device array of a host array) and `_adopt(obj)` (a device array wrapping an
object with `__cuda_array_interface__`); its instances provide `data`
(`.mem`, `.ptr`), `_span()`, `_memory` and `_view(offset, shape, strides,
dtype)`, as warpsim.api.arrays.ndarray does.
"""

from __future__ import annotations

import numpy as np

__all__ = ["call_on_host"]


class _Image:
    """The host copy of the bytes that one allocation's arrays in a call span."""

    def __init__(self, arrays):
        self.owner = arrays[0]                    # any array of the allocation: views are made from it
        spans = [(a.data.ptr + low, a.data.ptr + high) for a in arrays for low, high in [a._span()]]
        self.device_low = min(low for low, _ in spans)
        size = max(high for _, high in spans) - self.device_low
        self.bytes = np.array(self.owner._memory.read_bytes(self.device_low, size), dtype=np.uint8)
        self.before = None

    def host_view(self, array) -> np.ndarray:
        return np.ndarray(array.shape, array.dtype, buffer=self.bytes,
                          offset=array.data.ptr - self.device_low, strides=array.strides)

    def host_address(self) -> int:
        return self.bytes.__array_interface__["data"][0]

    def holds(self, host: np.ndarray) -> bool:
        address = host.__array_interface__["data"][0]
        return self.host_address() <= address < self.host_address() + self.bytes.size

    def device_view(self, host: np.ndarray):
        """The device array at the address and layout of `host`, a view inside this image."""
        address = self.device_low + host.__array_interface__["data"][0] - self.host_address()
        return self.owner._view(address - self.owner.data.ptr, host.shape, host.strides, host.dtype)

    def write_back(self) -> None:
        """Store the bytes the call changed (from the first to the last changed 8-byte word)."""
        word = 8 if self.bytes.size % 8 == 0 else 1       # compare words: 8x fewer comparisons
        changed = self.bytes.view(f"u{word}") != self.before.view(f"u{word}")
        first = int(changed.argmax())
        if not changed[first]:
            return
        last = changed.size - int(changed[::-1].argmax())
        self.owner._memory.write_bytes(self.device_low + first * word,
                                       self.bytes[first * word:last * word])


class _HostCall:
    """One call's images and the host views it handed out (see the module docstring)."""

    def __init__(self, kind, may_write: bool):
        self.kind, self.may_write = kind, may_write
        self.images: dict[int, _Image] = {}
        self.device_of: dict[int, object] = {}     # id(host view) -> the device array it stands for
        self.host_of: dict[int, np.ndarray] = {}   # id(device array) -> its host view

    def prepare(self, args, kwargs):
        arrays = []
        self._collect((args, kwargs), arrays)
        by_memory: dict[int, list] = {}
        for array in arrays:
            if array.size:
                by_memory.setdefault(id(array.data.mem), []).append(array)
        for key, members in by_memory.items():
            image = self.images[key] = _Image(members)
            if self.may_write:
                image.before = image.bytes.copy()
        return self._to_host(args), {name: self._to_host(value) for name, value in kwargs.items()}

    def _collect(self, value, found: list) -> None:
        if isinstance(value, self.kind):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self._collect(item, found)
        elif isinstance(value, dict):
            for item in value.values():
                self._collect(item, found)

    def _to_host(self, value):
        if isinstance(value, self.kind):
            host = self.host_of.get(id(value))
            if host is None:
                image = self.images.get(id(value.data.mem)) if value.size else None
                host = image.host_view(value) if image else np.empty(value.shape, value.dtype)
                self.host_of[id(value)] = host
                self.device_of[id(host)] = value
            return host
        if isinstance(value, list):
            return [self._to_host(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self._to_host(item) for item in value)
        return value

    def write_back(self) -> None:
        if self.may_write:
            for image in self.images.values():
                image.write_back()

    def to_device(self, value):
        if isinstance(value, np.ndarray):
            known = self.device_of.get(id(value))
            if known is not None:
                return known
            for image in self.images.values():
                if value.size and image.holds(value):
                    return image.device_view(value)
            fortran = value.ndim > 1 and value.flags.f_contiguous and not value.flags.c_contiguous
            return self.kind._upload(value, "F" if fortran else "C")
        if isinstance(value, np.generic) and self.device_of and value.dtype.kind in "biufc":
            return self.kind._upload(np.asarray(value), "C")
        if isinstance(value, list):
            return [self.to_device(item) for item in value]
        if isinstance(value, tuple):
            items = [self.to_device(item) for item in value]
            return type(value)._make(items) if hasattr(value, "_make") else tuple(items)
        return value


def adopt_foreign(value, kind):
    """`value` with objects of other libraries' device arrays wrapped as `kind` (lists, tuples too)."""
    if isinstance(value, kind):
        return value
    if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
        return kind._adopt(value)
    if isinstance(value, list):
        return [adopt_foreign(item, kind) for item in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(adopt_foreign(item, kind) for item in value)
    return value


# Calls that run as simulated kernels instead, as CuPy's do where NumPy's bits differ: each is
# simulated_call(fn, args, kwargs, kind) -> the result, or NotImplemented (warpsim.api.complex_ufuncs).
SIMULATED_CALLS: list = []


def call_on_host(fn, args, kwargs, kind, *, may_write: bool = True):
    """fn(*args, **kwargs) with device arrays mirrored on the host (see the module docstring).

    `may_write=False` (pure operations: `a + b`, `a.sum()` without out=) skips
    looking for changed bytes; nothing is written back then.
    """
    args = adopt_foreign(tuple(args), kind)
    kwargs = {name: adopt_foreign(value, kind) for name, value in kwargs.items()}
    for simulated_call in SIMULATED_CALLS:
        simulated = simulated_call(fn, args, kwargs, kind)
        if simulated is not NotImplemented:
            return simulated
    call = _HostCall(kind, may_write)
    host_args, host_kwargs = call.prepare(args, kwargs)
    try:
        result = fn(*host_args, **host_kwargs)
    finally:        # what NumPy wrote before raising is in memory too, as it would be on its arrays
        call.write_back()
    return call.to_device(result)
