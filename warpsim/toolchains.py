"""Which CUDA toolchain compiles kernels: the installed nvidia-* wheels', or one version from the tool cache.

A GPU runs what its own toolchain makes of a kernel: CuPy on an H200 with CUDA
13.0 compiles CUDA C++ with NVRTC 13.0 and the driver turns the PTX into SASS
with its ptxas 13.0. NVRTC 13.5 writes other PTX for some kernels (another loop
shape, another unrolling), and then the instruction counts differ before
ptxas is even asked. So the toolchain is one setting, `cuda` (`warpsim.settings(
cuda="13.0")`, WARPSIM_CUDA, `--cuda 13.0`): NVRTC, its headers, ptxas (SASS and
register counts) and nvcc of that version. Unset: the installed wheels.

A version other than the installed one lives in the tool cache,
`~/.cache/warpsim/tools/cuda-13.0/` (or $WARPSIM_TOOLS_DIR), laid out as the
wheels lay out `nvidia/cu13/`: bin/ (ptxas, nvcc), lib/ (libnvrtc), nvvm/ (cicc),
include/ (the runtime's headers, crt/, cccl/). `install_toolchain("13.0")`
(`warpsim toolchain --install 13.0`) fills it from PyPI's wheels of that version
and writes `toolchain.json` last, so a folder without it is not a toolchain
(`install_ptxas` of warpsim.sass puts a lone bin/ptxas there: a ptxas, not a
toolchain).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path

from .errors import CompileError
from .settings import check_cuda, current

__all__ = ["tools_dir", "requested_cuda", "version_matches", "installed_toolchains", "find_toolchain",
           "install_toolchain", "wheel_name", "unpack_wheel", "download_wheel", "ptx_producer", "describe_toolchain",
           "pypi_tools", "tool_version", "cuda_tool", "EXE_SUFFIX",
           "TOOLCHAIN_WHEELS"]

MARKER = "toolchain.json"

# The wheels of one toolchain: (package, required). Optional ones are missing from some versions
# (nvidia-cuda-nvdisasm starts at 13.2; CUDA 12 had nvvm and crt inside nvidia-cuda-nvcc).
TOOLCHAIN_WHEELS = (
    ("nvidia-cuda-nvrtc", True),        # lib/libnvrtc, its builtins
    ("nvidia-cuda-nvcc", True),         # bin/ptxas, bin/nvcc and its helpers
    ("nvidia-nvvm", False),             # nvvm/bin/cicc: what nvcc compiles device code with
    ("nvidia-cuda-crt", False),         # include/crt
    ("nvidia-cuda-runtime", False),     # include/ (cuda_fp16.h, ...): headers of the same release
    ("nvidia-cuda-cccl", False),        # include/cccl (CUB, Thrust, libcu++)
    ("nvidia-cuda-nvdisasm", False),    # bin/nvdisasm
)


def tools_dir() -> Path:
    """The tool cache: $WARPSIM_TOOLS_DIR, else ~/.cache/warpsim/tools (shared by every cache-dir setting)."""
    configured = os.environ.get("WARPSIM_TOOLS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "warpsim" / "tools"


def requested_cuda() -> str | None:
    """The `cuda` setting in force (settings block, else WARPSIM_CUDA), None for the installed wheels."""
    wanted = current().cuda
    if not wanted:
        return None
    check_cuda(wanted)            # WARPSIM_CUDA is read unchecked with the other variables
    return wanted


def version_matches(version: str, wanted: str) -> bool:
    """'13.0.88' matches '13.0' and '13.0.88', not '13.05'."""
    return version == wanted or version.startswith(wanted + ".")


def wheel_name(package: str, version: str) -> str:
    """PyPI's name of `package` for CUDA `version` (CUDA 12's wheels end in -cu12, CUDA 13's do not)."""
    major = int(version.split(".")[0])
    return package if major >= 13 else f"{package}-cu{major}"


def wheel_spec(package: str, version: str) -> str:
    exact = version.count(".") >= 2
    return f"{wheel_name(package, version)}=={version}" + ("" if exact else ".*")


# --- what is installed --------------------------------------------------------------------------

def installed_toolchains() -> dict:
    """Full version (e.g. '13.0.88') -> folder, for every complete toolchain in the tool cache."""
    found = {}
    for marker in sorted(glob.glob(str(tools_dir() / "cuda-*" / MARKER))):
        try:
            version = json.loads(Path(marker).read_text())["version"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found.setdefault(version, Path(marker).parent)
    return found


def find_toolchain(version: str) -> Path:
    """The tool-cache folder of CUDA `version`; an error saying how to install it when there is none."""
    check_cuda(version)
    installed = installed_toolchains()
    for full, folder in installed.items():
        if version_matches(full, version):
            return folder
    raise CompileError(f"CUDA toolchain {version} is not installed in {tools_dir()} "
                       f"(have: {', '.join(sorted(installed)) or 'none'}); install it with "
                       f"`warpsim toolchain --install {version}` (warpsim.toolchains.install_toolchain('{version}'))")


def toolchain_info(folder: Path) -> dict:
    """What toolchain.json recorded: version, wheels (package -> file), missing optional wheels."""
    try:
        return json.loads((Path(folder) / MARKER).read_text())
    except (OSError, ValueError):
        return {}


# --- the tools of the installed wheels --------------------------------------------------------------

EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""
TOOL_PACKAGES = {"nvcc": "nvidia-cuda-nvcc", "ptxas": "nvidia-cuda-nvcc", "nvdisasm": "nvidia-cuda-nvdisasm"}


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


def cuda_tool(tool: str, cuda: str | None = "") -> str:
    """bin/`tool` (nvcc, nvdisasm) of CUDA `cuda` ('': the `cuda` setting in force; None: the
    installed wheels'): the installed wheel's when its version matches, else the tool cache's."""
    wanted = requested_cuda() if cuda == "" else cuda
    installed = pypi_tools(tool)
    if wanted:
        for path in installed:
            if version_matches(tool_version(path), wanted):
                return path
        own = find_toolchain(wanted) / "bin" / (tool + EXE_SUFFIX)
        if own.is_file():
            return str(own)
        raise CompileError(f"the CUDA {wanted} toolchain in {own.parents[1]} has no bin/{tool}"
                           + (" (PyPI has no such wheel of that version)" if tool == "nvdisasm" else
                              f"; reinstall it with `warpsim toolchain --install {wanted}`"))
    if installed:
        return installed[0]
    raise CompileError(f"{tool} not found: install it from PyPI with "
                       f"`pip install {TOOL_PACKAGES.get(tool, 'nvidia-cuda-nvcc')}`")


# --- installing -----------------------------------------------------------------------------------

def download_wheel(package: str, version: str, folder: str) -> str | None:
    """pip-download the wheel of `package` for CUDA `version` into `folder`; its path, or None when
    PyPI has no such version. Other failures (no network) are a CompileError with pip's words."""
    spec = wheel_spec(package, version)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", folder, spec]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    wheels = sorted(glob.glob(os.path.join(folder, wheel_name(package, version).replace("-", "_") + "-*.whl")))
    if done.returncode == 0 and wheels:
        return wheels[-1]
    log = (done.stdout + done.stderr).strip()
    if "No matching distribution" in log or "Could not find a version" in log:
        return None
    raise CompileError(f"could not download {spec} from PyPI", log)


def _relative_path(member: str) -> str | None:
    """'nvidia/cu13/bin/ptxas' (CUDA 13) or 'nvidia/cuda_nvcc/bin/ptxas' (CUDA 12) -> 'bin/ptxas';
    None for what a toolchain does not need (metadata, NVRTC's second 'alt' build)."""
    parts = member.split("/")
    if len(parts) < 3 or parts[0] != "nvidia" or member.endswith("/") or parts[2] == ".metadata":
        return None
    relative = "/".join(parts[2:])
    if ".alt." in parts[-1] or parts[-1] == "__init__.py":
        return None
    return relative


def unpack_wheel(wheel: str, target: Path, keep=lambda relative: True) -> list:
    """Copy the files of `wheel` that `keep` accepts into `target`, without the nvidia/<folder>/
    prefix; executables (bin/, nvvm/bin/, or marked so in the wheel) made executable. The paths."""
    written = []
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            relative = _relative_path(info.filename)
            if relative is None or not keep(relative):
                continue
            destination = Path(target) / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            partial = destination.with_name(destination.name + ".partial")
            with archive.open(info) as source, open(partial, "wb") as sink:
                shutil.copyfileobj(source, sink)
            executable = (info.external_attr >> 16) & 0o111 or relative.split("/")[-2:-1] == ["bin"]
            partial.chmod(0o755 if executable else 0o644)
            os.replace(partial, destination)
            written.append(relative)
    return written


def install_toolchain(version: str, *, quiet: bool = True) -> Path:
    """Fetch CUDA `version` (e.g. '13.0') from PyPI's wheels into the tool cache; its folder.

    NVRTC and nvcc (ptxas) are required; the headers, cicc, CCCL and nvdisasm of the same
    release are taken where PyPI has them (toolchain.json lists what was missing). Nothing
    is downloaded when the toolchain is already there.
    """
    check_cuda(version)
    for full, folder in installed_toolchains().items():
        if version_matches(full, version):
            return folder
    target = tools_dir() / f"cuda-{version}"
    wheels, missing = {}, []
    with tempfile.TemporaryDirectory(prefix="warpsim-wheels-") as tmp:
        for package, required in TOOLCHAIN_WHEELS:
            wheel = download_wheel(package, version, tmp)
            if wheel is None:
                if required:
                    raise CompileError(f"PyPI has no {wheel_spec(package, version)}: is {version} a CUDA release?")
                missing.append(package)
                continue
            if not quiet:
                print(f"unpacking {os.path.basename(wheel)}")
            unpack_wheel(wheel, target)
            wheels[package] = os.path.basename(wheel)
    _link_lib64(target)
    full = _full_version(wheels["nvidia-cuda-nvrtc"])
    info = {"version": full, "wheels": wheels, "missing": missing}
    partial = target / (MARKER + ".partial")
    partial.write_text(json.dumps(info, indent=1))
    os.replace(partial, target / MARKER)
    if not quiet:
        absent = f" (not on PyPI for it: {', '.join(missing)})" if missing else ""
        print(f"installed CUDA {full} at {target}{absent}")
    return target


def _link_lib64(target: Path) -> None:
    """Some nvcc wheels (13.0's) carry a CUDA-toolkit nvcc.profile that links from lib64/, where the
    wheels put lib/: a lib64 link to lib makes both layouts work."""
    lib64 = Path(target) / "lib64"
    if sys.platform.startswith("linux") and (Path(target) / "lib").is_dir() and not lib64.exists():
        lib64.symlink_to("lib", target_is_directory=True)


def _full_version(wheel_file: str) -> str:
    """'nvidia_cuda_nvrtc-13.0.88-py3-none-...whl' -> '13.0.88'."""
    return wheel_file.split("-")[1]


# --- what made a piece of code ------------------------------------------------------------------

_NVVM_RELEASE = re.compile(r"^//\s*Cuda compilation tools, release [\d.]+, V([\d.]+)", re.MULTILINE)
_LLVM_NVPTX = re.compile(r"^//\s*Generated by LLVM NVPTX Back-End", re.MULTILINE)


def ptx_producer(ptx_text: str) -> str:
    """Who wrote this PTX, from its header comment: 'NVRTC/NVVM 13.0.88' (NVRTC, nvcc and Numba
    all compile through NVVM and write the same header), 'LLVM NVPTX' (Triton), '' unknown."""
    head = ptx_text[:2000]
    found = _NVVM_RELEASE.search(head)
    if found:
        return f"NVRTC/NVVM {found.group(1)}"
    return "LLVM NVPTX" if _LLVM_NVPTX.search(head) else ""


def describe_toolchain(ptx_text: str, ptxas_version: str) -> str:
    """'NVRTC/NVVM 13.0.88 -> ptxas 13.0.88': what made a kernel's PTX and its SASS."""
    parts = [ptx_producer(ptx_text or ""), f"ptxas {ptxas_version}" if ptxas_version else ""]
    return " -> ".join(p for p in parts if p)
