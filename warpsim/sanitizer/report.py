"""Sanitizer errors and their text, in compute-sanitizer's layout.

Every line starts with "========= "; each error gives what went wrong, the
instruction (PTX line, instruction text, CUDA or Python source line, kernel),
the thread and block, the address and state space where there is one, and for
races both accesses. The report ends with "ERROR SUMMARY: N errors".
PTX lines stand where compute-sanitizer prints SASS program counters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ptx.names import demangle
from ..machine.lanes import lanes_text  # noqa: F401  (re-exported for the tools)

PREFIX = "========= "
SPACE_NAMES = {"global": "__global__", "shared": "__shared__", "local": "__local__",
               "param": "parameter", "const": "__constant__"}


def coords(xyz) -> str:
    return "(" + ",".join(str(int(v)) for v in xyz) + ")"


@dataclass
class Access:
    """One thread at one instruction: the place of an error, or one side of a race."""
    what: str                # 'Write', 'Read', 'Barrier', ... ('' for the place of an error)
    kernel: str
    block: tuple
    thread: tuple
    ptx_line: int
    instruction: str
    source_line: str = ""

    def at(self) -> str:
        src = self.source_line or "<no line info>"
        return f"at PTX line {self.ptx_line} in {src}:{demangle(self.kernel)}"

    def lines(self) -> list:
        head = f"{self.what} Thread {coords(self.thread)} {self.at()}" if self.what else \
            f"{self.at()}"
        out = [head, f"    {self.instruction}"]
        if not self.what:
            out.append(f"by thread {coords(self.thread)} in block {coords(self.block)}")
        return out


@dataclass
class SanitizerError:
    """One error report: one hazard (per pair of instructions), fault or misuse."""
    tool: str                # memcheck | racecheck | initcheck | synccheck (| target: the program failed)
    kind: str                # short name: 'RAW hazard', 'invalid write', 'divergent barrier', ...
    title: str               # the headline, as compute-sanitizer words it
    kernel: str
    accesses: list           # [Access]: the place, or both sides of a race
    details: list = field(default_factory=list)   # further lines
    count: int = 1           # occurrences folded into this report (threads, hazards, warps)
    unit: str = ""           # what count counts ('hazards', 'reads', 'warps')
    address: int | None = None
    space: str = ""
    warp_synchronous: bool = False    # racecheck: both threads in one warp
    launch: int = 0          # index of the launch in its check session

    @property
    def source_lines(self) -> list:
        return [a.source_line for a in self.accesses]

    def lines(self) -> list:
        head = self.title
        if self.count > 1:
            head += f" [{self.count:,} {self.unit or 'occurrences'}]"
        out = [head]
        for access in self.accesses:
            out += ["    " + line for line in access.lines()]
        out += ["    " + line for line in self.details]
        return out

    def text(self) -> str:
        return "".join(PREFIX + line + "\n" for line in self.lines()) + PREFIX + "\n"

    __str__ = text


TARGET_FAILED = "Target application returned an error"


def target_failure(status: int, reason: str) -> SanitizerError:
    """The program under check failed (an exception, a non-zero exit, a launch that faulted and
    was not caught): compute-sanitizer's line for it. As there, it is not one of the errors the
    ERROR SUMMARY counts; the check's exit status (the program's) says the run failed."""
    detail = f"exit status {status}" + (f": {reason}" if reason else "")
    return SanitizerError("target", "target failure", TARGET_FAILED, "", [], details=[detail])


def unwatched_failure(exc) -> SanitizerError:
    """A launch no tool watched (a SASS-only kernel) stopped with an error other than a fault."""
    kernel = getattr(exc, "kernel", "") or ""
    return SanitizerError("memcheck", "launch failure", "Launch failed: " + str(exc).splitlines()[0], kernel, [])


def summary_line(n: int) -> str:
    return f"{PREFIX}ERROR SUMMARY: {n} error{'' if n == 1 else 's'}\n"


def render(errors, print_limit: int | None = None, header: bool = True, tools=()) -> str:
    """The whole report: a header, the errors (up to print_limit; 0 or None: all), the summary."""
    out = []
    if header:
        out.append(f"{PREFIX}COMPUTE-SANITIZER (warpsim check: {', '.join(tools)})\n")
    shown = errors if not print_limit else errors[:print_limit]
    out += [e.text() for e in shown]
    if len(shown) < len(errors):
        out.append(f"{PREFIX}... {len(errors) - len(shown)} more error(s) not printed "
                   f"(--print-limit {print_limit})\n")
    out.append(summary_line(len(errors)))
    return "".join(out)
