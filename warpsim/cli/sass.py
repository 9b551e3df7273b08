"""`warpsim sass`: the SASS a GPU runs for a kernel, with its source and PTX lines.

    warpsim sass kernel.cu [--kernel NAME] [--arch sm_90] [--ptxas-version 13.0] [--option=-DN=4]
    warpsim sass kernel.ptx                  # PTX as is
    warpsim sass module.cubin                # a cubin made elsewhere (PTX lines if built with -lineinfo)
    warpsim sass --install-ptxas 13.0        # fetch that ptxas from PyPI into warpsim's tool cache
    warpsim sass --list-ptxas                # the ptxas versions warpsim can use
    warpsim sass --cuda 13.0 kernel.cu       # NVRTC and ptxas of CUDA 13.0 (warpsim toolchain --install 13.0)

The SASS depends on the ptxas version, and on a GPU that is the driver's: pin
the one of the machine you compare with (an H200 with a CUDA 13.0 driver runs
what ptxas 13.0 makes).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import WarpsimError


def _module_for(path: str, args):
    from .. import sass
    if path.endswith(".cubin"):
        with open(path, "rb") as handle:
            return sass.sass_for_cubin(handle.read()), {}
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    sources = {}
    if path.endswith(".ptx"):
        ptx = text
    else:
        from ..frontends.nvrtc import compile_cuda
        options = tuple(args.option) + ((f"-arch={args.arch}",) if args.arch else ())
        ptx = compile_cuda(text, options, name=path).ptx
        sources = {path: text, os.path.basename(path): text}
    return sass.sass_for_ptx(ptx, args.arch or sass.DEFAULT_ARCH, args.ptxas_version), sources


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="warpsim sass", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", help=".cu, .ptx or .cubin file")
    parser.add_argument("--kernel", help="show only this kernel (default: every function)")
    parser.add_argument("--arch", help="sm_XX to compile for (default sm_90)")
    parser.add_argument("--ptxas-version", help="ptxas (CUDA) version to compile with, e.g. 13.0")
    parser.add_argument("--option", action="append", default=[], help="an NVRTC option (repeatable)")
    parser.add_argument("--no-control", action="store_true", help="leave out the control-code column")
    parser.add_argument("--all", action="store_true", help="also show the unreachable padding after EXIT")
    parser.add_argument("--install-ptxas", metavar="VERSION", help="download ptxas VERSION from PyPI")
    parser.add_argument("--list-ptxas", action="store_true", help="list the ptxas versions available")
    args = parser.parse_args(argv)
    from .. import sass
    try:
        if args.install_ptxas:
            print(sass.install_ptxas(args.install_ptxas))
            if not args.source:
                return 0
        if args.list_ptxas:
            for version, path in sorted(sass.installed_ptxas_versions().items()):
                print(f"{version:<12} {path}")
            return 0
        if not args.source:
            parser.error("give a .cu, .ptx or .cubin file")
        module, sources = _module_for(args.source, args)
        print(sass.format_listing(module, args.kernel, sources=sources, show_control=not args.no_control,
                                  show_unreachable=args.all))
    except (WarpsimError, OSError) as exc:
        print(f"warpsim sass: {exc}", file=sys.stderr)
        return 1
    return 0
