"""ptxas and nvdisasm from PyPI: PTX -> sm_XX cubin, cached on disk.

The GPU runs SASS, and which SASS depends on the ptxas that made it: a program
run through CuPy or Numba is compiled by the driver's own JIT, so an H200 with a
CUDA 13.0 driver runs what ptxas 13.0 makes of the PTX, whatever CUDA warpsim
has installed. So the ptxas version is a parameter (`ptxas_version`, or
WARPSIM_PTXAS_VERSION): unset means the ptxas of the installed
`nvidia-cuda-nvcc` wheel; another version is looked for in warpsim's tool cache,
which `install_ptxas("13.0")` (`warpsim sass --install-ptxas 13.0`) fills from
PyPI's wheel of that version. A system CUDA is never used for SASS: what it is
would depend on the machine, and the listing must be reproducible.

An older ptxas refuses PTX whose `.version` line is newer than it knows (NVRTC
13.5 writes 9.5; ptxas 13.0 knows 9.0). The line is then lowered to the version
ptxas names in its refusal and the compilation retried; the result says so in
`notes`. That is right for code that uses nothing newer, which ptxas checks.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir, write_atomically
from ..errors import CompileError

__all__ = ["CubinResult", "compile_cubin", "cubin_for", "ptxas_path", "nvdisasm_path", "tool_version",
           "find_ptxas", "install_ptxas", "installed_ptxas_versions", "sass_cache_dir", "DEFAULT_ARCH"]

DEFAULT_ARCH = "sm_90"
EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""


# --- where things live ------------------------------------------------------

def sass_cache_dir() -> Path:
    """Beside the PTX cache: $WARPSIM_CACHE_DIR/sass, else ~/.cache/warpsim/sass."""
    return cache_dir("sass")


def tools_dir() -> Path:
    """Per-version ptxas copies (tools/cuda-13.0/bin/ptxas); shared by every cache dir setting."""
    configured = os.environ.get("WARPSIM_TOOLS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "warpsim" / "tools"


def _nvidia_roots() -> list:
    try:
        import nvidia  # namespace package of the nvidia-* wheels
        return list(getattr(nvidia, "__path__", []))
    except ImportError:
        return []


def pypi_tools(tool: str) -> list:
    """`tool` executables inside the installed nvidia-* wheels, newest layout first (cu13/bin/...)."""
    found = []
    for root in _nvidia_roots():
        found += sorted(glob.glob(os.path.join(root, "*", "bin", tool + EXE_SUFFIX)), reverse=True)
    return [p for p in dict.fromkeys(found) if os.path.isfile(p) and os.access(p, os.X_OK)]


def find_ptxas() -> tuple:
    """Usable ptxas executables for register counts, best first (may be empty).

    WARPSIM_PTXAS names one; else the PyPI wheel's, then one on PATH (a register
    count from any ptxas beats an estimate; SASS listings use `ptxas_path`).
    """
    return _find_ptxas(os.environ.get("WARPSIM_PTXAS"))


@lru_cache(maxsize=None)
def _find_ptxas(override: str | None) -> tuple:
    if override:
        found = [override]
    else:
        found = pypi_tools("ptxas")
        on_path = shutil.which("ptxas" + EXE_SUFFIX)
        if on_path:
            found.append(on_path)
    return tuple(p for p in dict.fromkeys(found) if os.path.isfile(p) and os.access(p, os.X_OK))


_RELEASE = re.compile(r"release (\d+\.\d+), V([\d.]+)")


@lru_cache(maxsize=None)
def tool_version(path: str) -> str:
    """'13.5.37' from `tool --version` ('' when it prints no release line)."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = _RELEASE.search(done.stdout + done.stderr)
    return m.group(2) if m else ""


def _matches(version: str, wanted: str) -> bool:
    """'13.0.88' matches '13.0' and '13.0.88', not '13.05'."""
    return version == wanted or version.startswith(wanted + ".")


def installed_ptxas_versions() -> dict:
    """version -> ptxas path, for the PyPI wheel's ptxas and every one in the tool cache."""
    found = {}
    for path in pypi_tools("ptxas") + sorted(glob.glob(str(tools_dir() / "cuda-*" / "bin" / ("ptxas" + EXE_SUFFIX)))):
        version = tool_version(path)
        if version:
            found.setdefault(version, path)
    return found


def requested_ptxas_version(ptxas_version: str | None) -> str | None:
    return ptxas_version or os.environ.get("WARPSIM_PTXAS_VERSION") or None


def ptxas_path(ptxas_version: str | None = None) -> str:
    """The ptxas to make SASS with: WARPSIM_PTXAS, else the one of `ptxas_version`, else PyPI's."""
    override = os.environ.get("WARPSIM_PTXAS")
    if override and override != "none":
        return override
    wanted = requested_ptxas_version(ptxas_version)
    if wanted is None:
        found = pypi_tools("ptxas")
        if not found:
            raise CompileError("ptxas not found: install it from PyPI with `pip install nvidia-cuda-nvcc`")
        return found[0]
    versions = installed_ptxas_versions()
    for version, path in versions.items():
        if _matches(version, wanted):
            return path
    raise CompileError(f"ptxas {wanted} is not installed (have: {', '.join(sorted(versions)) or 'none'}); "
                       f"install it with `warpsim sass --install-ptxas {wanted}` "
                       f"(warpsim.sass.install_ptxas('{wanted}'))")


def nvdisasm_path() -> str:
    """nvdisasm of the PyPI wheel nvidia-cuda-nvdisasm (it reads cubins of older ptxas too)."""
    override = os.environ.get("WARPSIM_NVDISASM")
    if override:
        return override
    found = pypi_tools("nvdisasm")
    if not found:
        raise CompileError("nvdisasm not found: install it from PyPI with `pip install nvidia-cuda-nvdisasm`")
    return found[0]


def install_ptxas(version: str, *, quiet: bool = True) -> str:
    """Fetch ptxas `version` (e.g. '13.0') from PyPI's nvidia-cuda-nvcc wheel into the tool cache.

    Returns the ptxas path. Only the wheel's bin/ptxas is kept: nvdisasm and the
    rest come from the installed packages.
    """
    target = tools_dir() / f"cuda-{version}" / "bin" / ("ptxas" + EXE_SUFFIX)
    if target.exists():
        return str(target)
    spec = f"nvidia-cuda-nvcc=={version}" if version.count(".") >= 2 else f"nvidia-cuda-nvcc=={version}.*"
    with tempfile.TemporaryDirectory(prefix="warpsim-wheel-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", tmp, spec]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        wheels = glob.glob(os.path.join(tmp, "*.whl"))
        if done.returncode != 0 or not wheels:
            raise CompileError(f"could not download {spec} from PyPI", (done.stdout + done.stderr).strip())
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [n for n in wheel.namelist() if n.endswith("/bin/ptxas" + EXE_SUFFIX)]
            if not members:
                raise CompileError(f"{os.path.basename(wheels[0])} holds no bin/ptxas")
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".partial")
            with wheel.open(members[0]) as source, open(partial, "wb") as sink:
                shutil.copyfileobj(source, sink)
            partial.chmod(0o755)
            os.replace(partial, target)
    if not quiet:
        print(f"installed ptxas {tool_version(str(target))} at {target}")
    return str(target)


# --- PTX -> cubin -----------------------------------------------------------

@dataclass
class CubinResult:
    """One ptxas run (or what the cache remembered of it)."""

    data: bytes
    arch: str
    ptxas: str                  # path of the ptxas that made it
    ptxas_version: str          # its full version, e.g. '13.0.88'
    log: str = ""
    notes: list = field(default_factory=list)   # e.g. the .version line had to be lowered
    cache_hit: bool = False


_VERSION_LINE = re.compile(r"^(\s*\.version\s+)(\d+\.\d+)", re.MULTILINE)
_TOO_NEW = re.compile(r"Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'")


def _run_ptxas(exe: str, ptx: str, arch: str) -> tuple:
    """(returncode, log, cubin bytes) of `ptxas -arch=<arch> -lineinfo`."""
    with tempfile.TemporaryDirectory(prefix="warpsim-ptxas-") as tmp:
        source, output = Path(tmp) / "module.ptx", Path(tmp) / "module.cubin"
        source.write_text(ptx)
        try:
            done = subprocess.run([exe, f"-arch={arch}", "-lineinfo", "-o", str(output), str(source)],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CompileError(f"could not run ptxas ({exe}): {exc}") from None
        log = (done.stdout + done.stderr).replace(str(source), "module.ptx").strip()
        data = output.read_bytes() if done.returncode == 0 and output.exists() else b""
        return done.returncode, log, data


def _cache_key(ptx: str, arch: str, version: str, exe: str) -> str:
    material = json.dumps([ptx, arch, version, exe if not version else ""])
    return hashlib.sha256(material.encode()).hexdigest()


def compile_cubin(ptx: str, arch: str = DEFAULT_ARCH, ptxas_version: str | None = None) -> CubinResult:
    """PTX text -> cubin with line tables; CompileError carrying ptxas's log when it refuses."""
    exe = ptxas_path(ptxas_version)
    version = tool_version(exe)
    path = sass_cache_dir() / "cubin" / (_cache_key(ptx, arch, version, exe) + ".cubin")
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text())
        return CubinResult(path.read_bytes(), arch, exe, version, meta.get("log", ""), meta.get("notes", []), True)
    except (OSError, ValueError):
        pass
    notes, text = [], ptx
    code, log, data = _run_ptxas(exe, text, arch)
    too_new = _TOO_NEW.search(log) if code else None
    if too_new:
        given, known = too_new.groups()
        text = _VERSION_LINE.sub(lambda m: m.group(1) + known, text, count=1)
        notes.append(f"PTX .version {given} lowered to {known} for ptxas {version}")
        code, log, data = _run_ptxas(exe, text, arch)
    if code:
        raise CompileError(f"ptxas {version or exe} -arch={arch} refused the PTX", log)
    write_atomically(path, data)
    write_atomically(meta_path, json.dumps({"log": log, "notes": notes}).encode())
    return CubinResult(data, arch, exe, version, log, notes)


def cubin_for(ptx_text: str, arch: str = DEFAULT_ARCH, ptxas_version: str | None = None) -> bytes:
    """The cubin bytes ptxas makes of `ptx_text` (see compile_cubin for the details kept)."""
    return compile_cubin(ptx_text, arch, ptxas_version).data


