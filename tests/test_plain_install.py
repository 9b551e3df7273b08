"""A plain `pip install warpsim` (no extras) imports every module of the package.

Test dependencies (pytest, hypothesis) must never be needed by the package, and
the optional ones (triton, torch, scipy, the notebook runners) only where a
feature uses them, with MissingDependency naming the extra. Each check runs in
a fresh interpreter whose meta path refuses those packages, as an install
without them would.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import warpsim
from warpsim.errors import MissingDependency, import_optional

ROOT = pathlib.Path(warpsim.__file__).parents[1]

TEST_ONLY = ("pytest", "_pytest", "hypothesis")
OPTIONAL = ("triton", "torch", "scipy", "nbclient", "nbformat", "ipykernel", "filecheck")

# Runs in the child: block `blocked`, import every module under warpsim/, print what failed.
IMPORT_EVERY_MODULE = textwrap.dedent("""
    import importlib, importlib.abc, json, pathlib, sys

    blocked = set(sys.argv[1].split(","))

    class Uninstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.partition(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
            return None

    sys.meta_path.insert(0, Uninstalled())
    for name in blocked:
        for loaded in [m for m in sys.modules if m.partition(".")[0] == name]:
            del sys.modules[loaded]

    package = pathlib.Path(sys.argv[2])
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue                      # runs the CLI when imported
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    failures = {}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:
            failures[name] = [type(error).__name__, str(error)]
    print(json.dumps({"modules": len(names), "failures": failures}))
""")


def import_every_module(blocked) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE, ",".join(blocked),
                           str(ROOT / "warpsim")], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_module_imports_without_test_dependencies():
    result = import_every_module(TEST_ONLY)
    assert result["modules"] > 200           # the walk found the package, not an empty folder
    assert result["failures"] == {}


def test_without_optional_dependencies_only_their_users_fail_naming_the_extra():
    result = import_every_module(TEST_ONLY + OPTIONAL)
    assert result["modules"] > 200
    for module, (kind, message) in result["failures"].items():
        assert kind == "MissingDependency", f"{module}: {kind}: {message}"
        assert "pip install warpsim[" in message, f"{module}: {message}"
    # the demo's Triton kernels are @triton.jit at import: the one module that needs triton;
    # cupyx.scipy.special and .ndimage are SciPy's functions: importing them says to install it
    # warpsim's Triton backend subclasses Triton's: its compiler and driver modules need triton
    assert set(result["failures"]) <= {"warpsim.demo.triton_kernels",
                                       "warpsim.runtime.triton.compiler",
                                       "warpsim.runtime.triton.driver",
                                       "warpsim.api.cupyx.scipy.special",
                                       "warpsim.api.cupyx.scipy.ndimage"}


def test_import_optional_names_the_extra():
    with pytest.raises(MissingDependency) as caught:
        import_optional("warpsim_no_such_package", extra="triton", needed_for="Triton kernels")
    assert isinstance(caught.value, ModuleNotFoundError)         # `except ImportError` still catches it
    assert "pip install warpsim[triton]" in str(caught.value)
    assert "Triton kernels" in str(caught.value)
    assert import_optional("json", extra="test", needed_for="nothing") is json


def test_cupy_testing_markers_are_pytest_marks_when_pytest_is_there():
    from warpsim.api.cupy import testing

    def case():
        pass

    marked = testing.slow(case)
    assert [mark.name for mark in marked.pytestmark] == ["slow"]
    assert testing.multi_gpu(2).mark.args == (True,)          # one simulated GPU: skipped
    assert testing.multi_gpu(1).mark.args == (False,)
    assert testing.with_requires("numpy>=1.0").mark.args == (False,)
    assert testing.with_requires("numpy<1.0").mark.args == (True,)


def test_cupy_testing_markers_without_pytest_name_the_extra():
    code = textwrap.dedent("""
        import importlib.abc, sys
        class Uninstalled(importlib.abc.MetaPathFinder):
            def find_spec(self, fullname, path=None, target=None):
                if fullname.partition(".")[0] in ("pytest", "_pytest"):
                    raise ModuleNotFoundError(fullname, name=fullname)
        sys.meta_path.insert(0, Uninstalled())
        from warpsim.api.cupy import testing
        try:
            testing.slow(lambda: None)
        except ModuleNotFoundError as error:
            print(type(error).__name__, error)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MissingDependency pytest is not installed")
    assert "pip install warpsim[test]" in done.stdout
