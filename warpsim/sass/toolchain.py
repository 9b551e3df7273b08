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

The `cuda` setting (warpsim.toolchains) chooses ptxas too, with NVRTC: its
version is the ptxas version wherever `ptxas_version` is not given, so
`ptxas_version` (argument, --ptxas-version, WARPSIM_PTXAS_VERSION) wins when
both are set and differ.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir, write_atomically
from ..errors import CompileError
from ..toolchains import (EXE_SUFFIX, cuda_tool, download_wheel, find_toolchain, pypi_tools, requested_cuda,
                          tool_version, tools_dir, unpack_wheel, version_matches)

__all__ = ["CubinResult", "compile_cubin", "cubin_for", "ptxas_path", "nvdisasm_path", "tool_version",
           "find_ptxas", "install_ptxas", "installed_ptxas_versions", "sass_cache_dir", "DEFAULT_ARCH"]

DEFAULT_ARCH = "sm_90"


# --- where things live ------------------------------------------------------

def sass_cache_dir() -> Path:
    """Beside the PTX cache: $WARPSIM_CACHE_DIR/sass, else ~/.cache/warpsim/sass."""
    return cache_dir("sass")


def find_ptxas() -> tuple:
    """Usable ptxas executables for register counts, best first (may be empty).

    WARPSIM_PTXAS names one; else the one of the requested version (`ptxas_version` or
    `cuda`: registers come from the ptxas that makes the SASS); else the PyPI wheel's,
    then one on PATH (a register count from any ptxas beats an estimate).
    """
    override = os.environ.get("WARPSIM_PTXAS")
    if not override and requested_ptxas_version(None):
        return (ptxas_path(None),)
    return _find_ptxas(override)


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


def installed_ptxas_versions() -> dict:
    """version -> ptxas path, for the PyPI wheel's ptxas and every one in the tool cache."""
    found = {}
    for path in pypi_tools("ptxas") + sorted(glob.glob(str(tools_dir() / "cuda-*" / "bin" / ("ptxas" + EXE_SUFFIX)))):
        version = tool_version(path)
        if version:
            found.setdefault(version, path)
    return found


def requested_ptxas_version(ptxas_version: str | None) -> str | None:
    """The ptxas version asked for: the argument, else WARPSIM_PTXAS_VERSION, else the `cuda`
    setting's (the toolchain as a whole); None for the installed wheel's."""
    return ptxas_version or os.environ.get("WARPSIM_PTXAS_VERSION") or requested_cuda() or None


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
        if version_matches(version, wanted):
            return path
    have = ", ".join(sorted(versions)) or "none"
    if not ptxas_version and not os.environ.get("WARPSIM_PTXAS_VERSION"):     # asked for by `cuda`
        find_toolchain(wanted)          # the error saying how to install the whole toolchain
        raise CompileError(f"the CUDA {wanted} toolchain in {tools_dir()} has no bin/ptxas (have: {have}); "
                           f"reinstall it with `warpsim toolchain --install {wanted}`")
    raise CompileError(f"ptxas {wanted} is not installed (have: {have}); "
                       f"install it with `warpsim sass --install-ptxas {wanted}` "
                       f"(warpsim.sass.install_ptxas('{wanted}')), or the whole toolchain with "
                       f"`warpsim toolchain --install {wanted}`")


def nvdisasm_path() -> str:
    """nvdisasm of the `cuda` toolchain where it has one (PyPI has nvdisasm wheels from 13.2 on),
    else of the installed wheel nvidia-cuda-nvdisasm (it reads cubins of older ptxas too)."""
    override = os.environ.get("WARPSIM_NVDISASM")
    if override:
        return override
    wanted = requested_cuda()
    if wanted:
        own = find_toolchain(wanted) / "bin" / ("nvdisasm" + EXE_SUFFIX)
        if own.is_file():
            return str(own)
    return cuda_tool("nvdisasm", None)


def install_ptxas(version: str, *, quiet: bool = True) -> str:
    """Fetch ptxas `version` (e.g. '13.0') from PyPI's nvidia-cuda-nvcc wheel into the tool cache.

    Returns the ptxas path. Only the wheel's bin/ptxas is kept (`warpsim.toolchains.
    install_toolchain` fetches NVRTC, nvcc and the headers of the version as well).
    """
    target = tools_dir() / f"cuda-{version}" / "bin" / ("ptxas" + EXE_SUFFIX)
    if target.exists():
        return str(target)
    with tempfile.TemporaryDirectory(prefix="warpsim-wheel-") as tmp:
        wheel = download_wheel("nvidia-cuda-nvcc", version, tmp)
        if wheel is None:
            raise CompileError(f"PyPI has no nvidia-cuda-nvcc of version {version}")
        if not unpack_wheel(wheel, target.parents[1], keep=lambda relative: relative == "bin/ptxas" + EXE_SUFFIX):
            raise CompileError(f"{os.path.basename(wheel)} holds no bin/ptxas")
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


def lowered_ptx_version(ptx: str, log: str):
    """(the PTX with its .version line lowered to the one ptxas knows, a note saying so) when ptxas's
    log refused the PTX ISA as too new; None otherwise."""
    too_new = _TOO_NEW.search(log)
    if not too_new:
        return None
    given, known = too_new.groups()
    return (_VERSION_LINE.sub(lambda m: m.group(1) + known, ptx, count=1),
            f"PTX .version {given} lowered to {known}")


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
    lowered = lowered_ptx_version(text, log) if code else None
    if lowered:
        text, note = lowered
        notes.append(f"{note} for ptxas {version}")
        code, log, data = _run_ptxas(exe, text, arch)
    if code:
        raise CompileError(f"ptxas {version or exe} -arch={arch} refused the PTX", log)
    write_atomically(path, data)
    write_atomically(meta_path, json.dumps({"log": log, "notes": notes}).encode())
    return CubinResult(data, arch, exe, version, log, notes)


def cubin_for(ptx_text: str, arch: str = DEFAULT_ARCH, ptxas_version: str | None = None) -> bytes:
    """The cubin bytes ptxas makes of `ptx_text` (see compile_cubin for the details kept)."""
    return compile_cubin(ptx_text, arch, ptxas_version).data


