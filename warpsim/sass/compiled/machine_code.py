"""Numba's disk cache of the tier's entry points, kept true to the tier's sources; when 'auto' compiles them.

Numba checks a cached function against the file that defines it and nothing
else, but run_segment's machine code holds every family it calls (and the
helpers those inline): an edit to integer.py would leave the old integer code
running from the cache. So the entry points' cache entries carry a digest of
every source of the tier beside them, and a mismatch drops them before the
first call compiles anew. The families themselves are not cached on their own:
they are compiled into the entry point that calls them.
"""

from __future__ import annotations

import hashlib
import pathlib

from ...cache import write_atomically

COMPILE_FROM = 1 << 16  # thread slots of a batch from which 'auto' compiles the tier's machine code when it is not cached
HERE = pathlib.Path(__file__).parent
SOURCES = sorted(HERE.glob("*.py")) + [HERE.parent / "executor" / "program.py",
                                        HERE.parent.parent / "machine" / "compiled" / "borrowed.py",
                                        HERE.parent.parent / "machine" / "compiled" / "runtime.py"]


def tier_digest() -> str:
    """A digest of the tier's sources (and the wait kinds of executor/program.py that rounds.py reads, and
    machine/compiled/borrowed.py and runtime.py, whose helpers the loops and families inline)."""
    return hashlib.sha256(b"".join(path.read_bytes() for path in SOURCES)).hexdigest()[:24]


def forget_if_stale(dispatcher) -> None:
    """Drop `dispatcher`'s disk cache entries unless they were made from the tier's sources as they
    are now (a folder Numba cannot write, or no cache at all, is left as it is)."""
    folder = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if not folder:
        return
    folder = pathlib.Path(folder)
    name = f"{dispatcher.py_func.__module__.rpartition('.')[2]}.{dispatcher.py_func.__qualname__}"
    stamp = folder / f"{name}.warpsim-digest"
    digest = tier_digest()
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for entry in folder.glob(f"{name}-*.nb[ic]"):
            entry.unlink(missing_ok=True)
        write_atomically(stamp, digest.encode())
    except OSError:
        pass
