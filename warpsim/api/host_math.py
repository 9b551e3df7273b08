"""Array arithmetic the way CuPy scripts write it, computed on the host.

Scripts that drive raw kernels also add, compare and reduce arrays (`a + b`,
`x.sum()`, `row += 1`, `a.sort()`). warpsim simulates kernels, not CuPy's
elementwise library: these operations run NumPy on host images of device
memory (warpsim.api.host_calls), so their values are NumPy's and their
memory behaviour is CuPy's: an in-place operator writes into the array's
own bytes (a view into its base) and returns the same object, `out=` fills
the array given, `sort()` sorts in place, and `swapaxes`, `squeeze`,
`diagonal`, `real`, `imag` and `flat` see the array's memory. Reductions
give 0-d device arrays, as CuPy's do. None of it is profiled or counted.
"""

from __future__ import annotations

import operator

from .host_calls import call_on_host

__all__ = ["HostArithmetic", "FlatIterator"]

# ndarray methods that change the array itself (besides any method given out=).
_WRITING_METHODS = {"sort", "partition", "put"}

_METHODS = ("all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip",
            "compress", "conj", "conjugate", "cumprod", "cumsum", "diagonal", "dot", "max", "mean",
            "min", "nonzero", "partition", "prod", "put", "repeat", "round", "searchsorted", "sort",
            "squeeze", "std", "sum", "swapaxes", "take", "trace", "var", "tobytes", "tofile")


def _binary(op, reflected=False):
    def method(self, other):
        operands = (other, self) if reflected else (self, other)
        return call_on_host(op, operands, {}, self._device_kind, may_write=False)
    method.__name__ = f"__r{op.__name__.strip('_')}__" if reflected else f"__{op.__name__.strip('_')}__"
    return method


def _inplace(op):
    """`a op= b`: NumPy's in-place operator on a's own bytes (same_kind casting), returning a."""
    def method(self, other):
        return call_on_host(op, (self, other), {}, self._device_kind)
    method.__name__ = f"__{op.__name__.strip('_')}__"
    return method


def _unary(op):
    def method(self):
        return call_on_host(op, (self,), {}, self._device_kind, may_write=False)
    method.__name__ = f"__{op.__name__.strip('_')}__"
    return method


def _host_method(name: str):
    def method(self, *args, **kwargs):
        writes = name in _WRITING_METHODS or kwargs.get("out") is not None
        return call_on_host(lambda host, *a, **k: getattr(host, name)(*a, **k), (self,) + args,
                            kwargs, self._device_kind, may_write=writes)
    method.__name__ = name
    method.__doc__ = f"numpy.ndarray.{name}, computed on the host (warpsim.api.host_math)."
    return method


def _real_or_imag(part: str):
    def get(self):
        return call_on_host(lambda host: getattr(host, part), (self,), {}, self._device_kind,
                            may_write=False)

    def set(self, value):
        call_on_host(lambda host, v: setattr(host, part, v), (self, value), {}, self._device_kind)
    return property(get, set, doc=f"The {part} part: a view of a complex array's memory, as NumPy's.")


class FlatIterator:
    """`a.flat`: a 1-D view of an array in C order for indexing and assignment (as NumPy's flatiter)."""

    def __init__(self, array):
        self.base = array

    def __getitem__(self, key):
        return call_on_host(lambda host, k: host.flat[k], (self.base, key), {},
                            self.base._device_kind, may_write=False)

    def __setitem__(self, key, value) -> None:
        call_on_host(lambda host, k, v: host.flat.__setitem__(k, v), (self.base, key, value), {},
                     self.base._device_kind)

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        flat = self.base.ravel()
        return (flat[index] for index in range(flat.size))


class HostArithmetic:
    """Operators, in-place operators and array methods for device arrays, computed on the host.

    The array class sets `_device_kind` (the device array class that results
    are made of; see warpsim.api.host_calls for what it provides).
    """

    __add__, __radd__ = _binary(operator.add), _binary(operator.add, True)
    __sub__, __rsub__ = _binary(operator.sub), _binary(operator.sub, True)
    __mul__, __rmul__ = _binary(operator.mul), _binary(operator.mul, True)
    __truediv__, __rtruediv__ = _binary(operator.truediv), _binary(operator.truediv, True)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv), _binary(operator.floordiv, True)
    __mod__, __rmod__ = _binary(operator.mod), _binary(operator.mod, True)
    __divmod__, __rdivmod__ = _binary(divmod), _binary(divmod, True)
    __pow__, __rpow__ = _binary(operator.pow), _binary(operator.pow, True)
    __matmul__, __rmatmul__ = _binary(operator.matmul), _binary(operator.matmul, True)
    __and__, __rand__ = _binary(operator.and_), _binary(operator.and_, True)
    __or__, __ror__ = _binary(operator.or_), _binary(operator.or_, True)
    __xor__, __rxor__ = _binary(operator.xor), _binary(operator.xor, True)
    __lshift__, __rlshift__ = _binary(operator.lshift), _binary(operator.lshift, True)
    __rshift__, __rrshift__ = _binary(operator.rshift), _binary(operator.rshift, True)
    __lt__, __le__ = _binary(operator.lt), _binary(operator.le)
    __gt__, __ge__ = _binary(operator.gt), _binary(operator.ge)
    __eq__, __ne__ = _binary(operator.eq), _binary(operator.ne)
    __hash__ = None

    __iadd__, __isub__ = _inplace(operator.iadd), _inplace(operator.isub)
    __imul__, __itruediv__ = _inplace(operator.imul), _inplace(operator.itruediv)
    __ifloordiv__, __imod__ = _inplace(operator.ifloordiv), _inplace(operator.imod)
    __ipow__, __imatmul__ = _inplace(operator.ipow), _inplace(operator.imatmul)
    __iand__, __ior__, __ixor__ = _inplace(operator.iand), _inplace(operator.ior), _inplace(operator.ixor)
    __ilshift__, __irshift__ = _inplace(operator.ilshift), _inplace(operator.irshift)

    __neg__, __pos__ = _unary(operator.neg), _unary(operator.pos)
    __abs__, __invert__ = _unary(operator.abs), _unary(operator.invert)

    real, imag = _real_or_imag("real"), _real_or_imag("imag")
    flat = property(lambda self: FlatIterator(self),
                    lambda self, value: FlatIterator(self).__setitem__(slice(None), value))
    mT = property(lambda self: self.swapaxes(-1, -2))


for _name in _METHODS:
    setattr(HostArithmetic, _name, _host_method(_name))
