"""`warpsim toolchain`: which CUDA toolchain compiles kernels, and installing one by version.

    warpsim toolchain                      # what compiles now: NVRTC, headers, ptxas, nvdisasm, nvcc
    warpsim --cuda 13.0 toolchain          # the same for CUDA 13.0 (or WARPSIM_CUDA=13.0)
    warpsim toolchain --install 13.0       # fetch CUDA 13.0's wheels from PyPI into the tool cache
    warpsim toolchain --list               # the toolchains and ptxas versions in the tool cache

A GPU runs what its own CUDA makes of a kernel (CuPy's NVRTC, the driver's
ptxas): `--cuda 13.0` on warpsim run/profile/sass/nvcc, or
`warpsim.settings(cuda="13.0")`, compiles with that release to match it.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import WarpsimError


def _describe() -> list:
    """(what, version, path) of each tool the `cuda` setting in force resolves to."""
    from ..frontends.nvrtc import include_dirs, nvrtc_library_path, nvrtc_version
    from ..sass.toolchain import nvdisasm_path, ptxas_path
    from ..toolchains import cuda_tool, tool_version
    rows = [("NVRTC", "%d.%d" % nvrtc_version(), nvrtc_library_path())]
    rows += [("headers", "", directory) for directory in include_dirs()]
    for name, find in (("ptxas", ptxas_path), ("nvdisasm", nvdisasm_path), ("nvcc", lambda: cuda_tool("nvcc"))):
        try:
            path = find()
            rows.append((name, tool_version(path), path))
        except WarpsimError as error:
            rows.append((name, "", f"({error})"))
    return rows


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="warpsim toolchain", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--install", metavar="VERSION", help="download CUDA VERSION (e.g. 13.0) from PyPI")
    parser.add_argument("--list", action="store_true", help="list the toolchains in the tool cache")
    args = parser.parse_args(argv)
    from .. import toolchains
    from ..sass.toolchain import installed_ptxas_versions
    try:
        if args.install:
            print(toolchains.install_toolchain(args.install, quiet=False))
            return 0
        if args.list:
            print(f"tool cache: {toolchains.tools_dir()}")
            for version, folder in sorted(toolchains.installed_toolchains().items()):
                print(f"  CUDA {version:<10} {folder}")
            print("ptxas versions (the installed wheel's and the tool cache's):")
            for version, path in sorted(installed_ptxas_versions().items()):
                print(f"  ptxas {version:<9} {path}")
            return 0
        wanted = toolchains.requested_cuda()
        print(f"CUDA toolchain: {wanted or 'the installed wheels'}")
        for name, version, path in _describe():
            print(f"  {name:<9} {version:<10} {path}")
    except (WarpsimError, OSError, ValueError) as error:
        print(f"warpsim toolchain: {error}", file=sys.stderr)
        return 1
    return 0
