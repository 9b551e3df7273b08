"""cupy.random: CuPy's generators, drawn on the host by NumPy, results on the device.

CuPy draws with cuRAND; warpsim does not simulate cuRAND, so NumPy draws the
values and they are uploaded. What a program sees is CuPy's interface:
device arrays (a 0-d array when no size is given, where NumPy returns a
Python float), float64 by default with `dtype=` honoured (float32 or
float64 only, else TypeError as in CuPy), `randint` int64 by default,
`shuffle` in place on the device array, a module-level RandomState that
`seed()` resets, and `default_rng()`/`Generator`. The values are NumPy's
streams (a seeded program is reproducible on warpsim), not CuPy's: the same
seed gives different numbers on a GPU.
"""

from __future__ import annotations

import numpy as np

from .arrays import ndarray
from .host_library import download, upload

__all__ = ["RandomState", "Generator", "default_rng", "get_random_state", "set_random_state",
           "seed", "reset_states", "rand", "randn", "random", "random_sample", "ranf", "sample",
           "randint", "uniform", "normal", "standard_normal", "choice", "permutation", "shuffle"]


def float_dtype(dtype) -> np.dtype:
    """CuPy's generators of real numbers make float32 or float64 only."""
    dtype = np.dtype(dtype)
    if dtype.char not in "fd":
        raise TypeError("cupy.random only supports float32 and float64")
    return dtype


def _size(size) -> tuple | None:
    return None if size is None else (tuple(size) if isinstance(size, (tuple, list)) else (size,))


def _draw(values, dtype):
    """A drawn value or array as a device array of `dtype`."""
    return upload(np.asarray(values), dtype)


def _call_on_host(method, args, kwargs):
    """A NumPy drawing method called with the arguments as given (device arrays downloaded)."""
    return method(*download(list(args)), **{k: download(v) for k, v in kwargs.items()})


# Distributions CuPy's RandomState offers beyond the ones written out below: drawn by NumPy's
# RandomState method of the same name, float64 unless dtype= says float32.
_FLOAT_DISTRIBUTIONS = ("beta", "chisquare", "dirichlet", "exponential", "f", "gamma", "gumbel",
                        "laplace", "logistic", "lognormal", "noncentral_chisquare",
                        "noncentral_f", "pareto", "power", "rayleigh", "standard_cauchy",
                        "standard_exponential", "standard_gamma", "standard_t", "triangular",
                        "vonmises", "wald", "weibull")
_INTEGER_DISTRIBUTIONS = ("binomial", "geometric", "hypergeometric", "logseries",
                          "negative_binomial", "poisson", "zipf", "multinomial")


class RandomState:
    """CuPy's RandomState(seed): the legacy generator interface, drawn by NumPy's RandomState."""

    def __init__(self, seed=None, method=None):
        self._host = np.random.RandomState(self._host_seed(seed))

    @staticmethod
    def _host_seed(seed):
        if isinstance(seed, ndarray):
            seed = seed.get()
        if isinstance(seed, np.ndarray) or isinstance(seed, (list, tuple)):
            seed = np.asarray(seed).astype(np.uint64).view(np.uint32)   # NumPy wants 32-bit words
        return seed

    def seed(self, seed=None) -> None:
        """Reset the stream (from the OS's entropy when seed is None)."""
        self._host.seed(self._host_seed(seed))

    # --- real numbers ----------------------------------------------------------
    def random_sample(self, size=None, dtype=float):
        return _draw(self._host.random_sample(_size(size)), float_dtype(dtype))

    random = ranf = sample = random_sample

    def rand(self, *size, dtype=float):
        return self.random_sample(size or None, dtype)

    def randn(self, *size, dtype=float):
        return self.standard_normal(size or None, dtype)

    def standard_normal(self, size=None, dtype=float):
        return _draw(self._host.standard_normal(_size(size)), float_dtype(dtype))

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        return _draw(self._host.normal(download(loc), download(scale), _size(size)),
                     float_dtype(dtype))

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        return _draw(self._host.uniform(download(low), download(high), _size(size)),
                     float_dtype(dtype))

    # --- integers and sampling ---------------------------------------------------
    def randint(self, low, high=None, size=None, dtype="l"):
        dtype = np.dtype(dtype)
        if dtype.kind not in "iu":
            raise TypeError(f"Unsupported dtype {dtype} for randint")
        return _draw(self._host.randint(low, high, _size(size), dtype), dtype)

    def choice(self, a, size=None, replace: bool = True, p=None):
        """Elements of `a` (or of arange(a)), a device array; 0-d when size is None."""
        picked = self._host.choice(download(a), _size(size), replace, download(p))
        return _draw(picked, None)

    def permutation(self, a):
        """A shuffled copy of `a` along its first axis (of arange(a) for an int)."""
        if isinstance(a, (int, np.integer)):
            return _draw(self._host.permutation(a), np.int64)
        return _draw(self._host.permutation(download(a)), None)

    def shuffle(self, a) -> None:
        """Shuffle the device array `a` along its first axis, in place."""
        if not isinstance(a, ndarray):
            raise TypeError("The array must be cupy.ndarray")
        if a.ndim == 0:
            raise TypeError("An array whose ndim is 0 is not supported")
        host = a.get()
        self._host.shuffle(host)
        a[...] = host

    def __getattr__(self, name):
        if name in _FLOAT_DISTRIBUTIONS:
            method = getattr(self._host, name)

            def draw_float(*args, dtype=float, **kwargs):
                return _draw(_call_on_host(method, args, kwargs), float_dtype(dtype))
            draw_float.__name__ = name
            return draw_float
        if name in _INTEGER_DISTRIBUTIONS:
            method = getattr(self._host, name)

            def draw_integer(*args, dtype=None, **kwargs):
                return _draw(_call_on_host(method, args, kwargs), dtype)
            draw_integer.__name__ = name
            return draw_integer
        raise AttributeError(f"'RandomState' object has no attribute '{name}'")


# Generator methods CuPy offers that take `dtype=` (float32 or float64) ...
_GENERATOR_FLOAT = ("standard_normal", "standard_exponential", "standard_gamma")
# ... and those that draw float64 or integers as NumPy's do.
_GENERATOR_OTHER = ("beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma",
                    "geometric", "hypergeometric", "logseries", "normal", "poisson",
                    "power", "uniform")


class Generator:
    """CuPy's Generator (what default_rng returns), drawn by NumPy's Generator over PCG64."""

    def __init__(self, bit_generator=None):
        self.bit_generator = bit_generator
        seed = bit_generator if not isinstance(bit_generator, np.random.BitGenerator) else None
        self._host = (np.random.Generator(bit_generator) if seed is None and bit_generator is not None
                      else np.random.default_rng(seed))

    def random(self, size=None, dtype=np.float64, out=None):
        return self._into(out, _draw(self._host.random(_size(size)), float_dtype(dtype)))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint: bool = False):
        return _draw(self._host.integers(low, high, _size(size), dtype, endpoint), dtype)

    @staticmethod
    def _into(out, result):
        if out is None:
            return result
        out[...] = result.get()
        return out

    def __getattr__(self, name):
        if name not in _GENERATOR_FLOAT + _GENERATOR_OTHER:
            raise AttributeError(f"'Generator' object has no attribute '{name}'")
        method = getattr(self._host, name)
        takes_dtype = name in _GENERATOR_FLOAT

        def draw(*args, dtype=np.float64, out=None, **kwargs):
            values = _call_on_host(method, args, kwargs)
            return self._into(out, _draw(values, float_dtype(dtype) if takes_dtype else None))
        draw.__name__ = name
        return draw


def default_rng(seed=None) -> Generator:
    """A Generator seeded with `seed` (an int, None for fresh entropy, or a NumPy BitGenerator)."""
    return Generator(seed)


# --- the module-level generator ------------------------------------------------------

_random_state: RandomState | None = None


def get_random_state() -> RandomState:
    """The RandomState the module functions draw from (made on first use)."""
    global _random_state
    if _random_state is None:
        _random_state = RandomState()
    return _random_state


def set_random_state(rs: RandomState) -> None:
    global _random_state
    if not isinstance(rs, RandomState):
        raise TypeError(f"Random state must be an instance of RandomState. Actual: {type(rs)}")
    _random_state = rs


def reset_states() -> None:
    global _random_state
    _random_state = None


def seed(seed=None) -> None:
    """Reset the module's generator: the same seed gives the same stream (NumPy's, not CuPy's)."""
    get_random_state().seed(seed)


def _module_function(name: str):
    def call(*args, **kwargs):
        return getattr(get_random_state(), name)(*args, **kwargs)
    call.__name__ = name
    call.__doc__ = f"cupy.random.{name}: drawn on the host by NumPy, returned on the device."
    return call


rand, randn, random_sample = (_module_function(n) for n in ("rand", "randn", "random_sample"))
random = ranf = sample = random_sample
randint, uniform, normal = (_module_function(n) for n in ("randint", "uniform", "normal"))
standard_normal, choice = _module_function("standard_normal"), _module_function("choice")
permutation, shuffle = _module_function("permutation"), _module_function("shuffle")


def __getattr__(name: str):
    """The other distributions CuPy's module offers (beta, gamma, poisson, ...)."""
    if name in _FLOAT_DISTRIBUTIONS + _INTEGER_DISTRIBUTIONS:
        return _module_function(name)
    raise AttributeError(f"module 'cupy.random' has no attribute '{name}'")
