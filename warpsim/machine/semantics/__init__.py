"""Instruction semantics by family; importing this fills the instruction table."""

from . import registry  # noqa: F401
from .registry import OPS, lookup  # noqa: F401

for _family in ("structural", "integer", "logic", "compare", "floating", "conversion", "packed"):
    try:
        __import__(f"{__name__}.{_family}")
    except ModuleNotFoundError as exc:  # family not written yet
        if exc.name != f"{__name__}.{_family}":
            raise
