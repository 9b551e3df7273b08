"""NumPy's functions and ufuncs as CuPy offers them: device arrays in, device arrays out.

`cupy.concatenate`, `cupy.where`, `cupy.sort`, `cupy.add`, `cupy.add.at`,
... are NumPy's, run through warpsim.api.host_calls: computed on the host,
with device memory behaving as on the device (`out=` fills the given array,
a view included; `ufunc.at`, `copyto`, `put` change their argument in place;
`split` and the other functions NumPy answers with views return device
views). None of it is simulated or profiled.

`kind` is the device array class (warpsim.api.arrays.ndarray), passed in so
that this module sits below it.
"""

from __future__ import annotations

import numpy as np

from .host_calls import call_on_host

__all__ = ["ufunc", "host_function"]


class ufunc:
    """A NumPy ufunc taking and giving device arrays, with its methods, like cupy.ufunc.

    Calls and the methods at, reduce, accumulate, outer and reduceat are
    NumPy's, computed on the host; `at` changes its first argument in place in
    device memory and returns None, as NumPy's does.
    """

    def __init__(self, numpy_ufunc: np.ufunc, kind):
        self._numpy, self._kind = numpy_ufunc, kind
        self.__name__ = self.__qualname__ = numpy_ufunc.__name__
        self.__doc__ = numpy_ufunc.__doc__

    def __call__(self, *args, **kwargs):
        writes = "out" in kwargs or len(args) > self._numpy.nin
        return call_on_host(self._numpy, args, kwargs, self._kind, may_write=writes)

    def at(self, a, indices, b=None) -> None:
        operands = (a, indices) if b is None else (a, indices, b)
        call_on_host(self._numpy.at, operands, {}, self._kind)

    def reduce(self, *args, **kwargs):
        return call_on_host(self._numpy.reduce, args, kwargs, self._kind)

    def accumulate(self, *args, **kwargs):
        return call_on_host(self._numpy.accumulate, args, kwargs, self._kind)

    def reduceat(self, *args, **kwargs):
        return call_on_host(self._numpy.reduceat, args, kwargs, self._kind)

    def outer(self, *args, **kwargs):
        return call_on_host(self._numpy.outer, args, kwargs, self._kind)

    def __getattr__(self, name: str):
        """nin, nout, nargs, ntypes, types, identity, signature: NumPy's."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._numpy, name)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"


def host_function(fn, kind):
    """`fn` (a NumPy function) taking and giving device arrays, computed on the host."""
    def call(*args, **kwargs):
        return call_on_host(fn, args, kwargs, kind)
    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "function")
    call.__doc__ = (f"{call.__name__}: NumPy's, computed on the host with device arrays in and out "
                    f"(see warpsim.api.host_calls).\n\n{getattr(fn, '__doc__', '') or ''}")
    call.__wrapped__ = fn
    return call
