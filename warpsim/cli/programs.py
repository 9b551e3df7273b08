"""`warpsim run ./app`: a compiled CUDA program run on warpsim's CUDA runtime.

The program must load the CUDA runtime dynamically (libcudart.so.13, from
`nvcc -cudart shared`; `warpsim nvcc` builds that way): it is then started with
LD_LIBRARY_PATH leading to warpsim's libcudart.so.13 and libcuda.so.1 (the
driver API, for a program linked with -lcuda; warpsim.runtime.native builds
both), so its CUDA calls run on the simulator inside its own process.
Address-space randomization is turned off for it (as `setarch -R` does), so the
device heap can be mapped at its device addresses (warpsim.runtime.heap).
"""

from __future__ import annotations

import ctypes
import os
import struct
import subprocess
import sys

ELF_MAGIC = b"\x7fELF"
DT_NEEDED = 1
ADDR_NO_RANDOMIZE = 0x0040000
# NVIDIA libraries whose work warpsim does not simulate, and what they are.
VENDOR_LIBRARIES = {"libcublas": "cuBLAS", "libcublasLt": "cuBLASLt", "libcufft": "cuFFT",
                    "libcurand": "cuRAND", "libcudnn": "cuDNN", "libcusparse": "cuSPARSE",
                    "libcusolver": "cuSOLVER", "libnccl": "NCCL"}
# Compilers a program may load: they do no GPU work (what they make is loaded through the driver API,
# which warpsim's libcuda.so.1 serves); the program finds PyPI's copy, the one warpsim compiles with.
COMPILER_LIBRARIES = ("libnvrtc",)


def is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == ELF_MAGIC
    except OSError:
        return False


def needed_libraries(path: str) -> list[str]:
    """The DT_NEEDED entries of a 64-bit little-endian ELF file (its shared libraries)."""
    with open(path, "rb") as handle:
        data = handle.read()
    if data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + k * entry_size) for k in range(count)]
    needed = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, _entsize in sections:
        if kind != 6:                  # SHT_DYNAMIC
            continue
        strings_offset = sections[link][4]
        for at in range(offset, offset + size, 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == 0:
                break
            if tag == DT_NEEDED:
                end = data.index(b"\0", strings_offset + value)
                needed.append(data[strings_offset + value:end].decode())
    return needed


def _problem(path: str) -> str:
    """Why the program cannot run on warpsim's runtime ('' when it can)."""
    needed = needed_libraries(path)
    if not any(name.startswith("libcudart.so") for name in needed):
        return (f"{path} does not load the CUDA runtime as a shared library (nvcc links it statically "
                "by default), so warpsim cannot stand in for it. Rebuild it with `warpsim nvcc` "
                "(same arguments as nvcc), or add `-cudart shared` to your nvcc command line")
    if "libcudart.so.13" not in needed:
        found = next(name for name in needed if name.startswith("libcudart.so"))
        return f"{path} was built against {found}; warpsim's runtime is CUDA 13's: rebuild with `warpsim nvcc`"
    vendor = [VENDOR_LIBRARIES[base] for base in (name.split(".so")[0] for name in needed)
              if base in VENDOR_LIBRARIES]
    if vendor:
        return (f"{path} links {', '.join(vendor)}, which warpsim does not simulate (only the CUDA "
                "runtime and the program's own kernels run on warpsim)")
    return ""


PR_SET_PDEATHSIG, SIGKILL = 1, 9


def _no_randomization() -> None:
    """In the child, before exec: address-space randomization off (a no-op where refused), and
    the program killed if `warpsim run` dies (a timeout killing warpsim must not leave it running)."""
    libc = ctypes.CDLL(None)
    current = libc.personality(0xFFFFFFFF)
    if current != -1:
        libc.personality(current | ADDR_NO_RANDOMIZE)
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)


def compiler_folders(path: str) -> list:
    """The folders of the compiler libraries (COMPILER_LIBRARIES) the program at `path` loads."""
    from ..frontends.nvrtc import nvrtc_library_path
    needed = {name.split(".so")[0] for name in needed_libraries(path)}
    return [os.path.dirname(nvrtc_library_path())] if needed & set(COMPILER_LIBRARIES) else []


def program_environment(library_folder, after: tuple = ()) -> dict:
    """The program's environment: warpsim's runtime libraries first on its library path, the
    folders `after` (a compiler's) last, so that only what nothing earlier provides comes from them."""
    environment = dict(os.environ)
    environment["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(library_folder), environment.get("LD_LIBRARY_PATH"), *after]))
    environment["WARPSIM_PYTHON"] = sys.executable
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent,
                                                              environment.get("PYTHONPATH")]))
    return environment


def run_executable(argv: list) -> tuple[int, str]:
    """Run `./app args...` on warpsim's CUDA runtime: (exit status, why it failed or '')."""
    from ..runtime.native import RuntimeBuildError, build_runtime
    path = argv[0]
    problem = _problem(path)
    if problem:
        print(f"warpsim run: {problem}", file=sys.stderr)
        return 2, problem
    try:
        folder = build_runtime()
    except RuntimeBuildError as error:
        print(f"warpsim run: {error}", file=sys.stderr)
        return 2, str(error).splitlines()[0]
    from .program_tools import collect, tool_environment
    sys.stdout.flush()
    sys.stderr.flush()
    program = path if os.sep in path else os.path.join(".", path)
    tools, results = tool_environment()      # the profile/check sessions active here, for the program
    environment = program_environment(folder, tuple(compiler_folders(path)))
    environment.update(tools)
    done = subprocess.run([program, *argv[1:]], env=environment, preexec_fn=_no_randomization)
    status = done.returncode if done.returncode >= 0 else 128 - done.returncode
    reason = "" if status == 0 else (f"killed by signal {-done.returncode}" if done.returncode < 0
                                     else f"exit status {status}")
    lost = collect(results)
    if lost and status:                      # a program that made no CUDA call has nothing to report
        print(f"warpsim: {lost}", file=sys.stderr)
    return status, reason
