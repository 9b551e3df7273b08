"""torch tensors "on cuda" while the warpsim backend is active: host memory the kernels address.

A script written for a GPU makes tensors with `device="cuda"` (or "cuda:0",
`torch.device("cuda")`, the index 0), moves them with `.cuda()` / `.to("cuda")`,
and asserts `x.is_cuda`; the CPU build of torch refuses all of it. On warpsim
the GPU addresses host memory in place (docs/triton.md, "Memory"), so while
the backend is active (torch_device.install to uninstall):

- `CudaOnHost`, a torch function mode, maps each CUDA device torch is given to
  the CPU: any function's `device=` (factories, `new_*`, `*_like`, and
  `torch.set_default_device("cuda")`, whose mode passes `device=`), `Tensor.to`'s
  device, `Tensor.cuda()`. A move to "cuda" copies, as a GPU's move from host
  memory does, and so does `.cpu()` called by a script (a GPU copies a CUDA
  tensor back), so a reference kept on one side is not written through the
  other; `.to("cpu")` stays torch's (the active torch device is the CPU:
  `.to(DEVICE)` returns the tensor itself, as on a GPU). cuda:1 and up are
  refused: warpsim simulates one GPU. `pin_memory=True` is dropped (all host
  memory is the GPU's) and `.pin_memory()` copies.
- `Tensor.is_cuda` is True for CPU tensors read by code outside torch, so a
  script's `assert x.is_cuda` holds; torch's own Python code reads the real value
  (False), so it keeps its CPU paths: `__cuda_array_interface__` stays absent
  (warpsim.asarray, CuPy and Numba copy a tensor as before), and nn.functional,
  rnn and the decompositions, which branch on `is_cuda`, run their CPU code.
  `x.device` stays `cpu` (a script's `x.device == DEVICE` holds; `x.device.type
  == "cuda"` does not); `x.get_device()` read by a script is 0.
- The storages the mode sees torch return are counted (`memory`: live bytes,
  rounded to the caching allocator's 512-byte blocks, and the peak), which
  torch.cuda.memory_allocated and its relatives report.
- A storage torch makes in a call the mode sees starts, as the caching
  allocator's blocks do, on a 512-byte boundary (`align_fresh`): torch's CPU
  allocator aligns to 64 bytes only, and a row that starts 64 bytes into a
  128-byte line touches one line more per request than on a GPU, which the
  line counts and the predicted time would show. The tensor keeps its object,
  values and strides; only its data moves (its storage_offset then counts the
  padding before the boundary).

A torch function mode is per thread: tensors a script makes in other threads
keep torch's behaviour. torch is imported only once install() runs (warpsim
does not need it otherwise).
"""

from __future__ import annotations

import functools
import sys
import weakref

from ...errors import WarpsimError

ALLOCATION_GRANULE = 512       # bytes: the CUDA caching allocator rounds every block up to this

_STATE: dict = {}              # "mode", "is_cuda" (the original descriptor), "own" (whether Tensor had its own)


def called_from_torch(depth: int = 2) -> bool:
    """Whether the frame `depth` levels up (the caller of the function that asks) is torch's own code."""
    frame = sys._getframe(depth)
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name == "torch" or name.startswith("torch.")


class TooManyGPUs(WarpsimError, RuntimeError):
    """A CUDA device other than cuda:0 was asked for."""


def cuda_index(device) -> int | None:
    """The CUDA device index `device` names (str, torch.device, or an int index), None if it names no
    CUDA device."""
    import torch
    if isinstance(device, bool):
        return None
    if isinstance(device, int):
        return device if device >= 0 else None
    if isinstance(device, str):
        if device != "cuda" and not device.startswith("cuda:"):
            return None
        return int(device[5:]) if device.startswith("cuda:") else 0
    if isinstance(device, torch.device) and device.type == "cuda":
        return device.index or 0
    return None


def host_device(device, where: str):
    """The device torch is given in place of `device`: the CPU for cuda:0, `device` itself when it
    names no CUDA device."""
    index = cuda_index(device)
    if index is None:
        return device
    if index != 0:
        raise TooManyGPUs(f"{where}: device {device!r}: warpsim simulates one GPU, cuda:0 (its Triton backend "
                          f"maps it to host memory); use 'cuda' or 'cuda:0'")
    return "cpu"


def _to(func, args, kwargs):
    import torch
    tensor, rest = args[0], list(args[1:])
    moved = False
    if "device" in kwargs and cuda_index(kwargs["device"]) is not None:
        kwargs["device"], moved = host_device(kwargs["device"], "Tensor.to"), True
    if rest and not isinstance(rest[0], (torch.dtype, torch.Tensor)) and cuda_index(rest[0]) is not None:
        rest[0], moved = host_device(rest[0], "Tensor.to"), True
    result = func(tensor, *rest, **kwargs)
    return result.clone() if moved and result is tensor else result


def _cuda(func, args, kwargs):
    import torch
    device = args[1] if len(args) > 1 else kwargs.get("device")
    if device is not None:
        host_device(device, "Tensor.cuda")
    return args[0].clone(memory_format=kwargs.get("memory_format", torch.preserve_format))


def _cpu(func, args, kwargs):
    import torch
    if called_from_torch(3):
        return func(*args, **kwargs)
    return args[0].clone(memory_format=kwargs.get("memory_format", torch.preserve_format))


def _pin_memory(func, args, kwargs):
    return args[0].clone()


def _type(func, args, kwargs):
    """Tensor.type("torch.cuda.FloatTensor") (or the class) is the CPU type of the same name."""
    import torch
    args = list(args)
    wanted = args[1] if len(args) > 1 else kwargs.get("dtype")
    if isinstance(wanted, type) and wanted.__module__ == "torch.cuda":
        wanted = getattr(torch, wanted.__name__)
    elif isinstance(wanted, str) and wanted.startswith("torch.cuda."):
        wanted = "torch." + wanted[len("torch.cuda."):]
    if len(args) > 1:
        args[1] = wanted
    elif wanted is not None:
        kwargs["dtype"] = wanted
    return func(*args, **kwargs)


def _get_device(func, args, kwargs):
    result = func(*args, **kwargs)
    return 0 if result == -1 and args[0].is_cpu and not called_from_torch(3) else result


def _called(func) -> str:
    """torch.empty, Tensor.new_zeros: the name a script wrote."""
    name = getattr(func, "__name__", "a torch function")
    return f"Tensor.{name}" if "." in getattr(func, "__qualname__", "") else f"torch.{name}"


@functools.cache
def mode_class():
    """CudaOnHost, the torch function mode (made on first use, once torch is imported)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils import _device as device_module       # the default device torch's own mode applies
    from torch.utils._device import _device_constructors
    methods = {torch.Tensor.to: _to, torch.Tensor.cuda: _cuda, torch.Tensor.cpu: _cpu,
               torch.Tensor.pin_memory: _pin_memory, torch.Tensor.type: _type, torch.Tensor.get_device: _get_device}

    class CudaOnHost(TorchFunctionMode):
        """Maps CUDA devices to the CPU in every torch call of this thread (see the module doc)."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if (kwargs.get("device") is None and cuda_index(device_module.CURRENT_DEVICE) is not None
                    and func in _device_constructors()):
                kwargs["device"] = "cpu"     # torch.set_default_device("cuda"): its mode sits below this one
            elif "device" in kwargs and func is not torch.Tensor.to:
                kwargs["device"] = host_device(kwargs["device"], _called(func))
            if kwargs.get("pin_memory"):
                kwargs["pin_memory"] = False
            method = methods.get(func)
            result = method(func, args, kwargs) if method else func(*args, **kwargs)
            _each_tensor(result, torch.Tensor, lambda t: align_fresh(t, args, kwargs))
            _each_tensor(result, torch.Tensor, _count_tensor)
            return result

    return CudaOnHost


# memory: the storages of tensors torch returned, as the caching allocator would count them

memory = {"allocated": 0, "peak": 0}
_LIVE: dict = {}               # id(storage) -> counted bytes (a finalizer removes it when the storage dies)
_MOVED: dict = {}              # id(storage) -> (bytes of padding before the data, the data's bytes): align_fresh's


def _each_tensor(result, tensor_type, action) -> None:
    if isinstance(result, tensor_type):
        action(result)
    elif isinstance(result, (tuple, list)):
        for item in result:
            if isinstance(item, tensor_type):
                action(item)


def _input_storages(args, kwargs) -> set:
    import torch
    found = set()
    for value in list(args) + list(kwargs.values()):
        for item in (value if isinstance(value, (tuple, list)) else (value,)):
            if isinstance(item, torch.Tensor) and item.layout == torch.strided and item.device.type == "cpu":
                found.add(item.untyped_storage().data_ptr())
    return found


def align_fresh(tensor, args=(), kwargs=None) -> None:
    """Move the data of a tensor torch has just made onto a 512-byte boundary (the module doc says
    why). Only a storage nobody else can see moves: one torch allocated (resizable, so not NumPy's
    or a DLPack producer's memory), of no input of the call, not counted before, held by this tensor
    alone; any other is left where it is."""
    import torch
    if (tensor.layout != torch.strided or tensor.device.type != "cpu" or tensor.data_ptr() % ALLOCATION_GRANULE == 0
            or tensor.numel() == 0):
        return
    storage = tensor.untyped_storage()
    if (id(storage) in _LIVE or not storage.resizable() or torch._C._storage_Use_Count(storage._cdata) > 2
            or storage.data_ptr() in _input_storages(args, kwargs or {})):
        return
    nbytes = storage.nbytes()
    padded = torch.empty(nbytes + ALLOCATION_GRANULE, dtype=torch.uint8)
    shift = (-padded.data_ptr()) % ALLOCATION_GRANULE
    base = tensor.data_ptr() - storage.data_ptr()      # bytes into its storage the tensor starts
    shift = (shift - base) % ALLOCATION_GRANULE
    padded[shift:shift + nbytes].copy_(torch.empty(0, dtype=torch.uint8).set_(storage))
    with torch.no_grad():
        tensor.set_(padded.untyped_storage(), tensor.storage_offset() + shift // tensor.element_size(),
                    tensor.size(), tensor.stride())
    moved = tensor.untyped_storage()
    _MOVED[id(moved)] = (shift, nbytes)
    _count_storage(moved, nbytes)      # the caching allocator's block: no padding


def storage_block(storage) -> tuple[int, int]:
    """(address, bytes) of the allocation a storage stands for: a moved one's bytes without the
    padding around them (a kernel reading into the padding faults, as past a GPU allocation)."""
    front, nbytes = _MOVED.get(id(storage), (0, -1))
    if storage.nbytes() != nbytes + ALLOCATION_GRANULE:     # not moved, or resized since
        return int(storage.data_ptr()), int(storage.nbytes())
    return int(storage.data_ptr()) + front, nbytes


def _count_tensor(tensor) -> None:
    try:
        storage = tensor.untyped_storage()
    except (RuntimeError, TypeError, NotImplementedError):     # sparse, nested, meta: no storage to count
        return
    _count_storage(storage, storage.nbytes())


def _count_storage(storage, nbytes: int) -> None:
    key = id(storage)
    if key in _LIVE:
        return
    nbytes = -(-int(nbytes) // ALLOCATION_GRANULE) * ALLOCATION_GRANULE
    if not nbytes:
        return
    _LIVE[key] = nbytes
    memory["allocated"] += nbytes
    memory["peak"] = max(memory["peak"], memory["allocated"])
    weakref.finalize(storage, _freed, key).atexit = False


def _freed(key) -> None:
    memory["allocated"] -= _LIVE.pop(key, 0)
    _MOVED.pop(key, None)


def reset_peak() -> None:
    memory["peak"] = memory["allocated"]


# installing

def install() -> None:
    """Push the mode and make Tensor.is_cuda answer as the module doc says (until uninstall())."""
    import torch
    from torch.overrides import _push_mode
    if _STATE:
        return
    mode = mode_class()()
    _push_mode(mode)
    _STATE["mode"] = mode
    base = torch._C.TensorBase.__dict__
    is_cuda, is_cpu = base["is_cuda"], base["is_cpu"]
    _STATE["own"] = "is_cuda" in torch.Tensor.__dict__
    _STATE["is_cuda"] = torch.Tensor.__dict__.get("is_cuda", is_cuda)

    def host_is_cuda(self):
        return is_cuda.__get__(self) or (is_cpu.__get__(self) and not called_from_torch())
    torch.Tensor.is_cuda = property(host_is_cuda, doc="True on cuda, and (under warpsim's Triton backend) for "
                                                      "CPU tensors read outside torch: warpsim/runtime/triton/"
                                                      "cuda_tensors.py")


def uninstall() -> None:
    """Pop the mode (wherever it is on this thread's stack), put Tensor.is_cuda back and forget the
    counted storages (a next activation counts from zero)."""
    if _STATE:
        import torch
        from torch.overrides import _get_current_function_mode_stack, _pop_mode, _push_mode
        mode = _STATE["mode"]
        if any(m is mode for m in _get_current_function_mode_stack()):
            above = []
            while (top := _pop_mode()) is not mode:
                above.append(top)
            for top in reversed(above):
                _push_mode(top)
        if _STATE["own"]:
            torch.Tensor.is_cuda = _STATE["is_cuda"]
        else:
            del torch.Tensor.is_cuda
    _STATE.clear()
    _MOVED.clear()
    _LIVE.clear()               # their finalizers, when they run, find nothing to subtract
    memory.update(allocated=0, peak=0)
