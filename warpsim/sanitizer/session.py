"""`with warpsim.check() as chk:` checks every launch made inside the block.

    with warpsim.check(tools=("racecheck", "synccheck")) as chk:
        kernel((4,), (64,), (x, out))
    chk.errors          # [SanitizerError], in launch order
    print(chk)          # compute-sanitizer's layout, ending in "ERROR SUMMARY: N errors"
    chk.ok              # True when nothing was found

Tools: memcheck (out-of-bounds and misaligned accesses, traps), racecheck
(shared-memory hazards), initcheck (reads of global memory never written),
synccheck (divergent barriers, .sync masks naming exited lanes, shuffles from
absent lanes, deadlocks). All four are on by default. A launch that faults
still raises its error in the program, as a failed launch does on a GPU; the
error is in the report too.
"""

from __future__ import annotations

import sys

from . import active
from .report import render, target_failure, unwatched_failure

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
DEFAULT_PRINT_LIMIT = 100


def tool_classes() -> dict:
    from .initcheck import Initcheck
    from .memcheck import Memcheck
    from .racecheck import Racecheck
    from .synccheck import Synccheck
    return {"memcheck": Memcheck, "racecheck": Racecheck, "initcheck": Initcheck,
            "synccheck": Synccheck}


def parse_tools(tools) -> tuple:
    """Tool names (a name, 'a,b', or a sequence of them) in TOOLS order; 'all' is every tool."""
    if isinstance(tools, str):
        tools = [tools]
    names = {n.strip() for t in tools for n in t.split(",") if n.strip()}
    if "all" in names:
        names = set(TOOLS)
    unknown = sorted(names - set(TOOLS))
    if unknown:
        raise ValueError(f"unknown sanitizer tool(s): {', '.join(unknown)} (choose from {', '.join(TOOLS)})")
    if not names:
        raise ValueError(f"no sanitizer tool chosen (choose from {', '.join(TOOLS)})")
    return tuple(t for t in TOOLS if t in names)


class Checker:
    """Collects the errors of every launch made while it is active (a context manager).

    With `stream` (a file), each error is also written there when its launch
    ends, up to `print_limit` errors (0 or None: all).
    """

    def __init__(self, tools=TOOLS, print_limit: int | None = DEFAULT_PRINT_LIMIT, stream=None,
                 all_threads: bool = False):
        self.tools = parse_tools(tools)
        self.all_threads = all_threads          # also launches from the process's other threads
        self.print_limit = print_limit
        self.stream = stream
        self.errors: list = []
        self.failure = None                     # the program's failure (target_failed), if it failed
        self.launches = 0
        self._printed = 0
        self._token = None

    def __enter__(self) -> "Checker":
        self._token = active.push(self, self.all_threads)
        return self

    def __exit__(self, *exc) -> None:
        active.pop(self._token)
        self._token = None

    # ------------------------------------------------------------ called by launches

    def launch_observers(self, launch) -> tuple:
        """One observer per enabled tool for this launch (a machine.events.Launch)."""
        number = self.launches
        self.launches += 1
        classes = tool_classes()
        return tuple(classes[name](self, number, launch.kernel) for name in self.tools)

    def add(self, errors) -> None:
        for error in errors:
            self.errors.append(error)
            if self.stream is not None and (not self.print_limit or self._printed < self.print_limit):
                self.stream.write(error.text())
                self.stream.flush()
                self._printed += 1

    def merge(self, errors, printed: int = 0, launches: int = 0) -> None:
        """Take the errors a session in another process found (`warpsim check ./app`), `printed`
        of them already printed there."""
        self.errors.extend(errors)
        self._printed += printed
        self.launches += launches

    def unwatched_fault(self, exc) -> None:
        """A launch that ran without this session's observers stopped with `exc`: memcheck's report
        of it (a fault is an error whichever tools are on; a run that faulted is never clean)."""
        from .memcheck import fault_error
        from ..errors import MemoryFault
        if isinstance(exc, MemoryFault):
            self.add([fault_error(exc)])
        else:
            self.add([unwatched_failure(exc)])

    def target_failed(self, status: int, reason: str = "") -> None:
        """The checked program failed: compute-sanitizer's line for it, always printed (past
        print_limit too), not counted in the ERROR SUMMARY: compute-sanitizer on an H200 reads
        "Target application returned an error" then "ERROR SUMMARY: 0 errors" for a program that
        exits 3 with no error of its tool (validation/programs/h200/native.json, race_fail_memcheck)."""
        error = target_failure(status, reason)
        self.failure = error
        if self.stream is not None:
            self.stream.write(error.text())
            self.stream.flush()

    # ------------------------------------------------------------ results

    @property
    def error_count(self) -> int:
        return len(self.errors)

    @property
    def ok(self) -> bool:
        return not self.errors

    def by_tool(self, tool: str) -> list:
        return [e for e in self.errors if e.tool == tool]

    def __len__(self) -> int:
        return len(self.errors)

    def __iter__(self):
        return iter(self.errors)

    def __getitem__(self, i):
        return self.errors[i]

    def report(self, print_limit: int | None = None, header: bool = True) -> str:
        """The compute-sanitizer-style text of every error and the ERROR SUMMARY line."""
        return render(self.errors, self.print_limit if print_limit is None else print_limit,
                      header=header, tools=self.tools)

    def __str__(self) -> str:
        return self.report()

    def __repr__(self) -> str:
        return f"<warpsim Checker ({', '.join(self.tools)}): {len(self.errors)} errors in {self.launches} launches>"

    def print(self, file=None) -> None:
        (file or sys.stdout).write(self.report())


def check(tools=TOOLS, print_limit: int | None = DEFAULT_PRINT_LIMIT, stream=None, *,
          all_threads: bool = False) -> Checker:
    """`with warpsim.check() as chk:` checks every launch inside the block (see module doc);
    all_threads=True: every launch of the process while it is open, from any thread (as
    `warpsim check` and compute-sanitizer do)."""
    return Checker(tools, print_limit, stream, all_threads)
