"""warpsim's disk cache: where compiled PTX, cubins and listings are kept, and how they are written.

Everything lives under one root, `$WARPSIM_CACHE_DIR` or ~/.cache/warpsim,
one folder per kind (ptx/, sass/). Files are written atomically (a temporary
file, then os.replace), so a concurrent reader never sees half a file; a cache
that cannot be written is skipped, never an error: the work is just redone.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """The folder for one kind of cached result ('ptx', 'sass', ...)."""
    configured = os.environ.get("WARPSIM_CACHE_DIR")
    root = Path(configured) if configured else Path.home() / ".cache" / "warpsim"
    return root / kind


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` as one step; do nothing when the cache cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
