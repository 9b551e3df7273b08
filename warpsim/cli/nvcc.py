"""`warpsim nvcc ARGS...`: PyPI's nvcc, building programs that run on warpsim's CUDA runtime.

It is nvcc (package nvidia-cuda-nvcc, a warpsim dependency) with what a warpsim
build needs added to the user's arguments: `-cudart shared` (the program loads
libcudart.so.13 at run time, so `warpsim run` can give it warpsim's), `-L` to the
folder of warpsim's libcudart.so.13 (PyPI ships no unversioned libcudart.so to
link with; the folder also holds warpsim's libcuda.so.1 and its libcuda.so, so a
program's `-lcuda` links the driver API, which PyPI does not ship at all),
`-lineinfo` (reports name the kernels' source lines), `-lnvrtc` as PyPI's versioned
libnvrtc.so.13 (a program that compiles kernels at run time), and where the toolkit lacks
them, headers of warpsim's own (runtime/include: cuda_profiler_api.h). PyPI's
nvcc finds PyPI's CUDA headers (cuda_runtime.h), CCCL's (Thrust, CUB) and cuRAND's
device API (curand_kernel.h, header-only, from the nvidia-curand dependency) by itself
(its nvcc.profile). nvcc compiles host code with the system's g++.

`warpsim --cuda 13.0 nvcc ...` (or WARPSIM_CUDA=13.0) builds with the nvcc of CUDA 13.0
from warpsim's tool cache (`warpsim toolchain --install 13.0`): its cicc, headers and CCCL,
so the device code is what CUDA 13.0 makes of it.

With a system CUDA toolkit instead: `nvcc -cudart shared -lineinfo app.cu -o app`
builds the same kind of program (CUDA 13; its libcudart.so links fine).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


OWN_INCLUDE = Path(__file__).resolve().parent.parent / "runtime" / "include"
OWN_HEADERS = tuple(sorted(p.name for p in OWN_INCLUDE.glob("*.h")))   # headers PyPI's CUDA lacks


def nvcc_path() -> Path:
    """bin/nvcc of PyPI's nvidia-cuda-nvcc, or of the `cuda` setting's toolchain (`--cuda 13.0`)."""
    from ..errors import CompileError
    from ..toolchains import cuda_tool
    try:
        return Path(cuda_tool("nvcc"))
    except CompileError as error:
        raise FileNotFoundError(str(error)) from None


def _has_option(argv: list, *names: str) -> bool:
    return any(arg == name or arg.startswith(name + "=") for arg in argv for name in names)


def nvcc_command(argv: list, library_folder) -> list:
    """nvcc and the arguments of a warpsim build: the user's, then what warpsim adds."""
    nvcc = nvcc_path()
    command = [str(nvcc), *argv]
    if _has_option(argv, "-cudart", "--cudart"):
        k = next(i for i, arg in enumerate(argv) if arg.split("=")[0] in ("-cudart", "--cudart"))
        value = argv[k].partition("=")[2] or (argv[k + 1] if k + 1 < len(argv) else "")
        if value != "shared":
            print(f"warpsim nvcc: -cudart {value} replaced by -cudart shared (warpsim's runtime "
                  "stands in for the shared one)", file=sys.stderr)
            command = [str(nvcc)] + [a for i, a in enumerate(argv)
                                     if i != k and not (i == k + 1 and "=" not in argv[k])]
            command += ["-cudart", "shared"]
    else:
        command += ["-cudart", "shared"]
    command.append(f"-L{library_folder}")
    if "-lnvrtc" in command:                 # PyPI's NVRTC has only its versioned name
        from ..frontends.nvrtc import nvrtc_library_path
        library = nvrtc_library_path()
        command = [f"-l:{os.path.basename(library)}" if arg == "-lnvrtc" else arg for arg in command]
        command.append(f"-L{os.path.dirname(library)}")
    if not _has_option(argv, "-lineinfo", "--generate-line-info", "-G", "--device-debug"):
        command.append("-lineinfo")
    if any(not (nvcc.parent.parent / "include" / name).exists() for name in OWN_HEADERS):
        command.append(f"-I{OWN_INCLUDE}")       # after the user's own -I: theirs come first
    return command


def main(argv) -> int:
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not _has_option(argv, "-ccbin", "--compiler-bindir") and not shutil.which("g++"):
        print("warpsim nvcc: nvcc compiles host code with g++, and none was found: install it "
              "(apt install g++, dnf install gcc-c++) or name a compiler with -ccbin", file=sys.stderr)
        return 2
    from ..runtime.native import RuntimeBuildError, build_runtime
    try:
        folder = build_runtime()
        command = nvcc_command(argv, folder)
    except (RuntimeBuildError, FileNotFoundError) as error:
        print(f"warpsim nvcc: {error}", file=sys.stderr)
        return 2
    if os.environ.get("WARPSIM_VERBOSE"):
        print(" ".join(command), file=sys.stderr)
    return subprocess.run(command).returncode
