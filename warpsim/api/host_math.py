"""Array arithmetic the way CuPy scripts write it, computed on the host.

Scripts that drive raw kernels also add, compare and reduce arrays (`a + b`,
`x.sum()`, `cp.allclose(y, ref)`, `cp.random.rand(n)`). warpsim simulates
kernels, not CuPy's elementwise library: these operations copy the operands
to the host, compute with NumPy and put array results back on the simulated
device. Results match NumPy's; none of it is profiled or counted.
"""

from __future__ import annotations

import operator

import numpy as np


def _host(value):
    return value.get() if isinstance(value, HostArithmetic) else value


def _binary(op, reflected=False):
    def method(self, other):
        a, b = (_host(other), self.get()) if reflected else (self.get(), _host(other))
        return self.from_host(np.asarray(op(a, b)))
    return method


def _reduction(name):
    def method(self, *args, **kwargs):
        result = getattr(self.get(), name)(*args, **kwargs)
        return self.from_host(result) if isinstance(result, np.ndarray) else result
    return method


class HostArithmetic:
    """Operators and reductions for device arrays, computed on the host.

    The array class provides `get()` (device to host) and `from_host(array)`
    (host to a new device array of its kind).
    """

    __add__, __radd__ = _binary(operator.add), _binary(operator.add, True)
    __sub__, __rsub__ = _binary(operator.sub), _binary(operator.sub, True)
    __mul__, __rmul__ = _binary(operator.mul), _binary(operator.mul, True)
    __truediv__, __rtruediv__ = _binary(operator.truediv), _binary(operator.truediv, True)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv), _binary(operator.floordiv, True)
    __mod__, __rmod__ = _binary(operator.mod), _binary(operator.mod, True)
    __pow__, __rpow__ = _binary(operator.pow), _binary(operator.pow, True)
    __matmul__, __rmatmul__ = _binary(operator.matmul), _binary(operator.matmul, True)
    __and__, __rand__ = _binary(operator.and_), _binary(operator.and_, True)
    __or__, __ror__ = _binary(operator.or_), _binary(operator.or_, True)
    __xor__, __rxor__ = _binary(operator.xor), _binary(operator.xor, True)
    __lshift__, __rshift__ = _binary(operator.lshift), _binary(operator.rshift)
    __lt__, __le__ = _binary(operator.lt), _binary(operator.le)
    __gt__, __ge__ = _binary(operator.gt), _binary(operator.ge)
    __eq__, __ne__ = _binary(operator.eq), _binary(operator.ne)
    __hash__ = None

    def __neg__(self):
        return self.from_host(-self.get())

    def __abs__(self):
        return self.from_host(np.abs(self.get()))

    def __invert__(self):
        return self.from_host(~self.get())

    sum, prod, mean, std, var = (_reduction(n) for n in ("sum", "prod", "mean", "std", "var"))
    min, max, argmin, argmax = (_reduction(n) for n in ("min", "max", "argmin", "argmax"))
    all, any, cumsum, dot = (_reduction(n) for n in ("all", "any", "cumsum", "dot"))
