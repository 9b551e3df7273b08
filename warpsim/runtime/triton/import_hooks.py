"""Run a function as soon as a module's import has executed it (or now, if it already has).

The backend replaces functions of modules a script may import after the backend is active:
triton.testing's do_bench (bench.py), which `from triton.testing import do_bench` at a script's
top binds before Triton makes its driver, and torch's device functions (torch_device.py), which a
script's first `torch.randn(n, device="cuda")` needs before any Triton launch.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds `module` as the path finder does, and calls `then` once its loader has executed it."""

    def __init__(self, module: str, then):
        self.module, self.then = module, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            self.then()
        spec.loader.exec_module = exec_module
        return spec


def call_after_import(module: str, then) -> None:
    """then() now if `module` is imported, else as soon as it is (once)."""
    if module in sys.modules:
        then()
    elif not any(isinstance(f, _AfterImport) and f.module == module for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(module, then))


def stop_waiting(module: str) -> None:
    """Forget a call_after_import for `module` that has not happened."""
    sys.meta_path[:] = [f for f in sys.meta_path if not (isinstance(f, _AfterImport) and f.module == module)]
