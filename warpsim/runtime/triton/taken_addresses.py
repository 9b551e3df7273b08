"""Tensors whose address a script took: addressable by every launch while they live.

Kernels such as Triton's grouped GEMM tutorial read pointers from memory: the
script stores `A.data_ptr()` of each matrix in a tensor of int64 and the kernel
loads and dereferences them. On a GPU those are device addresses, valid until
the tensor is freed. On warpsim a torch CPU tensor's bytes are addressable
only while registered (warpsim.machine.host_ranges), and the launcher
registers the storages of its arguments; a storage reached only through a
pointer in memory would fault. So while the backend is active,
`torch.Tensor.data_ptr` notes the tensor (a weak reference, keyed by its
storage) and each launch also registers the storages of the noted tensors
still alive: an address a script took stays valid as long as its tensor, as
on a GPU, and a freed tensor's address faults (use after free).
"""

from __future__ import annotations

import weakref

_TAKEN: dict = {}          # storage address -> weak reference to a tensor over it
_ORIGINAL: dict = {}


def note(tensor) -> None:
    try:
        storage = tensor.untyped_storage()
        _TAKEN.setdefault(int(storage.data_ptr()), weakref.ref(tensor))
    except (RuntimeError, TypeError):     # a tensor without storage (meta, sparse): nothing to address
        pass


def live_tensors() -> list:
    """The noted tensors still alive (one per storage); dead ones are forgotten."""
    alive = []
    for address, ref in list(_TAKEN.items()):
        tensor = ref()
        if tensor is None:
            del _TAKEN[address]
        else:
            alive.append(tensor)
    return alive


def install() -> None:
    """Note every tensor whose data_ptr() is taken (until uninstall())."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None or _ORIGINAL:
        return
    original = torch.Tensor.data_ptr
    _ORIGINAL["data_ptr"] = original
    _ORIGINAL["own"] = "data_ptr" in torch.Tensor.__dict__     # else inherited from torch._C.TensorBase

    def data_ptr(self):
        note(self)
        return original(self)
    data_ptr.__doc__ = original.__doc__
    torch.Tensor.data_ptr = data_ptr


def uninstall() -> None:
    import sys
    torch = sys.modules.get("torch")
    if torch is not None and "data_ptr" in _ORIGINAL:
        if _ORIGINAL["own"]:
            torch.Tensor.data_ptr = _ORIGINAL["data_ptr"]
        else:
            del torch.Tensor.data_ptr
    _ORIGINAL.clear()
    _TAKEN.clear()
