"""memcheck: out-of-bounds and misaligned accesses, and traps, as sanitizer errors.

The machine already checks every lane of every access and stops the launch at
the first bad one with MemoryFault (and at trap/assert with TrapError); this
tool turns that stop into a report in compute-sanitizer's words ("Invalid
__global__ write of size 4 bytes", the thread, block, instruction, source line,
address and how far it lies from the nearest allocation). As on the hardware,
the launch is aborted: the error still reaches the program.

Not checked: leaks. Device arrays are freed when the program drops its last
reference (as CuPy's memory pool does), so there is no cudaFree to forget.
"""

from __future__ import annotations

import re

from ..errors import MemoryFault, TrapError
from .report import SPACE_NAMES, Access, SanitizerError
from .tool import LaunchTool

_FAULT = re.compile(r"^(?P<what>.+?) of (?P<size>\d+) bytes at 0x(?P<address>[0-9a-f]+): (?P<detail>.*)$")


def space_of(what: str, instruction: str, address: int) -> str:
    from ..machine.memory import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE
    for space, words in (("global", ("global", "const")), ("shared", ("shared",)),
                         ("local", ("local",)), ("param", ("parameter", "param"))):
        if any(w in what.split() for w in words):
            return space
    for space in ("shared", "local", "global", "param", "const"):
        if f".{space}" in instruction:
            return space
    if SHARED_WINDOW <= address < SHARED_WINDOW + WINDOW_SIZE:
        return "shared"
    if LOCAL_WINDOW <= address < LOCAL_WINDOW + WINDOW_SIZE:
        return "local"
    return "global"


class Memcheck(LaunchTool):
    name = "memcheck"

    def claim(self, ctx, exc) -> bool:
        if isinstance(exc, MemoryFault):
            self.errors.append(fault_error(exc))
            return True
        if isinstance(exc, TrapError):
            self.errors.append(SanitizerError(
                self.name, "trap", "Device-side assert or trap: " + str(exc).splitlines()[0],
                exc.kernel or self.kernel, [place(exc, self.kernel)]))
            return True
        return False


def place(exc, kernel: str) -> Access:
    return Access("", exc.kernel or kernel, tuple(exc.block or ()), tuple(exc.thread or ()),
                  exc.ptx_line or 0, exc.instruction, exc.source_line)


def fault_error(exc: MemoryFault) -> SanitizerError:
    message = str(exc).splitlines()[0]
    m = _FAULT.match(message)
    if m is None:
        return SanitizerError("memcheck", "invalid access", "Invalid memory access: " + message,
                              exc.kernel, [place(exc, exc.kernel)])
    what, size = m["what"], int(m["size"])
    address, detail = int(m["address"], 16), m["detail"]
    space = space_of(what, exc.instruction or "", address)
    write = "store" in what.split()
    kind = "misaligned" if "misaligned" in detail else "out of bounds"
    title = f"Invalid {SPACE_NAMES.get(space, space)} {'write' if write else 'read'} of size {size} bytes"
    return SanitizerError("memcheck", f"invalid {'write' if write else 'read'}", title, exc.kernel,
                          [place(exc, exc.kernel)],
                          details=[f"Address 0x{address:x} is {kind}: {detail}"
                                   if not detail.startswith(kind) else f"Address 0x{address:x} is {detail}"],
                          address=address, space=space)
