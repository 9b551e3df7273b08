"""`cupy.cuda._compiler_cache`: CuPy's kernel cache backends, named for CuPy's tests.

warpsim caches PTX in its own cache (warpsim.cache, WARPSIM_CACHE_DIR); a
backend made here remembers its folder and is never written to.
"""

from __future__ import annotations

from .._missing import missing_attribute


class DiskKernelCacheBackend:
    """CuPy's on-disk cache backend: accepted, unused (warpsim's cache is warpsim.cache's)."""

    def __init__(self, cache_dir: str | None = None):
        self.cache_dir = cache_dir

    def load(self, name: str):
        return None

    def save(self, name: str, data: bytes) -> None:
        pass


def __getattr__(name):
    raise missing_attribute("cupy.cuda._compiler_cache", name)
