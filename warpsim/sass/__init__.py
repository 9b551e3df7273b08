"""The SASS the GPU runs for a PTX module: ptxas + nvdisasm (PyPI) -> an IR, built lazily.

Loading a module never waits for this: `sass_of(loaded_module)` or
`sass_for_ptx(ptx_text)` runs ptxas and nvdisasm the first time it is asked for
(both cached on disk under warpsim's cache, and in memory per PTX text), so
only the users of SASS (the listing, SASS-level counters, a SASS executor) pay.

    from warpsim.sass import sass_for_ptx
    sass = sass_for_ptx(ptx)
    for ins in sass.kernel("saxpy").instructions:
        print(hex(ins.offset), ins.full_opcode, ins.control.stall, ins.ptx_line)
"""

from __future__ import annotations

import re
import weakref
from functools import lru_cache

from ..errors import WarpsimError
from ..machine.contraction import contraction_finder
from ..machine.engine import clock_source
from .contraction import fused_by_ptxas
from .disasm import decode_control, disassemble, parse_instruction, parse_listing, parse_operand
from .ir import BasicBlock, ControlCodes, Operand, SassFunction, SassInstruction, SassModule
from .listing import format_listing
from .ptx_blocks import ptx_block_cycles
from .toolchain import (DEFAULT_ARCH, CubinResult, compile_cubin, cubin_for, install_ptxas,
                        installed_ptxas_versions, ptxas_path, requested_ptxas_version)

__all__ = ["sass_for_ptx", "sass_of", "sass_for_cubin", "format_listing", "compile_cubin", "cubin_for",
           "install_ptxas", "installed_ptxas_versions", "ptxas_path", "disassemble", "parse_listing",
           "parse_instruction", "parse_operand", "decode_control", "SassModule", "SassFunction",
           "SassInstruction", "BasicBlock", "Operand", "ControlCodes", "CubinResult", "DEFAULT_ARCH"]


def sass_for_ptx(ptx_text: str, arch: str = DEFAULT_ARCH, ptxas_version: str | None = None) -> SassModule:
    """The SASS ptxas makes of `ptx_text` for `arch` (ptxas_version: e.g. '13.0', default the installed)."""
    exe = ptxas_path(ptxas_version)       # resolved first: the memory cache is per ptxas binary
    return _sass_for_ptx(ptx_text, arch, exe, requested_ptxas_version(ptxas_version))


@lru_cache(maxsize=32)
def _sass_for_ptx(ptx_text: str, arch: str, exe: str, ptxas_version: str | None) -> SassModule:
    result = compile_cubin(ptx_text, arch, ptxas_version)
    return disassemble(result.data, arch=arch, ptxas_version=result.ptxas_version, ptx_text=ptx_text,
                       notes=list(result.notes))


def sass_for_cubin(cubin: bytes) -> SassModule:
    """A cubin made elsewhere; its PTX lines come from the PTX text ptxas -lineinfo stored in it."""
    return disassemble(cubin)


_of_loaded = weakref.WeakKeyDictionary()


def sass_of(loaded_module, arch: str | None = None, ptxas_version: str | None = None) -> SassModule:
    """The SASS of a warpsim LoadedModule (or anything with `.module.text`, or a parsed PTX Module).

    Remembered per loaded module, so every user of one module shares one SassModule.
    """
    own = getattr(loaded_module, "sass_module", None)
    if own is not None:                     # a SASS-only cubin (sass/loaded.py): its own SASS, no ptxas
        return own
    module = getattr(loaded_module, "module", loaded_module)
    text = getattr(module, "text", "") or ""
    if not text:
        raise ValueError("this module has no PTX text to give ptxas")
    arch = arch or _target_arch(module)
    key = (arch, requested_ptxas_version(ptxas_version))
    try:
        remembered = _of_loaded.setdefault(loaded_module, {})
    except TypeError:                       # not weak-referenceable: no per-object memory
        remembered = {}
    if key not in remembered:
        remembered[key] = sass_for_ptx(text, arch, ptxas_version)
    return remembered[key]


def _target_arch(module) -> str:
    """The module's .target sm_XX; sm_90 when it names none (what warpsim models)."""
    for target in getattr(module, "target", ()) or ():
        if str(target).startswith("sm_"):
            return str(target)
    return DEFAULT_ARCH


def ptx_target_arch(ptx_text: str) -> str:
    """The sm_XX (sm_90a too) a PTX text's .target directive names; sm_90 when it names none."""
    found = re.search(r"^\s*\.target\s+(sm_\w+)", ptx_text, re.MULTILINE)
    return found.group(1) if found else DEFAULT_ARCH


@contraction_finder
def _contracted_by_ptxas(module, candidates) -> dict:
    """The PTX machine's question at load time (machine/contraction.py): which candidate add/sub
    ptxas fused with a multiply. Nothing where there is no PTX text, no ptxas, or ptxas refuses it."""
    if not getattr(module, "text", ""):
        return {}
    try:
        sass = sass_of(module)
    except (WarpsimError, OSError):
        return {}
    return fused_by_ptxas(sass, candidates)


@clock_source
def _clock_of_sass(program, kernel: str):
    """The PTX machine's clock for a kernel that reads it (machine/engine.block_cycles): the cycles of
    the SASS each PTX block stands for. None where there is no PTX text, no ptxas, or ptxas refuses it."""
    if not getattr(program.module, "text", ""):
        return None
    try:
        return ptx_block_cycles(program, sass_of(program.module).kernel(kernel))
    except (WarpsimError, OSError):
        return None
