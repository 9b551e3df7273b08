"""What a CuPy name warpsim does not provide does: fail, naming it.

Under `warpsim run`, `import cupy` gives warpsim.api.cupy, and a CuPy program
that reaches for something warpsim lacks (cupy.fft, cupy.cuda.cufft,
cupy.cuda.texture's objects, ...) gets an error that names the CuPy attribute
and says warpsim does not provide it, never a same-named module of NumPy or
Numba that happens to be importable.
"""

from __future__ import annotations

__all__ = ["NotProvidedError", "not_provided", "missing_attribute", "NotProvided"]

MARK = "warpsim does not provide"     # the runner of CuPy's own tests counts failures by this phrase


class NotProvidedError(NotImplementedError):
    """A CuPy feature outside what warpsim simulates (textures, multiple GPUs, CuPy's caches)."""


def not_provided(qualname: str, why: str = "") -> NotProvidedError:
    reason = f" ({why})" if why else ""
    return NotProvidedError(f"{qualname}: {MARK} it{reason}; see docs/cupy.md for what it does provide")


def missing_attribute(module: str, name: str) -> AttributeError:
    """The AttributeError for `module.name` (the module as CuPy spells it: cupy, cupy.cuda, ...)."""
    return AttributeError(f"module '{module}' has no attribute '{name}': {MARK} {module}.{name} "
                          f"(under `warpsim run`, cupy is warpsim's CuPy-compatible API; "
                          f"see docs/cupy.md)")


class NotProvided:
    """A class CuPy defines that warpsim names (so `from cupy.cuda.texture import X` works) but
    does not implement: making one raises NotProvidedError."""

    qualname = "cupy.?"
    why = ""

    def __init__(self, *args, **kwargs):
        raise not_provided(self.qualname, self.why)

    @classmethod
    def named(cls, qualname: str, why: str = "") -> type:
        return type(qualname.rpartition(".")[2], (cls,), {"qualname": qualname, "why": why})
