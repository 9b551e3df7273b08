"""Class parameterization as CuPy's testing.parameterize: one test class per parameter set.

Each set becomes a subclass with the parameters as class attributes, named
`Class_param_<i>_{k=v, ...}` and put in the class's module (pytest collects
it there); the original class is no longer collected itself.
"""

from __future__ import annotations

import itertools
import sys


def product(parameter: dict) -> list:
    """Every combination of the values: {'a': [1, 2], 'b': [3]} -> [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]."""
    keys = list(parameter)
    return [dict(zip(keys, values)) for values in itertools.product(*(parameter[k] for k in keys))]


def product_dict(*parameters) -> list:
    """Every combination of one dict from each list, merged."""
    return [{k: v for d in combination for k, v in d.items()}
            for combination in itertools.product(*parameters)]


def _shown(value) -> str:
    text = getattr(value, "__name__", None) or repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parameterize(*params, **kwargs):
    def decorator(cls):
        module = sys.modules[cls.__module__]
        for index, param in enumerate(params):
            label = ", ".join(f"{k}={_shown(v)}" for k, v in param.items())
            name = f"{cls.__name__}_param_{index}_{{{label}}}"
            attributes = dict(param, __test__=True, __module__=cls.__module__, __qualname__=name)
            setattr(module, name, type(name, (cls,), attributes))
        cls.__test__ = False
        return cls
    return decorator
