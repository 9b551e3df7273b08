"""Tensors whose address a script took: addressable by every launch while they live.

Kernels such as Triton's grouped GEMM tutorial read pointers from memory: the
script stores `A.data_ptr()` of each matrix in a tensor of int64 and the kernel
loads and dereferences them. On a GPU those are device addresses, valid until
the tensor is freed. On warpsim a torch CPU tensor's bytes are addressable
only while registered (warpsim.machine.host_ranges), and the launcher
registers the storages of its arguments; a storage reached only through a
pointer in memory would fault. So while the backend is active,
`torch.Tensor.data_ptr` notes the tensor that owns the storage (a view's base;
a weak reference, keyed by the storage) and each launch also registers the
storages of the noted tensors still alive: an address a script took stays valid as long as its tensor, as
on a GPU, and a freed tensor's address faults (use after free).
"""

from __future__ import annotations

import weakref

_TAKEN: dict = {}          # storage address -> weak references to the tensors over it whose address was taken
_ORIGINAL: dict = {}


def note(tensor) -> None:
    """Note the tensor's storage through the tensor that owns it (a view keeps its base alive,
    so the storage is addressable as long as any view or the base lives)."""
    while getattr(tensor, "_base", None) is not None:
        tensor = tensor._base
    try:
        address = int(tensor.untyped_storage().data_ptr())
    except (RuntimeError, TypeError):     # a tensor without storage (meta, sparse): nothing to address
        return
    refs = [ref for ref in _TAKEN.get(address, ()) if ref() is not None]   # a freed storage's are dropped
    if not any(ref() is tensor for ref in refs):
        refs.append(weakref.ref(tensor))
    _TAKEN[address] = refs


def live_tensors() -> list:
    """One live noted tensor per storage (a storage lives while any tensor over it does); storages
    whose noted tensors all died are forgotten."""
    alive = []
    for address, refs in list(_TAKEN.items()):
        tensor = next((t for t in (ref() for ref in refs) if t is not None), None)
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
