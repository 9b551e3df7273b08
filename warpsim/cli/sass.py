"""`warpsim sass`: the SASS a GPU runs for a kernel, with its source and PTX lines.

    warpsim sass kernel.cu [--kernel NAME] [--arch sm_90] [--ptxas-version 13.0] [--option=-DN=4]
    warpsim sass kernel.ptx                  # PTX as is
    warpsim sass module.cubin                # a cubin made elsewhere (PTX lines if built with -lineinfo)
    warpsim sass ./app                       # a program's kernels: the cubins of its fatbinary
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


EM_CUDA = 190                          # e_machine of a cubin; a program's executable has its host's


def _modules_for(path: str, args) -> tuple:
    """([SassModule], sources) of a .cu, .ptx or .cubin file, or of a program's executable (the
    cubins of its fatbinary for the architecture asked for, else its PTX through ptxas)."""
    from .. import sass
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:4] == b"\x7fELF":
        if int.from_bytes(data[0x12:0x14], "little") == EM_CUDA:
            return [sass.sass_for_cubin(data)], {}
        return _program_modules(path, data, args), {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise WarpsimError(f"{path} is neither CUDA C++ nor PTX text, nor a cubin or a program's executable "
                           "(an ELF file)") from None
    sources = {}
    if path.endswith(".ptx"):
        ptx = text
    else:
        from ..frontends.nvrtc import compile_cuda
        options = tuple(args.option) + ((f"-arch={args.arch}",) if args.arch else ())
        ptx = compile_cuda(text, options, name=path).ptx
        sources = {path: text, os.path.basename(path): text}
    return [sass.sass_for_ptx(ptx, args.arch or sass.ptx_target_arch(ptx), args.ptxas_version)], sources


def _program_modules(path: str, data: bytes, args) -> list:
    """The SASS of a program's kernels: every cubin of its .nv_fatbin section for the best
    architecture the executor runs up to the one asked for (fatbin.best_sass), else its PTX."""
    from .. import sass
    from ..frontends.fatbin import KIND_ELF, best_ptx, best_sass, parse_fatbin
    from ..sass.elf import sections
    found = {name: (offset, size) for name, offset, size in sections(data)}
    if ".nv_fatbin" not in found:
        raise WarpsimError(f"{path} holds no CUDA kernels (no .nv_fatbin section)")
    offset, size = found[".nv_fatbin"]
    entries = parse_fatbin(data[offset:offset + size])
    arch = int((args.arch or sass.DEFAULT_ARCH).removeprefix("sm_").rstrip("a"))
    best = best_sass(entries, arch)
    if best is not None:
        return [sass.sass_for_cubin(e.payload) for e in entries
                if e.kind == KIND_ELF and e.arch == best.arch and e.payload[:4] == b"\x7fELF"]
    ptx = best_ptx(entries, arch)
    if ptx is None:
        raise WarpsimError(f"{path}: its fatbinary holds neither a cubin nor PTX")
    return [sass.sass_for_ptx(ptx.text, args.arch or sass.ptx_target_arch(ptx.text), args.ptxas_version)]


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="warpsim sass", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", help=".cu, .ptx or .cubin file, or a program's executable")
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
            parser.error("give a .cu, .ptx or .cubin file, or a program")
        modules, sources = _modules_for(args.source, args)
        for module in modules:
            if args.kernel and args.kernel not in module.functions and len(modules) > 1:
                continue
            print(sass.format_listing(module, args.kernel, sources=sources, show_control=not args.no_control,
                                      show_unreachable=args.all))
    except (WarpsimError, OSError) as exc:
        print(f"warpsim sass: {exc}", file=sys.stderr)
        return 1
    return 0
